"""Device configs as flat ``{"timing.mte2.latency_cycles": 264, ...}`` dicts, for comparing
two configs key by key."""

from __future__ import annotations


def flat(values: dict, prefix: str = "") -> dict:
    """Dotted key -> value of every leaf of a nested dict (a config's ``model_dump``)."""
    out = {}
    for key, value in values.items():
        if isinstance(value, dict):
            out.update(flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out
