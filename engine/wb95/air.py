"""8.0 Air units (Kursk 1943 also 21.0).

A side's air is an SP pool per turn that it divides freely into missions (8.1.1 note 1:
`air 4 attack 1619`), or air counters (8.1.1: `air g-air1 attack 1619`, counters printed
without strength being 5 SPs, Soviet ones 4, note 2), as the scenario's `air:` gives it
(`engine.model.AirSide`); the game's air rules are data (`engine.model.AirRules`,
`scenarios/tables/air.yaml`), so the Korsun and Kursk editions of movement
disorganization differ only there.

- The Air Phases (phases 1 and 7) belong to both sides. Each side assigns its missions
  with `air` orders, sealed (8.1.7, DESIGN §2, `engine.wb95.sealed`, K27) until both have
  said `done`; then they are revealed together and flown (docs/rulings.md K71).
  Each counter flies once a turn (8.1.3, 8.1.5), an SP pool is spent over the turn's two
  Air Phases, a scenario may limit the counters flown a turn (`fly`: "any two chosen air
  counters") and Kursk allows 2 counters of a side per hex (21.1.2).
- Air battles (8.1.8, R16, K72): opposing missions on the same or adjacent
  hexes, chained, fight one battle: each side's SPs there + 1K6, ties re-rolled; the
  loser's missions in it abort and its counters cannot fly again that turn (8.1.9).
- The missions that remain act as follows (R16, K73): offensive support joins
  its side's attack whose defending hexes include the mission hex, and its ranged
  attacks on that hex (8.2.2, 8.2.3); defensive support adds half its SPs, rounded up on
  the total, to the defence of its hex (8.2.4, R5, E27), never for Soviet air (8.2.5);
  both are a `combat.SupportKind`, attached by themselves. Air attacks (8.2.6, 8.2.7,
  E28) and attacks on bridges (8.2.8-8.2.10) are flown at the reveal, on the AIR ATTACK
  and ATTACK ON OBJECTS tables (`artillery.fire_on_hex`, `bridges.destroy`); the owner
  allocates the CELs (`results`). Supply missions (8.2.23-8.2.26, K76) roll at the
  reveal. Movement disorganization (8.2.11-8.2.16, E29, E29b) and river crossing attacks
  (8.2.17-8.2.22, E30) act on the enemy's moves until the next Air Phase
  (`movement.STEP_EXTRAS`, `movement.AFTER_MOVE`, K74, K75).
- White-star air counters (Kursk 21.1.1, A-34, K77) give their side a CM in the
  combats they support and shift an air attack one row down the AIR ATTACK table, each,
  when an enemy unit there is mechanized.

Every mission in play is public once revealed (`GameState.air_missions`, `engine.view`).
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId, HexIdError, hexside, normalize
from engine.model import AIR_MISSION_WORDS, AIR_MISSIONS, AirCounter, AirRules, AirSide, UnitSpec
from engine.numbers import is_whole
from engine.state import GameState
from engine.wb95 import artillery, bridges, flow, movement, sealed, supply
from engine.wb95.combat import (
    Engagement,
    Support,
    SupportKind,
    Who,
    register_support,
    situation,
)
from engine.wb95.crt import halve
from engine.wb95.dispatch import after_input, handles
from engine.wb95.reducer import also_on, on
from engine.wb95.results import lose_cel
from engine.wb95.sequence import PHASES
from engine.wb95.terrain import intact_bridges

KIND = "air"  # the sealed kind of an air mission (8.1.7)
TITLES: dict[str, str] = {
    "support-attack": "offensive support",
    "support-defence": "defensive support",
    "attack": "air attack",
    "object": "attack on objects",
    "disorganize": "movement disorganization",
    "river": "river crossing attack",
    "supply": "supply mission",
}
RULES: dict[str, str] = {
    "support-attack": "8.2.2",
    "support-defence": "8.2.4",
    "attack": "8.2.6",
    "object": "8.2.8",
    "disorganize": "8.2.11",
    "river": "8.2.17",
    "supply": "8.2.23",
}
AT_REVEAL = ("attack", "object", "supply")  # flown as they are revealed (K71)
WHITE = "white"


# --- what a side has ---------------------------------------------------------------------


def rules(state: GameState) -> AirRules:
    return state.setup.air_rules


def air_of(state: GameState, side: str) -> AirSide | None:
    return state.setup.air_sides.get(side)


def group(state: GameState) -> str:
    """The sealed group of the current Air Phase's missions (both sides)."""
    return f"{KIND}:{state.turn}:{state.phase}"


def used(state: GameState, side: str) -> dict[str, Any]:
    """What `side` has flown in the current turn: SPs, counters, aborted counters."""
    u = state.air_used.get(side)
    if u is None or u["turn"] != state.turn:
        return {"turn": state.turn, "sp": 0, "counters": [], "aborted": []}
    return u


def sealed_missions(state: GameState, side: str) -> list[dict[str, Any]]:
    """`side`'s missions of this Air Phase, still sealed."""
    return [x["item"] for x in sealed.items(state, side=side, kind=KIND, group=group(state))]


