"""How each WB-95 event changes a state. The only code that mutates a GameState.

Replaying a game's events through `reduce` from its initial state rebuilds the state
exactly (DESIGN §2), so every state change must be an event handled here.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from engine.core import Event
from engine.state import GameState


def _phase_started(s: GameState, e: Event) -> None:
    s.phase = int(e.data["index"])
    s.done = []
    for u in s.units.values():
        u.moved = False
        u.fought = False
        u.full_attack = False  # 10.2.3: paid for one attack only
        u.mp_spent = Fraction(0)


def _turn_started(s: GameState, e: Event) -> None:
    s.turn = int(e.data["turn"])


def _side_done(s: GameState, e: Event) -> None:
    if e.data["side"] not in s.done:
        s.done.append(str(e.data["side"]))


def _moved(s: GameState, e: Event) -> None:
    u = s.units[e.data["unit"]]
    if u.hex != e.data["to"]:
        u.entered_seq = e.seq
    u.hex = e.data["to"]
    u.moved = True
    u.mark_active(s.turn, s.phase)
    u.mp_spent = Fraction(e.data["cost"])


def _dice_rolled(s: GameState, e: Event) -> None:
    s.dice.consume(int(e.data["forced"]), int(e.data["seeded"]))


def _control_changed(s: GameState, e: Event) -> None:
    for h, side in e.data["changes"].items():
        if side is None:
            s.control.pop(h, None)
        else:
            s.control[h] = side


def _game_ended(s: GameState, e: Event) -> None:
    s.over = True
    s.result = dict(e.data["result"])


def _info(s: GameState, e: Event) -> None:
    """Events that only report (game_started, phase_skipped, ...)."""


EventHandler = Callable[[GameState, Event], None]

HANDLERS: dict[str, EventHandler] = {
    "game_started": _info,
    "turn_started": _turn_started,
    "phase_started": _phase_started,
    "phase_skipped": _info,
    "side_done": _side_done,
    "moved": _moved,
    "dice_rolled": _dice_rolled,
    "control_changed": _control_changed,
    "game_ended": _game_ended,
}


def on(kind: str) -> Callable[[EventHandler], EventHandler]:
    """Register how a rule module's event kind changes the state."""

    def register(fn: EventHandler) -> EventHandler:
        if kind in HANDLERS:
            raise RuntimeError(f"two reducers for '{kind}'")
        HANDLERS[kind] = fn
        return fn

    return register


OBSERVERS: dict[str, list[EventHandler]] = {}


def also_on(kind: str) -> Callable[[EventHandler], EventHandler]:
    """Register a further change another module's event makes to the state, applied after
    that event's own reducer (e.g. air missions spent by the combat they supported:
    `combat_resolved`, 8.2.2)."""

    def register(fn: EventHandler) -> EventHandler:
        OBSERVERS.setdefault(kind, []).append(fn)
        return fn

    return register


def reduce(state: GameState, event: Event) -> None:
    handler = HANDLERS.get(event.kind)
    if handler is None:
        raise ValueError(f"unknown event kind '{event.kind}'")
    handler(state, event)
    for more in OBSERVERS.get(event.kind, ()):
        more(state, event)
    state.seq = event.seq
