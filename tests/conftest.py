"""Shared test helpers."""

import pytest

import ptosim as pto

ALL_DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")
ONE_PER_TARGET = ("cpu", "a2", "950pr")


@pytest.fixture(params=ONE_PER_TARGET)
def device(request) -> pto.Device:
    """One device per target family (cpu, a2a3, a5)."""
    return pto.Device(request.param)