def pool_left(state: GameState, side: str) -> int:
    """SPs left in `side`'s pool this turn (8.1.1 note 1), its sealed missions counted."""
    a = air_of(state, side)
    if a is None or a.counters:
        return 0
    spent = int(used(state, side)["sp"]) + sum(int(m["sp"]) for m in sealed_missions(state, side))
    return max(0, a.pool(state.turn) - spent)


def counters_left(state: GameState, side: str) -> list[AirCounter]:
    """`side`'s counters that may still fly this turn (8.1.5, 8.1.9, the scenario's `fly`)."""
    a = air_of(state, side)
    if a is None or not a.counters or not a.flies(state.turn):
        return []
    u = used(state, side)
    now = [m["counter"] for m in sealed_missions(state, side) if m["counter"]]
    if a.fly is not None and len(u["counters"]) + len(now) >= a.fly:
        return []
    gone = {*u["counters"], *u["aborted"], *now}
    return [c for c in a.counters if c.id not in gone]


def can_fly(state: GameState, side: str) -> bool:
    return pool_left(state, side) > 0 or bool(counters_left(state, side))


def had_air(state: GameState, side: str) -> bool:
    """Whether `side` could fly a mission when the current Air Phase began: what it flew
    in earlier phases counted, its sealed missions of this phase not (K84)."""
    a = air_of(state, side)
    if a is None:
        return False
    u = used(state, side)
    if not a.counters:
        return a.pool(state.turn) - int(u["sp"]) > 0
    if not a.flies(state.turn) or (a.fly is not None and len(u["counters"]) >= a.fly):
        return False
    gone = {*u["counters"], *u["aborted"]}
    return any(c.id not in gone for c in a.counters)


def flying_sides(state: GameState) -> list[str]:
    """The sides the Air Phase waits for: those that can fly (8.1.7, K84)."""
    return [s for s in flow.acting_sides(state) if had_air(state, s)]


@flow.not_awaited
def _grounded(state: GameState, side: str) -> bool:
    """K84: a side with no air to fly need not say `done` in an Air Phase."""
    return flow.current_phase(state).kind == "air" and not had_air(state, side)


def in_play(state: GameState, mission: str | None = None) -> list[dict[str, Any]]:
    """The revealed missions still flying (not aborted, flown or spent)."""
    return [
        m
        for m in state.air_missions
        if m["status"] == "flying" and (mission is None or m["mission"] == mission)
    ]


@flow.air_check
def _no_air(state: GameState) -> str | None:
    """2.1.4, K13: skip an Air Phase in which no side can fly a mission."""
    if any(can_fly(state, s) for s in state.setup.sides):
        return None
    return f"no side has air strength left in turn {state.turn} (8.1.1, 8.1.5)"


# --- the order ---------------------------------------------------------------------------


def mission_name(word: str) -> str:
    m = AIR_MISSION_WORDS.get(word.lower())
    if m is None:
        raise Rejected(
            f"'{word}' is not an air mission; the missions are {', '.join(AIR_MISSIONS)}", "8.2.1"
        )
    return m


def _places(target: str) -> list[HexId]:
    """The hexes of a mission's target: a hex, a bridge "A/B" or a river split "A B"."""
    return target.replace("/", " ").split()


def _enemy_here(state: GameState, side: str, h: HexId) -> bool:
    enemy = state.setup.enemy_of(side)
    return any(u.side == enemy for u in state.units_at(h))


def _own_here(state: GameState, side: str, h: HexId) -> bool:
    return any(u.side == side for u in state.units_at(h))


def _river_hexsides(state: GameState, h: HexId) -> list[HexId]:
    """The neighbours of `h` across a big river of the game (8.2.17), bridged or not."""
    feats = rules(state).river_features
    m = state.setup.map
    return [n for n in m.grid.neighbours(h) if m.features(h, n) & feats]


