"""A scenario's data provenance for listings (issue #19): which of its data parts are not
printed in the rules, as its rule system says (`RuleSystem.data_provenance`)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from engine import systems
from engine.provenance import not_printed, sentence
from scenarios import overrides
from scenarios.loader import load_scenario

_LOCK = threading.Lock()
_PARTS: dict[tuple[str, int, str], dict[str, str]] = {}  # (path, mtime, data dir) -> parts


def data_note(ref: str | os.PathLike[str]) -> str:
    """One sentence naming the scenario's data that are not printed (reconstructed,
    league-supplied, invented); empty when all is printed."""
    setup = load_scenario(ref)
    return sentence(systems.of(setup).data_provenance(setup))


def not_printed_parts(ref: str | os.PathLike[str]) -> dict[str, str]:
    """The scenario's data parts that are not printed, with their provenance; memoized by
    file and modification time (the scenario lists ask on every keystroke)."""
    path = Path(ref)
    stamp = (str(path.resolve()), path.stat().st_mtime_ns) if path.exists() else (str(ref), 0)
    key = (*stamp, overrides.key())  # a league's data directory changes what is printed
    with _LOCK:
        found = _PARTS.get(key)
    if found is None:
        setup = load_scenario(ref)
        found = not_printed(systems.of(setup).data_provenance(setup))
        with _LOCK:
            if len(_PARTS) > 256:
                _PARTS.clear()
            _PARTS[key] = found
    return dict(found)


def data_tag(ref: str | os.PathLike[str]) -> str:
    """A short mark for a scenario list: "reconstructed data", "league-supplied data",
    "invented data" (a demonstration), or two joined by "and"; empty when everything is
    printed."""
    said = not_printed_parts(ref).values()
    kinds = [
        k for k in ("reconstructed", "league-supplied", "invented") if any(k in v for v in said)
    ]
    return f"{' and '.join(kinds or ['not printed'])} data" if said else ""
