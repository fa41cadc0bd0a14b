"""Resolving the unit references of an order: scenario ids and `@HEX` (DESIGN §4)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.core import Rejected
from engine.hexgrid import HexIdError, normalize
from engine.state import GameState, UnitState

Why = tuple[str, str]  # (reason, rule case)


def find_unit(state: GameState, ref: str) -> UnitState:
    u = state.units.get(ref)
    if u is None:
        folded = [k for k in state.units if k.lower() == ref.lower()]
        if len(folded) == 1:
            u = state.units[folded[0]]
    if u is None:
        raise Rejected(f"there is no unit '{ref}' in this scenario")
    return u


def own_units(
    state: GameState,
    side: str,
    refs: Sequence[str],
    able: Callable[[UnitState], Why | None],
    what: str,
) -> list[UnitState]:
    """Resolve unit ids and `@HEX` refs to `side`'s units. `able` returns why a unit
    cannot take the order (None if it can); `@HEX` takes only the units that can."""
    out: list[UnitState] = []
    for ref in refs:
        if ref.startswith("@"):
            try:
                h = normalize(ref[1:])
            except HexIdError as e:
                raise Rejected(str(e)) from None
            here = [u for u in state.units_at(h) if u.side == side]
            fit = [u for u in here if able(u) is None]
            if not fit:
                why = able(here[0]) if len(here) == 1 else None
                if why is not None:
                    raise Rejected(f"no unit of yours at {h} can {what}: {why[0]}", why[1])
                raise Rejected(f"no unit of yours at {h} can {what}")
            out.extend(u for u in fit if u not in out)
            continue
        u = find_unit(state, ref)
        if u.side != side:
            raise Rejected(f"{u.id} is not yours: it belongs to {u.side}")
        if u.eliminated:
            raise Rejected(f"{u.id} has been eliminated")
        if u.hex is None:
            raise Rejected(f"{u.id} is not on the map yet", "11.0")
        reason = able(u)
        if reason is not None:
            raise Rejected(f"{u.id} cannot {what}: {reason[0]}", reason[1])
        if u not in out:
            out.append(u)
    if not out:
        raise Rejected(f"no units named to {what}")
    return out
