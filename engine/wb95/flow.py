"""2.1 Running the sequence of play: entering, skipping and ending phases, and turns.

A phase is omitted when nothing in it is mandatory and no voluntary action is possible
(2.1.4): an Air Phase with no air strength on either side, a barrage phase the scenario
does not allow (6.5), a Combat Phase in which the side has no possible attack, a Strategic
Movement Phase with no unit marked for it that may move (12.2.1) and no reinforcement that
may enter (11.1.3, `other_moves`). Otherwise the phase waits
until every side acting in it says `done`. The Supply Phase's steps are automatic (R9) and
run as soon as it starts (docs/rulings.md K6). Rule modules register steps that run as
each phase ends (`at_phase_end`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.core import Ctx, Event
from engine.state import GameState
from engine.wb95.control import control_changes, victory_points
from engine.wb95.reducer import on
from engine.wb95.sequence import PHASES, TITLES, Phase, actors
from engine.wb95.supply import supply_phase
from engine.wb95.zoc import in_enemy_zoc, zoc_map

ARTILLERY_RANGE = 3  # 6.1.2


def current_phase(state: GameState) -> Phase:
    return PHASES[state.phase]


def acting_sides(state: GameState) -> tuple[str, ...]:
    return actors(current_phase(state), state.setup.side_names)


def awaited_sides(state: GameState) -> list[str]:
    """Sides whose input the game waits for now: a pending decision first, else the
    acting sides that have not said `done`."""
    if state.over:
        return []
    if state.pending:
        return sorted({d.side for d in state.pending})
    return [
        s
        for s in acting_sides(state)
        if s not in state.done and not any(idle(state, s) for idle in NOT_AWAITED)
    ]


NotAwaited = Callable[[GameState, str], bool]
NOT_AWAITED: list[NotAwaited] = []


def not_awaited(fn: NotAwaited) -> NotAwaited:
    """Register when an acting side is not waited for in the current phase although it has
    not said `done` (e.g. a side with no air to fly in an Air Phase, `engine.wb95.air`)."""
    NOT_AWAITED.append(fn)
    return fn


def skip_reason(state: GameState) -> str | None:
    """Why the current phase may be omitted (2.1.4), or None if it must be played."""
    ph = current_phase(state)
    side = acting_sides(state)[0]
    setup = state.setup
    if ph.kind == "air":
        if not any(setup.air.get(s) for s in setup.sides):
            return "no air units in this scenario (8.0)"
        return next((r for check in AIR_CHECKS if (r := check(state))), None)
    if ph.kind == "barrage":
        if not setup.barrage:
            return "the scenario does not allow barrage (6.5)"
        return next((r for check in BARRAGE_CHECKS if (r := check(state, side))), None)
    if ph.kind == "movement":
        if not state.on_map(side) and not _other_moves(state, side):
            return f"{side} has no units"
        return None
    if ph.kind == "combat":
        return None if _possible_attack(state, side) else f"{side} has no unit able to attack"
    if ph.kind == "strategic":
        if _other_moves(state, side):
            return None  # 11.1.3: reinforcements may enter in this phase
        marked = [u for u in state.on_map(side) if u.strategic]
        if not marked:
            return f"no {side} unit is marked for strategic movement (12.0)"
        enemy_zoc = zoc_map(state, setup.enemy_of(side))
        if all(in_enemy_zoc(state, u, enemy_zoc) for u in marked):
            return f"every {side} unit marked for strategic movement is in enemy ZoC (12.2.1)"
        return None
    return None


BarrageCheck = Callable[[GameState, str], str | None]
BARRAGE_CHECKS: list[BarrageCheck] = []


def barrage_check(fn: BarrageCheck) -> BarrageCheck:
    """Register why `side` can fire no barrage now although the scenario allows barrage
    (6.5.1, 6.5.4, 6.5.7: `engine.wb95.artillery`); any reason skips the phase (2.1.4)."""
    BARRAGE_CHECKS.append(fn)
    return fn


MoveCheck = Callable[[GameState, str], bool]
OTHER_MOVES: list[MoveCheck] = []


def other_moves(fn: MoveCheck) -> MoveCheck:
    """Register a check whether `side` may do something in its Movement or Strategic
    Movement Phase besides moving its units on the map (reinforcements entering, 11.1.3);
    while one holds, such a phase is not skipped (2.1.4, K13)."""
    OTHER_MOVES.append(fn)
    return fn


def _other_moves(state: GameState, side: str) -> bool:
    return any(check(state, side) for check in OTHER_MOVES)


def _possible_attack(state: GameState, side: str) -> bool:
    """Any regular unit adjacent to an enemy unit, or artillery in combat setup within
    range of one (5.1, 6.4)."""
    grid = state.setup.map.grid
    enemy = state.setup.enemy_of(side)
    enemy_hexes = {u.hex for u in state.on_map(enemy)}
    if not enemy_hexes:
        return False
    for u in state.on_map(side):
        spec = state.setup.units[u.id]
        assert u.hex is not None
        if spec.type in ("art", "sp-art"):
            if u.setup != "transport" and any(
                h in enemy_hexes for h in grid.within(u.hex, ARTILLERY_RANGE)
            ):
                return True
        elif not spec.is_hq and any(n in enemy_hexes for n in grid.neighbours(u.hex)):
            return True
    return False


def enter_phase(ctx: Ctx, index: int) -> None:
    """Start phase `index` of the current turn, then skip or run phases automatically
    until one needs a player's input or the game ends."""
    while True:
        ph = PHASES[index]
        ctx.emit(
            "phase_started",
            index=index,
            number=ph.number,
            phase=ph.kind,
            turn=ctx.state.turn,
            active=list(actors(ph, ctx.state.setup.side_names)),
        )
        if ph.kind == "supply":
            run_supply_phase(ctx)
            if ctx.state.pending:
                return  # a step waits for a player's decision (K6, K56)
        else:
            reason = skip_reason(ctx.state)
            if reason is None:
                return
            ctx.emit("phase_skipped", number=ph.number, phase=ph.kind, reason=reason)
        nxt = next_phase(ctx)
        if nxt is None:
            return
        index = nxt


