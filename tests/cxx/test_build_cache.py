"""The build cache: content-keyed objects shared across targets, an LRU size cap, and
`ptosim cache`."""

from __future__ import annotations

import os
import time

import pytest

from ptosim.cli import main
from ptosim.cxx import build as B
from ptosim.cxx import cache as C

HOST = """\
#include <gtest/gtest.h>
TEST(Host, runs) { EXPECT_EQ(2 + 2, 4); }
"""
KERNEL = """\
#include <pto/pto-inst.hpp>
using namespace pto;
#if defined(__DAV_C310_VEC__)
constexpr int kRows = 8;
#else
constexpr int kRows = 16;
#endif
__global__ AICORE void k(__gm__ float *out)
{
    Tile<TileType::Vec, float, kRows, 16> t;
    TASSIGN(t, 0);
    TEXPANDS(t, 1.0f);
}
"""


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "cxx"


def test_a_unit_without_target_macros_is_one_object_for_every_npu_target(tmp_path, cache_root):
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "main.cpp").write_text(HOST)
    (folder / "f_kernel.cpp").write_text(KERNEL)
    sources = sorted(folder.glob("*.cpp"))
    a2 = B.build_test(sources, target="a2a3", compiler="g++")
    objects_after_a2 = set((cache_root / "obj").iterdir())
    a5 = B.build_test(sources, target="a5", compiler="g++")
    new = set((cache_root / "obj").iterdir()) - objects_after_a2
    # main.cpp and the runner are host units (no device macros): reused; the kernel tests a
    # target macro: one new object
    assert len(objects_after_a2) == 3 and len(new) == 1
    assert a2.path != a5.path and not a5.cached
    # a second build of each is served from the manifest without the preprocessor
    assert B.build_test(sources, target="a5", compiler="g++").cached


def test_a_kernel_whose_text_does_not_depend_on_the_target_is_built_once(tmp_path, cache_root):
    src = tmp_path / "k.cpp"
    src.write_text(KERNEL.replace("__DAV_C310_VEC__", "SOMETHING_NO_TARGET_DEFINES"))
    first = B.build(src, ["k"], target="a2a3", compiler="g++")
    second = B.build(src, ["k"], target="a5", compiler="g++")
    assert first.path == second.path and second.cached


def _fill(folder, name, size, age_seconds):
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_bytes(b"x" * size)
    t = time.time() - age_seconds
    os.utime(p, (t, t))
    return p


def test_trim_removes_the_least_recently_used_first(cache_root):
    old = _fill(cache_root, "old-1.so", 4000, 3600)
    mid = _fill(cache_root / "obj", "mid.o", 4000, 1800)
    new = _fill(cache_root, "new-2.so", 4000, 600)
    recent = _fill(cache_root, "recent-3.so", 4000, 1)  # in use by another process, maybe
    assert C.trim(cache_root, cap_bytes=9000) == 8000
    assert not old.exists() and not mid.exists() and new.exists() and recent.exists()
    C.touch(new)  # used now: becomes the most recent
    assert C.trim(cache_root, cap_bytes=5000) == 0  # both left are in their grace minute
    assert new.exists() and recent.exists()


def test_the_cap_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("PTOSIM_CACHE_MAX_MB", "2.5")
    assert C.max_bytes() == int(2.5 * 2**20)
    monkeypatch.delenv("PTOSIM_CACHE_MAX_MB")
    assert C.max_bytes() == C.DEFAULT_MAX_MB * 2**20
    monkeypatch.setenv("PTOSIM_CACHE_MAX_MB", "lots")
    from ptosim.errors import ConfigError

    with pytest.raises(ConfigError, match="PTOSIM_CACHE_MAX_MB='lots'"):
        C.max_bytes()


def test_ptosim_cache_shows_and_clears(cache_root, capsys, monkeypatch):
    monkeypatch.setenv("PTOSIM_CACHE_MAX_MB", "64")
    _fill(cache_root, "a-1.so", 3 * 2**20, 10)
    _fill(cache_root / "obj", "b.o", 2**20, 10)
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert str(cache_root) in out
    assert "4.0 MB in 1 libraries and 1 objects; cap 64 MB" in out
    assert main(["cache", "clear"]) == 0
    assert "removed" in capsys.readouterr().out and not cache_root.exists()
    assert main(["cache"]) == 0
    assert "0.0 MB in 0 libraries and 0 objects" in capsys.readouterr().out
