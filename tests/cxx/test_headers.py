"""Every header name of the library's public layout (ptosim/cxx/library_headers.toml) has a
counterpart: ptosim's stand-in, a generated header, or a stop at the user's #include line."""

from __future__ import annotations

import pytest

from ptosim.cxx import build as B
from ptosim.cxx import headers as H
from ptosim.errors import CxxBuildError
from tests.helpers.paths import PTO_ISA


def test_the_list_has_each_kind_and_no_duplicates():
    names = H.names()
    assert len(names) == len(set(names))
    assert {"pto/pto-inst.hpp", "pto/common/constants.hpp", "pto/npu/a2a3/MGather.hpp",
            "pto/npu/a5/MScatter.hpp", "pto/cpu/tile_offsets.hpp", "kernel_operator.h",
            "acl/acl.h", "gtest/gtest.h"} <= set(H.names("shim"))  # fmt: skip
    assert "pto/comm/comm_types.hpp" in H.names("unsupported")
    assert set(H.names("test-tree")) == {
        "test_common.h", "cpu_tile_test_utils.h", "partarg_test_utils.hpp",
    }  # fmt: skip


def test_every_name_resolves(tmp_path):
    missing = [n for n in H.names() if H.resolves(n, tmp_path) is None]
    assert missing == []
    # the stand-ins with content of their own are real files, the rest generated
    assert H.resolves("pto/cpu/tile_offsets.hpp", tmp_path).parent == H.INCLUDE_DIR / "pto/cpu"
    assert H.resolves("test_common.h", tmp_path).parent == H.FALLBACK_DIR
    generated = H.resolves("pto/npu/a2a3/TAdd.hpp", tmp_path)
    assert generated.read_text().rstrip().endswith('#include "ptosim_shim/pto.hpp"')


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_one_file_including_every_shim_and_test_tree_name_compiles(tmp_path, monkeypatch, target):
    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "all.cpp"
    lines = [f"#include <{n}>" for n in H.names("shim") + H.names("test-tree")]
    src.write_text("\n".join(lines) + '\nextern "C" void k() {}\n')
    lib = B.build(src, ["k"], target=target, compiler="g++")
    assert lib.path.is_file()


def test_an_unsupported_header_stops_at_the_users_include_line(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k.cpp"
    src.write_text(
        '#include <pto/pto-inst.hpp>\n\n#include "pto/comm/pto_comm_inst.hpp"\n'
        'extern "C" void k() {}\n'
    )
    with pytest.raises(CxxBuildError) as err:
        B.build(src, ["k"], target="a2a3", compiler="g++")
    assert str(err.value) == (
        "[PTO104] k.cpp:3: pto/comm/pto_comm_inst.hpp belongs to the pto::comm collective API, "
        "which ptosim does not model"
    )


def test_a_checkouts_own_test_common_h_wins_over_the_stand_in(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path / "cache"))
    common = tmp_path / "checkout" / "tests" / "common"
    common.mkdir(parents=True)
    (common / "test_common.h").write_text("#pragma once\n#define FROM_THE_CHECKOUT 1\n")
    src = tmp_path / "k.cpp"
    src.write_text(
        '#include "test_common.h"\nstatic_assert(FROM_THE_CHECKOUT == 1);\nextern "C" void k() {}\n'
    )
    B.build(src, ["k"], target="cpu", compiler="g++", include_dirs=[common])
    with pytest.raises(CxxBuildError, match="FROM_THE_CHECKOUT"):  # the stand-in has no such macro
        B.build(src, ["k"], target="cpu", compiler="g++")


@pytest.mark.skipif(not (PTO_ISA / "include" / "pto").is_dir(), reason="no pto-isa snapshot")
def test_the_list_matches_the_librarys_layout():
    """When a pto-isa checkout is at hand (../shared/pto-isa, or PTOSIM_PTO_ISA), the data file
    lists exactly its include/ headers and its tests/common headers."""
    inc = PTO_ISA / "include"
    layout = {str(p.relative_to(inc)) for p in inc.rglob("*") if p.suffix in (".h", ".hpp")} | {
        p.name for p in (PTO_ISA / "tests" / "common").iterdir() if p.suffix in (".h", ".hpp")
    }
    listed = set(H.names()) - {"kernel_operator.h", "acl/acl.h", "gtest/gtest.h"}
    assert sorted(layout - listed) == [] and sorted(listed - layout) == []


def test_the_operand_counts_follow_the_registry():
    from ptosim.isa import registry

    least, most, shown = H.operand_range(registry.spec("TLOG").function)
    assert (least, shown.split(",")[:2]) == (2, ["dst", " src"])
    text = H.arity_header()
    assert "#define PTOSIM_ARITY_TLOG(n) static_assert((n) >= 2" in text
    assert "#define PTOSIM_ARITY_TIMG2COL(n)\n" in text  # not implemented: stops at run time


@pytest.mark.parametrize(
    "call, message",
    [
        ("TLOG(t);", "k.cpp:8: TLOG takes 2 operands (dst, src)"),
        ("TADD(t, t);", "k.cpp:8: TADD takes 3 operands (dst, src0, src1)"),
        ("TEXP(t, t, t);", "k.cpp:8: TEXP takes 2 operands (dst, src)"),
        ("TROWSUM(t);", "k.cpp:8: TROWSUM takes 3 operands (dst, src, tmp)"),
    ],
)
def test_a_wrong_operand_count_is_a_compile_error_at_the_call(tmp_path, monkeypatch, call, message):
    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k.cpp"
    src.write_text(
        "#include <pto/pto-inst.hpp>\nusing namespace pto;\n\n"
        'extern "C" __global__ AICORE void k(__gm__ float *out)\n{\n'
        "    Tile<TileType::Vec, float, 16, 16> t;\n    TASSIGN(t, 0);\n"
        f"    {call}\n}}\n"
    )
    with pytest.raises(CxxBuildError) as err:
        B.build(src, ["k"], target="a2a3", compiler="g++")
    assert message in str(err.value) and "\n" not in str(err.value)
