"""Scenario-level special rules (the scenarios' "Scenario Notes"), enforced from the keys
of a scenario's `special:` (`Setup.scenario_rules`, loaded by `scenarios/`):

- `activation`: units (by id or formation) that cannot move before a day ("2nd Armoured
  Army starts movement on July 6th"). They make no move, strategic movement or strategic
  marking (3.0, 12.0) before it; they fight, retreat and pursue as combat demands, and may
  build field fortifications (docs/rulings.md K60).
- `half_mp`: units with half MPs on given days or on the turn they enter the map ("1st
  Guards Armoured Army has 1/2 MPs on July 5th"; STAWKA reserves "have 1/2 MPs on first
  turn"), unrounded (R5), before strategic movement's 2 less (12.2.3).
- `no_crossing`: units that may not cross given hexsides ("7th Guards Army cannot cross
  the Siewierskij Doniec north of hex 5125") in any move (3.0, 11.0, 12.0), retreat or
  pursuit (5.3, 5.4; `results.CROSSING_CHECKS`).
- `withdraw`: on a day a side must take units -- or, with `equivalent`, units of the same
  type and size -- off the map for good (`withdraw UNIT ...` in its Movement Phase of that
  day, instead of moving them; `done` is refused until it has, K60).
- `destroyed_bridges`: printed bridges that are down at the start ("All bridges in
  Bielgorod are destroyed"), set in `game.initial_state`.
"""

from __future__ import annotations

from fractions import Fraction

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId, hexside
from engine.model import UnitSpec, Withdrawal
from engine.state import GameState, UnitState
from engine.wb95 import flow, movement, results, victory
from engine.wb95.dispatch import handles
from engine.wb95.reducer import on
from engine.wb95.units import Why, find_unit

HALF = Fraction(1, 2)
RULE = "scenario"  # the rule case these rejections cite: the scenario's special rules


def _day(state: GameState, turn: int) -> str:
    date = state.setup.date_of(turn)
    return f"turn {turn}" if date is None else f"turn {turn} ({date:%d %B})"


def _inactive(state: GameState, u: UnitState) -> Why | None:
    """`activation`: cannot move before its day."""
    spec = state.setup.units[u.id]
    for a in state.setup.scenario_rules.activation:
        if state.turn < a.turn and a.group.has(spec):
            who = a.label or "its formation"
            return (f"{who} cannot move before {_day(state, a.turn)}", RULE)
    return None


def _half_mp(state: GameState, u: UnitState) -> Fraction:
    """`half_mp`: half MPs on the days given, or on the turn the unit enters the map."""
    spec = state.setup.units[u.id]
    for h in state.setup.scenario_rules.half_mp:
        if not h.group.has(spec):
            continue
        if state.turn in h.turns or (h.arrival and _arrival_turn(state, u)):
            return HALF
    return Fraction(1)


def _arrival_turn(state: GameState, u: UnitState) -> bool:
    """Its first turn on the map: entering now, or entered in this turn (11.0)."""
    if u.hex is None:
        return u.arrives is not None
    return u.entry is not None and int(u.entry["turn"]) == state.turn


def _no_crossing(
    state: GameState, spec: UnitSpec, a: HexId, b: HexId
) -> tuple[str, str, str] | None:
    """`no_crossing`: these units may not cross these hexsides."""
    rules = state.setup.scenario_rules.no_crossing
    if not rules:
        return None
    hs = hexside(a, b)
    for nc in rules:
        if hs in nc.hexsides and nc.group.has(spec):
            who = nc.label or spec.id
            return (f"{who} may not cross between {a} and {b}", RULE, "K60")
    return None


movement.MOVE_CHECKS.append(_inactive)
movement.MP_FACTORS.append(_half_mp)
movement.STEP_CHECKS.append(_no_crossing)
results.CROSSING_CHECKS.append(_no_crossing)  # retreats and pursuits too (K60)


# --- withdrawals -------------------------------------------------------------------------------


