"""A helper of the test tree, imported by gen_data.py the way the library's folders import theirs
(the library's runners put the st folder on PYTHONPATH)."""

import os

import numpy as np


def write_case(name: str, **arrays: np.ndarray) -> None:
    os.makedirs(name, exist_ok=True)
    for file, data in arrays.items():
        data.tofile(os.path.join(name, f"{file}.bin"))
