"""Building C++ kernels: compiler discovery and fallback, the cache, the <<<>>> rewrite on
preprocessed source, build errors at the user's line."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import ptosim as pto
from ptosim.cxx import build as B
from ptosim.cxx.diagnostics import explain
from ptosim.errors import CxxBuildError, CxxError
from tests.helpers.paths import CXX_DIR, ROOT

HERE = CXX_DIR
ADD = """#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void k(__gm__ float *out, __gm__ float *a)
{
    Tile<TileType::Vec, float, 8, 8> t;
    GlobalTensor<float, Shape<1, 1, 1, 8, 8>, Stride<64, 64, 64, 8, 1>> ga(a), go(out);
    TLOAD(t, ga);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TADDS(t, t, 1.5f);
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    TSTORE(go, t);
}
"""


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PTOSIM_CXX", raising=False)


def _kernel_file(tmp_path, text=ADD, name="k.cpp"):
    p = tmp_path / name
    p.write_text(text)
    return p


def _run(path, compiler):
    dev = pto.Device("a2")
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    ga, go = dev.gm_array(a), dev.gm_zeros((8, 8), "float32")
    dev.run(pto.cxx.load(path, compiler=compiler).entry("k"), go, ga)
    return np.array_equal(go.numpy(), a + np.float32(1.5))


def test_default_compiler_is_the_system_one_else_zig(monkeypatch, tmp_path):
    monkeypatch.delenv("PTOSIM_CXX", raising=False)
    gxx, clang = tmp_path / "g++", tmp_path / "clang++"
    for exe in (gxx, clang):
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(B, "_has_ziglang", lambda: True)
    assert B.compiler_command() == [str(gxx)]  # g++ first
    gxx.unlink()
    assert B.compiler_command() == [str(clang)]  # then clang++
    clang.unlink()
    assert B.compiler_command() == [sys.executable, "-m", "ziglang", "c++"]  # then zig
    monkeypatch.setenv("PTOSIM_CXX", "zig")
    assert B.compiler_command() == [sys.executable, "-m", "ziglang", "c++"]


def test_missing_compiler_is_one_clear_error(monkeypatch, tmp_path):
    with pytest.raises(CxxBuildError, match=r'pip install "ptosim\[cxx\]"'):
        B.compiler_command("no-such-c++")
    monkeypatch.setattr(B, "_has_ziglang", lambda: False)
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH
    with pytest.raises(CxxBuildError, match="no C\\+\\+ compiler found.*ptosim\\[cxx\\]"):
        B.compiler_command()


def test_system_gxx_builds_and_runs(tmp_path):
    assert _run(_kernel_file(tmp_path), "g++")


@pytest.mark.slow  # a zig clang build takes 20-50 s here
@pytest.mark.skipif(
    not B._has_ziglang(), reason="the ziglang package (ptosim[cxx]) is not installed"
)
def test_zig_clang_builds_and_runs(tmp_path):
    assert _run(_kernel_file(tmp_path), "zig")


def test_second_load_uses_the_cache_and_an_edit_rebuilds(tmp_path):
    src = _kernel_file(tmp_path)
    first = B.build(src, ["k"], target="a2a3")
    second = B.build(src, ["k"], target="a2a3")
    assert not first.cached and second.cached and second.path == first.path
    src.write_text(ADD.replace("1.5f", "2.5f"))
    third = B.build(src, ["k"], target="a2a3")
    assert not third.cached and third.path != first.path
    # an edit of a comment only (lines unchanged) leaves the preprocessed source alone: cached
    src.write_text(ADD.replace("1.5f", "2.5f").replace("TLOAD(t, ga);", "TLOAD(t, ga);  // load"))
    assert B.build(src, ["k"], target="a2a3").cached


def test_compile_error_names_the_users_line(tmp_path):
    src = _kernel_file(tmp_path, ADD.replace("TADDS(t, t, 1.5f);", "TADDS(t, t, 1.5f) oops;"))
    with pytest.raises(CxxBuildError) as exc:
        B.build(src, ["k"], target="a2a3")
    assert "k.cpp:10:" in str(exc.value)
    assert "ptosim bug" not in str(exc.value)


CONV = """#include <pto/pto-inst.hpp>
using namespace pto;
extern "C" __global__ AICORE void k(__gm__ float *out)
{
    create_cbuf_matrix(out, 0, 0);
}
"""


@pytest.mark.parametrize("compiler", ["g++", None])  # None: the default (zig clang or another)
def test_unsupported_pto_isa_api_is_one_line_naming_it(tmp_path, compiler):
    """pto-isa API ptosim's headers do not declare: one line with the user's line and the name,
    not the compiler's cascade (g++ and clang word it differently)."""
    src = _kernel_file(tmp_path, CONV)
    with pytest.raises(CxxBuildError) as exc:
        B.build(src, ["k"], target="a2a3", compiler=compiler)
    assert str(exc.value) == "[PTO104] k.cpp:5: create_cbuf_matrix (a raw cube-buffer " + (
        "intrinsic) is not supported by ptosim"
    )


