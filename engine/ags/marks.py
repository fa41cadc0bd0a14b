"""The reducer's handlers for overruns, disruption, delay and disengagement, 9.76 and the
A41 eliminations (engine/ags/reducer.py registers them). State in `GameState.ext`:

- `start_hex` ({unit: hex} as the phase began; AGS 6.13); `disengaged` (units that left
  an enemy-controlled hex by disengagement this phase, AGS-K 22.21); `overrun_stopped`
  (overrunners that may move no further this phase, AGS 6.22, 6.23);
- `disrupted` (units disrupted by an overrun, AGS 6.31), removed in their owner's
  Disruption Removal Phase, the end of its player-turn (6.33);
- `retreated_into` ({unit: hex}: units retreated this Combat Phase into a friendly
  occupied hex, AGS 9.76); `advanced_defenders` (defenders that advanced, 9.83)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from engine.state import GameState

Handler = Callable[[GameState, dict[str, Any]], None]


def after_phase_started(orig: Handler) -> Handler:
    def handler(s: GameState, d: dict[str, Any]) -> None:
        orig(s, d)
        s.ext["start_hex"] = {u.id: u.hex for u in s.units.values() if u.on_map}
        s.ext["disengaged"], s.ext["retreated_into"], s.ext["advanced_defenders"] = [], {}, []
        s.ext["overrun_stopped"], s.ext["last_moved"] = [], []
        # 6.33: the Disruption Removal Phase ends the owner's player-turn (AGS 4.2)
        ending = "german" if s.phase == 0 else "soviet" if s.phase == 3 else None
        if ending is not None:
            s.ext["disrupted"] = [
                uid for uid in s.ext.get("disrupted", []) if s.units[uid].side != ending
            ]

    return handler


def after_moved(orig: Handler) -> Handler:
    def handler(s: GameState, d: dict[str, Any]) -> None:
        orig(s, d)
        if d.get("how") == "disengage":
            s.ext.setdefault("disengaged", []).append(d["unit"])

    return handler


def after_retreated(orig: Handler) -> Handler:
    def handler(s: GameState, d: dict[str, Any]) -> None:
        orig(s, d)
        c = s.ext.get("combat") or {}
        u = s.units[d["unit"]]
        if c.get("overrun") or u.hex is None:
            return  # 9.76 note: not after an overrun
        # 9.76 is a retreat into a friendly-occupied hex; units of one combat retreat at
        # once (9.75), so joining a fellow retreater in a hex that was empty is not (K173)
        together = set(c.get("retreats", {}))
        if any(x.id != u.id and x.id not in together for x in s.units_at(u.hex)):
            s.ext.setdefault("retreated_into", {})[u.id] = u.hex

    return handler


def after_advanced(orig: Handler) -> Handler:
    def handler(s: GameState, d: dict[str, Any]) -> None:
        orig(s, d)
        if d.get("defenders"):
            s.ext.setdefault("advanced_defenders", []).extend(d["units"])
        for uid in d["units"]:
            s.units[uid].fought = True

    return handler


def _overrun_declared(s: GameState, d: dict[str, Any]) -> None:
    for uid in d["attackers"]:
        u = s.units[uid]
        u.mp_spent += Fraction(d["cost"])  # AGS 6.16: three Movement Points
        u.moved = True
        heavy = s.ext.get("heavy", {})
        if 0 < int(heavy.get(uid, 0)) < 3:  # AGS-K 25.34: an overrun is a move (AGS 6.0)
            heavy[uid] = int(heavy[uid]) + 1
    s.ext["last_moved"] = list(d["attackers"])  # an overrun is part of their move (K177)
    hq = d.get("hq")
    if hq:  # AGS-K 23.2, 23.21, A4: an overrun is an offensive operation of its HQ
        ops = s.ext.setdefault("operations", {})
        ops[hq] = int(ops.get(hq, 0)) + 1


def _disrupted(s: GameState, d: dict[str, Any]) -> None:
    marks = s.ext.setdefault("disrupted", [])
    marks.extend(uid for uid in d["units"] if uid not in marks)  # 6.32: no further effect


def _stopped(s: GameState, d: dict[str, Any]) -> None:
    """AGS 6.22, 6.23: overrunners that failed or suffered move no further this phase."""
    stopped = s.ext.setdefault("overrun_stopped", [])
    stopped.extend(uid for uid in d["units"] if uid not in stopped)


def _nothing(s: GameState, d: dict[str, Any]) -> None:
    return None


HANDLERS: dict[str, Handler] = {
    "overrun_declared": _overrun_declared,
    "disrupted": _disrupted,
    "overrun_stopped": _stopped,
    "over_stacked": _nothing,
}
WRAPPERS: dict[str, Callable[[Handler], Handler]] = {
    "phase_started": after_phase_started,
    "moved": after_moved,
    "retreated": after_retreated,
    "advanced": after_advanced,
}


def install(handlers: dict[str, Handler]) -> None:
    for kind, wrap in WRAPPERS.items():
        handlers[kind] = wrap(handlers[kind])
    handlers.update(HANDLERS)
