"""The turn log in plain language, per viewer (fog of war applies), written by the describer
of the game's rule system (bot/systems; WB-95's is `bot.describe`).

Events reach a viewer only through `engine.view.visible_events`, given the current state:
sealed inputs and private reports are redacted, and a unit the viewer does not see in
full now (an enemy counter under the top of its stack, 16.1.1) is named only "a Soviet
unit".
"""

from __future__ import annotations

from collections.abc import Iterable

from bot import systems
from engine.core import Event
from engine.state import GameState
from engine.view import visible_events


def events_for(events: Iterable[Event], state: GameState, viewer: str) -> list[Event]:
    """`events` as `viewer` may read them (engine.view.visible_events with the state)."""
    return visible_events(events, viewer, state)


def lines_for(
    events: Iterable[Event], state: GameState, viewer: str, *, numbered: bool = False
) -> list[str]:
    """One line per event `viewer` may read, in words (the system's describer; events with nothing
    to say are left out, a run of alike events is one line); `numbered`: with the event
    numbers `mod rollback` takes."""
    describer = systems.describer(state)
    return describer.lines(events_for(events, state, viewer), numbered=numbered)
