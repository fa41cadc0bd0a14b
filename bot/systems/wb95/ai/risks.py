"""Kursk's losses a move or an attack brings on its own side: on the mine days every hit of
a front's dice costs a CEL of a unit that attacked or crossed a fortified line there (18.1.3:
4K6 north, 6K6 south, 1-3 hits), and a Panther unit that moves or attacks loses a CEL on a
1-3 (22.1.1). The owner spreads the mine losses (answers.losses), so a unit on its last CEL
is safe only while the other units that attacked on its front have spare CELs for the hits
the dice are likely to bring; the planner keeps it out of attacks otherwise."""

from __future__ import annotations

from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.wb95.kursk import ATTACKED, CROSSED, MOVED, activated, front_of


def mine_hits(state: GameState, side: str, h: HexId | None) -> float:
    """The hits the coming Supply Phase's mine dice are likely to bring on the front of `h`
    (18.1.2: half the dice), 0 outside the mine days or the fronts."""
    rule = state.setup.rules.mines
    if rule is None or rule.side != side:
        return 0.0
    date = state.setup.date_of(state.turn)
    front = front_of(state, h)
    if date is None or front is None or not rule.first <= date <= rule.last:
        return 0.0
    return rule.dice.get(front, 0) * len(rule.hits) / 6


def spare_cels(state: GameState, side: str) -> dict[str, float]:
    """Per front, the CELs beyond the last of the units already bound to roll (18.1.3)."""
    out: dict[str, float] = {}
    for u in state.on_map(side):
        front = front_of(state, u.hex)
        if front is not None and activated(state, u.id, (ATTACKED, CROSSED)):
            out[front] = out.get(front, 0.0) + max(0, u.cel - 1)
    return out


def breaks_down(state: GameState, u: UnitState) -> bool:
    """A Panther unit that has not yet moved or attacked since its last Supply Phase: moving
    or attacking now costs it a die roll (22.1.1)."""
    rule = state.setup.rules.breakdown
    if rule is None or rule.side != u.side:
        return False
    spec = state.setup.units[u.id]
    return spec.equipment == rule.equipment and not activated(state, u.id, (MOVED, ATTACKED))


def last_cel_at_risk(state: GameState, u: UnitState, spare: dict[str, float]) -> bool:
    """A unit on its last CEL that an attack would put under mine dice the spare CELs of
    its front cannot absorb, or to a Panther breakdown roll (half the time its end)."""
    if u.cel > 1:
        return False
    if breaks_down(state, u):
        return True
    hits = mine_hits(state, u.side, u.hex)
    front = front_of(state, u.hex)
    return hits > 0 and spare.get(front or "", 0.0) < hits


def commit(state: GameState, u: UnitState, spare: dict[str, float]) -> None:
    """`u` attacks: its spare CELs take mine hits on its front from now on."""
    front = front_of(state, u.hex)
    if front is not None and mine_hits(state, u.side, u.hex) > 0:
        spare[front] = spare.get(front, 0.0) + max(0, u.cel - 1)
