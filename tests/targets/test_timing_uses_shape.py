"""Each timed target's TIMING_USES maps an instruction to a tuple of cost-entry names (a bare
string in parentheses would be iterated letter by letter: "estimate: s, c, a, l, a, r")."""

from ptosim.targets import specs, timing_uses


def test_timing_uses_are_tuples_of_names():
    for spec in specs():
        for name, keys in timing_uses(spec.name).items():
            assert isinstance(keys, tuple), (spec.name, name, keys)
            assert all(isinstance(k, str) and len(k) > 1 for k in keys), (spec.name, name, keys)
