"""The ptosim error tree: every error raised on purpose derives from PtoSimError.

Each class carries a stable ``code`` (documented in docs/reference.md) so that tools and tests
can match errors without parsing messages.
"""

from __future__ import annotations

from typing import Any


class PtoSimError(Exception):
    """Base of every error ptosim raises on purpose."""

    code = "PTO000"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


class KernelError(PtoSimError):
    """The kernel used the Python API wrongly (bad argument, unknown enum name, ...)."""

    code = "PTO100"


class ConstraintError(PtoSimError):
    """An instruction violates a constraint of its specification on the selected target.

    Attributes:
        instruction: ISA name, e.g. ``MGATHER``.
        position: index of the instruction in the kernel (``#n``), or None.
        source: ``file:line`` of the call in the kernel, or None.
        operand: the operand the rule is about (``dst``, ``idx``, ``table``, ...).
        rule: a short stable identifier of the rule (``dtype``, ``index-shape``, ...).
        expected, given: what the rule wants and what the kernel gave.
    """

    code = "PTO101"

    def __init__(
        self,
        instruction: str,
        operand: str,
        rule: str,
        expected: Any,
        given: Any,
        *,
        target: str | None = None,
        position: int | None = None,
        source: str | None = None,
        detail: str = "",
    ):
        self.instruction = instruction
        self.operand = operand
        self.rule = rule
        self.expected = expected
        self.given = given
        self.target = target
        self.position = position
        self.source = source
        self.detail = detail
        super().__init__(self._compose())

    def _compose(self) -> str:
        where = self.instruction
        if self.position is not None:
            where += f" #{self.position}"
        if self.source:
            where += f" ({self.source})"
        on = f" on target {self.target}" if self.target else ""
        text = (
            f"{where}{on}: operand '{self.operand}' violates rule '{self.rule}': "
            f"expected {self.expected}, given {self.given}"
        )
        if self.detail:
            text += f" ({self.detail})"
        return text

    def locate(self, position: int | None, source: str | None) -> ConstraintError:
        """Attach the kernel position and source line (done by the recorder)."""
        if self.position is None:
            self.position = position
        if self.source is None:
            self.source = source
        self.message = self._compose()
        self.args = (self.message,)
        return self


class UnsupportedError(ConstraintError):
    """The instruction, mode or policy does not exist on the selected target."""

    code = "PTO102"


class CxxError(KernelError):
    """A C++ kernel (ptosim.cxx) did something the front end cannot run: an instruction ptosim
    does not implement, a raw access to tile storage or GM, a pointer outside the kernel's
    buffers. The message starts with the kernel's ``file:line``."""

    code = "PTO103"


class CxxBuildError(CxxError):
    """A C++ kernel file could not be built: no compiler, or a compilation error (shown at the
    user's file:line; an error inside ptosim's headers is reported as a ptosim bug)."""

    code = "PTO104"


class MemoryLayoutError(ConstraintError):
    """A tile placement is invalid: misaligned, overflowing the memory or the UB budget."""

    code = "PTO200"


class UbBudgetError(MemoryLayoutError):
    """The kernel's tiles do not fit in the UB budget (e.g. the 950 SIMT budget)."""

    code = "PTO201"


class OutOfBoundsError(PtoSimError):
    """An access would leave the memory or tensor it targets (GM tensor, UB end)."""

    code = "PTO202"


class ConfigError(PtoSimError):
    """A device configuration is missing, malformed or inconsistent."""

    code = "PTO300"


class DeadlockError(PtoSimError):
    """Pipes wait on flags that can never be posted.

    Attributes (set by a timed run): findings: the run's other findings up to the deadlock;
    partial_run: the RunResult up to the stuck state (``partial_run.write_trace(path)``).
    """

    code = "PTO400"
    findings: tuple = ()
    partial_run = None


class ExecutionError(PtoSimError):
    """An instruction failed while executing (e.g. integer division by zero)."""

    code = "PTO401"


class RaceFailureError(ExecutionError):
    """A timed run failed (out of bounds, ...) in an instruction that read data a race may have
    left stale: the message leads with the race, the kernel's real defect.

    Attributes:
        original: the error the instruction raised (also ``__cause__``); original_code: its code.
        findings: every finding of the steps issued up to the failure (the races first).
    """

    code = "PTO402"

    def __init__(self, message: str, original: PtoSimError, findings: list):
        super().__init__(message)
        self.original = original
        self.original_code = original.code
        self.findings = list(findings)


class FindingsError(PtoSimError):
    """Raised by ``run(strict=True)``: carries every finding of the run."""

    code = "PTO500"

    def __init__(self, findings: list):
        self.findings = list(findings)
        lines = [f"{len(self.findings)} finding(s):"] + [f"  - {f}" for f in self.findings]
        super().__init__("\n".join(lines))
