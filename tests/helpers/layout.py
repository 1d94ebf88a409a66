"""A small kernel builder for layout/fill tests: loads host arrays into Vec tiles, runs a body."""

import ml_dtypes
import numpy as np

import ptosim as pto

NP = {
    "float32": np.float32,
    "half": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "int32": np.int32,
    "int16": np.int16,
    "uint16": np.uint16,
    "uint8": np.uint8,
    "int8": np.int8,
    "uint32": np.uint32,
    "int64": np.int64,
}


def sync(src, dst):
    pto.set_flag(src, dst, 0)
    pto.wait_flag(src, dst, 0)


class Kern:
    """Loads each host array into a full Vec tile (at increasing UB addresses), runs ``body``."""

    def __init__(self, device, arrays):
        self.dev = pto.Device(device)
        self.arrays = arrays
        self.bufs = [self.dev.gm_array(a) for a in arrays]
        self.addr = 0
        self.tiles = {}

    def place(self, tile):
        pto.TASSIGN(tile, self.addr)
        self.addr += -(-tile.rows * tile.cols * np.dtype(NP[tile.dtype.name]).itemsize // 32) * 32
        return tile

    def run(self, body):
        arrays = self.arrays

        @pto.kernel
        def k(*bufs):
            ins = []
            for b, a in zip(bufs, arrays):
                t = self.place(pto.Tile("Vec", str(b.dtype.name), *a.shape))
                pto.TLOAD(t, pto.GlobalTensor(b, shape=a.shape))
                ins.append(t)
            sync("PIPE_MTE2", "PIPE_V")
            body(self, *ins)

        self.result = self.dev.run(k, *self.bufs)
        return self

    def storage(self, tile):
        return self.result.tile_storage(tile).reshape(tile.rows, tile.cols)
