"""PTO enums with the ISA's spelling; every enum parameter also accepts its name as a string."""

from __future__ import annotations

import enum

from .errors import KernelError


class PtoEnum(enum.Enum):
    """Enum whose members can be given by name, case-insensitively (``"row"`` -> ``Row``)."""

    @classmethod
    def parse(cls, value, what: str | None = None):
        """Resolve a member, its name (any case) or its integer value.

        Raises:
            KernelError: the value names no member of this enum.
        """
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            key = value.strip().lower().replace("scatteratomicop::", "").split("::")[-1]
            for member in cls:
                if member.name.lower() == key:
                    return member
        elif isinstance(value, int) and not isinstance(value, bool):
            for member in cls:
                if member.value == value:
                    return member
        options = ", ".join(m.name for m in cls)
        raise KernelError(
            f"{what or cls.__name__}: {value!r} is not a {cls.__name__}; expected one of {options}"
        )

    def __str__(self) -> str:
        return f"{type(self).__name__}::{self.name}"

    # Members are singletons compared by identity: hash them by identity too (C-level), not by
    # Enum's Python-level hash of the name; pipes are dict keys on the engine's hot path.
    __hash__ = object.__hash__


class TileType(PtoEnum):
    """Where a tile lives (common/type.hpp TileType; ptosim.memory.SPACE_OF_LOC)."""

    Vec = 0
    Mat = 1
    Left = 2
    Right = 3
    Acc = 4
    Bias = 5
    Scaling = 6
    ScaleLeft = 7
    ScaleRight = 8


class BLayout(PtoEnum):
    RowMajor = 0
    ColMajor = 1


class SLayout(PtoEnum):
    NoneBox = 0
    RowMajor = 1
    ColMajor = 2


class CompactMode(PtoEnum):
    """A cube tile stored at its valid extent rounded up to whole fractals (common/type.hpp):
    ``Normal`` makes L0A / L0B / L0C strides follow the valid shape instead of Rows / Cols."""

    Null = 0
    Normal = 1
    RowPlusOne = 2
    RowAlignedPadding = 3


class ReluPreMode(PtoEnum):
    """The fixpipe's ReLU before it writes an accumulator out (TSTORE / TMOV from Acc)."""

    NoRelu = 0
    NormalRelu = 1


class AccPhase(PtoEnum):
    """The unit flag of a TMATMUL (which K slice of an accumulation it is); no effect on data."""

    Unspecified = 0
    Partial = 2
    Final = 3


class Layout(PtoEnum):
    ND = 0
    DN = 1
    NZ = 2
    # the convolution layouts a 950 fixpipe store writes (TSTORE from an Acc tile only)
    NHWC = 3
    NCHW = 4
    NCDHW = 5
    # the float8_e8m0 scale views of the 950 TMATMUL_MX (a TLOAD into a Mat scale tile only):
    # A's M x K/32 scales and B's K/32 x N, two scales along K adjacent (ptosim/isa/cube/mx.py)
    MX_A_ZZ = 6
    MX_A_ND = 7
    MX_A_DN = 8
    MX_B_NN = 9
    MX_B_ND = 10
    MX_B_DN = 11


MX_LAYOUTS = (Layout.MX_A_ZZ, Layout.MX_A_ND, Layout.MX_A_DN, Layout.MX_B_NN, Layout.MX_B_ND,
              Layout.MX_B_DN)  # fmt: skip

# the layouts every GM <-> tile transfer takes (the others are fixpipe outputs)
MATRIX_LAYOUTS = (Layout.ND, Layout.DN, Layout.NZ)


class PadValue(PtoEnum):
    Null = 0
    Zero = 1
    Max = 2
    Min = 3


class Coalesce(PtoEnum):
    Row = 0
    Elem = 1


class GatherOOB(PtoEnum):
    Undefined = 0
    Clamp = 1
    Wrap = 2
    Zero = 3


class ScatterOOB(PtoEnum):
    Undefined = 0
    Skip = 1
    Clamp = 2
    Wrap = 3


class ScatterAtomicOp(PtoEnum):
    # C++ spells the first member ``None``, a Python keyword: the string "none" always works.
    None_ = 0
    Add = 1
    Max = 2
    Min = 3

    @classmethod
    def parse(cls, value, what=None):
        if value is None or (isinstance(value, str) and value.strip().lower() == "none"):
            return cls.None_
        return super().parse(value, what)

    def __str__(self) -> str:
        return "ScatterAtomicOp::" + ("None" if self is ScatterAtomicOp.None_ else self.name)


