"""The odds preview while moving (K181, AGS 4.2): in a side's own Initial Movement Phase
an attack is previewed as the Combat Phase that follows would count it, marked as
planning; the attack itself waits for the Combat Phase (AGS 9.11)."""

from __future__ import annotations

from agsstart import korsun, refused, start

from engine import orders as o
from engine import systems
from engine.core import Applied, Rejection

ATTACK = o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513")


def test_k181_the_initial_movement_phase_previews_the_coming_combat() -> None:
    rec = start(korsun(), 1)
    rules = systems.of(rec.state)
    before = rec.state.snapshot()
    planned = rules.preview(rec.state, "soviet", ATTACK)
    assert isinstance(planned, dict), planned
    assert planned["planning"] and "Initial Movement Phase" in planned["explanation"][0]
    assert rec.state.snapshot() == before  # nothing changed, the phase included
    assert refused(rec, "soviet", ATTACK)  # declared only in the Combat Phase
    # the German previews nothing in the Soviet player-turn
    theirs = rules.preview(rec.state, "german", o.Attack(units=("g-4-6",), target="0613"))
    assert isinstance(theirs, Rejection) and "4.2" in theirs.rule
    assert isinstance(rec.submit("soviet", o.Done()), Applied)  # to the Combat Phase
    now = rules.preview(rec.state, "soviet", ATTACK)
    assert isinstance(now, dict) and "planning" not in now
    assert (now["text"], now["column"], now["results"]) == (
        planned["text"],
        planned["column"],
        planned["results"],
    )
