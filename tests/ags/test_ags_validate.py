"""`kessel validate` for AGS scenarios and maps (issue #19): the dispatch on `system:` and
on a map's `game: ags`, every loader check, and the map checks that fit AGS (roads that
stop in the open, roads in the Dniepr's river hexes, the Dniepr as one chain 2907-3911,
AGS-K 19.25; set-up and supply hexes in it)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.cli import main
from scenarios.validate import validate

ROOT = Path(__file__).parents[2] / "scenarios"
SCENARIO = ROOT / "ags" / "ags-korsun.yaml"
MAP = ROOT / "maps" / "ags" / "ags-korsun.yaml"


def _load(p: Path) -> dict:  # type: ignore[type-arg]
    data = yaml.safe_load(p.read_text())
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("ref", ["ags-korsun", str(SCENARIO), str(MAP)])
def test_the_shipped_ags_files_validate(ref: str) -> None:
    report = validate(ref)
    assert report.ok, report.problems
    assert report.kind == ("map" if ref == str(MAP) else "scenario")


def test_validate_cli_on_the_ags_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "ags-korsun"]) == 0
    assert "scenario ok" in capsys.readouterr().out


def test_an_ags_scenario_breaking_the_text_is_reported(tmp_path: Path) -> None:
    data = _load(SCENARIO)
    data["turns"] = 12  # AGS-K 19.12: the track's 13
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    report = validate(str(bad))
    assert not report.ok and "turns" in report.problems[0]


def test_an_unknown_system_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "x.yaml"
    bad.write_text("id: x\nsystem: nope\n")
    report = validate(str(bad))
    assert not report.ok and "unknown rule system" in report.problems[0]


def test_ags_map_checks_report_every_fault(tmp_path: Path) -> None:
    data = _load(MAP)
    # a Dniepr hex cut out of the chain, and a road that ends in the open
    river = sorted(h for h, t in data["terrain"].items() if t == "dnieper")
    middle = river[len(river) // 2]
    data["terrain"][middle] = "clear"
    data["roads"].append({"kind": data["roads"][0]["kind"], "hexes": ["1212", "1213"]})
    bad = tmp_path / "map.yaml"
    bad.write_text(yaml.safe_dump(data))
    problems = validate(str(bad)).problems
    text = "\n".join(problems)
    assert "AGS-K 19.25" in text and "one chain" in text
    assert "a road stops at" in text
    # a road into a Dniepr river hex
    data = _load(MAP)
    data["roads"].append(
        {
            "kind": data["roads"][0]["kind"],
            "hexes": [river[0], river[0][:2] + f"{int(river[0][2:]) + 1:02d}"],
        }
    )
    bad.write_text(yaml.safe_dump(data))
    text = "\n".join(validate(str(bad)).problems)
    assert "a Dniepr river hex" in text
