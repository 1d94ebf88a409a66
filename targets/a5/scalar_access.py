"""950 plans of the scalar accesses GetValue / SetValue: the A2/A3 plans (one PIPE_S step each)
with the costs of configs/950pr.toml, 950dt.toml ``[timing.scalar]`` (estimates there: no public
figure for the 950 scalar unit either)."""

from __future__ import annotations

from ptosim.isa.scalar_access import GetValueInstr, SetValueInstr

from ..a2a3.scalar_access import plan_get_value, plan_set_value

PLANS = {GetValueInstr: plan_get_value, SetValueInstr: plan_set_value}
