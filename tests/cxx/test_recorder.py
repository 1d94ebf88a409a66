"""The shim's requests (what a C++ call sends to Python) and the registry-driven operand mapping."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import ptosim as pto
from ptosim.cxx import dispatch as D
from ptosim.cxx.build import INCLUDE_DIR
from ptosim.errors import CxxError
from ptosim.isa import registry
from tests.helpers.paths import CXX_DIR

SRC = CXX_DIR / "records.cpp"


@pytest.fixture(scope="module")
def requests():
    """Every request of one run of records.cpp, captured instead of issued."""
    mp = pytest.MonkeyPatch()
    seen = []
    mp.setattr(D.Dispatcher, "issue", lambda self, req, site, out: seen.append((req, site, self)))
    dev = pto.Device("a2")
    buf = dev.gm_zeros((2, 256), "float32")
    dev.run(pto.cxx.load(SRC).entry("rec"), buf, 42)
    mp.undo()
    return {req["op"]: (req, site, disp) for req, site, disp in seen}, buf


def test_tile_operand(requests):
    reqs, _ = requests
    req, site, _ = reqs["TASSIGN"]
    t = req["a"][0]
    assert (t["k"], t["loc"], t["dt"], t["r"], t["c"], t["bl"]) == (
        "tile",
        "Vec",
        "float32",
        16,
        16,
        "RowMajor",
    )
    assert (t["as"], t["addr"]) == (True, 0x100)
    assert re.fullmatch(r"records\.cpp:\d+", site)


def test_dynamic_valid_shape_and_gm_operand(requests):
    reqs, buf = requests
    req, _, disp = reqs["MGATHER"]
    idx = req["a"][2]
    assert (idx["svr"], idx["svc"], idx["vr"], idx["vc"]) == (-1, -1, 5, 7)
    g = req["a"][1]
    assert (
        g["k"] == "gm" and g["shape"] == [1, 1, 1, 16, 16] and g["stride"] == [256, 256, 256, 16, 1]
    )
    assert g["ptr"] - disp.loaded.gm_base == (buf.address - 0x1_0000_0000) + 16 * 4
    assert req["t"] == {"coalesce": "Elem", "oob": "Wrap"}


def test_scalar_enum_and_template_values(requests):
    reqs, _ = requests
    assert reqs["TADDS"][0]["a"][2] == {"k": "scalar", "dt": "float32", "v": 2.5}
    assert reqs["TCMPS"][0]["a"][3] == {"k": "enum", "type": "CmpMode", "name": "GT", "v": 4}
    assert reqs["TEXP"][0]["t"]["value"]["name"] == "HIGH_PRECISION"
    assert reqs["TCI"][0]["t"]["value"] == {"k": "bool", "v": True}
    assert reqs["TCI"][0]["a"][1] == {"k": "scalar", "dt": "int32", "v": 42}
    assert reqs["TSTORE"][0]["t"] == {"atomic": "AtomicAdd"}
    assert reqs["TSCATTER"][0]["t"] == {"mask": "P1010", "axis": "SCATTER_ROW"}
    flag = reqs["set_flag"][0]
    assert (flag["src"], flag["dst"], flag["event"]) == ("PIPE_V", "PIPE_MTE3", 3)


def test_generic_mapping_puts_enums_and_template_values_on_keywords(requests):
    reqs, _ = requests
    calls = {}

    class Spy:
        def __init__(self, name):
            self.name = name

    for op in ("TCMPS", "TEXP", "TCI"):
        req, _, disp = reqs[op]
        real = registry.spec(op).function
        captured = {}

        def fake(*a, _real=real, _c=captured, **k):
            _c.update(inspect.signature(_real).bind(*a, **k).arguments)

        spec = registry.spec(op)
        orig = spec.function
        object.__setattr__(spec, "function", fake)
        try:
            raw = [d for d in req["a"] if d["k"] != "event"]
            disp.generic(op, req.get("t", {}), raw, ["OP"] * len(raw))
        finally:
            object.__setattr__(spec, "function", orig)
        calls[op] = captured
    assert calls["TCMPS"] == {"dst": "OP", "src0": "OP", "src1": "OP", "cmp_mode": "OP"}
    assert calls["TEXP"]["algorithm"] == "HIGH_PRECISION"
    assert calls["TCI"]["descending"] is True and calls["TCI"]["start"] == "OP"


def test_tstore_with_an_acc_path_template_is_refused_at_its_line(tmp_path, monkeypatch):
    """TSTORE<AtomicAdd> runs (tests/isa/test_tstore_atomic.py); a ReluPreMode is the fixpipe's
    (an Acc tile's store): on a Vec tile it stops with one line naming the form."""
    monkeypatch.setenv("PTOSIM_CACHE_DIR", str(tmp_path))
    src = tmp_path / "at.cpp"
    src.write_text(
        SRC.read_text()
        .replace("    TLOAD(t, g);\n", "")
        .replace("    TADDS", "    return;\n    TADDS")
    )
    text = src.read_text().replace(
        "    return;\n",
        "    TSTORE<TileF, GT, AtomicType::AtomicNone, ReluPreMode::NormalRelu>(g, t);\n"
        "    return;\n",
    )
    src.write_text(text)
    dev = pto.Device("a2")
    with pytest.raises(pto.PtoSimError, match=r"at\.cpp:\d+.*TSTORE.*relu=NormalRelu.*Acc tile"):
        dev.run(pto.cxx.load(src).entry("rec"), dev.gm_zeros((2, 256), "float32"), 1)


def test_every_registered_instruction_has_a_cxx_mapping():
    """Declared in the shim (explicitly or through the generic recorder) and, for the generic
    ones, its required operands bind in C++ order."""
    shim = "\n".join(p.read_text() for p in (INCLUDE_DIR / "ptosim_shim").glob("*.hpp"))
    declared = set(re.findall(r"PTOSIM_GENERIC\((\w+)\)", shim))
    declared |= set(re.findall(r"PTOSIM_ROWEXPAND_BINARY\((\w+)\)", shim))
    declared |= set(re.findall(r"PTOSIM_TILE_SCALAR\((\w+)\)", shim))
    declared |= set(re.findall(r"PTOSIM_PARTARG\((\w+)\)", shim))  # the library's operand order
    declared |= set(re.findall(r"\b(\w+)\((?:[^()]|\([^()]*\))*\)\s*\n?\{", shim))
    for spec in registry.specs():
        if spec.name in D.NOT_CXX:
            continue
        assert spec.name in declared, f"{spec.name} has no C++ entry point in the shim"
        if spec.name in D.EXPLICIT:
            continue
        params = inspect.signature(spec.function).parameters.values()
        required = [
            p.name for p in params if p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD
        ]
        if any(p.kind is p.VAR_POSITIONAL for p in params):
            continue
        pos, kw = D.bind(spec.name, spec.function, required, {})
        assert pos == [] and kw == {n: n for n in required}


# C++ operand orders from /work/shared/reference/vector_isa.md (enums excluded: they bind by
# type) and the Python parameter each must land on.
CXX_ORDERS = {
    "TCMPS": (["dst", "src0", "scalar"], ["dst", "src0", "src1"]),
    "TSEL": (["dst", "mask", "src0", "src1", "tmp"], ["dst", "mask", "src0", "src1", "tmp"]),
    "TSELS": (["dst", "mask", "src", "tmp", "scalar"], ["dst", "mask", "src", "tmp", "scalar"]),
    "TCOLSUM": (["dst", "src", "tmp", "isBinary"], ["dst", "src", "tmp", "is_binary"]),
    "TEXTRACT": (["dst", "src", "indexRow", "indexCol"], ["dst", "src", "index_row", "index_col"]),
    "TINSERT": (["dst", "src", "indexRow", "indexCol"], ["dst", "src", "index_row", "index_col"]),
    "TSUBVIEW": (["dst", "src", "rowIdx", "colIdx"], ["dst", "src", "row_idx", "col_idx"]),
    "TCI": (["dst", "start", "tmp"], ["dst", "start", "tmp"]),
    "TTRI": (["dst", "diagonal"], ["dst", "diagonal"]),
    "TGATHERB": (["dst", "src", "offset"], ["dst", "src", "offset"]),
    "TQUANT": (["dst", "src", "scale", "offset"], ["dst", "src", "scale", "offset"]),
    "TDEQUANT": (["dst", "src", "scale", "offset"], ["dst", "src", "scale", "offset"]),
    "TCVT": (["dst", "src", "tmp"], ["dst", "src", "tmp"]),
    "TPRELU": (["dst", "src0", "slope", "tmp"], ["dst", "src0", "slope", "tmp"]),
    "TXOR": (["dst", "src0", "src1", "tmp"], ["dst", "src0", "src1", "tmp"]),
    "TROWSUM": (["dst", "src", "tmp"], ["dst", "src", "tmp"]),
}


@pytest.mark.parametrize("op", sorted(CXX_ORDERS))
def test_cxx_operand_order_lands_on_the_python_parameters(op):
    cxx, python = CXX_ORDERS[op]
    kwargs = {"mode": "CAST_RINT"} if op == "TCVT" else {}
    _, kw = D.bind(op, registry.spec(op).function, list(cxx), kwargs)
    assert [kw[p] for p in python] == cxx


def test_unknown_instruction_and_enum_are_refused():
    disp = D.Dispatcher(None, None, [])
    with pytest.raises(CxxError, match="TFOO is not implemented by ptosim"):
        disp.generic("TFOO", {}, [], [])
    with pytest.raises(CxxError, match="Weird::X is not supported"):
        disp.generic("TADD", {}, [{"k": "enum", "type": "Weird", "name": "X", "v": 0}], ["X"])
    assert np is not None
