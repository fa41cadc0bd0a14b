"""19.0 Soviet Fortified Lines (FL) -- a Kursk 1943 rule (the game data's `fortified_line`).

A fortified line is printed on hexsides (`fortified-line`). A hex is in the line when any
of its hexsides carries it, on either side of the line (as K21 for fixed positions: the
map data does not say which side is the fortified one). When the line's builder (the
Soviets) defends a hex in it (the hex that counts, 5.5.3):

- 19.1.1: the SPs of the attackers that attack across an FL hexside of that hex, and all
  the attacker's supporting SPs (artillery, air), are halved like a fixed position's
  (7.3.2, R5: once, on their total, rounded up).
- 19.1.2: the defender gets 2 CMs when more than half of the attacking units' SPs
  (nominal, as 7.3.4's example counts them) come across an FL hexside;
- 19.1.3: 1 CM instead when its own SPs in that hex are 4 or less.
- The FL CMs and field fortifications do not add up: the defender gets the better of
  them (as 7.3.4 puts a fixed position in place of FF).

The other side's units (Germans) defending a hex in the line get 1 CM however they are
attacked and no halving (19.1.4). Any unit in a hex of the line counts as fortified: for
stars (R20) when the line gives it CMs, and for the duty to attack (5.1.3, as 7.3.5 for
fixed positions). docs/rulings.md K57. `combat.py` calls `assess` next to its fixed-
position code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.wb95.crt import halve
from engine.wb95.strength import strength

FL = "fortified-line"


def in_line(state: GameState, h: HexId | None) -> bool:
    """The hex has a fortified-line hexside, in a game with 19.0."""
    if h is None or state.setup.rules.fortified_line is None:
        return False
    m = state.setup.map
    return any(FL in m.features(h, n) for n in m.grid.neighbours(h))


def crosses_line(state: GameState, a: HexId, b: HexId) -> bool:
    """The step a -> b crosses a fortified-line hexside (18.1.3: "moved through")."""
    return FL in state.setup.map.features(a, b)


@dataclass(frozen=True)
class LineEffect:
    """What a fortified line does in one combat. `front`: attackers whose SPs (with the
    support) are halved (19.1.1); `cms` for the defender, `why` and `rule` to explain them;
    `replaces_ff`: the FL CMs are given instead of the field fortifications' (they are
    no fewer); `fortified`: the defenders count as fortified for stars (R20)."""

    front: tuple[str, ...] = ()
    cms: int = 0
    why: str = ""
    rule: str = "19.1"
    replaces_ff: bool = False
    fortified: bool = False


NONE = LineEffect()


def assess(
    state: GameState,
    attackers: Sequence[UnitState],
    defenders: Sequence[UnitState],
    counted: HexId,
    att_sp: Mapping[str, int] | None = None,
) -> LineEffect:
    """19.1.1-19.1.4 for an attack on `counted` (the defending hex that counts, 5.5.3).
    `att_sp`: the attackers' SPs before any halving (default: their strengths)."""
    rule = state.setup.rules.fortified_line
    here = [u for u in defenders if u.hex == counted]
    if rule is None or not here or not in_line(state, counted):
        return NONE
    if att_sp is None:
        att_sp = {u.id: strength(state, u, True).sp for u in attackers}
    fort = _fortification_cms(state, here, counted)
    if here[0].side != rule.owner:  # 19.1.4
        why = f"{here[0].side} units in a fortified line at {counted}"
        replaces = rule.other_cms > 0 and rule.other_cms >= fort
        return LineEffect((), rule.other_cms, why, "19.1.4", replaces, True)
    m = state.setup.map
    front = tuple(u.id for u in attackers if u.hex and FL in m.features(u.hex, counted))
    front_sp = sum(att_sp[u] for u in front)
    total = sum(att_sp.values())
    if not 2 * front_sp > total:  # 19.1.2: more than half across the line
        return LineEffect(front=front)
    own = sum(
        strength(state, u, False).sp
        for u in here
        if state.setup.units[u.id].type != "art"  # towed guns add SPs only by support, 6.6.1
    )
    if own <= rule.small_sp:
        cms, case = rule.small_cms, "19.1.3"
        why = (
            f"fortified line held by {own} SPs (<= {rule.small_sp}): "
            f"{front_sp} of {total} SPs across it"
        )
    else:
        cms, case = rule.cms, "19.1.2"
        why = f"fortified line: {front_sp} of {total} attacking SPs across it"
    return LineEffect(front, cms, why, case, cms > 0 and cms >= fort, cms > 0)


def halve_attack(
    total: int, att_sp: Mapping[str, int], support: int, effect: LineEffect
) -> tuple[int, str]:
    """19.1.1: the SPs across the line and the supporting SPs count half, on their total,
    rounded up (R5); the new attack total and a line explaining it."""
    front = sum(att_sp[u] for u in effect.front) + support
    halved = halve(front)
    note = f"{front} SPs attacking across the fortified line count {halved} (19.1.1, R5)"
    return total - front + halved, note


def _fortification_cms(state: GameState, here: Sequence[UnitState], h: HexId) -> int:
    """The CMs the defenders' own fortification marker would give (7.1.10, 20.1.1, R15;
    7.2.1 improved fortifications 2)."""
    table = state.setup.table
    if any(u.fortification == "if" for u in here):
        return 2
    if any(u.fortification == "ff" for u in here):
        terrain = state.setup.map.terrain_of(h)
        return table.ff_cms.get(terrain, table.ff_cms.get("*", 1))
    return 0
