"""Every target package exports a complete behaviour spec, and the spec (not the target's name)
is what the instructions read."""

from __future__ import annotations

import dataclasses
import enum
import typing
from importlib import import_module
from pathlib import Path

import numpy as np
import pytest

import ptosim as pto
from ptosim import dtypes as D
from ptosim.config import available_devices, load_config
from ptosim.isa import registry, spec
from ptosim.targets import spec_of, specs

TARGETS_DIR = Path(__file__).resolve().parents[2] / "targets"
PACKAGES = sorted(p.parent.name for p in TARGETS_DIR.glob("*/__init__.py"))
INSTRUCTIONS = {s.name for s in registry.specs()}


def test_every_target_folder_is_a_spec_package():
    assert set(PACKAGES) >= {"cpu", "a2a3", "a5"}
    assert [s.name for s in specs()] == ["cpu", "a2a3", "a5"]  # the table's column order
    assert {s.name for s in specs()} == set(PACKAGES)


@pytest.fixture(params=PACKAGES)
def target(request) -> spec.TargetSpec:
    package = import_module(f"ptosim.targets.{request.param}")
    s = package.SPEC
    assert isinstance(s, spec.TargetSpec) and s.name == request.param
    assert spec_of(request.param) is s
    return s


def _check_group(group) -> list[str]:
    """Fields of a rule group whose value does not have the annotated kind."""
    bad = []
    hints = typing.get_type_hints(type(group))
    for f in dataclasses.fields(group):
        value, hint = getattr(group, f.name), hints[f.name]
        if isinstance(hint, type) and issubclass(hint, (enum.Enum, bool)):
            if not isinstance(value, hint):
                bad.append(f"{f.name} = {value!r} is not a {hint.__name__}")
        elif value is None and type(None) not in typing.get_args(hint):
            bad.append(f"{f.name} is None")
    return bad


def test_spec_is_complete(target):
    # a dtype entry (a tuple, or None where undefined) for every registered instruction
    assert set(target.dtypes) == INSTRUCTIONS
    for name, dts in target.dtypes.items():
        known = D.ALL + D.LISTED
        assert dts is None or (isinstance(dts, tuple) and all(d in known for d in dts)), name
        if dts:
            assert len(set(dts)) == len(dts), f"{name}: a dtype listed twice"
    # every rule group present, every field of the declared kind
    groups = dict(spec.rule_groups(target))
    want = {f.name for f in dataclasses.fields(spec.TargetSpec)} - {
        "name", "devices", "summary", "timed", "dtypes", "refusals", "notes",
    }  # fmt: skip
    assert set(groups) == want
    bad = [f"{g}.{b}" for g, v in groups.items() for b in _check_group(v)]
    assert not bad, bad
    # notes and refusals are about registered instructions
    assert set(target.notes) <= {n for n, d in target.dtypes.items() if d is not None}
    for name, refusal in target.refusals.items():
        assert name in INSTRUCTIONS and refusal.reason
        if not refusal.dtypes:  # the whole instruction: the target does not define it
            assert target.dtypes[name] is None


def test_devices_are_the_configs_of_the_family(target):
    configs = {d for d in available_devices() if load_config(d).target == target.name}
    assert set(target.devices) == configs


def test_pair_tables_agree_with_the_dtype_table(target):
    r = target.reduce
    for op, pairs in r.row_pairs.items():
        assert target.dtypes[f"TROW{op}"] == spec.pair_sources(pairs)
    for op, pairs in r.col_pairs.items():
        assert target.dtypes[f"TCOL{op}"] == spec.pair_sources(pairs)
    for name in ("TROWARGMAX", "TROWARGMIN"):
        assert target.dtypes[name] == spec.pair_sources(r.row_arg_index)
    for name in ("TCOLARGMAX", "TCOLARGMIN"):
        assert target.dtypes[name] == spec.pair_sources(r.col_arg_index)
    assert target.dtypes["TAXPY"] == tuple(d for d, _ in target.elementwise.axpy_pairs)
    for op in ("ADD", "SUB", "MUL", "DIV", "MAX", "MIN", "EXPDIF"):  # one table, two families
        assert target.dtypes[f"TROWEXPAND{op}"] == target.dtypes[f"TCOLEXPAND{op}"]
    pairs = target.convert.pairs
    if pairs is not None:  # every dtype TCVT accepts converts to or from something
        used = {d for p in pairs for d in p}
        assert set(target.dtypes["TCVT"]) <= used


def test_a_spec_field_decides_not_the_target_name():
    """A cpu device whose spec says IEEE max/min computes TMAX as the NPU does: the
    instruction reads the rule, whatever the family is called."""
    x = np.array([[1.0, np.nan, 0.0, -0.0]], np.float32)
    y = np.array([[np.nan, 1.0, -0.0, 0.0]], np.float32)

    def run(dev):
        a, b = dev.gm_array(x), dev.gm_array(y)
        out = dev.gm_zeros(x.shape, "float32")

        @pto.kernel
        def k(a, b, out):
            ta, tb, tc = (pto.Tile("Vec", "float32", 1, 8, valid=(1, 4)) for _ in range(3))
            pto.TLOAD(ta, pto.GlobalTensor(a, (1, 4)))
            pto.TLOAD(tb, pto.GlobalTensor(b, (1, 4)))
            pto.TMAX(tc, ta, tb)
            pto.TSTORE(pto.GlobalTensor(out, (1, 4)), tc)

        dev.run(k, a, b, out)
        return out.numpy()

    cpu = pto.Device("cpu")
    got_cpu = run(cpu)
    ieee = dataclasses.replace(cpu.arch.spec.numerics, maxmin=spec.MaxMin.IEEE_754_2019)
    swapped = pto.Device("cpu")
    swapped.arch = dataclasses.replace(
        swapped.arch, spec=dataclasses.replace(swapped.arch.spec, numerics=ieee)
    )
    got_ieee = run(swapped)
    # std::max keeps the first operand unless a < b (false for NaN and between zeros)
    np.testing.assert_array_equal(got_cpu.view(np.uint32), np.array(
        [[1.0, np.nan, 0.0, -0.0]], np.float32).view(np.uint32))  # fmt: skip
    # IEEE maximum: NaN propagates, -0 < +0
    assert np.isnan(got_ieee[0, 0]) and np.isnan(got_ieee[0, 1])
    np.testing.assert_array_equal(got_ieee[0, 2:].view(np.uint32), np.float32([0.0, 0.0]).view(
        np.uint32))  # fmt: skip


def test_a_target_name_where_a_rule_is_expected_is_an_error():
    """The numeric helpers take the rule, not the target: a leftover name (from code written
    before the specs) fails loudly instead of silently taking the NPU branch."""
    from ptosim.isa.indexing import index_values
    from ptosim.isa.maxmin import maxmin
    from ptosim.isa.vector.reduce_order import arg_scan

    one = np.ones((1, 2), np.float32)
    with pytest.raises(TypeError, match="MaxMin"):
        maxmin("cpu", "MAX", one, one)
    with pytest.raises(TypeError, match="MaxMin"):
        arg_scan("cpu", "MAX", one)
    with pytest.raises(TypeError, match="IndexConversion"):
        index_values("cpu", np.array([-1], np.int32))
    cpu = spec_of("cpu").indexed.index_conversion
    assert index_values(cpu, np.array([-1], np.int32))[0] == -1  # size_t, kept signed (D2)
    npu = spec_of("a2a3").indexed.index_conversion
    assert index_values(npu, np.array([-1], np.int32))[0] == 2**32 - 1