def _target(state: GameState, side: str, mission: str, raw: str, sp: int) -> str:
    """Check the mission's target for `side` and return it ("CCRR" or "AAAA/BBBB")."""
    m = state.setup.map
    r = rules(state)
    nation = state.setup.sides[side].nation
    if " " in raw or ":" in raw:
        raise Rejected(
            f"a {TITLES[mission]} names one hex: only a river crossing attack splits its "
            "attacks over several (8.2.19)",
            RULES[mission],
        )
    try:
        hexes = [normalize(h) for h in raw.split("/")]
    except HexIdError as e:
        raise Rejected(str(e)) from None
    for h in hexes:
        if not m.grid.contains(h):
            raise Rejected(f"{h} is not on the map", "1.1")
    if mission == "object":
        if len(hexes) != 2:
            raise Rejected(
                "an attack on objects names the bridge's hexside, e.g. 'air 4 object 1618/1619'",
                "8.2.8",
            )
        a, b = hexes
        if not bridges.standing(state, a, b):
            raise Rejected(f"no bridge stands between {a} and {b}", "8.2.8")
        if sp < r.object_min_sp:
            raise Rejected(
                f"an attack on objects needs at least {r.object_min_sp} SPs, not {sp}", "8.2.10"
            )
        return bridges.key(a, b)
    if len(hexes) != 1:
        raise Rejected(f"a {TITLES[mission]} names one hex, not a hexside", RULES[mission])
    h = hexes[0]
    where = m.label(h)
    if mission in ("support-attack", "attack") and not _enemy_here(state, side, h):
        what = "for your attack to support" if mission == "support-attack" else "to attack"
        rule = "8.2.2, R16" if mission == "support-attack" else "8.2.6"
        raise Rejected(f"there are no enemy units in {where} {what}", rule)
    if mission == "support-defence":
        if nation in r.no_defensive_support:
            raise Rejected(f"{nation} air cannot fly defensive support", "8.2.5")
        if not _own_here(state, side, h):
            raise Rejected(f"there are no units of yours in {where} to support", "8.2.4, R16")
    if mission == "disorganize":
        d = r.disorganize
        if d is None:
            raise Rejected("this game has no movement disorganization mission", "8.2.11")
        enemy = state.setup.enemy_of(side)
        if not any(
            spec.side == enemy and spec.nation in d.targets for spec in state.setup.units.values()
        ):
            raise Rejected(
                f"only the movement of {' and '.join(sorted(d.targets))} units can be "
                f"disorganized, and {enemy} has none",
                "8.2.11",
            )
        if sp < d.min_sp:
            raise Rejected(f"a disorganization mission needs at least {d.min_sp} SPs", "8.2.12")
        if d.max_sp_per_hex is not None:
            on_hex = sum(
                int(x["sp"])
                for x in sealed_missions(state, side)
                if x["mission"] == "disorganize" and x["target"] == h
            )
            if on_hex + sp > d.max_sp_per_hex:
                raise Rejected(
                    f"at most {d.max_sp_per_hex} SPs disorganize movement on one hex; {where} "
                    f"has {on_hex} of yours already",
                    "8.2.15",
                )
    if mission == "river" and not _river_hexsides(state, h):
        raise Rejected(
            f"a river crossing attack hits the hex entered after crossing a big river, and "
            f"{where} is on none",
            "8.2.17, 8.2.20",
        )
    if mission == "supply":
        own = air_of(state, side)
        allowed = (
            own.supply if own is not None and own.supply is not None else nation in r.supply_nations
        )
        if not allowed:
            raise Rejected(
                f"{nation} air flies no supply missions (only "
                f"{' and '.join(sorted(r.supply_nations))} air does)",
                "8.2.23",
                "K76",
            )
        if sp < r.supply_min_sp:
            raise Rejected(f"a supply mission needs at least {r.supply_min_sp} SPs", "8.2.24")
        if not _own_here(state, side, h):
            raise Rejected(f"there are no units of yours in {where} to supply", "8.2.26")
    return h


def _river_split(state: GameState, side: str, raw: str, sp: int) -> tuple[str, dict[str, int]]:
    """8.2.18, 8.2.19: the mission's 2 x SP attacks, all on one hex (`1619`) or split over
    connected hexes (`1619:3 1620:1`); returns the target ("A" or "A B") and the split."""
    total = rules(state).river_attacks_per_sp * sp
    parts = [w.partition(":") for w in raw.split()]
    if len(parts) > 1 and any(not colon for _, colon, _ in parts):
        raise Rejected(
            f"say how many of the {total} attacks go to each hex, e.g. "
            f"'{parts[0][0]}:{total - 1} {parts[1][0]}:1'",
            "8.2.19",
            "K84",
        )
    hexes = [_target(state, side, "river", h, sp) for h, _, _ in parts]
    if len(set(hexes)) != len(hexes):
        raise Rejected("a hex is named twice in the river crossing attack", "8.2.19", "K84")
    split = {h: int(n) if colon else total for h, (_, colon, n) in zip(hexes, parts, strict=True)}
    if any(n < 1 for n in split.values()) or sum(split.values()) != total:
        raise Rejected(
            f"{sp} SPs give {total} river crossing attacks (8.2.18); the split gives "
            f"{sum(split.values())}",
            "8.2.18, 8.2.19",
            "K84",
        )
    grid = state.setup.map.grid
    reached, todo = {hexes[0]}, [hexes[0]]
    while todo:
        h = todo.pop()
        for n in hexes:
            if n not in reached and grid.adjacent(h, n):
                reached.add(n)
                todo.append(n)
    if len(reached) != len(hexes):
        apart = ", ".join(h for h in hexes if h not in reached)
        raise Rejected(
            f"the hexes of a river crossing attack must be connected: {apart} is not "
            f"joined to {hexes[0]} through the hexes named",
            "8.2.19",
        )
    return " ".join(hexes), split


