"""Inputs and goldens of the shapes folder (run in the work folder, as the library's runners do)."""

import numpy as np
from utils import write_case  # st/utils.py: the test tree's helper

rng = np.random.default_rng(7)


def add_case(name, rows, cols, dtype):
    a = rng.integers(-50, 50, size=(rows, cols)).astype(dtype)
    b = rng.integers(-50, 50, size=(rows, cols)).astype(dtype)
    write_case(name, input1=a, input2=b, golden=(a + b).astype(dtype))


add_case("ShapesTest.launched_16x16", 16, 16, np.float32)
add_case("ShapesTest.plain_16x16", 16, 16, np.float32)
add_case("ShapesTest.host_fill_16x16", 16, 16, np.float32)
add_case("ShapesTest.plain_copy_16x16", 16, 16, np.float32)
add_case("ShapesTest.plain_out_16x16", 16, 16, np.float32)
for r, c in [(16, 16), (32, 64)]:
    add_case(f"Sizes/AddP.float/{r}x{c}", r, c, np.float32)
for i in range(4):
    add_case(f"Grid/AddGrid.float/{i}", 16, 16, np.float32)
for i, dt in enumerate([np.float32, np.int32]):
    add_case(f"AddTyped/{i}.adds", 16, 16, dt)