PhaseEndStep = Callable[[Ctx], None]
PHASE_END_STEPS: list[PhaseEndStep] = []


def at_phase_end(fn: PhaseEndStep) -> PhaseEndStep:
    """Register a step that runs whenever a phase ends, played or skipped, before the next
    one starts (e.g. 7.1.5's removal of empty field fortifications, the end of strategic
    movement 12.1.4). Rule modules register them; `engine.wb95.game` imports them all."""
    PHASE_END_STEPS.append(fn)
    return fn


def next_phase(ctx: Ctx) -> int | None:
    """End the current phase (its registered end steps) and move past it: the next index,
    or None when the game has ended."""
    for step in PHASE_END_STEPS:
        step(ctx)
    s = ctx.state
    if s.phase + 1 < len(PHASES):
        return s.phase + 1
    if s.turn >= s.setup.turns:
        end_game(ctx, "the last turn has been played")
        return None
    turn = s.turn + 1
    date = s.setup.date_of(turn)
    ctx.emit("turn_started", turn=turn, date=None if date is None else date.isoformat())
    return 0


def finish_phase(ctx: Ctx) -> None:
    """All acting sides are done: go on to the next phase that needs input."""
    nxt = next_phase(ctx)
    if nxt is not None:
        enter_phase(ctx, nxt)


def run_supply_phase(ctx: Ctx) -> None:
    """The Supply Phase's automatic steps (2.2 phase 6, R9): supply tracing, OoS levels and
    surrender tests (10.0, `engine.wb95.supply`), then hex control (4.3) by the units that
    traced supply (4.3.5, K45) and did not surrender (4.3.4)."""
    side = acting_sides(ctx.state)[0]
    outcome = supply_phase(ctx, side)
    changes = control_changes(ctx.state, side, outcome.surrendered, outcome.supplied)
    if changes:
        ctx.emit("control_changed", side=side, changes=dict(sorted(changes.items())))
    steps = [s.name for s in SUPPLY_STEPS if s.applies(ctx.state, side)]
    if steps:
        supplied = sorted(outcome.supplied - outcome.surrendered)
        ctx.emit("supply_steps", side=side, left=steps, supplied=supplied)
        run_supply_steps(ctx)


