"""Device configs that extend a base: ``extends = "<base>"`` plus only the differences.

Expected values are derived from the public figures the configs cite (reference/timing.md 4),
not read back from the loader.
"""

from __future__ import annotations

import json
import tomllib

import pytest

import ptosim as pto
from ptosim.config import CONFIG_DIR
from ptosim.config_files import resolve, source_comments
from tests.helpers.cli import ptosim
from tests.helpers.configs import flat
from tests.helpers.paths import ROOT


def _dump(device: str) -> dict:
    return flat(pto.load_config(device).model_dump(mode="json"))


def _diff(a: str, b: str) -> dict:
    x, y = _dump(a), _dump(b)
    assert x.keys() == y.keys()
    return {k: y[k] for k in x if x[k] != y[k]}


def test_a3_is_a2_per_die():
    # the same values; A2's hardware-fitted ones are estimates on A3 (labels, not numbers)
    fitted = {
        k for k, v in flat(pto.load_config("a2").model_dump()).items() if v == "hardware-fitted"
    }
    assert fitted
    assert _diff("a2", "a3") == {
        "name": "a3",
        "description": "Atlas A3 AIV vector core (per die)",
        **dict.fromkeys(fitted, "estimate"),
    }


def test_950dt_is_950pr_with_its_faster_hbm():
    # 950DT HBM 4 TB/s against A2's 1.6 TB/s: the per-core estimates scale A2's calibrated
    # 128 B/cycle by 4 / 1.6; the chip limit is 4e12 B/s at the 950PR's public 1.65 GHz, which
    # 950DT assumes (its clock is not public: an estimate there)
    per_core = 128 * 4 / 1.6
    chip = round(4e12 / 1.65e9, 1)
    assert _diff("950pr", "950dt") == {
        "name": "950dt",
        "description": "Ascend 950DT AIV vector core (SIMT capable)",
        "timing.clock_source": "estimate",
        "timing.mte2.bw_bytes_per_cycle": per_core,
        "timing.mte3.bw_bytes_per_cycle": per_core,
        "timing.simt.gm_bw_bytes_per_cycle": per_core,
        "timing.chip.gm_bw_bytes_per_cycle": chip,
    }


@pytest.mark.parametrize("device", ["a3", "950dt"])
def test_a_shipped_derived_config_states_only_differences(device):
    """Each value the file states differs from its base's value or cites another source (a
    restated value with the base's value and source would be a copy)."""
    path = CONFIG_DIR / f"{device}.toml"
    text = path.read_text()
    own = flat({k: v for k, v in tomllib.loads(text).items() if k != "extends"})
    assert source_comments(text)["extends"], "the extends line needs a # source: comment"
    base_path = resolve(path).chain[1]
    base = flat(tomllib.loads(base_path.read_text()))
    base_sources = source_comments(base_path.read_text())
    mine = source_comments(text)
    for key, value in own.items():
        assert value != base[key] or mine.get(key) != base_sources.get(key), key
    assert len(text.splitlines()) < len(base_path.read_text().splitlines()) // 3


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


MINE = """# source: estimate - my board: an A2 with a slower MTE2 (a what-if)
extends = "{base}"
name = "mine"
description = "an A2 with a slower MTE2"

[timing.mte2]
# source: estimate - half the A2 bandwidth
bw_bytes_per_cycle = 64.0
"""


@pytest.mark.parametrize("base", ["a2", "a2.toml", "A2"])
def test_a_user_config_extends_a_shipped_device_by_name(tmp_path, base):
    path = _write(tmp_path, "mine.toml", MINE.format(base=base))
    dev = pto.Device(str(path))
    assert dev.name == "mine" and dev.target == "a2a3"
    assert _diff("a2", str(path)) == {
        "name": "mine",
        "description": "an A2 with a slower MTE2",
        "timing.mte2.bw_bytes_per_cycle": 64.0,
    }
    # the table merges key by key: the rest of [timing.mte2] is a2's
    assert dev.config.timing.mte2.latency_cycles == pto.load_config("a2").timing.mte2.latency_cycles


def test_a_chain_of_user_files_by_relative_path(tmp_path):
    _write(tmp_path, "boards/base.toml", MINE.format(base="a2"))
    top = _write(
        tmp_path,
        "runs/fast_clock.toml",
        """# source: estimate - the same board clocked higher
extends = "../boards/base.toml"
name = "fast"

[timing]
# source: estimate - a what-if clock
clock_ghz = 2.0
""",
    )
    cfg = pto.load_config(top)
    assert (cfg.name, cfg.timing.clock_ghz, cfg.timing.mte2.bw_bytes_per_cycle) == (
        "fast",
        2.0,
        64.0,
    )
    assert cfg.timing.mte3 == pto.load_config("a2").timing.mte3
    assert [p.name for p in resolve(top).chain] == ["fast_clock.toml", "base.toml", "a2.toml"]