class AtomicType(PtoEnum):
    """TSTORE's GM update: a plain store, or an atomic add into GM (semantics.md 3.5)."""

    AtomicNone = 0
    AtomicAdd = 1

    @classmethod
    def parse(cls, value, what=None):
        # "none" / "add" too, as MSCATTER's atomic= takes them
        if value is None:
            return cls.AtomicNone
        if isinstance(value, str) and value.strip().lower() in ("none", "add"):
            value = "Atomic" + value.strip().lower().capitalize()
        return super().parse(value, what)


class ScatterConflict(PtoEnum):
    Last = 0
    Default = 1


class GatherExec(PtoEnum):
    Scalar = 0
    Simt = 1


class MaskPattern(PtoEnum):
    P0101 = 1
    P1010 = 2
    P0001 = 3
    P0010 = 4
    P0100 = 5
    P1000 = 6
    P1111 = 7

    @property
    def times(self) -> int:
        """Expansion factor (GetTimesByMask)."""
        if self is MaskPattern.P1111:
            return 1
        if self in (MaskPattern.P0101, MaskPattern.P1010):
            return 2
        return 4

    @property
    def pos(self) -> int:
        """Selected lane inside each group of ``times`` lanes."""
        return {"P0101": 0, "P1010": 1, "P0001": 0, "P0010": 1, "P0100": 2, "P1000": 3, "P1111": 0}[
            self.name
        ]


class ScatterAxis(PtoEnum):
    SCATTER_ROW = 0
    SCATTER_COL = 1


class Direction(PtoEnum):
    """Which way a TPipe carries tiles (common/fifo.hpp ``Direction``; reference/cube_isa.md
    3.8): cube -> vector cores, vector cores -> cube, or both (two rings in one GM buffer)."""

    DIR_C2V = 1
    DIR_V2C = 2
    DIR_BOTH = 3
    # 950: the rings through a GM buffer (the plain directions are on chip there)
    DIR_C2V_GM = 5
    DIR_V2C_GM = 6
    DIR_BOTH_GM = 7


class TileSplitAxis(PtoEnum):
    """How a TPUSH / TPOP tile is shared by the two vector cores (common/fifo.hpp): not split
    (AIV0's), rows (AIV0 the upper half), columns (AIV0 the left half); the ``_ODD`` forms give
    AIV0 the extra row or column."""

    TILE_NO_SPLIT = 0
    TILE_UP_DOWN = 1
    TILE_LEFT_RIGHT = 2
    TILE_UP_DOWN_ODD = 3
    TILE_LEFT_RIGHT_ODD = 4


class Pipe(PtoEnum):
    """Pipe identifiers (numbering of the reference CPU stub / cost model)."""

    PIPE_S = 0
    PIPE_V = 1
    PIPE_MTE1 = 2
    PIPE_MTE2 = 3
    PIPE_MTE3 = 4
    PIPE_M = 5
    PIPE_ALL = 6
    PIPE_FIX = 7

    @classmethod
    def parse(cls, value, what=None):
        if isinstance(value, str) and not value.strip().upper().startswith("PIPE_"):
            value = "PIPE_" + value.strip()
        return super().parse(value, what)

    def __str__(self) -> str:
        return self.name


# The pipes that have an in-order queue (every pipe but PIPE_ALL), in the trace's order.
QUEUE_PIPES = (
    Pipe.PIPE_S,
    Pipe.PIPE_V,
    Pipe.PIPE_MTE1,
    Pipe.PIPE_MTE2,
    Pipe.PIPE_MTE3,
    Pipe.PIPE_M,
    Pipe.PIPE_FIX,
)

PIPE_S = Pipe.PIPE_S
PIPE_V = Pipe.PIPE_V
PIPE_MTE1 = Pipe.PIPE_MTE1
PIPE_MTE2 = Pipe.PIPE_MTE2
PIPE_MTE3 = Pipe.PIPE_MTE3
PIPE_M = Pipe.PIPE_M
PIPE_ALL = Pipe.PIPE_ALL
PIPE_FIX = Pipe.PIPE_FIX

# Event ids are plain integers; the names mirror the C++ constants.
EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3 = 0, 1, 2, 3
EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 = 4, 5, 6, 7
EVENT_ID8, EVENT_ID9, EVENT_ID10, EVENT_ID11 = 8, 9, 10, 11
EVENT_ID12, EVENT_ID13, EVENT_ID14, EVENT_ID15 = 12, 13, 14, 15