@handles(o.Air)
def do_air(ctx: Ctx, side: str, order: o.Air) -> None:
    """8.1.2-8.1.7: assign one air mission, sealed until both sides are done."""
    state = ctx.state
    if flow.current_phase(state).kind != "air":
        raise Rejected(
            f"air missions are assigned in an Air Phase; it is {flow.phase_title(state)}",
            "8.1.2",
        )
    if side in state.done:
        raise Rejected(f"{side} has said done: its missions for this Air Phase are set", "8.1.7")
    a = air_of(state, side)
    if a is None or not (a.counters or a.default_sp or any(a.sp.values())):
        raise Rejected(f"{side} has no air units in this scenario", "8.1.1")
    if not a.flies(state.turn):
        raise Rejected(f"{side} has no air on this day (turn {state.turn})", "8.1.1")
    mission = mission_name(order.mission)
    if mission in a.forbid:
        raise Rejected(f"the scenario forbids {side} air the {TITLES[mission]}", RULES[mission])
    u = used(state, side)
    mine = sealed_missions(state, side)
    counter: AirCounter | None = None
    if order.counter is not None:
        if not a.counters:
            left = pool_left(state, side)
            raise Rejected(
                f"{side} air is a pool of SPs ({left} left this turn): give the SPs, "
                "e.g. 'air 4 attack 1619'",
                "8.1.1",
            )
        counter = a.counter(order.counter)
        if counter is None:
            names = ", ".join(c.id for c in a.counters)
            raise Rejected(f"{side} has no air counter '{order.counter}' (it has {names})", "8.1.1")
        if counter.id in u["aborted"]:
            raise Rejected(
                f"{counter.id} lost an air battle this turn and cannot fly again before the next",
                "8.1.9",
            )
        if counter.id in u["counters"]:
            raise Rejected(f"{counter.id} has already flown this turn", "8.1.5")
        if any(m["counter"] == counter.id for m in mine):
            raise Rejected(f"{counter.id} already has a mission in this Air Phase", "8.1.3")
        flown = len(u["counters"]) + sum(1 for m in mine if m["counter"])
        if a.fly is not None and flown >= a.fly:
            raise Rejected(
                f"{side} flies at most {a.fly} air counter(s) a turn, and has chosen {flown}",
                "8.1.1",
                "K78",
            )
        sp = counter.sp
    else:
        if a.counters:
            names = ", ".join(c.id for c in counters_left(state, side)) or "none left"
            raise Rejected(f"name the air counter that flies the mission ({names})", "8.1.1")
        assert order.amount is not None
        sp = order.amount
        left = pool_left(state, side)
        if sp > left:
            raise Rejected(
                f"{side} has {left} air SPs left this turn (of {a.pool(state.turn)})", "8.1.1"
            )
    attacks: dict[str, int] = {}
    if mission == "river":
        target, attacks = _river_split(state, side, order.hex, sp)
    else:
        target = _target(state, side, mission, order.hex, sp)
    cap = rules(state).max_counters_per_hex
    if counter is not None and cap is not None:
        here = sum(1 for m in mine if m["counter"] and m["target"] == target)
        if here >= cap:
            raise Rejected(
                f"only {cap} air counters may carry missions on one hex: {target} has {here} "
                "of yours",
                "21.1.2",
                "K78",
            )
    item = {
        "mission": mission,
        "target": target,
        "sp": sp,
        "counter": None if counter is None else counter.id,
        "stars": [] if counter is None else list(counter.stars),
        **({"attacks": attacks} if attacks else {}),
    }
    sealed.submit(ctx, side, KIND, item, group=group(state), must=flying_sides(state))


# --- revealing and flying ----------------------------------------------------------------


@flow.on_done
def _on_done(ctx: Ctx, side: str) -> None:
    """8.1.7: when both sides have said done, their missions are revealed together."""
    state = ctx.state
    if flow.current_phase(state).kind != "air":
        return
    g = group(state)
    if g in state.sealed_groups:
        sealed.complete(ctx, side, g)
    if any(s not in ctx.state.done for s in flying_sides(ctx.state)):
        return
    if g in ctx.state.sealed_groups:
        sealed.reveal(ctx, g, "every side that flies has said done")
    resolve(ctx)


@sealed.on_reveal(KIND)
def _reveal(ctx: Ctx, items: list[dict[str, Any]]) -> None:
    state = ctx.state
    missions = []
    for x in items:
        it = x["item"]
        missions.append(
            {
                "id": it["counter"] or f"air-{x['submission']}",
                "side": x["side"],
                "mission": it["mission"],
                "target": it["target"],
                "sp": int(it["sp"]),
                "counter": it["counter"],
                "stars": list(it["stars"]),
                **({"attacks": dict(it["attacks"])} if it.get("attacks") else {}),
                "turn": state.turn,
                "phase": state.phase,
                "status": "flying",
            }
        )
    ctx.emit("air_missions_flown", turn=state.turn, missions=missions, rule="8.1.7")
    air_battles(ctx)
    resolve(ctx)


def _near(state: GameState, a: dict[str, Any], b: dict[str, Any]) -> bool:
    grid = state.setup.map.grid
    r = rules(state).battle_radius
    return any(grid.distance(x, y) <= r for x in _places(a["target"]) for y in _places(b["target"]))


def battles(state: GameState) -> list[list[dict[str, Any]]]:
    """8.1.8, R16: the air battles of the missions just flown -- groups of missions joined
    by opposing missions on the same or adjacent hexes (K72)."""
    ms = [m for m in in_play(state) if (m["turn"], m["phase"]) == (state.turn, state.phase)]
    seen: set[int] = set()
    out: list[list[dict[str, Any]]] = []
    for i in range(len(ms)):
        if i in seen:
            continue
        comp, todo = [], [i]
        seen.add(i)
        while todo:
            j = todo.pop()
            comp.append(j)
            for k in range(len(ms)):
                if k not in seen and ms[k]["side"] != ms[j]["side"] and _near(state, ms[j], ms[k]):
                    seen.add(k)
                    todo.append(k)
        if len({ms[j]["side"] for j in comp}) > 1:
            out.append([ms[j] for j in sorted(comp)])
    return out


