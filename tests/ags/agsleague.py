"""The AGS tests' league data directories (issue #19, scenarios/overrides.py): shipped
files made a league's (provenance league-supplied, supplied_by), edited where a test says."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bot.service.referee import shipped_setup
from scenarios import overrides

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
WHO = "Ostfront League (transcribed by A. Nonymous)"


@contextmanager
def shipped_files() -> Iterator[None]:
    """The block starts and ends on the shipped files, the loaded scenarios forgotten (a
    process takes its data directory once, at its start)."""
    overrides.use(None)
    shipped_setup.cache_clear()
    try:
        yield
    finally:
        overrides.use(None)
        shipped_setup.cache_clear()


def league_file(d: Path, name: str, edit: dict[str, str] | None = None) -> Path:
    """The shipped file `name` as a league's: provenance league-supplied, supplied_by."""
    text = (SCENARIOS / name).read_text(encoding="utf-8")
    lines = [x for x in text.splitlines() if not x.startswith(("provenance:", "supplied_by:"))]
    text = "\n".join([f"provenance: league-supplied\nsupplied_by: {WHO!r}", *lines, ""]).replace(
        "provenance: reconstructed", "provenance: league-supplied"
    )
    for old, new in (edit or {}).items():
        assert old in text, old
        text = text.replace(old, new)
    p = d / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


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
