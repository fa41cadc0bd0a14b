"""The WB-95 referee: turning a side's order into events, or rejecting it (DESIGN §2)."""

from __future__ import annotations

from collections.abc import Sequence

from engine import orders as o
from engine.core import Applied, Ctx, Event, Rejected, Rejection
from engine.dice import DiceState
from engine.model import Setup
from engine.state import GameState, UnitState
from engine.wb95 import air as _air  # registers 8.0
from engine.wb95 import artillery as _artillery  # registers 6.0
from engine.wb95 import bridges as _bridges  # registers 14.0
from engine.wb95 import combat as _combat
from engine.wb95 import decisions as _decisions
from engine.wb95 import disorganization as _disorganization  # noqa: F401 - 5.6.5
from engine.wb95 import flow
from engine.wb95 import fortifications as _fortifications  # registers 7.1, 7.2.1 set-up
from engine.wb95 import hq as _hq  # noqa: F401 - registers 9.1
from engine.wb95 import kursk as _kursk  # noqa: F401 - registers Kursk 17.0, 18.0, 22.0
from engine.wb95 import masking as _masking  # registers 16.1.2
from engine.wb95 import moderation as _moderation  # moderator edits (mod:)
from engine.wb95 import movement as _movement  # noqa: F401 - registers its order handlers
from engine.wb95 import reinforcements as _reinforcements  # registers 11.0
from engine.wb95 import results as _results  # noqa: F401 - registers its order handlers
from engine.wb95 import scenario_rules as _scenario_rules  # scenario specials
from engine.wb95 import sealed as _sealed  # noqa: F401 - sealed inputs (DESIGN §2)
from engine.wb95 import special as _special  # 15.1 abilities
from engine.wb95 import strategic as _strategic  # registers 12.0
from engine.wb95 import supply as _supply  # noqa: F401 - registers 10.0
from engine.wb95 import victory as _victory  # scenario victory conditions
from engine.wb95 import volkssturm as _volkssturm  # noqa: F401 - registers 15.3.3
from engine.wb95.control import initial_control
from engine.wb95.dispatch import AFTER_INPUT, DECISION_DONE, GAME_START, ORDER_HANDLERS, handles
from engine.wb95.movement import Reach, can_move, reachable
from engine.wb95.reducer import reduce
from engine.wb95.sequence import PHASES, phase_index
from engine.wb95.stacking import STACK_LIMIT, overstacked

# Where each not-yet-refereed order kind is ruled, for an honest rejection.
LATER: dict[type[o.Order], str] = {}


