"""Stacking (AGS 7.0; AGS 11.22; AGS-K 19.3, 24.12, A41).

At most three combat units a hex, and a fourth if it is an HQ -- one HQ a hex. A corps
counts as three (AGS-K 24.12), the Baeke heavy tank regiment as none (AGS-K 19.3)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine.ags.units import UnitSpec
from engine.hexgrid import HexId

LIMIT = 3


def stack_problem(stack: Iterable[UnitSpec]) -> str | None:
    """Why a friendly stack breaks the limit (None if it does not)."""
    units = list(stack)
    hqs = sum(u.is_hq for u in units)
    if hqs > 1:
        return "more than one HQ in a hex (AGS 11.22)"
    count = sum(u.stacking for u in units)
    if count > LIMIT:
        corps = any(u.is_corps for u in units)
        why = "a corps counts as three units (AGS-K 24.12)" if corps else "AGS 7.0"
        return f"{count} combat units in a hex, at most {LIMIT} ({why})"
    return None


def over_stacked(units: Mapping[str, UnitSpec], positions: Mapping[str, HexId]) -> list[str]:
    """Hexes whose stack breaks the limit, each with the reason ("0611: ...")."""
    by_hex: dict[HexId, list[UnitSpec]] = {}
    for uid, h in positions.items():
        by_hex.setdefault(h, []).append(units[uid])
    out = []
    for h in sorted(by_hex):
        why = stack_problem(by_hex[h])
        if why:
            out.append(f"{h}: {why}")
    return out


def may_enter(stack: Iterable[UnitSpec], unit: UnitSpec) -> bool:
    """A unit may end a move in, or retreat into, a friendly stack only within the limit
    (AGS 7.0, 9.74; a corps never joins another combat unit, AGS-K 24.12)."""
    return stack_problem([*stack, unit]) is None