def candidates(state: GameState, w: Withdrawal) -> list[UnitState]:
    """The units that may meet the withdrawal: those named, and with `equivalent` any of
    the side's units of the same type and size as one of them; on the map or still to
    arrive, not eliminated or withdrawn."""
    specs = state.setup.units
    kinds = {(specs[x].type, specs[x].size) for x in w.units}
    out: list[UnitState] = []
    for u in state.units.values():
        if u.side != w.side or u.eliminated or u.withdrawn is not None:
            continue
        if u.hex is None and u.arrives is None:
            continue
        spec = specs[u.id]
        if u.id in w.units or (w.equivalent and (spec.type, spec.size) in kinds):
            out.append(u)
    return out


def owed(state: GameState, side: str) -> list[tuple[Withdrawal, int, list[UnitState]]]:
    """Withdrawals `side` must still make now (its Movement Phase of their day): each with
    how many units are still owed and the units that may go. An obligation no unit can
    meet lapses."""
    ph = flow.current_phase(state)
    if ph.kind != "movement" or side not in flow.acting_sides(state):
        return []
    out: list[tuple[Withdrawal, int, list[UnitState]]] = []
    for w in state.setup.scenario_rules.withdrawals:
        if w.side != side or w.turn != state.turn:
            continue
        gone = sum(1 for u in state.units.values() if u.withdrawn == w.turn and u.side == side)
        can = [u for u in candidates(state, w) if not u.moved]
        left = min(w.count - gone, len(can))
        if left > 0:
            out.append((w, left, can))
    return out


def _describe(state: GameState, w: Withdrawal) -> str:
    names = ", ".join(w.units)
    what = w.label or names
    return f"{what} (or an equivalent: same type and size)" if w.equivalent else what


@flow.done_check
def _withdrawal_due(state: GameState, side: str) -> tuple[str, str, str] | None:
    due = owed(state, side)
    if not due:
        return None
    parts = [f"{n} of {_describe(state, w)}" for w, n, _ in due]
    return (
        f"the scenario requires you to withdraw {'; '.join(parts)} today: "
        f"'withdraw UNIT' before 'done'",
        RULE,
        "K60",
    )


@flow.other_moves
def _withdrawal_possible(state: GameState, side: str) -> bool:
    return bool(owed(state, side))


@handles(o.Withdraw)
def do_withdraw(ctx: Ctx, side: str, order: o.Withdraw) -> None:
    """Take units off the map for good, as the scenario requires today."""
    state = ctx.state
    due = owed(state, side)
    if not due and victory.withdraw_through_zones(ctx, side, order.units):
        return  # The Retreat's withdrawal zones
    if not due:
        raise Rejected("no withdrawal is required of you now", RULE)
    room = {id(w): n for w, n, _ in due}
    picked: list[tuple[UnitState, Withdrawal]] = []
    for ref in order.units:
        u = find_unit(state, ref)
        if u.side != side:
            raise Rejected(f"{u.id} is not yours: it belongs to {u.side}")
        w = next((w for w, _, can in due if u in can and room[id(w)] > 0), None)
        if w is None:
            wanted = "; ".join(_describe(state, w) for w, _, _ in due)
            why = "it has moved this phase" if u.moved else "it is not what must go"
            raise Rejected(f"{u.id} cannot be withdrawn: {why}; withdraw {wanted}", RULE)
        if any(u is x for x, _ in picked):
            raise Rejected(f"{u.id} is named twice", RULE)
        room[id(w)] -= 1
        picked.append((u, w))
    for u, w in picked:
        ctx.emit(
            "withdrawn",
            side=side,
            unit=u.id,
            hex=u.hex,
            reason=w.label or "the scenario's withdrawal",
            rule=RULE,
        )


@on("withdrawn")
def _withdrawn(state: GameState, e: Event) -> None:
    u = state.units[e.data["unit"]]
    u.hex = None
    u.arrives = None
    u.withdrawn = state.turn
    u.fortification = None
    u.strategic = False