def test_unknown_entry_is_named(tmp_path):
    with pytest.raises(CxxBuildError, match="no kernel function named 'nope'"):
        B.build(_kernel_file(tmp_path), ["nope"], target="a2a3")


def test_error_only_in_shim_headers_is_reported_as_a_ptosim_bug(tmp_path):
    shim = B.INCLUDE_DIR / "ptosim_shim" / "pto.hpp"
    text = f"{shim}:12:3: error: something broke\n"
    msg = explain(text, tmp_path / "k.cpp", tmp_path / "w.cpp", ["k"])
    assert "ptosim bug" in msg and "pto.hpp:12" in msg


def test_a_call_that_fails_inside_a_shim_template_names_the_users_line(tmp_path):
    """A misuse the shim rejects (a static_assert in a header template) is the user's line and
    the header's complaint, not a bare 'required from here'."""
    src = tmp_path / "bad.cpp"
    misuse = "    float x = 1.0f;\n    TASSIGN(x, 0x100);\n"
    src.write_text(ADD.replace("    TLOAD(t, ga);\n", misuse))
    with pytest.raises(CxxBuildError) as err:
        B.build(src, ["k"], target="a2a3")
    msg = str(err.value)
    assert "bad.cpp:8: this call does not compile against ptosim's pto-isa headers" in msg
    assert "TASSIGN: Tile or GlobalTensor expected" in msg
    assert "\n" not in msg


def test_entry_names_demangled_forms():
    assert B.entry_expression("kern") == "kern"
    assert B.entry_expression("void ns::kern<float, 16>(float*, float*)") == "ns::kern<float, 16>"
    with pytest.raises(CxxBuildError):
        B.entry_expression("not a name!")


def test_launch_rewrite_runs_on_preprocessed_source_and_asm_is_neutralised(tmp_path):
    """The callee is macro-generated (KNAME(one)); the device asm would not assemble."""
    src = HERE / "launch.cpp"
    prog = pto.cxx.load(src)
    dev = pto.Device("a2")
    line = next(n for n, t in enumerate(src.read_text().splitlines(), 1) if "@launch" in t)
    with pytest.raises(CxxError, match=rf"launch.cpp:{line}: a kernel launch"):
        dev.run(prog.entry("host"), dev.gm_zeros(4, "float32"))


def test_rewrite_helpers():
    assert (
        B.rewrite_launches("f<T, (N > 1)><<<8, l2, s>>>(x);")
        == "::ptosim::launch(f<T, (N > 1)>, 8, l2, s)(x);"
    )
    text = 'a;\nasm volatile("x"\n "y");\nb;'
    assert B.neutralize_asm(text) == "a;\n((void)0)\n;\nb;"
    # only the user's parts are touched: a system header's asm label stays
    pre = '# 1 "/sys/h.h"\nint f() __asm__ volatile("g");\n# 1 "/u/k.cpp"\nasm volatile("nop");\n'
    out = B.transform(pre, {"/u/k.cpp"})
    assert '__asm__ volatile("g")' in out and 'asm volatile("nop")' not in out


def test_every_shim_header_is_package_data():
    """A non-editable install must carry every header of ptosim/cxx/include."""
    import tomllib

    root = ROOT
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["ptosim"]
    pkg = root / "ptosim"
    covered = {p for pat in patterns for p in pkg.glob(pat) if p.is_file()}
    headers = {p for p in B.INCLUDE_DIR.rglob("*") if p.is_file()}
    assert headers and headers <= covered


# an explicit instantiation clang (the library's device compiler is clang-based) resolves to the
# more specialised template and g++ 12 calls ambiguous (the shape of the a5 tadds folder)
_CLANG_ONLY = """
template <unsigned N, typename T>
T pick(T v) { return v + (T)N; }
template <unsigned N>
float pick(float v) { return pick<N, float>(v) * 2.0f; }
template float pick<1>(float);
extern "C" float k(float v) { return pick<1>(v); }
"""


