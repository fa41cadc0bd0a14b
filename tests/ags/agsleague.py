"""The AGS tests' league data directories (issue #19, scenarios/overrides.py): shipped
files made a league's (provenance league-supplied, supplied_by), edited where a test says."""

from __future__ import annotations

from pathlib import Path

from leaguedata import SCENARIOS, WHO, league_file, shipped_files

__all__ = ["SCENARIOS", "WHO", "league_file", "shipped_files"]


ROW_1 = '  1: ["1/-", "1/1", "-/1", "-/1", "-/2", "-/2", "-/2", "1/3", "-/3", "-/E", "-/E", "-/E"]'
ALL_E = "  1: [" + ", ".join(['"-/E"'] * 12) + "]"


def league_crt(tmp_path: Path) -> Path:
    d = tmp_path / "league"
    league_file(d, "tables/ags-results.yaml", {ROW_1: ALL_E})
    return d


def every_file(tmp_path: Path) -> Path:
    """A league directory replacing every AGS file the loaders read."""
    d = league_crt(tmp_path)
    league_file(d, "tables/ags-korsun-counters.yaml")
    league_file(d, "maps/ags/ags-korsun.yaml")
    league_file(d, "ags/ags-korsun.yaml")
    return d


def malformed(tmp_path: Path) -> tuple[Path, Path]:
    d = tmp_path / "league"
    (d / "tables").mkdir(parents=True)
    bad = d / "tables" / "ags-tec.yaml"
    bad.write_text("provenance: league-supplied\nterrain: [clear\n")
    return d, bad
