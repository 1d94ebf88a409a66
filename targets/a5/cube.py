"""950 plans of the cube core's instructions: the A2/A3 plans (the same intrinsics move the
same bytes: TLOAD into L1 on MTE2, L1 -> L0A / L0B / bias table on MTE1, mad on PIPE_M, the
fixpipe on PIPE_FIX; targets/a2a3/cube.py) with the 950 config's ``[timing.cube]`` figures,
which are estimates: the vendor's a5 cost model has no cube entries (reference/cube_isa.md 5),
so configs/950pr.toml carries the a2a3 model's figures labelled ``estimate``."""

from __future__ import annotations

from ..a2a3.cube import PLANS as _A2A3_PLANS

PLANS = dict(_A2A3_PLANS)
