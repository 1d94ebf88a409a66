"""Every instruction family: importing this module registers every instruction with
``ptosim.isa.registry`` (the public facade imports it before it asks the registry)."""

from . import data, gather, rowexpand, scalar_access, scatter, sync, tscatter, vector  # noqa: F401
from .cube import fifo as cube_fifo  # noqa: F401
from .cube import instructions as cube  # noqa: F401
from .cube import onchip as cube_onchip  # noqa: F401
