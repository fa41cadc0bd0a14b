"""The German set-up as a step before play (AGS-K 18.2; K170).

The Soviet set-up is printed on the map (18.1) and the German one is the player's choice
within the printed limits (18.21-18.25). The game opens with a German decision `setup`:
the scenario's German positions stand until the German player moves a set-up unit with
`move UNIT... HEX` -- a lettered unit to any hex of its set-up area (18.22) on the German
side of the start line (18.23), a unit of the 2306 group within three hexes of 2306
(18.21), never over the stacking limit (18.25); a unit with a printed hex stays on it
(18.21). `done` checks 18.24 (every hex bordering a letter's stretch occupied by or in
the ZOC of a unit of that letter) and starts Game-Turn 1. The shipped set-up passes
every check (the loader's, scenarios/ags/scenario.py), so `done` is the deadline
default."""

from __future__ import annotations

from engine import orders as o
from engine.ags import game, sequence, stacking
from engine.ags.setup import setup_area, soviet_side, uncovered
from engine.core import Ctx, Rejected
from engine.hexgrid import HexId
from engine.state import Decision, GameState

KIND = "setup"
SIDE = "german"
GROUP = "2306"  # AGS-K 18.21: the four units placed within three hexes of 2306
RULE = "AGS-K 18.2"


def decision(state: GameState) -> Decision | None:
    return next((d for d in state.pending if d.kind == KIND), None)


def open_setup(ctx: Ctx) -> None:
    """At the game's start, before Game-Turn 1 (AGS-K 18.0, K170)."""
    units = [u.id for u in ctx.state.on_map(SIDE) if _code(ctx.state, u.id) is not None]
    ctx.emit("decision_opened", side=SIDE, decision=KIND, options={"units": units}, rule=RULE)


def _code(state: GameState, uid: str) -> str | None:
    return game.spec(state, uid).setup


def legal_hexes(state: GameState, uid: str) -> set[HexId]:
    """Where a German set-up unit may stand (AGS-K 18.21, 18.22, 18.23), stacking aside."""
    sc = game.scenario(state)
    b = sc.board
    code = _code(state, uid)
    if code is not None and code in sc.start_line:
        area = setup_area(b, sc.start_line, code)
    elif code == GROUP:
        area = _near_group(state)
    else:
        u = state.units[uid]
        area = {u.hex} if u.hex is not None else set()
    foes = game.hexes_of(state, game.enemy(SIDE))
    return {h for h in area if not b.blocked(h)} - soviet_side(sc.start_line) - foes


def _near_group(state: GameState) -> set[HexId]:
    """AGS-K 18.21, 18.23: hexes within three of 2306 on the German side -- reached from
    2306 without crossing a hexside of the start line (K170)."""
    sc = game.scenario(state)
    g = sc.board.grid
    across = {frozenset(x) for lt in sc.start_line for x in sc.start_line[lt]}
    seen, todo = {GROUP}, [GROUP]
    while todo:
        h = todo.pop()
        for n in g.neighbours(h):
            if n in seen or g.distance(n, GROUP) > 3 or frozenset((h, n)) in across:
                continue
            seen.add(n)
            todo.append(n)
    return seen


def why_not(state: GameState, units: tuple[str, ...], dest: HexId) -> tuple[str, str] | None:
    """Why `move units dest` is not a legal set-up placement: (reason, case)."""
    sc = game.scenario(state)
    for uid in units:
        u = state.units.get(uid)
        if u is None or u.side != SIDE or not u.on_map:
            return (f"{uid} is not one of the German units set up on the map", "AGS-K 18.26")
        code = _code(state, uid)
        if dest in legal_hexes(state, uid):
            continue
        if dest in soviet_side(sc.start_line):
            return (f"{dest} is on the Soviet side of the start line", "AGS-K 18.23")
        if code in sc.start_line:
            return (f"{dest} is not in set-up area {code}", "AGS-K 18.22")
        if code == GROUP and sc.board.grid.distance(dest, GROUP) <= 3:
            return (f"{dest} lies across the start line from 2306", "AGS-K 18.23")
        if code == GROUP:
            return (f"{dest} is more than three hexes from 2306", "AGS-K 18.21")
        return (f"{uid} sets up in its printed hex {u.hex}", "AGS-K 18.21")
    stack = [game.spec(state, x.id) for x in state.units_at(dest) if x.id not in units]
    why = stacking.stack_problem([*stack, *(game.spec(state, uid) for uid in units)])
    if why is not None:
        return (f"{dest} would be over-stacked: {why}", "AGS-K 18.25, AGS 7.0")
    return None


def gaps(state: GameState) -> list[tuple[str, HexId]]:
    """AGS-K 18.24: (letter, border hex) neither occupied by nor in the ZOC of a unit of
    that letter."""
    sc = game.scenario(state)
    out = []
    for letter in sc.start_line:
        mine = [u.hex for u in state.on_map(SIDE) if _code(state, u.id) == letter and u.hex]
        out += [(letter, h) for h in uncovered(sc.board, sc.start_line, letter, mine)]
    return out


def place(ctx: Ctx, order: o.Move) -> None:
    if not order.path:
        raise Rejected("a set-up move needs the hex: `move UNIT... HEX`", RULE, "K170")
    dest = order.path[-1]
    why = why_not(ctx.state, order.units, dest)
    if why is not None:
        raise Rejected(why[0], why[1], "K170")
    for uid in order.units:
        ctx.emit("set_up", side=SIDE, unit=uid, hex=dest, rule="AGS-K 18.22")


def done(ctx: Ctx) -> None:
    left = gaps(ctx.state)
    if left:
        letter, h = left[0]
        raise Rejected(
            f"{h} borders area {letter}'s start line with no unit of {letter} in it or next to it",
            "AGS-K 18.24",
            "K170",
        )
    ctx.emit("decision_closed", side=SIDE, decision=KIND, answer="done")
    ctx.emit("setup_done", side=SIDE, rule="AGS-K 18.24")
    sequence.start_turn(ctx, 1)


def apply(ctx: Ctx, side: str, order: o.Order) -> None:
    if isinstance(order, o.Move):
        place(ctx, order)
    elif isinstance(order, o.Done):
        done(ctx)
    else:
        raise Rejected(
            "the German set-up comes first: `move UNIT... HEX` within the set-up areas, "
            "then `done`",
            RULE,
            "K170",
        )


def default(state: GameState) -> o.Order:
    """`done` when 18.24 holds (the shipped set-up does); else a unit back to its
    scenario hex."""
    if not gaps(state):
        return o.Done()
    shipped = {st.id: st.hex for st in state.setup.starts}
    for u in state.on_map(SIDE):
        h = shipped.get(u.id)
        if h is not None and h != u.hex and why_not(state, (u.id,), h) is None:
            return o.Move(units=(u.id,), path=(h,))
    return o.Done()


def candidates(state: GameState) -> list[o.Order]:
    """A few placements that keep 18.24, and `done`."""
    out: list[o.Order] = []
    for u in state.on_map(SIDE)[:12]:
        for h in sorted(legal_hexes(state, u.id) - {u.hex})[:3]:
            if why_not(state, (u.id,), h) is not None:
                continue
            trial = state.clone()
            trial.units[u.id].hex = h
            if not gaps(trial):
                out.append(o.Move(units=(u.id,), path=(h,)))
    return [*out, o.Done()]


def title(state: GameState) -> str | None:
    return "the German set-up, before Game-Turn 1" if decision(state) is not None else None


__all__ = ["KIND", "apply", "candidates", "decision", "default", "open_setup", "title"]