@dataclass(frozen=True)
class SupplyStep:
    """A step a rule module adds to the Supply Phase (after R9 and hex control), e.g. the
    Kursk rules 17.0, 18.0 and 22.0. `applies(state, side)` says whether it has anything
    to do in `side`'s Supply Phase; `run(ctx, side, supplied)` does it -- `supplied` being
    the units that traced supply in this phase -- and may open a pending decision: the
    phase then waits for the answer and goes on with the next step (`resume_supply_phase`,
    docs/rulings.md K56)."""

    name: str
    applies: Callable[[GameState, str], bool]
    run: Callable[[Ctx, str, frozenset[str]], None]


SUPPLY_STEPS: list[SupplyStep] = []


def supply_step(step: SupplyStep) -> SupplyStep:
    if any(s.name == step.name for s in SUPPLY_STEPS):
        raise RuntimeError(f"two Supply Phase steps named '{step.name}'")
    SUPPLY_STEPS.append(step)
    return step


def run_supply_steps(ctx: Ctx) -> None:
    """Run the Supply Phase's remaining steps until one waits for a decision."""
    while ctx.state.supply_steps and not ctx.state.pending:
        now = ctx.state.supply_steps
        name, left = now["left"][0], now["left"][1:]
        side, supplied = str(now["side"]), list(now["supplied"])
        ctx.emit("supply_steps", side=side, left=left, supplied=supplied if left else [])
        step = next(s for s in SUPPLY_STEPS if s.name == name)
        step.run(ctx, side, frozenset(supplied))


def resume_supply_phase(ctx: Ctx) -> None:
    """After an input: a Supply Phase that waited for a decision goes on once it has been
    answered, and ends when its steps are through."""
    s = ctx.state
    if s.over or s.pending or current_phase(s).kind != "supply":
        return
    run_supply_steps(ctx)
    if not ctx.state.pending and not ctx.state.supply_steps:
        finish_phase(ctx)


DoneCheck = Callable[[GameState, str], "tuple[str, str, str] | None"]
DONE_CHECKS: list[DoneCheck] = []


def done_check(fn: DoneCheck) -> DoneCheck:
    """Register why `side` may not say `done` now: (message, rule case, ruling), or None
    (e.g. a withdrawal a scenario requires in this phase)."""
    DONE_CHECKS.append(fn)
    return fn


DoneStep = Callable[[Ctx, str], None]
DONE_STEPS: list[DoneStep] = []


def on_done(fn: DoneStep) -> DoneStep:
    """Register a step that runs when `side` has said `done`, before the phase may end
    (e.g. the Air Phase's sealed missions are revealed and flown once both sides are done,
    8.1.7, `engine.wb95.air`); if it leaves a decision pending, the phase waits for it."""
    DONE_STEPS.append(fn)
    return fn


AirCheck = Callable[[GameState], str | None]
AIR_CHECKS: list[AirCheck] = []


def air_check(fn: AirCheck) -> AirCheck:
    """Register why no side can fly a mission in the current Air Phase although the
    scenario has air (its days, pools and counters: `engine.wb95.air`); any reason skips
    the phase (2.1.4, K13)."""
    AIR_CHECKS.append(fn)
    return fn


def end_game(ctx: Ctx, why: str) -> None:
    """The game ends: the result is the scenario's victory conditions (victory.py)."""
    from engine.wb95.victory import final_result  # victory builds on this module

    if not ctx.state.setup.victory_rules:
        ctx.emit("game_ended", reason=why, result={"vp": victory_points(ctx.state)})
        return
    ctx.emit("game_ended", reason=why, result=final_result(ctx.state))


def phase_title(state: GameState) -> str:
    ph = current_phase(state)
    who = "both sides'" if ph.player == "both" else f"{acting_sides(state)[0]}'s"
    return f"{who} {TITLES[ph.kind]} (phase {ph.number}, turn {state.turn})"


@on("supply_steps")
def _supply_steps(state: GameState, e: Event) -> None:
    left = list(e.data["left"])
    state.supply_steps = (
        {"side": e.data["side"], "left": left, "supplied": list(e.data["supplied"])} if left else {}
    )