def test_clang_fallback_only_for_an_automatic_gxx(monkeypatch):
    monkeypatch.setattr(B.shutil, "which", lambda name: None)  # no system clang++
    monkeypatch.setattr(B, "_has_ziglang", lambda: True)
    zig = [sys.executable, "-m", "ziglang", "c++"]
    assert B.clang_fallback(None, ["/usr/bin/g++"]) == zig
    assert B.clang_fallback("g++", ["/usr/bin/g++"]) is None  # the user named the compiler
    assert B.clang_fallback(None, ["/usr/bin/clang++"]) is None  # clang already
    monkeypatch.setenv("PTOSIM_CXX", "g++")
    assert B.clang_fallback(None, ["/usr/bin/g++"]) is None
    monkeypatch.delenv("PTOSIM_CXX")
    monkeypatch.setattr(B, "_has_ziglang", lambda: False)
    assert B.clang_fallback(None, ["/usr/bin/g++"]) is None  # nothing to fall back to


@pytest.mark.slow
@pytest.mark.skipif(
    not B._has_ziglang(), reason="the ziglang package (ptosim[cxx]) is not installed"
)
def test_code_only_clang_accepts_builds_with_clang_when_gxx_was_automatic(tmp_path, monkeypatch):
    import ctypes

    src = _kernel_file(tmp_path, _CLANG_ONLY)
    with pytest.raises(CxxBuildError, match="ambiguous"):
        B.build(src, [], target="a5", compiler="g++")  # named: no retry
    monkeypatch.setattr(B.shutil, "which", lambda name: "/usr/bin/g++" if name == "g++" else None)
    lib = B.build(src, [], target="a5")
    assert B._is_zig(lib.compiler)
    k = ctypes.CDLL(str(lib.path)).k
    k.restype, k.argtypes = ctypes.c_float, [ctypes.c_float]
    assert k(2.0) == 6.0  # the two-parameter template's v + 1, doubled


def test_a_source_wrong_for_both_compilers_reports_gxxs_message(tmp_path, monkeypatch):
    tried = []

    def fallback(compiler, cmd):
        tried.append(cmd)
        return [sys.executable, "-m", "no_such_module_ptosim"]  # fails to compile anything

    monkeypatch.setattr(B, "clang_fallback", fallback)
    bad = _kernel_file(tmp_path, "int broken = ;\n", "bad.cpp")
    with pytest.raises(CxxBuildError, match=r"bad\.cpp:1:14: error: expected primary-expression"):
        B.build(bad, [], target="a5", compiler="g++")
    assert len(tried) == 1  # the retry was made


def test_an_unsupported_intrinsic_called_without_dependent_arguments_is_named(tmp_path):
    """gcc's wording for an undeclared call inside a template (a raw
    cube-buffer intrinsic) names the intrinsic like the other undeclared-name errors."""
    src = tmp_path / "k.cpp"
    text = (
        f"{src}:26:5: error: there are no arguments to \u2018create_cbuf_matrix\u2019 that "
        "depend on a template parameter, so a declaration of "
        "\u2018create_cbuf_matrix\u2019 must be available [-fpermissive]\n"
    )
    msg = explain(text, src, tmp_path / "w.cpp", ["k"])
    assert (
        msg == "k.cpp:26: create_cbuf_matrix (a raw cube-buffer intrinsic) is not supported "
        "by ptosim"
    )


def test_the_950_fifo_api_ptosim_lacks_is_named_at_its_line(tmp_path):
    src = tmp_path / "k.cpp"
    text = (
        f"{src}:50:43: error: \u2018LayoutMode_t\u2019 is not a member of \u2018pto\u2019\n"
        f"{src}:51:11: error: \u2018FixpipeParams\u2019 does not name a type\n"
    )
    msg = explain(text, src, tmp_path / "w.cpp", ["k"])
    assert msg.startswith("k.cpp:50: LayoutMode_t (the fixpipe parameters of a quantising TPUSH)")
    assert "k.cpp:51: FixpipeParams (the fixpipe parameters of a quantising TPUSH)" in msg


STANDARD = """#include <pto/pto-inst.hpp>
static_assert(__cplusplus == EXPECTED, "the language standard of this target's build");
extern "C" __global__ AICORE void k(__gm__ float *out) {}
"""


@pytest.mark.parametrize(
    "target, expected",
    [("a2a3", "201703L"), ("a5", "201703L"), ("cpu", "202002L")],  # the library's CMake files
)
def test_units_build_with_the_language_standard_of_the_librarys_build(tmp_path, target, expected):
    src = _kernel_file(tmp_path, STANDARD.replace("EXPECTED", expected))
    assert B.build(src, ["k"], target=target).path.is_file()
    other = "202002L" if expected == "201703L" else "201703L"
    src = _kernel_file(tmp_path, STANDARD.replace("EXPECTED", other), "other.cpp")
    with pytest.raises(CxxBuildError, match="language standard"):
        B.build(src, ["k"], target=target)
