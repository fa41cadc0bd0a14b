"""The turn log in plain language, per viewer (fog of war applies).

Events reach a viewer only through `engine.view.visible_events` (sealed inputs, private
reports). On top of that, an event that names a unit the viewer may not identify (an
enemy counter under the top of its stack, 16.1.1) names it only as "a Soviet unit": the
viewer learns what it would see across the table, never a hidden counter's identity.
A unit counts as identified when the viewer's current view shows it in full.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.script import describe_event
from engine.core import Event
from engine.state import GameState
from engine.view import MODERATOR, view, visible_events


def known_units(state: GameState, viewer: str) -> set[str] | None:
    """The unit ids `viewer` may read in the log (None: all of them)."""
    if viewer == MODERATOR:
        return None
    v = view(state, viewer)
    return {u.id for u in v.units if u.id is not None and u.known == "full"}


def _mask(value: Any, hidden: dict[str, str]) -> Any:
    if isinstance(value, str):
        return hidden.get(value, value)
    if isinstance(value, list):
        return [_mask(v, hidden) for v in value]
    if isinstance(value, dict):
        return {k: _mask(v, hidden) for k, v in value.items()}
    return value


def events_for(events: Iterable[Event], state: GameState, viewer: str) -> list[Event]:
    """`events` as `viewer` may read them."""
    shown = visible_events(events, viewer)
    known = known_units(state, viewer)
    if known is None:
        return shown
    hidden = {
        u.id: f"a {u.side.capitalize()} unit" for u in state.units.values() if u.id not in known
    }
    return [Event(e.seq, e.kind, _mask(e.data, hidden)) for e in shown]


def lines_for(events: Iterable[Event], state: GameState, viewer: str) -> list[str]:
    """One line per event `viewer` may read (events with nothing to say are left out)."""
    out = []
    for e in events_for(events, state, viewer):
        try:
            text = describe_event(e)
        except (KeyError, TypeError, ValueError):
            text = e.kind.replace("_", " ")
        if text:
            out.append(text)
    return out
