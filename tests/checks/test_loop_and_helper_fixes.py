"""Where a cause's fix goes and what it writes, in loops and helper functions: a call in a
double-buffered loop copies the loop's event expression; a repair between a helper's work and
the kernel body goes in the function both are written in."""

import inspect
from pathlib import Path

import numpy as np

import ptosim as pto
from ptosim.kernelfile import load
from ptosim.sourcepatch import patch_text

ROOT = Path(__file__).resolve().parents[2]
V, MTE2, MTE3 = pto.PIPE_V, pto.PIPE_MTE2, pto.PIPE_MTE3


def _first_cause(path: Path, kernel: str, device: str = "cpu"):
    spec = load(f"{path}:{kernel}")
    dev = pto.Device(device)
    args, kwargs = spec.build_inputs(dev)
    run = dev.run(spec.kernel, *args, **spec.run_options(), **kwargs)
    return run.findings[0]


def _line_of(text: str, marker: str) -> int:
    return next(n for n, t in enumerate(text.splitlines(), 1) if marker in t)


def test_a_wait_removed_in_a_double_buffered_loop_comes_back_with_the_loop_event(tmp_path):
    text = (ROOT / "examples" / "pingpong_row_scale.py").read_text()
    n = _line_of(text, "# input buffer b has landed")
    rows = text.splitlines(keepends=True)
    rows[n - 1] = "        pass\n"
    path = tmp_path / "pingpong_row_scale.py"
    path.write_text("".join(rows))
    cause = _first_cause(path, "pingpong_row_scale")
    (edit,) = cause.patch
    assert (edit.action, edit.op) == ("insert", "wait_flag")
    assert edit.event_like is not None  # the event of a loop line, not a constant
    assert "the event of pingpong_row_scale.py:" in cause.message
    fixed, skipped = patch_text(path.read_text(), str(path), cause.patch)
    assert not skipped
    new = [t for t in fixed.splitlines() if "wait_flag(pto.PIPE_MTE2, pto.PIPE_V" in t]
    assert new and new[0].rstrip().endswith(", ev)"), new
    # the patched loop keeps both buffers' events, and runs clean and exact
    path.write_text(fixed)
    spec = load(f"{path}:pingpong_row_scale")
    dev = pto.Device("a2")
    args, kwargs = spec.build_inputs(dev)
    run = dev.run(spec.kernel, *args, **spec.run_options(), **kwargs)
    assert run.all_findings() == [] and spec.check(dev, args, run) in (None, True)


def _load_half(x, xt):
    """A helper that loads and posts: the kernel body's vector work must wait for it."""
    pto.TLOAD(xt, pto.GlobalTensor(x, shape=(1, 1, 1, 8, 16)))
    pto.set_flag(MTE2, V, pto.EVENT_ID0)


@pto.kernel
def _helper_then_body(x, y, out):
    xt = pto.Tile("Vec", "float32", 8, 16, name="x")
    yt = pto.Tile("Vec", "float32", 8, 16, name="y")
    _load_half(x, xt)
    pto.TLOAD(yt, pto.GlobalTensor(y, shape=(1, 1, 1, 8, 16)))  # MTE2 work between
    pto.set_flag(MTE2, V, pto.EVENT_ID1)
    pto.wait_flag(MTE2, V, pto.EVENT_ID1)
    pto.TADD(yt, xt, yt)  # BUG: no wait for EVENT_ID0 (the helper's post)
    pto.set_flag(V, MTE3, pto.EVENT_ID0)
    pto.wait_flag(V, MTE3, pto.EVENT_ID0)
    pto.TSTORE(pto.GlobalTensor(out, shape=(1, 1, 1, 8, 16)), yt)


def test_a_wait_for_a_helpers_post_goes_in_the_kernel_body_not_the_helper():
    dev = pto.Device("cpu")
    x = dev.gm_array(np.ones((8, 16), np.float32))
    y = dev.gm_array(np.ones((8, 16), np.float32))
    out = dev.gm_zeros((8, 16), "float32")
    run = dev.run(_helper_then_body, x, y, out)
    cause = run.findings[0]
    (edit,) = cause.patch
    assert (edit.action, edit.op) == ("insert", "wait_flag")
    lines, start = inspect.getsourcelines(_helper_then_body.func)
    helper_lines, helper_start = inspect.getsourcelines(_load_half)
    line = int(edit.line.rpartition(":")[2])
    # in the kernel body (not inside _load_half, which other kernels may call)
    assert start <= line < start + len(lines)
    assert not helper_start <= line < helper_start + len(helper_lines)
    # the recorded instruction knows the helper's call line in the body
    tload = run.blocks[0].program.instructions[0]
    call = start + next(k for k, t in enumerate(lines) if "_load_half(x, xt)" in t)
    assert tload.sites == (f"test_loop_and_helper_fixes.py:{call}",)


def test_a_wait_removed_inside_a_helper_comes_back_right_after_its_set(tmp_path):
    """missing_v_barrier.py: the helper _setup loads, sets and waits; nothing runs between its
    set and the kernel's first vector instruction, so the wait returns after the set, in the
    helper, where it was."""
    text = (ROOT / "examples" / "bugs" / "missing_v_barrier.py").read_text()
    n = _line_of(text, "pto.wait_flag(pto.PIPE_MTE2, pto.PIPE_V, pto.EVENT_ID0)")
    rows = text.splitlines(keepends=True)
    rows[n - 1] = "    pass\n"
    path = tmp_path / "missing_v_barrier.py"
    path.write_text("".join(rows))
    cause = _first_cause(path, "fixed", "a2")
    (edit,) = cause.patch
    assert (edit.action, edit.where, edit.line) == ("insert", "after", f"{path.name}:{n - 1}")
