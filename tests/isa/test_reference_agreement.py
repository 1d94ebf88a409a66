"""Agreement with the reference CPU simulator where the library's own test folders do not look.

Each expected value is computed here from the rule the reference's cpu implementation states
(TCMPS: ``fabs(double(a) - double(b))`` against 1e-9, NE true for a NaN operand; TSEL: one bit
stream over dst's valid elements), by hand or with Python loops - never from ptosim.
"""

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.kernels import run_kernel, vec

INF = np.inf


def _mask_bits(got: np.ndarray, n: int) -> list[int]:
    return [(int(got[j // 8]) >> (j % 8)) & 1 for j in range(n)]


# -- TCMPS / TCMP with infinities and NaN --------------------------------------------------------
# columns: +inf, -inf, +inf, NaN, 1.0, 1.0 + 2**-20 (differs by more than 1e-9)
_A = [INF, -INF, INF, np.nan, 1.0, 1.0 + 2.0**-20, 0.0, 0.0]
_B = [INF, -INF, -INF, 1.0, 1.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tcmps_tile_form_ne_equal_infinities_is_false(devname):
    # cpu: NE = (a or b NaN) ? 1 : |a - b| > 1e-9; inf - inf is NaN so equal infinities are not
    # NE (and not EQ: |NaN| < 1e-9 is false). The NPUs compare IEEE-754: inf != inf is false.
    a = np.array([_A + [0.0] * 56], np.float32)
    b = np.array([_B + [0.0] * 56], np.float32)
    s0, s1, d = vec("float32", 1, 64), vec("float32", 1, 64), vec("uint8", 1, 32, valid=(1, 8))
    if devname == "a2":  # a2a3's tile form compares every element with src1[0] (+inf)
        b = np.full_like(b, INF)
    r = run_kernel(devname, [s0, s1, d], [(s0, a), (s1, b)], lambda: pto.TCMPS(d, s0, s1, "NE"))
    got = _mask_bits(np.asarray(r.tile_storage(d)), 8)
    if devname == "a2":
        assert got == [0, 1, 0, 1, 1, 1, 1, 1]
    else:
        assert got == [0, 0, 1, 1, 0, 1, 0, 0]


def test_cpu_tcmps_scalar_infinity_ne_and_eq():
    a = np.array([[INF, -INF, np.nan, 3.0] + [0.0] * 60], np.float32)
    s0, d = vec("float32", 1, 64), vec("uint8", 1, 32, valid=(1, 8))
    want = {
        "NE": [0, 1, 1, 1],  # inf vs inf: not NE; -inf - inf = -inf: NE; NaN: NE
        "EQ": [0, 0, 0, 0],  # |inf - inf| = NaN is not < 1e-9
        "GE": [1, 0, 0, 0],  # exact C comparisons
    }
    for mode, bits in want.items():
        r = run_kernel("cpu", [s0, d], [(s0, a)], lambda m=mode: pto.TCMPS(d, s0, INF, m))
        assert _mask_bits(np.asarray(r.tile_storage(d)), 4) == bits, mode


@pytest.mark.parametrize("devname", ["cpu", "a2", "950pr"])
def test_tcmp_ne_equal_infinities_is_false(devname):
    # TCMP is a plain a != b on cpu (no tolerance) and IEEE on the NPUs
    a = np.array([_A + [0.0] * 56], np.float32)
    b = np.array([_B + [0.0] * 56], np.float32)
    s0, s1 = vec("float32", 1, 64), vec("float32", 1, 64)
    d = vec("uint8", 1, 32, valid=(1, 8))
    r = run_kernel(devname, [s0, s1, d], [(s0, a), (s1, b)], lambda: pto.TCMP(d, s0, s1, "NE"))
    assert _mask_bits(np.asarray(r.tile_storage(d)), 8) == [0, 0, 1, 1, 0, 1, 0, 0]


# -- TSEL with a mask narrower than the bit stream ----------------------------------------------
def test_cpu_tsel_stream_runs_past_the_mask_rows():
    # dst 2 x 64 float: 128 bits = 16 mask bytes; the mask (2 x 32 u8) has valid_col 4, so the
    # stream reads 4 bytes per mask row and needs mask rows 0..3: rows 2 and 3 lie past the mask
    # tile, in the UB bytes after it (here: the first 64 bytes of the tile placed after it).
    R, C = 2, 64
    mk = vec("uint8", 2, 32, valid=(2, 4))
    mk_full = vec("uint8", 2, 32)  # the mask's bytes, loaded whole through an alias
    after = vec("uint8", 2, 32)  # placed right after the mask
    s0, s1, d = (vec("float32", R, C) for _ in range(3))
    rng = np.random.default_rng(7)
    mbytes = rng.integers(0, 256, (2, 32)).astype(np.uint8)
    abytes = rng.integers(0, 256, (2, 32)).astype(np.uint8)
    a = np.arange(R * C, dtype=np.float32).reshape(R, C) + 1
    places = {mk: 0, mk_full: 0, after: 64, s0: 0x400, s1: 0x800, d: 0xC00}
    r = run_kernel(
        "cpu",
        [mk, mk_full, after, s0, s1, d],
        [(mk_full, mbytes), (after, abytes), (s0, a), (s1, -a)],
        lambda: pto.TSEL(d, mk, s0, s1, None),
        places=places,
    )
    ub = np.concatenate([mbytes.ravel(), abytes.ravel()])  # the mask's row-major storage onward
    got = np.asarray(r.tile_storage(d)).reshape(R, C)
    for p in range(R * C):
        e = p // 8
        byte = ub[(e // 4) * 32 + e % 4]  # mask element (e // valid_col, e % valid_col)
        want = a.flat[p] if (byte >> (p % 8)) & 1 else -a.flat[p]
        assert got.flat[p] == want, p


def test_cpu_tsel_stream_past_the_end_of_ub_is_a_coded_error():
    # the same stream from a mask in the last bytes of UB leaves the UB: PTO202, not IndexError
    R, C = 4, 64
    mk = vec("uint8", 1, 32, valid=(1, 1))
    s0, s1, d = (vec("float32", R, C) for _ in range(3))
    ub_bytes = pto.Device("cpu").config.memory.ub_size_bytes
    with pytest.raises(pto.PtoSimError) as e:
        run_kernel(
            "cpu",
            [s0, s1, d, mk],
            [],
            lambda: pto.TSEL(d, mk, s0, s1, None),
            places={mk: ub_bytes - 32},
        )
    assert e.value.code == "PTO202" and "TSEL" in str(e.value) and "mask" in str(e.value)