def test_a_user_file_next_to_the_config_wins_over_a_shipped_name(tmp_path):
    _write(tmp_path, "a2.toml", (CONFIG_DIR / "950pr.toml").read_text())
    path = _write(tmp_path, "mine.toml", MINE.format(base="a2.toml"))
    assert pto.load_config(path).target == "a5"  # the local a2.toml (a 950PR copy)


def test_overrides_apply_to_the_merged_config(tmp_path):
    path = _write(tmp_path, "mine.toml", MINE.format(base="a2"))
    dev = pto.Device(str(path), overrides={"timing.mte2.latency_cycles": 500})
    assert dev.config.timing.mte2.latency_cycles == 500
    assert dev.config.timing.mte2.bw_bytes_per_cycle == 64.0


def test_extends_cycles_are_an_error(tmp_path):
    _write(tmp_path, "a.toml", 'extends = "b.toml"\nname = "a"\n')
    _write(tmp_path, "b.toml", 'extends = "a.toml"\nname = "b"\n')
    with pytest.raises(pto.ConfigError, match="extends cycle a.toml -> b.toml -> a.toml"):
        pto.load_config(tmp_path / "a.toml")
    _write(tmp_path, "self.toml", 'extends = "self.toml"\n')
    with pytest.raises(pto.ConfigError, match="extends cycle self.toml -> self.toml"):
        pto.load_config(tmp_path / "self.toml")


@pytest.mark.parametrize(
    "extends, message",
    [
        ('"a9"', "extends 'a9' names no file"),
        ('"../nowhere/a2.toml"', "extends '../nowhere/a2.toml' names no file"),
        ("3", "extends must name a config file or a device, got 3"),
        ('""', "extends must name a config file or a device"),
    ],
)
def test_a_bad_extends_is_a_config_error(tmp_path, extends, message):
    path = _write(tmp_path, "mine.toml", f'extends = {extends}\nname = "mine"\n')
    with pytest.raises(pto.ConfigError, match=message):
        pto.load_config(path)


def test_unknown_keys_are_rejected_in_a_derived_file(tmp_path):
    path = _write(tmp_path, "mine.toml", MINE.format(base="a2") + "latency = 3\n")
    with pytest.raises(pto.ConfigError, match=r"timing\.mte2\.latency: Extra inputs"):
        pto.load_config(path)


def test_a_bad_value_in_a_base_names_the_file_that_sets_it(tmp_path):
    base = _write(
        tmp_path,
        "base.toml",
        (CONFIG_DIR / "a2.toml").read_text().replace("event_ids = 8", "event_ids = 0"),
    )
    path = _write(tmp_path, "mine.toml", MINE.format(base="base.toml"))
    with pytest.raises(pto.ConfigError, match=f"sync.event_ids: .* \\(set in {base}\\)"):
        pto.load_config(path)


def _cli(*args):
    return ptosim("config", *args)


def test_ptosim_config_prints_the_resolved_values_and_their_sources(tmp_path):
    res = _cli("a3")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == pto.load_config("a3").model_dump(mode="json")
    res = _cli("a3", "--sources")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[1].startswith("# a3.toml extends a2.toml: estimate - ")
    row = {line.split(" = ")[0]: line for line in lines if not line.startswith("#")}
    assert row["timing.clock_ghz"] == (
        "timing.clock_ghz = 1.85  # a3.toml: reference/timing.md 4 - Atlas A3 clock 1.85 GHz"
    )
    # inherited: a2's value and source, marked as coming through a3.toml
    assert row["timing.mte2.latency_cycles"].startswith(
        "timing.mte2.latency_cycles = 264  # a2.toml (via a3.toml): calibration against"
    )
    # inline-table values share the comment above their table's line
    assert (
        "a2.toml (via a3.toml): calibrated: docs/calibration.md, vector fit - vdiv"
        in (row["timing.vector.classes.div.slope"])
    )
    path = _write(tmp_path, "mine.toml", MINE.format(base="a2"))
    res = _cli(str(path), "--sources")
    assert (
        "timing.mte2.bw_bytes_per_cycle = 64.0  # mine.toml: estimate - half the A2" in res.stdout
    )


def test_the_guide_example_loads_as_it_says(tmp_path):
    """The TOML example of docs/devices.md, run as a user would."""
    text = (ROOT / "docs" / "devices.md").read_text()
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    path = _write(tmp_path, "a2_slow_dma.toml", example)
    assert _diff("a2", str(path)) == {
        "name": "a2-slow-dma",
        "description": "an A2 with half the MTE2 bandwidth",
        "timing.mte2.bw_bytes_per_cycle": 128 / 2,
    }