def air_battles(ctx: Ctx) -> None:
    """8.1.8: each side's SPs in the battle + 1K6; ties are re-rolled; the loser's missions
    in the battle abort (8.1.9)."""
    for battle in battles(ctx.state):
        order = [s for s in ctx.state.setup.side_names if any(m["side"] == s for m in battle)]
        sp = {s: sum(int(m["sp"]) for m in battle if m["side"] == s) for s in order}
        rolls: list[dict[str, int]] = []
        while True:
            dice = {s: ctx.roll(1, "air battle (8.1.8)", side=s)[0] for s in order}
            rolls.append(dice)
            totals = {s: sp[s] + dice[s] for s in order}
            if totals[order[0]] != totals[order[1]]:
                break
        winner, loser = sorted(order, key=lambda s: -totals[s])
        hexes = sorted({h for m in battle for h in _places(m["target"])})
        ctx.emit(
            "air_battle",
            hexes=hexes,
            sp=sp,
            rolls=rolls,
            totals=totals,
            winner=winner,
            loser=loser,
            aborted=[m["id"] for m in battle if m["side"] == loser],
            rule="8.1.8, 8.1.9, R16",
        )


def _next(state: GameState) -> list[dict[str, Any]]:
    """The next missions to fly at the reveal: one side's air attacks on one hex or one
    bridge together (8.2.7: their total SPs, K71), or one supply mission."""
    for m in in_play(state):
        if m["mission"] not in AT_REVEAL or (m["turn"], m["phase"]) != (state.turn, state.phase):
            continue
        if m["mission"] == "supply":
            return [m]
        return [
            x
            for x in in_play(state, m["mission"])
            if x["side"] == m["side"] and x["target"] == m["target"]
        ]
    return []


def resolve(ctx: Ctx) -> None:
    """Fly the revealed air attacks, attacks on objects and supply missions in turn; stop
    while a decision they opened (the owner's losses) is pending."""
    while ctx.state.combat is None and not ctx.state.pending and not ctx.state.over:
        batch = _next(ctx.state)
        if not batch:
            return
        _fly(ctx, batch)


def _fly(ctx: Ctx, batch: list[dict[str, Any]]) -> None:
    state = ctx.state
    first = batch[0]
    side, mission, target = str(first["side"]), str(first["mission"]), str(first["target"])
    ids = [m["id"] for m in batch]
    ctx.emit("air_mission_flown", missions=ids, side=side, mission=mission, target=target)
    total = sum(int(m["sp"]) for m in batch)
    r = rules(state)
    if mission == "attack":
        if not _enemy_here(state, side, target):
            ctx.emit("air_mission_void", missions=ids, reason=f"no enemy units left in {target}")
            return
        sources = [Support(m["id"], "air", int(m["sp"]), _strength(m), "8.2.6") for m in batch]
        stars = sum(1 for m in batch if WHITE in m["stars"])
        shift = 0
        why = ""
        enemy = state.setup.enemy_of(side)
        mech = any(
            state.setup.units[u.id].move == "mechanized"
            for u in state.units_at(target)
            if u.side == enemy
        )
        if stars and r.white_star_rows and mech:
            shift = stars * r.white_star_rows
            why = f"{stars} white-star air counter(s) against mechanized units (21.1.1, K77)"
        table = state.setup.results.air_attack
        artillery.fire_on_hex(
            ctx, side, target, sources, table, "air", "8.2.6, 8.2.7", row_shift=shift, shift_why=why
        )
    elif mission == "object":
        a, b = target.split("/")
        lines = [
            {"source": m["id"], "kind": "air", "unit": None, "sp": m["sp"], "why": _strength(m)}
            for m in batch
        ]
        artillery.fire_on_object(
            ctx,
            side,
            bridges.key(a, b),
            lines,
            total,
            "8.2.8, 8.2.9",
            f"air attack ({', '.join(ids)})",
        )
    elif mission == "supply":
        die = ctx.roll(1, f"air supply mission to {target} (8.2.25)", side=side)[0]
        ok = die not in r.supply_fail
        ctx.emit(
            "air_supply",
            mission=first["id"],
            side=side,
            hex=target,
            die=die,
            success=ok,
            rule="8.2.25",
        )
        if ok:
            for u in state.units_at(target):
                if u.side == side and u.oos >= 1:
                    supply.set_oos(ctx, u.id, u.oos - 1, "air supply mission", "8.2.26")


def _strength(m: dict[str, Any]) -> str:
    what = f"air counter {m['counter']}" if m["counter"] else "air SPs"
    stars = f", {'/'.join(m['stars'])} star" if m["stars"] else ""
    return f"{what}: {m['sp']}{stars}"


@after_input
def _go_on(ctx: Ctx) -> None:
    """After an answer in an Air Phase whose missions are out (the owner's losses): fly
    the rest, then end the phase."""
    s = ctx.state
    if s.over or s.pending or s.combat is not None or flow.current_phase(s).kind != "air":
        return
    if any(x not in s.done for x in flying_sides(s)):
        return
    resolve(ctx)
    s = ctx.state
    if not s.pending and s.combat is None and flow.current_phase(s).kind == "air":
        flow.finish_phase(ctx)


