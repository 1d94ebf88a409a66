"""The cpu target: the reference semantics of the PTO CPU simulator, program order, no timing
(no plans). Its behaviour spec is ``SPEC`` (spec.py)."""

from __future__ import annotations

from .spec import SPEC

__all__ = ["SPEC"]
