"""A league's data directories for tests (issue #19, scenarios/overrides.py): shipped files
made a league's (provenance league-supplied, supplied_by), edited where a test says."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bot.service import Caller
from bot.service.referee import shipped_setup
from scenarios import overrides

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
# a league organiser and two players of one server
MOD = Caller("u-mod", "Org", server_mod=True, guild="g", channel="c")
ALICE = Caller("u-a", "Alice", guild="g", channel="c")
BOB = Caller("u-b", "Bob", guild="g", channel="c")
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
