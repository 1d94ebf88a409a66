"""ptosim: a cycle-approximate, multi-target simulator for Ascend PTO tile instructions.

The names mirror the C++ PTO API so kernels port line by line; see README.md.
"""

from . import cxx  # noqa: F401 - pto.cxx: the C++ front end
from .api import *  # noqa: F403 - the facade: every public name of ptosim.api
from .api import __all__ as _api_all

__version__ = "0.1.0"

__all__ = list(_api_all)
