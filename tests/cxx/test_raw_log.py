"""The raw-write log (ptosim/cxx/raw.py): the shim logs each single-stepped write as the bytes
it changed; Python turns them into element stores, the addressed element always stored, in
address order per write, values as the page holds them after that write. No C++ build."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from ptosim.cxx.raw import LoggedWrite, element_writes
from ptosim.errors import CxxError

PAGE = 0x7F0000000000
OBJ = object()  # stands for a float32 tile starting at PAGE


def element(addr: int, *, aligned: bool = True):
    rel = addr - PAGE
    return OBJ, rel // 4, 4, addr - rel % 4


def f32(*values) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def test_same_value_store_is_kept_and_wide_writes_split_into_elements():
    given = {PAGE: bytes(4096)}
    writes = [
        LoggedWrite(PAGE + 8, "k.cpp:3", 0, b""),  # stores 0.0 over 0.0: nothing changed
        # one 16-byte store at element 4: elements 5 and 7 change, 4 and 6 keep 0.0
        LoggedWrite(PAGE + 16, "k.cpp:4", 20, f32(1.5, 0.0, -2.0)),
        LoggedWrite(PAGE + 20, "k.cpp:5", 20, f32(3.0)),  # element 5 again, a new value
    ]
    got = [(i, np.frombuffer(v, np.float32)[0], s) for _, i, v, s in
           element_writes(writes, given, element, 4096)]  # fmt: skip
    assert got == [
        (2, 0.0, "k.cpp:3"),
        (4, 0.0, "k.cpp:4"), (5, 1.5, "k.cpp:4"), (7, -2.0, "k.cpp:4"),
        (5, 3.0, "k.cpp:5"),
    ]  # fmt: skip


def test_an_element_across_the_page_end_is_refused_at_the_writes_line():
    given = {PAGE: bytes(4096)}
    odd = lambda a, aligned=True: (OBJ, 0, 4, a - 2)  # noqa: E731 - an element at -2
    with pytest.raises(CxxError) as e:
        element_writes([LoggedWrite(PAGE, "k.cpp:9", 0, b"\x01")], given, odd, 4096)
    assert "k.cpp:9" in str(e.value) and "straddles" in str(e.value)
