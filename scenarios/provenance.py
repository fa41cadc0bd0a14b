"""A scenario's data provenance for listings (issue #19): which of its data parts are not
printed in the rules, as its rule system says (`RuleSystem.data_provenance`)."""

from __future__ import annotations

import os

from engine import systems
from engine.provenance import sentence
from scenarios.loader import load_scenario


def data_note(ref: str | os.PathLike[str]) -> str:
    """One sentence naming the scenario's reconstructed (or league-supplied) data; empty
    when its system says nothing (WB-95) or all is printed."""
    setup = load_scenario(ref)
    return sentence(systems.of(setup).data_provenance(setup))