def initial_state(setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> GameState:
    units: dict[str, UnitState] = {}
    start = phase_index(setup.start_phase, setup.start_active, setup.side_names)
    for i, st in enumerate(setup.starts):
        spec = setup.units[st.id]
        units[st.id] = UnitState(
            id=st.id,
            side=spec.side,
            hex=st.hex,
            cel=st.cel,
            max_cel=spec.max_cel,
            oos=st.oos,
            disorganized=st.disorganized,
            disorganized_at=(setup.start_turn, start) if st.disorganized else None,  # K36
            fortification=st.fortification,
            setup=st.setup,
            arrives=None if st.arrives is None else dict(st.arrives),
            entered_seq=-len(setup.starts) + i,  # scenario order: first listed is on top
        )
    return GameState(
        setup=setup,
        turn=setup.start_turn,
        phase=start,
        units=units,
        control=initial_control(setup, units),
        bridges={
            f"{a}/{b}": "destroyed" for a, b in sorted(setup.scenario_rules.destroyed_bridges)
        },
        dice=DiceState(seed=seed, forced=list(dice)),
    )


def new_game(setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> Applied:
    """The initial state and the events of the game's start (phases skipped up to the
    first one that needs a player)."""
    state = initial_state(setup, seed, dice)
    ctx = Ctx(state, reduce)
    date = setup.date_of(state.turn)
    ctx.emit(
        "game_started",
        scenario=setup.id,
        seed=seed,
        turn=state.turn,
        date=None if date is None else date.isoformat(),
        initiative=setup.initiative,
    )
    flow.enter_phase(ctx, state.phase)
    for step in GAME_START:  # set-up steps, e.g. placing improved fortifications (7.2.1)
        step(ctx)
    return ctx.done()


def replay(setup: Setup, seed: int, dice: Sequence[int], events: Sequence[Event]) -> GameState:
    """Rebuild a state from the initial position and a game's events, without re-rolling."""
    state = initial_state(setup, seed, dice)
    for e in events:
        reduce(state, e)
    return state


def apply(state: GameState, side: str | None, order: o.Order) -> Applied | Rejection:
    """Validate `order` given by `side` (None: the side the game awaits) and return the
    events it causes with the new state, or a rejection that changes nothing."""
    try:
        return _apply(state, side, order)
    except Rejected as r:
        return r.rejection


def _apply(state: GameState, side: str | None, order: o.Order) -> Applied:
    if state.over:
        raise Rejected("the game is over", "2.1.3")
    side = resolve_side(state, side if side is not None else order.side)
    if isinstance(order, o.Mod) or side == _moderation.MODERATOR:
        return _moderate(state, side, order)
    ctx = Ctx(state, reduce)
    ph = flow.current_phase(state)
    if side not in flow.acting_sides(state) and not any(d.side == side for d in state.pending):
        raise Rejected(
            f"it is {flow.phase_title(state)}: {side} cannot give orders now",
            "2.1.2",
        )
    answers = (o.Losses, o.Retreat, o.Pursue, o.Pass, o.Defend, o.Repair, o.PlaceIf)
    mine = [d for d in state.pending if d.side == side]
    step_done = isinstance(order, o.Done) and bool(mine) and mine[0].kind in DECISION_DONE
    if mine and not isinstance(order, answers) and not step_done:
        raise Rejected(
            f"{side} must first answer the pending {mine[0].kind} decision", mine[0].rule
        )
    if state.pending and not mine:
        d = state.pending[0]
        raise Rejected(f"waiting for {d.side} to answer a {d.kind} decision", d.rule)
    handler = DECISION_DONE[mine[0].kind] if step_done else ORDER_HANDLERS.get(type(order))
    if handler is None:
        case = LATER.get(type(order), "")
        raise Rejected(
            f"'{order.verb}' orders are not refereed yet by this version of Kessel", case
        )
    if ph.kind == "air" and not isinstance(order, (o.Done, o.Air, *answers)):
        raise Rejected(f"'{order.verb}' is not an Air Phase action", "2.1.2")
    handler(ctx, side, order)
    _decisions.take_forced(ctx, ORDER_HANDLERS)  # one legal answer: taken (DESIGN §4)
    for step in AFTER_INPUT:  # e.g. bridge control (14.1.3)
        step(ctx)
    flow.resume_supply_phase(ctx)  # a Supply Phase that waited for this answer goes on
    _victory.check_automatic(ctx)  # "at any moment" victories
    return ctx.done()


def _moderate(state: GameState, side: str, order: o.Order) -> Applied:
    """A `mod:` line: a moderator's position edit (engine.wb95.moderation), at any moment."""
    if not isinstance(order, o.Mod):
        raise Rejected(
            f"the moderator does not give '{order.verb}' orders: answer for a side by giving "
            "the order as that side, or correct the position with a 'mod:' edit"
        )
    ctx = Ctx(state, reduce)
    _moderation.do_mod(ctx, side, order)
    for step in AFTER_INPUT:  # e.g. bridge control follows the units (14.1.3)
        step(ctx)
    _victory.check_automatic(ctx)
    return ctx.done()


def resolve_side(state: GameState, side: str | None) -> str:
    sides = state.setup.sides
    if side is None:
        awaited = flow.awaited_sides(state)
        if len(awaited) == 1:
            return awaited[0]
        raise Rejected(
            f"both {' and '.join(awaited)} act now: start the line with the side, "
            f"e.g. '{awaited[0]}: done'"
        )
    s = side.lower()
    if s == "mod":
        return s
    if s not in sides:
        raise Rejected(f"'{side}' is not a side in this game; the sides are {', '.join(sides)}")
    return s


# --- orders -------------------------------------------------------------------------------


@handles(o.Done)
def do_done(ctx: Ctx, side: str, order: o.Done) -> None:
    """End `side`'s part of the current phase; when every acting side is done, go on."""
    state = ctx.state
    if (why := done_refusal(state, side)) is not None:
        raise Rejected(why.message, why.rule, why.ruling)
    ctx.emit("side_done", side=side, phase=PHASES[state.phase].kind)
    for step in flow.DONE_STEPS:  # e.g. the Air Phase's reveal (8.1.7)
        step(ctx, side)
    if not flow.awaited_sides(ctx.state) and not ctx.state.over:
        flow.finish_phase(ctx)


def done_refusal(state: GameState, side: str) -> Rejection | None:
    """Why `side` may not say `done` now (its part of the phase is not finished), or None
    when it may: the check of `do_done`, also used to test liveness cheaply."""
    if state.combat is not None:
        return Rejection("the current combat must be resolved first", "5.2.1")
    if flow.current_phase(state).kind == "combat":
        why = _combat.mandatory_message(state, side)
        if why:
            return Rejection(why, "5.1.7")
    if side in state.done:
        return Rejection(f"{side} has already said done in this phase")
    for check in flow.DONE_CHECKS:  # e.g. a scenario's withdrawal
        if (due := check(state, side)) is not None:
            return Rejection(*due)
    over = overstacked(state, side)
    if over:
        where = ", ".join(f"{h} ({c} CELs)" for h, c in sorted(over.items()))
        return Rejection(f"cannot end the phase: more than {STACK_LIMIT} CELs in {where}", "3.2.1")
    return None


# --- legal actions (autocomplete, previews, the self-play fuzzer) -------------------------


def legal_moves(state: GameState, unit_id: str) -> dict[str, Reach]:
    """Every hex the unit may move to now, with cost and path; empty when it may not move
    (wrong phase, not its side's turn, already moved ...)."""
    u = state.units.get(unit_id)
    if u is None or not u.on_map or state.over or state.pending:
        return {}
    moving = flow.current_phase(state).kind in ("movement", "strategic")  # 3.1.1
    if not moving or u.side not in flow.awaited_sides(state):
        return {}
    if can_move(state, u) is not None:
        return {}
    return reachable(state, u)


def legal_actions(state: GameState, side: str) -> dict[str, object]:
    """What `side` may do now: its open decisions, the units it may move, the
    reinforcements it may bring in (the hexes they may reach, 11.0), the attacks it may
    declare, its air SPs, counters and missions in an Air Phase (8.1), the hexes its
    artillery may fire or barrage at with the units in range (6.4, 6.5), the setups its
    towed artillery may change to (6.2.4), and whether it may say `done` (3.2.1 stacking
    and 5.1.3-5.1.4 duties permitting)."""
    if state.over or side not in flow.awaited_sides(state):
        return {
            "decisions": [],
            "moves": {},
            "entries": {},
            "attacks": [],
            "air": {},
            "fire": {},
            "barrage": {},
            "setup": {},
            "place_if": [],
            "done": False,
            **_more_actions(state, side, awaited=False),
        }
    decisions = [d.to_json() for d in state.pending if d.side == side]
    moves = {u.id: sorted(r) for u in state.on_map(side) if (r := legal_moves(state, u.id))}
    entries = {
        u.id: sorted(e)
        for u in state.units.values()
        if u.side == side and (e := _reinforcements.legal_entries(state, u.id))
    }
    combat = flow.current_phase(state).kind == "combat" and not decisions
    attacks = (
        [{"units": u, "hexes": h} for u, h in _combat.attack_options(state, side)]
        if combat and state.combat is None
        else []
    )
    duty = combat and _combat.mandatory_message(state, side) is not None
    kind = flow.current_phase(state).kind
    free = not decisions and state.combat is None
    mine = side in flow.acting_sides(state)
    setups = {
        u.id: modes
        for u in state.on_map(side)
        if kind == "movement"
        and free
        and (
            modes := [
                m for m in ("combat", "transport") if _artillery.why_no_setup(state, u, m) is None
            ]
        )
    }
    return {
        "decisions": decisions,
        "moves": moves,
        "entries": entries,
        "attacks": attacks,
        "air": _air_actions(state, side) if free else {},  # 8.1
        "fire": _artillery.fire_targets(state, side) if combat and free and mine else {},  # 6.4
        "barrage": _artillery.barrage_targets(state, side)
        if kind == "barrage" and free and mine
        else {},  # 6.5
        "setup": setups,  # 6.2.4
        "place_if": _fortifications.if_placement_hexes(state, side),  # 7.2.1 set-up, K85
        **_more_actions(state, side, awaited=True),
        "done": all(d["kind"] in DECISION_DONE for d in decisions)  # a set-up step's `done`
        and not overstacked(state, side)
        and not duty
        and not any(check(state, side) for check in flow.DONE_CHECKS),
    }


# --- the other orders a side may give now (legal_actions' further keys) -------------------


def _accepted(state: GameState, side: str, order: o.Order) -> bool:
    """The engine's own verdict on an order, on a copy (nothing changes)."""
    return isinstance(apply(state, side, order), Applied)


def _more_actions(state: GameState, side: str, awaited: bool) -> dict[str, object]:
    """legal_actions' keys for the orders besides moves, entries, attacks, air, fire,
    barrage and setup: `reinforce` {infantry: [Volkssturm]} (15.3.3), `withdraw` [{"units",
    "count"}] (a scenario's withdrawal), `repair` {"fronts", "counters"} (Kursk 17.1.2),
    `fortify` [units] (7.1), `strategic` [units] (12.1.4), `mask` {hex: "on"|"off"}
    (16.1.2), `bridge` {"destroy": [A/B], "build": [{"hexside", "hq"}]} (14.0), `stars`
    [{"units", "hexes", "stars": {unit: [abilities]}}] (15.1.6), `delay` {unit: [zones]}
    (11.2.2), `leave` {unit: [exit hexes]} (11.2.3), `defend` (the open defence decision's
    abilities, CMs and support, 6.3.3, 15.1.6) and `pass` (an optional step to decline)."""
    out: dict[str, object] = {
        "reinforce": {},
        "withdraw": [],
        "repair": {},
        "fortify": [],
        "strategic": [],
        "mask": {},
        "bridge": {"destroy": [], "build": []},
        "stars": [],
        "delay": {},
        "leave": {},
        "defend": {},
        "pass": False,
    }
    if not awaited:
        return out
    mine = [d for d in state.pending if d.side == side]
    for d in mine:
        if d.kind == "repair":
            out["repair"] = {"fronts": d.options["fronts"], "counters": d.options["counters"]}
        elif d.kind == "defence":
            out["defend"] = {
                "abilities": d.options.get("abilities", {}),
                "cms": d.options.get("cms", 0),
                "support": d.options.get("support", {}),
            }
        if d.kind in ("defence", "pursuit"):
            out["pass"] = True
    kind = flow.current_phase(state).kind
    if mine or state.pending or state.combat is not None or side not in flow.acting_sides(state):
        return out
    out["withdraw"] = [
        {"units": [u.id for u in can], "count": n}
        for _, n, can in _scenario_rules.owed(state, side)
    ]
    if kind == "movement":
        out["reinforce"] = _reinforce_options(state, side)
        out["fortify"] = sorted(
            u.id for u in state.on_map(side) if _fortifications.can_fortify(state, u) is None
        )
        out["strategic"] = sorted(
            u.id for u in state.on_map(side) if _strategic.can_mark(state, u) is None
        )
        out["bridge"] = _bridge_options(state, side)
        out["leave"] = _leave_options(state, side)
    if kind in _masking.MASK_PHASES:
        out["mask"] = {
            h: "off" if _masking.will_be_masked(state, side, h) else "on"
            for h in sorted({u.hex for u in state.on_map(side) if u.hex})
        }
    if kind in ("movement", "strategic"):
        out["delay"] = {
            u.id: z
            for u in sorted(state.units.values(), key=lambda x: x.id)
            if u.side == side and (z := _reinforcements.legal_delays(state, u.id))
        }
    if kind == "combat":
        out["stars"] = _star_options(state, side)
    return out


def _reinforce_options(state: GameState, side: str) -> dict[str, list[str]]:
    """15.3.3: infantry that may take a CEL from a Volkssturm unit in its hex now."""
    out: dict[str, list[str]] = {}
    for v in state.on_map(side):
        if state.setup.units[v.id].type != "vs":
            continue
        for u in state.on_map(side):
            if u.hex != v.hex or u.id == v.id or state.setup.units[u.id].type != "inf":
                continue
            if _accepted(state, side, o.Reinforce(unit=u.id, source=v.id)):
                out.setdefault(u.id, []).append(v.id)
    return {k: sorted(v) for k, v in sorted(out.items())}


def _bridge_options(state: GameState, side: str) -> dict[str, list[object]]:
    """14.2.1-14.3.2: the bridges `side` may destroy now, and the hexsides it may build or
    rebuild a bridge on (with the HQ that works over a big river)."""
    grid = state.setup.map.grid
    own = {u.hex for u in state.on_map(side) if u.hex}
    destroy: list[object] = []
    build: list[object] = []
    for k in _bridges.sites(state):
        a, b = _bridges.split(k)
        if a not in own and b not in own:
            continue
        if _bridges.standing(state, a, b):
            if _accepted(state, side, o.Bridge(action="destroy", hexside=(a, b))):
                destroy.append(k)
        elif _accepted(state, side, o.Bridge(action="build", hexside=(a, b))):
            build.append({"hexside": k, "hq": None})
    for u in state.on_map(side):
        if not state.setup.units[u.id].is_hq or u.hex is None:
            continue
        for n in grid.neighbours(u.hex):
            if not _bridges.big_river(state, u.hex, n) or _bridges.standing(state, u.hex, n):
                continue
            k = _bridges.key(u.hex, n)
            if any(isinstance(x, dict) and x["hexside"] == k for x in build):
                continue
            order = o.Bridge(action="build", hexside=(u.hex, n), hq=u.id)
            if _accepted(state, side, order):
                build.append({"hexside": k, "hq": u.id})
    return {"destroy": destroy, "build": build}


def _leave_options(state: GameState, side: str) -> dict[str, list[str]]:
    """11.2.3: units that may leave the map now, with (up to three of) the exit hexes they
    reach."""
    exits = _reinforcements.exits(state, side)
    out: dict[str, list[str]] = {}
    for u in sorted(state.on_map(side), key=lambda x: x.id):
        reach = sorted(h for h in legal_moves(state, u.id) if h in exits)
        ok = [h for h in reach[:3] if _accepted(state, side, o.Leave(units=(u.id,), path=(h,)))]
        if ok:
            out[u.id] = ok
    return out


def _star_options(state: GameState, side: str) -> list[dict[str, object]]:
    """15.1.6: for each attack `side` may declare, the attackers' abilities it may use."""
    enemy = state.setup.enemy_of(side)
    out: list[dict[str, object]] = []
    for units, hexes in _combat.attack_options(state, side):
        attackers = [state.units[u] for u in units]
        defenders = [e for e in state.on_map(enemy) if e.hex in hexes]
        sit = _combat.situation(state, attackers, defenders, list(hexes))
        usable = _special.abilities(state, True, sit)
        if usable:
            out.append({"units": units, "hexes": hexes, "stars": usable})
    return out


def _air_actions(state: GameState, side: str) -> dict[str, object]:
    """8.1: air_options (SPs, counters, missions) and, per mission, the targets it may be
    given now (`targets`: {mission: [hex or A/B]}), judged as `air` orders are (8.2)."""
    opts = _air.air_options(state, side)
    if not opts:
        return opts
    sp = max([int(opts["sp"] or 0), *(c.sp for c in _air.counters_left(state, side))])
    grid = state.setup.map.grid
    near: set[str] = set()
    for u in state.on_map():
        if u.hex:
            near.add(u.hex)
            near.update(grid.neighbours(u.hex))
    targets: dict[str, list[str]] = {}
    for mission in opts["missions"]:
        if mission == "object":
            cands = [
                k for k in _bridges.sites(state) if _bridges.standing(state, *_bridges.split(k))
            ]
        else:
            cands = sorted(near)
        found: list[str] = []
        for h in cands:
            try:
                if mission == "river":
                    _air._river_split(state, side, h, sp)
                else:
                    _air._target(state, side, mission, h, sp)
            except Rejected:
                continue
            found.append(h)
        targets[mission] = found
    return {**opts, "targets": targets}
