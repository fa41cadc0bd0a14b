"""Where a scenario's data come from, said to players (issue #19): each system names its
data parts with their provenance -- `printed` (in the rules), `reconstructed` (the
project's, its reason in the data file), `league-supplied` (a league's transcription) or
`invented` (a demonstration scenario's) -- through `RuleSystem.data_provenance`; the
referee says which are not printed."""

from __future__ import annotations

from collections.abc import Mapping


def not_printed(provenance: Mapping[str, str]) -> dict[str, str]:
    """The parts whose values are not all printed, with their provenance."""
    return {part: p for part, p in provenance.items() if p != "printed"}


def sentence(provenance: Mapping[str, str]) -> str:
    """One line for `status` and the scenario list; empty when everything is printed."""
    parts = not_printed(provenance)
    if not parts:
        return ""
    said = "; ".join(f"{part} ({p})" for part, p in parts.items())
    return f"Data not printed in the rules: {said}."