@flow.at_phase_end
def _expire(ctx: Ctx) -> None:
    """The missions of an Air Phase act until the next Air Phase begins (K73)."""
    s = ctx.state
    nxt = PHASES[(s.phase + 1) % len(PHASES)]
    if nxt.kind == "air" and s.air_missions:
        ctx.emit("air_missions_ended", missions=[m["id"] for m in s.air_missions])


# --- support (8.2.2-8.2.5) --------------------------------------------------------------


def _support_kind(who: Who) -> str:
    return "support-attack" if who == "attacker" else "support-defence"


def attaching(
    state: GameState, side: str, mission: str, hexes: Iterable[HexId]
) -> list[dict[str, Any]]:
    """`side`'s support missions in play on any of `hexes` (R16)."""
    where = set(hexes)
    return [m for m in in_play(state, mission) if m["side"] == side and m["target"] in where]


def _declare(state: GameState, eng: Engagement, who: Who, refs: tuple[str, ...]) -> list[str]:
    """R16: the side's support missions on the defending hexes join by themselves; any
    named (`attack ... air REFS`) must be among them (K73)."""
    side = eng.owner(who)
    ms = attaching(state, side, _support_kind(who), eng.targets)
    for ref in refs:
        if not any(
            ref.lower() in (str(m["id"]).lower(), str(m["counter"] or "").lower())
            or (is_whole(ref) and int(ref) == m["sp"])
            for m in ms
        ):
            where = ", ".join(eng.targets)
            raise Rejected(
                f"no {TITLES[_support_kind(who)]} mission '{ref}' of yours is over {where}: "
                "air support is flown in the Air Phase and joins the combat on its hex",
                "8.2.2" if who == "attacker" else "8.2.4",
                "R16",
            )
    return [str(m["id"]) for m in ms]


def _offer(state: GameState, eng: Engagement, who: Who) -> list[str]:
    return []  # nothing to choose: air support joins by itself (R16)


def _mechanized(state: GameState, ids: Sequence[str]) -> bool:
    return any(state.setup.units[u].move == "mechanized" for u in ids)


def _across_big_river(state: GameState, eng: Engagement) -> bool:
    """15.1.8: the combat is an assault through a big river (as for the units' stars)."""
    units = state.units
    sit = situation(
        state,
        [units[u] for u in eng.attackers],
        [units[u] for u in eng.defenders],
        list(eng.targets),
    )
    return sit.across_big_river


def _contributions(state: GameState, eng: Engagement, who: Who, ids: list[str]) -> list[Support]:
    side = eng.owner(who)
    ms = attaching(state, side, _support_kind(who), eng.targets)
    if not ms:
        return []
    r = rules(state)
    enemy_units = eng.defenders if who == "attacker" else eng.attackers
    mech = bool(r.white_star_cms) and _mechanized(state, enemy_units)
    if mech and _across_big_river(state, eng):
        mech = False  # 15.1.8: no star abilities in an assault through a big river (K84)
    if who == "attacker":
        out = []
        for m in ms:
            star = mech and WHITE in m["stars"]
            why = f"{_strength(m)} (8.2.2)"
            rule = "8.2.2, R16"
            if star:
                why += f"; white star against mechanized units: {r.white_star_cms} CM"
                rule += ", 21.1.1, K77"
            out.append(
                Support(
                    str(m["id"]),
                    "air",
                    int(m["sp"]),
                    why,
                    rule,
                    cms=r.white_star_cms if star else 0,
                )
            )
        return out
    total = sum(int(m["sp"]) for m in ms)
    half = halve(total)
    stars = sum(1 for m in ms if WHITE in m["stars"]) if mech else 0
    why = f"{len(ms)} mission(s), {total} SPs, half {half} (8.2.4, R5, E27)"
    rule = "8.2.4, R16"
    if stars:
        why += f"; {stars} white-star counter(s) against mechanized units"
        rule += ", 21.1.1, K77"
    source = "+".join(str(m["id"]) for m in ms)
    return [Support(source, "air", half, why, rule, cms=stars * r.white_star_cms)]


AIR_SUPPORT = register_support(
    SupportKind(
        name="air",
        part="air",
        declare=_declare,
        offer=_offer,
        contributions=_contributions,
    )
)


@artillery.fire_support
def _fire_support(state: GameState, side: str, target: HexId) -> list[Support]:
    """8.2.3: offensive support over the target joins a ranged attack (R16)."""
    return [
        Support(str(m["id"]), "air", int(m["sp"]), f"{_strength(m)} (8.2.3)", "8.2.3, R16")
        for m in attaching(state, side, "support-attack", [target])
    ]


@artillery.fire_row_shift
def _fire_stars(
    state: GameState, side: str, target: HexId, sources: list[Support]
) -> tuple[int, str]:
    """21.1.1, K77, K84: a white-star counter joining a ranged attack moves it one row down
    the table, as its own air attack, when an enemy unit in the target hex is mechanized."""
    r = rules(state)
    ids = {s.source for s in sources if s.kind == "air"}
    stars = sum(1 for m in in_play(state) if m["id"] in ids and WHITE in m["stars"])
    enemy = state.setup.enemy_of(side)
    mech = _mechanized(state, [u.id for u in state.units_at(target) if u.side == enemy])
    if not (stars and r.white_star_rows and mech):
        return (0, "")
    why = f"{stars} white-star air counter(s) against mechanized units (21.1.1, K77, K84)"
    return (stars * r.white_star_rows, why)


