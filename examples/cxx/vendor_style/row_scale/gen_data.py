"""Inputs and goldens of the row_scale test folder, in the vendor's layout.

Run in the work directory: for every case it writes ``RowScaleTest.<case>/`` with ``x.bin``,
``scale.bin`` and ``golden.bin`` (raw little-endian arrays). The golden is
``x * scale[:, None]`` rounded once to the element type: the product of two float32 (or two half)
values computed by numpy in that type, which is what the kernel's single TROWEXPANDMUL does, so
the simulated output is expected to match bit for bit.
"""

import os

import numpy as np

CASES = {  # name: (dtype, rows, cols); the kernel's tilingKey follows this order
    "case_float_64x64": (np.float32, 64, 64),
    "case_float_128x256": (np.float32, 128, 256),
    "case_half_64x128": (np.float16, 64, 128),
}


def gen_case(name: str, dtype, rows: int, cols: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-4.0, 4.0, (rows, cols)).astype(dtype)
    scale = rng.uniform(0.25, 2.0, rows).astype(dtype)
    golden = (x * scale[:, None]).astype(dtype)
    folder = f"RowScaleTest.{name}"
    os.makedirs(folder, exist_ok=True)
    x.tofile(os.path.join(folder, "x.bin"))
    scale.tofile(os.path.join(folder, "scale.bin"))
    golden.tofile(os.path.join(folder, "golden.bin"))


if __name__ == "__main__":
    for seed, (name, (dtype, rows, cols)) in enumerate(CASES.items()):
        gen_case(name, dtype, rows, cols, seed)
