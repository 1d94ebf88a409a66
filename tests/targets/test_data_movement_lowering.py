"""Data-movement lowerings as the reference library issues them (docs/timing.md).

- TMOV Vec->Vec on A2/A3 (``TMovToVec``): one copy_ubuf_to_ubuf of whole rows when dst's
  ValidCol is its Cols (statically) or the copied valid width is, else one copy per valid row,
  whatever the layout. The partial-valid ColMajor case was measured on an Atlas A2: 63 copies of
  16 blocks in 1323 cycles = 63 x (5 + 16).
- TPART's copy of the rows outside the small source: one copy when dst and the full source have
  the same Cols, else one per row.
- TLOAD on the 950 loops over shape1 and shape2 in the DMA engine (the reference sets the loop
  registers): one DMA instruction per shape0, where A2/A3 issues one per (shape0, shape1,
  shape2) block.
"""

import numpy as np

import ptosim as pto

COPY = "copy_ubuf_to_ubuf"


def _span(run, opcode):
    (state,) = [s for s in run.instructions if s.instr.opcode == opcode]
    return state.end - state.start


def _copies(run, opcode):
    return [e for e in run.trace.events if e.opcode == opcode and e.args.get("intrinsic") == COPY]


def _tmov(rows, cols, valid, layout="ColMajor", dtype="float32", dynamic=False):
    s = pto.Tile("Vec", dtype, rows, cols, layout, valid=None if dynamic else valid)
    d = pto.Tile("Vec", dtype, rows, cols, layout, valid=None if dynamic else valid)
    if dynamic:
        s.valid = d.valid = valid

    @pto.kernel
    def k():
        pto.TASSIGN(s, 0x0)
        pto.TASSIGN(d, 0x10000)
        pto.TMOV(d, s)

    run = pto.Device("a2").run(k)
    np.testing.assert_array_equal(
        run.tile(d)[: valid[0], : valid[1]], run.tile(s)[: valid[0], : valid[1]]
    )
    return run


def test_partial_valid_colmajor_tmov_is_one_copy_per_valid_row_as_measured():
    run = _tmov(64, 136, (63, 128))
    copies = _copies(run, "TMOV")
    assert [c.args["blocks"] for c in copies] == [128 * 4 // 32] * 63
    assert _span(run, "TMOV") == 1323  # measured on an Atlas A2: 63 x (5 + 16)


def test_tmov_copies_whole_rows_at_once_when_the_valid_width_is_the_tile_width():
    for layout in ("ColMajor", "RowMajor"):
        run = _tmov(64, 128, (63, 128), layout)
        assert [c.args["blocks"] for c in _copies(run, "TMOV")] == [63 * 128 * 4 // 32]
    # a dynamic valid width narrower than the tile: per valid row, in either layout
    for layout in ("ColMajor", "RowMajor"):
        run = _tmov(16, 64, (10, 40), layout, dynamic=True)
        assert [c.args["blocks"] for c in _copies(run, "TMOV")] == [40 * 4 // 32] * 10


def test_tpart_rows_outside_the_small_source_copy_per_row_when_cols_differ():
    R, C = 8, 64

    def run_part(full_cols):
        d = pto.Tile("Vec", "float32", R, C)
        full = pto.Tile("Vec", "float32", R, full_cols, valid=(R, C))
        small = pto.Tile("Vec", "float32", R, C, valid=(3, C))

        @pto.kernel
        def k():
            pto.TASSIGN(d, 0x0)
            pto.TASSIGN(full, 0x4000)
            pto.TASSIGN(small, 0x8000)
            pto.TPARTADD(d, full, small)

        return pto.Device("a2").run(k)

    same = _copies(run_part(C), "TPARTADD")
    assert [c.args["blocks"] for c in same] == [(R - 3) * C * 4 // 32]
    per_row = _copies(run_part(2 * C), "TPARTADD")
    assert [c.args["blocks"] for c in per_row] == [C * 4 // 32] * (R - 3)


def test_950_tload_is_one_dma_per_outer_block_a2_one_per_inner_block():
    """The T3 shape of the TLOAD calibration: [1, 1, 32, 2, 128] int16. A2 issues 32 DMAs
    (measured 8576 cycles = 32 x 268); the 950 issues one DMA of 64 bursts."""
    counts = {}
    for name in ("a2", "950pr"):
        dev = pto.Device(name)
        g = dev.gm_array(np.arange(32 * 2 * 128, dtype=np.int16).reshape(32, 2, 128))
        t = pto.Tile("Vec", "int16", 64, 128)

        @pto.kernel
        def k(g, t=t):
            pto.TASSIGN(t, 0)
            pto.TLOAD(t, pto.GlobalTensor(g, (1, 1, 32, 2, 128)))

        run = dev.run(k, g)
        np.testing.assert_array_equal(run.tile(t), g.numpy().reshape(64, 128))
        dmas = [e for e in run.trace.events if e.opcode == "TLOAD" and e.kind == "dma"]
        counts[name] = (len(dmas), sum(e.args["nBurst"] for e in dmas))
        if name == "a2":
            assert _span(run, "TLOAD") == 8576
    assert counts == {"a2": (32, 64), "950pr": (1, 64)}