# --- movement disorganization (8.2.11-8.2.16) and river crossings (8.2.17-8.2.22) -------


def _river_attacks(state: GameState, m: dict[str, Any]) -> dict[str, int]:
    """A river crossing mission's attacks by hex (8.2.18, 8.2.19)."""
    if "attacks" in m:
        return {str(h): int(n) for h, n in m["attacks"].items()}
    return {str(m["target"]): rules(state).river_attacks_per_sp * int(m["sp"])}


def _moving_phase(state: GameState) -> bool:
    return flow.current_phase(state).kind in ("movement", "strategic")


def disorganization(state: GameState, side: str, h: HexId) -> tuple[int, int]:
    """The enemy's movement disorganization over `h` for a unit of `side`: (extra MPs to
    enter it or lost by starting there, SPs over it) -- 8.2.13-8.2.16."""
    d = rules(state).disorganize
    if d is None:
        return (0, 0)
    grid = state.setup.map.grid
    mp = sp = 0
    for m in in_play(state, "disorganize"):
        if m["side"] != side and grid.distance(m["target"], h) <= d.radius:
            sp += int(m["sp"])
            mp += int(m["sp"]) if d.per_sp else 1
    return (mp, sp)


def _step_extra(state: GameState, spec: UnitSpec, start: HexId, a: HexId, b: HexId) -> Fraction:
    """8.2.13: +MPs to enter a disorganized hex; 8.2.14 / 8.2.16: MPs lost by a unit that
    starts its move in one, paid with its first step (K74)."""
    d = rules(state).disorganize
    if not state.air_missions or d is None or spec.nation not in d.targets:
        return Fraction(0)
    extra = disorganization(state, spec.side, b)[0]
    u = state.units.get(spec.id)
    if a == start and u is not None and u.hex == start:
        extra += disorganization(state, spec.side, start)[0]
    return Fraction(extra)


movement.STEP_EXTRAS.append(_step_extra)


def _after_move(ctx: Ctx, unit_id: str, path: list[HexId]) -> None:
    """Korsun 8.2.14, 8.2.16: a loss roll in each hex with 2 SPs moved through, and the
    start hex; 8.2.17-8.2.22: air attacks on a unit that crossed a big river without a
    bridge, in the hex it entered."""
    state = ctx.state
    if not state.air_missions or not _moving_phase(state):
        return
    u = state.units[unit_id]
    spec = state.setup.units[unit_id]
    r = rules(state)
    d = r.disorganize
    if d is not None and d.loss_from_sp is not None and spec.nation in d.targets:
        for i, h in enumerate(path):
            sp = disorganization(state, u.side, h)[1]
            if u.eliminated or sp < d.loss_from_sp:
                continue
            rule = "8.2.16" if i == 0 else "8.2.14"
            faces = ctx.roll(
                d.loss_dice, f"air movement disorganization at {h} ({rule})", unit=unit_id
            )
            hit = sum(faces) in d.loss_hits
            ctx.emit(
                "air_harassed",
                unit=unit_id,
                hex=h,
                start=i == 0,
                sp=sp,
                roll=sum(faces),
                hit=hit,
                rule=rule,
            )
            if hit:
                lose_cel(ctx, unit_id, f"air movement disorganization at {h}", rule)
    if not r.river_features:
        return
    m = state.setup.map
    standing = intact_bridges(state)
    enemy = state.setup.enemy_of(u.side)
    for a, b in itertools.pairwise(path):
        if u.eliminated:
            break
        if not (m.features(a, b) & r.river_features) or hexside(a, b) in standing:
            continue  # 8.2.22: crossing by a bridge is safe
        attacks = sum(
            _river_attacks(state, x).get(b, 0)
            for x in in_play(state, "river")
            if x["side"] == enemy
        )
        if not attacks:
            continue
        faces = ctx.roll(
            attacks, f"air attacks on the river crossing into {b} (8.2.20)", unit=unit_id
        )
        hits = sum(1 for f in faces if f in r.river_hits)
        ctx.emit(
            "air_river_attack",
            unit=unit_id,
            hex=b,
            attacks=attacks,
            dice=faces,
            hits=hits,
            rule="8.2.18, 8.2.20",
        )
        for _ in range(hits):
            if not u.eliminated:
                lose_cel(ctx, unit_id, f"air attack on the river crossing into {b}", "8.2.20")


movement.AFTER_MOVE.append(_after_move)


# --- views and choices ----------------------------------------------------------------------


