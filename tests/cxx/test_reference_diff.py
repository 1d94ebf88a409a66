"""Differential tests against the reference CPU simulator: tests/cxx/reference_diff/driver.cpp
is compiled against a pto-isa checkout's include/ (PTOSIM_PTO_ISA, else shared/pto-isa beside
the repo; skipped when there is none) and runs one instruction on UB bytes; ptosim runs the same
kernel on device cpu from the same bytes, and the UB bytes after must be identical."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ptosim as pto
from tests.helpers.paths import PTO_ISA

pytestmark = [pytest.mark.cxx, pytest.mark.slow]

DRIVER = Path(__file__).parent / "reference_diff" / "driver.cpp"
UB_BYTES = 0x4000


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The compiled driver (g++ or clang++; the library's CPU build flags)."""
    inc = PTO_ISA / "include"
    if not (inc / "pto" / "cpu" / "TCmps.hpp").is_file():
        pytest.skip("no pto-isa checkout (set PTOSIM_PTO_ISA)")
    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no system C++ compiler")
    exe = tmp_path_factory.mktemp("refdiff") / "driver"
    flags = ["-std=c++20", "-D__CPU_SIM", "-include", "cstdint", "-include", "cstddef", "-O0"]
    cmd = [cxx, *flags, f"-I{inc}", f"-I{inc / 'common'}", str(DRIVER), "-o", str(exe), "-lpthread"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    return exe


def run_reference(exe: Path, case: str, ub: np.ndarray, tmp_path: Path) -> np.ndarray:
    (tmp_path / "in.bin").write_bytes(ub.tobytes())
    p = subprocess.run([str(exe), case, str(tmp_path / "in.bin"), str(tmp_path / "out.bin")],
                       capture_output=True, text=True, timeout=60)  # fmt: skip
    assert p.returncode == 0, (case, p.returncode, p.stderr)
    return np.frombuffer((tmp_path / "out.bin").read_bytes(), np.uint8)


def run_ptosim(ub: np.ndarray, body) -> np.ndarray:
    """Load ``ub`` into UB [0, UB_BYTES) through one u8 tile, run ``body()``, return the bytes."""
    dev = pto.Device("cpu")
    buf = dev.gm_array(ub.reshape(UB_BYTES // 256, 256))
    whole = pto.Tile("Vec", "uint8", UB_BYTES // 256, 256)

    @pto.kernel
    def k(b):
        pto.TASSIGN(whole, 0)
        pto.TLOAD(whole, pto.GlobalTensor(b, (1, 1, 1, UB_BYTES // 256, 256)))
        body()

    r = dev.run(k, buf)
    return np.ascontiguousarray(r.tile_storage(whole)).view(np.uint8).ravel()


def tile(dt, rows, cols, addr, valid=None):
    t = pto.Tile("Vec", dt, rows, cols, valid=valid)
    pto.TASSIGN(t, addr)
    return t


def put(ub, addr, values):
    raw = np.ascontiguousarray(values).view(np.uint8).ravel()
    ub[addr : addr + raw.size] = raw


def _tcmps(ub):
    put(ub, 0, np.array([np.inf, -np.inf, np.inf, np.nan, 1.0, 1.0 + 2.0**-20] + [0.0] * 58,
                        np.float32))  # fmt: skip
    return lambda: pto.TCMPS(tile("uint8", 1, 32, 0x1000, (1, 8)), tile("float32", 1, 64, 0),
                             np.inf, "NE")  # fmt: skip


def _tsel(ub):
    rng = np.random.default_rng(1)
    put(ub, 0, rng.integers(0, 256, 0x100, dtype=np.uint8))  # the mask and the bytes after it
    put(ub, 0x400, np.arange(128, dtype=np.float32) + 1)
    put(ub, 0x800, -np.arange(128, dtype=np.float32) - 1)
    return lambda: pto.TSEL(tile("float32", 2, 64, 0xC00), tile("uint8", 2, 32, 0, (2, 4)),
                            tile("float32", 2, 64, 0x400), tile("float32", 2, 64, 0x800),
                            tile("uint8", 1, 32, 0x3000))  # fmt: skip


def _sort32(dt, rows, valid_col, dst_cols):
    def setup(ub):
        rng = np.random.default_rng(valid_col)
        put(ub, 0, rng.integers(-4, 5, (rows, 64)).astype(dt))
        put(ub, 0x400, rng.permutation(rows * 64).astype(np.uint32))
        return lambda: pto.TSORT32(tile(dt, rows, dst_cols, 0x800),
                                   tile(dt, rows, 64, 0, (rows, valid_col)),
                                   tile("uint32", rows, 64, 0x400, (rows, valid_col)),
                                   tile(dt, 1, 64, 0x3000))  # fmt: skip

    return setup


def _records(pairs):
    out = np.zeros(2 * len(pairs), np.float32)
    for k, (s, i) in enumerate(pairs):
        out[2 * k], out[2 * k + 1] = s, np.array([i], np.uint32).view(np.float32)[0]
    return out


def _mrg_exhausted(ub):
    put(ub, 0, _records([(9, 0), (3, 1)]))
    put(ub, 0x100, _records([(8, 10), (5, 11), (3, 12), (0, 13), (-1, 14), (-2, 15), (-3, 16),
                             (-4, 17)]))  # fmt: skip
    return lambda: pto.TMRGSORT(tile("float32", 1, 32, 0x200), tile("float32", 1, 8, 0, (1, 4)),
                                tile("float32", 1, 16, 0x100), exhausted=True)  # fmt: skip


def _mrg_block_len(ub):
    rng = np.random.default_rng(5)
    blocks = []
    for b in range(8):
        scores = -np.sort(-rng.integers(-6, 6, 32))
        blocks.append(_records([(float(s), 100 * b + k) for k, s in enumerate(scores)]))
    put(ub, 0, np.concatenate(blocks))
    return lambda: pto.TMRGSORT(tile("float32", 1, 512, 0x800), tile("float32", 1, 512, 0),
                                block_len=64)  # fmt: skip


def _tlog(ub):
    put(ub, 0, np.array([1, 2, 3, 7, 8, 20, 21, 1000, 2**31 - 1, 54, 55] * 5 + [9] * 9, np.int32))
    return lambda: pto.TLOG(tile("int32", 1, 64, 0x100), tile("int32", 1, 64, 0))


CASES = {
    "tcmps_ne_inf": _tcmps,
    "tsel_short_mask": _tsel,
    "tsort32_half_17": _sort32(np.float16, 2, 17, 256),
    "tsort32_f32_63": _sort32(np.float32, 1, 63, 128),
    "tmrgsort_exhausted": _mrg_exhausted,
    "tmrgsort_block_len": _mrg_block_len,
    "tlog_i32": _tlog,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_ub_bytes_match_the_reference_cpu_simulator(reference, case, tmp_path):
    ub = np.zeros(UB_BYTES, np.uint8)
    body = CASES[case](ub)
    want = run_reference(reference, case, ub, tmp_path)
    got = run_ptosim(ub, body)
    diff = np.flatnonzero(got != want)
    assert diff.size == 0, f"{case}: {diff.size} bytes differ, first at {diff[:8].tolist()}"
