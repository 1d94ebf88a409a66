"""Which files of a test folder's case are compared byte for byte with the golden data: the
library's tests name their outputs ``output.bin``, ``output_z.bin`` (tcvt) or per tensor
(``golden_x.bin`` with ``output_x.bin``). Pure file logic: no build."""

from __future__ import annotations

from ptosim.cxx.testdir import compare_outputs, output_pairs


def _write(d, **files):
    for name, data in files.items():
        (d / f"{name}.bin").write_bytes(bytes(data))


def test_golden_with_the_single_differently_named_output(tmp_path):
    _write(tmp_path, golden=[1, 2, 3, 4], output_z=[1, 2, 3, 4], input=[9])
    assert [(g.name, o.name) for g, o in output_pairs(tmp_path)] == [("golden.bin", "output_z.bin")]
    assert compare_outputs(tmp_path) == "bit-exact"


def test_per_tensor_pairs_count_every_differing_byte(tmp_path):
    _write(tmp_path, golden_a=[1, 2], output_a=[1, 0], golden_b=[5, 6, 7], output_b=[0, 6, 0])
    assert compare_outputs(tmp_path) == "differs in 3 of 5 bytes"


def test_two_candidate_outputs_for_one_golden_are_not_guessed(tmp_path):
    _write(tmp_path, golden=[1], output_x=[1], output_y=[1])
    assert output_pairs(tmp_path) == []
    assert compare_outputs(tmp_path) == "no golden/output pair"


def test_a_shorter_output_is_named(tmp_path):
    _write(tmp_path, golden=[1, 2, 3], output=[1, 2])
    expected = "bit-exact on the first 2 bytes (golden.bin 3 B, output.bin 2 B)"
    assert compare_outputs(tmp_path) == expected