def public_view(state: GameState, viewer: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The missions in play (public once revealed) and, for a side (the moderator: every
    side), what it may still fly this turn."""
    missions = [dict(m) for m in state.air_missions]
    sides = [s for s in state.setup.air_sides if viewer in ("moderator", s)]
    left = {
        s: {
            "sp": pool_left(state, s),
            "counters": [c.id for c in counters_left(state, s)],
        }
        for s in sides
    }
    return missions, left


def air_options(state: GameState, side: str) -> dict[str, Any]:
    """What `side` may still assign in this Air Phase (`game.legal_actions`): its SPs, its
    counters and the missions its air may fly; empty when it has nothing to fly."""
    a = air_of(state, side)
    if (
        a is None
        or flow.current_phase(state).kind != "air"
        or side in state.done
        or not can_fly(state, side)
    ):
        return {}
    r = rules(state)
    nation = state.setup.sides[side].nation
    enemy = state.setup.enemy_of(side)
    supply_ok = a.supply if a.supply is not None else nation in r.supply_nations
    barred = {
        "support-defence": nation in r.no_defensive_support,  # 8.2.5
        "disorganize": r.disorganize is None
        or not any(
            spec.side == enemy and spec.nation in r.disorganize.targets
            for spec in state.setup.units.values()
        ),  # 8.2.11
        "river": not r.river_features,  # 8.2.17
        "object": not any(bridges.standing(state, *bridges.split(k)) for k in bridges.sites(state)),
        # 8.2.8: no bridge stands
        "supply": not supply_ok,  # 8.2.23, K76
    }
    return {
        "sp": pool_left(state, side),
        "counters": [c.id for c in counters_left(state, side)],
        "missions": [m for m in AIR_MISSIONS if m not in a.forbid and not barred.get(m, False)],
    }


def mission_options(state: GameState, side: str, limit: int = 4) -> list[o.Air]:
    """A few air orders `side` could give now (self-play, autocomplete)."""
    if flow.current_phase(state).kind != "air" or side in state.done:
        return []
    a = air_of(state, side)
    if a is None or not a.flies(state.turn):
        return []
    enemy = state.setup.enemy_of(side)
    grid = state.setup.map.grid
    own = sorted({u.hex for u in state.on_map(side) if u.hex})
    foe = sorted({u.hex for u in state.on_map(enemy) if u.hex})
    front = [h for h in foe if any(grid.adjacent(h, x) for x in own)]
    held = [h for h in own if any(grid.adjacent(h, x) for x in foe)]
    picks: list[tuple[str, str]] = [
        *(("support-attack", h) for h in front[:2]),
        *(("attack", h) for h in foe[:2]),
        *(("support-defence", h) for h in held[:1]),
    ]
    if state.setup.sides[side].nation in rules(state).no_defensive_support:
        picks = [p for p in picks if p[0] != "support-defence"]  # 8.2.5
    picks = [p for p in picks if p[0] not in a.forbid]
    out: list[o.Air] = []
    counters = counters_left(state, side)
    left = pool_left(state, side)
    for i, (mission, h) in enumerate(picks):
        if counters:
            c = counters[i % len(counters)]
            out.append(o.Air(mission=mission, hex=h, counter=c.id))
        elif left > 0:
            out.append(o.Air(mission=mission, hex=h, amount=max(1, min(left, 4))))
    return out[:limit]


# --- events ---------------------------------------------------------------------------------


@on("air_missions_flown")
def _flown(state: GameState, e: Event) -> None:
    for m in e.data["missions"]:
        state.air_missions.append(copy.deepcopy(m))
        side = str(m["side"])
        u = used(state, side)
        u = {**u, "sp": u["sp"] + int(m["sp"]), "counters": list(u["counters"])}
        if m["counter"]:
            u["counters"].append(m["counter"])
        u["aborted"] = list(u["aborted"])
        state.air_used[side] = u


def _set_status(state: GameState, ids: Iterable[str], status: str) -> None:
    wanted = set(ids)
    for m in state.air_missions:
        if m["id"] in wanted and m["status"] == "flying":
            m["status"] = status


@on("air_battle")
def _air_battle(state: GameState, e: Event) -> None:
    aborted = list(e.data["aborted"])
    loser = str(e.data["loser"])
    counters = [m["counter"] for m in state.air_missions if m["id"] in aborted and m["counter"]]
    _set_status(state, aborted, "aborted")
    u = used(state, loser)
    state.air_used[loser] = {**u, "aborted": [*u["aborted"], *counters]}


@on("air_mission_flown")
def _mission_flown(state: GameState, e: Event) -> None:
    _set_status(state, e.data["missions"], "done")


@on("air_missions_ended")
def _ended(state: GameState, e: Event) -> None:
    state.air_missions = []


def _report(state: GameState, e: Event) -> None:
    """Events that only report: the CELs and OoS levels change by their own events."""


for _kind in ("air_mission_void", "air_supply", "air_harassed", "air_river_attack"):
    on(_kind)(_report)


@also_on("combat_resolved")
def _spent_in_combat(state: GameState, e: Event) -> None:
    """R16: support missions are spent by the combat they joined (K73)."""
    hexes = set(e.data["hexes"])
    support = e.data.get("support", {})
    for who, side_key, mission in (
        ("attacker", "attacker", "support-attack"),
        ("defender", "defender", "support-defence"),
    ):
        if not any(x.get("kind") == "air" for x in support.get(who, [])):
            continue
        side = e.data[side_key]
        for m in state.air_missions:
            mine = m["side"] == side and m["mission"] == mission
            if mine and m["target"] in hexes and m["status"] == "flying":
                m["status"] = "spent"


@also_on("fire_resolved")
def _spent_in_fire(state: GameState, e: Event) -> None:
    """8.2.3: offensive support that joined a ranged attack is spent."""
    if e.data.get("mode") != "ranged":
        return
    _set_status(state, (x["source"] for x in e.data["sources"] if x.get("kind") == "air"), "spent")
