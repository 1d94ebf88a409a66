"""ptosim: a cycle-approximate, multi-target simulator for Ascend PTO tile instructions.

The names mirror the C++ PTO API so kernels port line by line; see README.md.
"""

from .config import DeviceConfig, available_devices, load_config
from .device import Device
from .dtypes import DType
from .enums import (
    EVENT_ID0,
    EVENT_ID1,
    EVENT_ID2,
    EVENT_ID3,
    EVENT_ID4,
    EVENT_ID5,
    EVENT_ID6,
    EVENT_ID7,
    EVENT_ID8,
    EVENT_ID9,
    EVENT_ID10,
    EVENT_ID11,
    EVENT_ID12,
    EVENT_ID13,
    EVENT_ID14,
    EVENT_ID15,
    PIPE_ALL,
    PIPE_FIX,
    PIPE_M,
    PIPE_MTE1,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_S,
    PIPE_V,
    AtomicType,
    BLayout,
    Coalesce,
    GatherExec,
    GatherOOB,
    Layout,
    MaskPattern,
    PadValue,
    Pipe,
    ScatterAtomicOp,
    ScatterAxis,
    ScatterConflict,
    ScatterOOB,
    SLayout,
    TileType,
)
from .errors import (
    ConfigError,
    ConstraintError,
    DeadlockError,
    ExecutionError,
    FindingsError,
    KernelError,
    MemoryLayoutError,
    OutOfBoundsError,
    PtoSimError,
    RaceFailureError,
    UbBudgetError,
    UnsupportedError,
)
from .findings import Finding
from .isa.data import TASSIGN, TEXPANDS, TLOAD, TMOV, TSTORE
from .isa.gather import MGATHER
from .isa.rowexpand import (
    TROWEXPAND,
    TROWEXPANDADD,
    TROWEXPANDDIV,
    TROWEXPANDEXPDIF,
    TROWEXPANDMAX,
    TROWEXPANDMIN,
    TROWEXPANDMUL,
    TROWEXPANDSUB,
)
from .isa.scatter import MSCATTER
from .isa.sync import (
    SyncAll,
    ffts_config,
    ffts_cross_core_sync,
    pipe_barrier,
    set_flag,
    wait_flag,
    wait_flag_dev,
)
from .isa.tscatter import TSCATTER
from .memory import GmBuffer
from .program import Kernel, get_block_idx, get_block_num, kernel
from .run import RunResult
from .tensors import GlobalTensor, Tile

__version__ = "0.1.0"

__all__ = [
    "Device",
    "DeviceConfig",
    "available_devices",
    "load_config",
    "kernel",
    "Kernel",
    "get_block_idx",
    "get_block_num",
    "Tile",
    "GlobalTensor",
    "GmBuffer",
    "RunResult",
    "Finding",
    "DType",
    "TASSIGN",
    "TLOAD",
    "TSTORE",
    "TMOV",
    "TEXPANDS",
    "MGATHER",
    "MSCATTER",
    "TSCATTER",
    "TROWEXPAND",
    "TROWEXPANDMAX",
    "TROWEXPANDMIN",
    "TROWEXPANDADD",
    "TROWEXPANDSUB",
    "TROWEXPANDMUL",
    "TROWEXPANDDIV",
    "TROWEXPANDEXPDIF",
    "set_flag",
    "wait_flag",
    "pipe_barrier",
    "ffts_cross_core_sync",
    "wait_flag_dev",
    "SyncAll",
    "ffts_config",
    "TileType",
    "BLayout",
    "SLayout",
    "Layout",
    "PadValue",
    "Coalesce",
    "GatherOOB",
    "ScatterOOB",
    "AtomicType",
    "ScatterAtomicOp",
    "ScatterConflict",
    "GatherExec",
    "MaskPattern",
    "ScatterAxis",
    "Pipe",
    "PIPE_S",
    "PIPE_V",
    "PIPE_MTE1",
    "PIPE_MTE2",
    "PIPE_MTE3",
    "PIPE_M",
    "PIPE_ALL",
    "PIPE_FIX",
    "EVENT_ID0",
    "EVENT_ID1",
    "EVENT_ID2",
    "EVENT_ID3",
    "EVENT_ID4",
    "EVENT_ID5",
    "EVENT_ID6",
    "EVENT_ID7",
    "EVENT_ID8",
    "EVENT_ID9",
    "EVENT_ID10",
    "EVENT_ID11",
    "EVENT_ID12",
    "EVENT_ID13",
    "EVENT_ID14",
    "EVENT_ID15",
    "PtoSimError",
    "KernelError",
    "ConstraintError",
    "UnsupportedError",
    "MemoryLayoutError",
    "UbBudgetError",
    "OutOfBoundsError",
    "RaceFailureError",
    "ConfigError",
    "DeadlockError",
    "ExecutionError",
    "FindingsError",
]

# Every instruction of the registry (the vector ISA included) is a top-level name, so the
# facade cannot miss one.
from .isa import registry as _registry  # noqa: E402

globals().update(_registry.kernel_functions())
__all__ += [_name for _name in _registry.kernel_functions() if _name not in __all__]

# The C++ front end, as pto.cxx (imported last: it uses the names above).
from . import cxx  # noqa: E402, F401
