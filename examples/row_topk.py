"""Row top-k with TSORT32: the K = 4 best of 32 candidate scores per row, with their indices.

The selection step of beam search or of a mixture-of-experts router, on every device (the
argmax instruction TROWARGMAX of row_argmax.py does not exist on a5). 8 rows of 32 float32
scores and a [8, 32] uint32 index tile (the candidate ids, loaded from GM) go through
``TSORT32(sorted, scores, ids, tmp)``, which sorts each block of 32 (score, index) pairs by score
descending, ties by index ascending, into 8-byte records ``[score f32][index u32]``: a [8, 64]
float32 tile. The top K records of each row are its first 2K elements: a ``TSUBVIEW`` with
valid shape (8, 2K) of the sorted tile is stored to an (8, 2K) GlobalTensor, so only the
selected records leave the core.

The data has ties (equal scores at different candidates: the lower index first) and a
signed-zero pair. The sort moves bits without arithmetic, so the expected records are the same on
every target; ``check`` computes them with a stable numpy argsort of the negated scores.

Run it: ``python -m ptosim run examples/row_topk.py --device 950pr``.
"""

import numpy as np

import ptosim as pto

DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
V = pto.PIPE_V
ROWS, CANDIDATES, K = 8, 32, 4


@pto.kernel
def row_topk(scores, ids, out):
    s = pto.Tile("Vec", "float32", ROWS, CANDIDATES, name="scores")
    i = pto.Tile("Vec", "uint32", ROWS, CANDIDATES, name="ids")
    tmp = pto.Tile("Vec", "float32", ROWS, 2 * CANDIDATES, name="tmp")
    srt = pto.Tile("Vec", "float32", ROWS, 2 * CANDIDATES, name="sorted")
    top = pto.Tile("Vec", "float32", ROWS, 2 * CANDIDATES, valid=(ROWS, 2 * K), name="top")
    pto.TLOAD(s, pto.GlobalTensor(scores, shape=(1, 1, 1, ROWS, CANDIDATES)))
    pto.TLOAD(i, pto.GlobalTensor(ids, shape=(1, 1, 1, ROWS, CANDIDATES)))
    pto.set_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    pto.wait_flag(pto.PIPE_MTE2, V, pto.EVENT_ID0)
    pto.TSORT32(srt, s, i, tmp)
    pto.TSUBVIEW(top, srt, 0, 0)  # the first K records of each row
    pto.set_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.wait_flag(V, pto.PIPE_MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, ROWS, 2 * K)), top)


def host_data():
    rng = np.random.default_rng(8)
    scores = rng.standard_normal((ROWS, CANDIDATES)).astype(np.float32)
    scores[0, [4, 9, 30]] = 5.0  # a three-way tie at the top: ids 4, 9, 30 in that order
    scores[1, 12] = scores[1, 2] = 3.0  # a tie: id 2 before id 12
    scores[2] = -np.abs(scores[2]) - 1.0
    scores[2, 5], scores[2, 7] = 0.0, -0.0  # the two zeros lead row 2
    ids = (np.arange(ROWS * CANDIDATES, dtype=np.uint32) * 7 % 1000).reshape(ROWS, CANDIDATES)
    ids[0, [4, 9, 30]] = (40, 90, 300)  # keep the tie order visible in the ids
    ids[1, [2, 12]] = (20, 120)
    return scores, ids


def inputs(dev):
    scores, ids = host_data()
    return dev.gm_array(scores), dev.gm_array(ids), dev.gm_zeros((ROWS, 2 * K), "float32")


def check(dev, args, run):
    scores, ids = host_data()
    # descending by score, stable: equal scores (also +0 and -0, which compare equal) keep
    # their column order
    order = np.argsort(-scores, axis=1, kind="stable")[:, :K]
    want = np.empty((ROWS, K, 2), np.uint32)
    want[:, :, 0] = np.take_along_axis(scores, order, axis=1).view(np.uint32)
    want[:, :, 1] = np.take_along_axis(ids, order, axis=1)
    assert list(want[0, :3, 1]) == [40, 90, 300] and list(want[1, :2, 1]) == [20, 120]
    got = args[2].numpy().view(np.uint32).reshape(ROWS, K, 2)
    return np.array_equal(got, want)
