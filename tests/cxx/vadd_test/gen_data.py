"""Inputs and goldens of the vadd test folder (run in the work folder by `ptosim test`)."""

import os

import numpy as np

CASES = {
    "case_16x16": (1, 16, 16),
    "case_32x64_4blocks": (4, 32, 64),
    "case_plain_16x16": (1, 16, 16),
}

rng = np.random.default_rng(3)
for name, shape in CASES.items():
    d = f"VaddTest.{name}"
    os.makedirs(d, exist_ok=True)
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32)
    a.tofile(f"{d}/input1.bin")
    b.tofile(f"{d}/input2.bin")
    (a + b).tofile(f"{d}/golden.bin")
