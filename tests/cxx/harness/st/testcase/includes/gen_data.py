import os

import numpy as np

os.makedirs("Includes.scales", exist_ok=True)
x = np.arange(256, dtype=np.float32) - 100
x.tofile("Includes.scales/input.bin")
(x * np.float32(2)).tofile("Includes.scales/golden.bin")
