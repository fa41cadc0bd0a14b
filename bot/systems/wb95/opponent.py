"""A built-in opponent for local play and the fuzzer (issue 7): it plays one side like a
player would -- not strongly, but sensibly -- from that side's own view (16.1).

`Opponent(side, seed).choose(state)` returns the next input for its side, or None when
the side is not awaited. Every input it returns has been checked with the engine
(`engine.wb95.game.apply` on the state, discarded), so it is never rejected; it ends each
of its parts of a phase with `done`. Its own `random.Random(seed)` only breaks ties: the
engine's dice are never touched.

How it plays:
- posture (`_posture`): it must attack when it is not ahead on VPs
  (`engine.wb95.victory.victory_standing`) and a victory hex it could count is not its
  own; otherwise it holds. Time is short from the scenario's second-to-last turn.
- attacking: it concentrates (`_concentrate`) -- the units that can reach a hex next to
  an enemy-held victory hex with 2:1 in SPs for the next Combat Phase (3:2 when time is
  short) move there, the biggest first; an empty one is taken by the nearest unit; it
  accepts 2:1 on an objective (3:2, the 1:1 column, late in the game in the open or with
  its HQ's -1). Holding: one unit stays on each victory hex it holds and fortifies;
  counter-attacks only at the good odds below.
- air (8.2.2): in the Air Phase before its own Combat Phase it flies offensive support
  over the enemy hexes it is most likely to attack (enemy-held objectives first), and
  names the support missions over a defending hex in its `attack` orders (R16).
- decisions: losses on the units that can best spare them (most CELs left, least SPs per
  CEL, never the last CEL while another unit can take it); retreats to the hex farthest
  from the enemy stacks it sees, out of enemy ZoC, nearest to its supply; pursuit when
  the pursuer ends no closer to more enemies than it can face; the defence uses every
  ability, HQ-loss CM and artillery support it is offered.
- combat: attacks at good odds (the odds preview, `engine.wb95.odds`, worst case of
  what it sees: 3:1 or better, 2:1 when the defender sits in the open), with the
  artillery in range supporting; its duties (5.1.3-5.1.7) with the best of the cheapest
  attacks; then artillery fire (6.4) at the enemy hexes left unattacked.
- movement: units out of supply move back toward supply; others toward the nearest
  objective (a victory hex it does not hold) or the enemy, ending in contact only where
  the stack could attack at 2:1 or better, preferring good defensive terrain and hexes
  next to friends; units that hold stay and fortify (7.1); reinforcements enter (11.0);
  towed artillery near the front goes into combat setup (6.2.4).
- barrage (6.5) at the biggest enemy stack in range; the Air Phase (8.0) flies the
  missions the engine offers, supports first.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from bot.systems.wb95.checking import Checked
from bot.systems.wb95.loss_choice import spare_cels
from engine import orders as o
from engine.hexgrid import HexId
from engine.state import GameState
from engine.view import view
from engine.wb95 import defaults, flow, odds
from engine.wb95.air import attaching, counters_left, mission_options, pool_left
from engine.wb95.artillery import (
    barrage_targets,
    fire_targets,
    support_candidates,
    why_no_setup,
)
from engine.wb95.combat import (
    attack_options,
    can_attack,
    engagement,
    mandatory_outstanding,
)
from engine.wb95.crt import COLUMNS
from engine.wb95.fortifications import can_fortify
from engine.wb95.game import legal_moves
from engine.wb95.reinforcements import legal_entries
from engine.wb95.sequence import PHASES, actors
from engine.wb95.stacking import STACK_LIMIT
from engine.wb95.strength import strength
from engine.wb95.supply import Line, supply_costs, trace
from engine.wb95.victory import victory_standing

GOOD = COLUMNS.index("3:1")
FAIR = COLUMNS.index("2:1")
EVEN = COLUMNS.index("1:1")  # 3:2 reads the 1:1 column (1.5)


class Opponent(Checked):
    """The built-in player of one side."""

    def __init__(self, side: str, seed: int = 0) -> None:
        self.side = side
        self.rng = random.Random(seed)
        self._phase: tuple[int, int] | None = None
        self._handled: set[str] = set()  # units already considered in this phase
        self._tried: set[str] = set()  # inputs already tried in this phase
        self._air = 0
        self._costs: tuple[tuple[int, int], dict[HexId, Fraction]] | None = None
        self._trace: tuple[tuple[int, int], dict[str, Line]] | None = None
        self._stance: tuple[tuple[int, int], tuple[bool, bool]] | None = None
        self._plan: dict[str, HexId] = {}  # unit -> hex next to an objective to attack
        self._planned: tuple[int, int] | None = None

    # -- the entry point ----------------------------------------------------------------

    def choose(self, state: GameState) -> o.Order | None:
        """The next input of this side, or None when the game does not await it."""
        if state.over:
            return None
        side = self.side
        now = (state.turn, state.phase)
        if now != self._phase:
            self._phase, self._handled, self._tried, self._air = now, set(), set(), 0
        mine = [d for d in state.pending if d.side == side]
        if mine:
            d = mine[0]
            answers = [
                *self._answers(state, d.kind, d.options, d.info),
                *defaults.answers(state, d),
            ]
            picked = self._first_ok(state, answers, remember=False)
            return picked or self._fallback(state)
        if state.pending or side not in flow.awaited_sides(state):
            return None
        kind = flow.current_phase(state).kind
        plan: Iterable[o.Order]
        if kind in ("movement", "strategic"):
            plan = self._movement(state, strategic=kind == "strategic")
        elif kind == "combat":
            plan = self._combat(state)
        elif kind == "barrage":
            plan = self._barrage(state)
        elif kind == "air":
            plan = self._airphase(state)
        else:
            plan = ()
        picked = self._first_ok(state, plan)
        if picked is not None:
            return picked
        return self._fallback(state)

    # -- what the side sees ---------------------------------------------------------------

    def _enemy(self, state: GameState) -> dict[HexId, float]:
        """Enemy stacks the side sees, with an estimate of their defence SPs."""
        enemy = state.setup.enemy_of(self.side)
        specs = [s for s in state.setup.units.values() if s.side == enemy and s.sp > 0]
        mean = sum(s.sp for s in specs) / len(specs) if specs else 1.0
        out: dict[HexId, float] = {}
        for v in view(state, self.side).units:
            if v.side != enemy or v.hex is None or v.eliminated:
                continue
            if v.id is not None:
                sp: float = strength(state, state.units[v.id], attacking=False).sp
                if state.setup.units[v.id].type == "art":
                    sp = 0.5
            elif v.type in ("hq", "art"):
                sp = 0.5
            else:
                sp = mean
            out[v.hex] = out.get(v.hex, 0.0) + sp
        return out

    def _posture(self, state: GameState) -> tuple[bool, bool]:
        """(must attack, time is short): the side must attack when it is not ahead on VPs
        (`victory_standing`) and some victory hex it could take is held by the enemy or
        nobody; time is short from the last two turns on."""
        key = (state.turn, state.phase)
        if self._stance is not None and self._stance[0] == key:
            return self._stance[1]
        vp = victory_standing(state)["vp"]
        enemy = state.setup.enemy_of(self.side)
        to_take = any(
            state.control.get(v.hex) != self.side and (v.side is None or v.side == self.side)
            for v in state.setup.victory
        )
        attack = to_take and vp.get(self.side, 0) <= vp.get(enemy, 0)
        short = state.turn >= state.setup.turns - 1
        self._stance = (key, (attack, short))
        return attack, short

    # -- decisions ------------------------------------------------------------------------

    def _answers(self, state: GameState, kind: str, options: Any, info: Any) -> list[o.Order]:
        try:
            if kind == "losses":
                return [self._losses(state, options)]
            if kind == "retreat":
                return self._retreats(state, options, info)
            if kind == "pursuit":
                return self._pursuit(state, options, info)
            if kind == "defence":
                return self._defence(options)
        except (KeyError, IndexError, TypeError, ValueError):
            pass
        return []  # other kinds (7.2.1 IF placement ...): the engine's defaults

    def _losses(self, state: GameState, options: dict[str, Any]) -> o.Losses:
        """5.2.1 f: the CELs from the units that can best spare them."""
        return spare_cels(state, options)

    def _hex_value(self, state: GameState, h: HexId, enemy: dict[HexId, float]) -> float:
        """How safe a hex is for a unit that must get away: far from the enemy, out of
        its ZoC, near supply, next to friends."""
        grid = state.setup.map.grid
        near = min((grid.distance(h, e) for e in enemy), default=9)
        adj = sum(1 for e in enemy if grid.adjacent(h, e))
        costs = self._supply_costs(state)
        sup = float(costs[h]) if h in costs else 20.0
        friends = sum(1 for u in state.on_map(self.side) if u.hex and grid.adjacent(u.hex, h))
        return 3.0 * min(near, 4) - 5.0 * adj - 0.3 * sup + 0.5 * min(friends, 3)

    def _retreats(
        self, state: GameState, options: dict[str, Any], info: dict[str, Any]
    ) -> list[o.Order]:
        """5.3: the path whose end is safest; holding (`retreat UNIT`) only last."""
        unit = info["left"][0]
        paths: list[list[str]] = options["paths"][unit]
        enemy = self._enemy(state)
        ranked = sorted(
            paths,
            key=lambda p: (-self._hex_value(state, p[-1], enemy) if p else 0.0, -len(p), p),
        )
        return [*(o.Retreat(unit=unit, path=tuple(p)) for p in ranked[:4]), o.Retreat(unit=unit)]

    def _pursuit(
        self, state: GameState, options: dict[str, Any], info: dict[str, Any]
    ) -> list[o.Order]:
        """5.4: pursue into a hex next to no more enemy strength than the pursuer has."""
        unit = info["left"][0]
        u = state.units[unit]
        mine = strength(state, u, attacking=False).sp
        enemy = self._enemy(state)
        grid = state.setup.map.grid
        out: list[o.Order] = []
        for first in options.get("first", []):
            threat = sum(sp for h, sp in enemy.items() if grid.adjacent(h, first))
            here = sum(x.cel for x in state.units_at(first) if x.side == self.side)
            if u.cel > 1 and threat <= mine and here + u.cel <= STACK_LIMIT:  # 3.2.1
                out.append(o.Pursue(unit=unit, path=(first,)))
        return [*out, o.Pass()]

    def _defence(self, options: dict[str, Any]) -> list[o.Order]:
        """15.1.6, 9.1.6, 6.3.3: every ability, HQ CM and gun it may use."""
        stars = tuple(sorted(options.get("abilities", {})))
        cms = int(options.get("cms", 0) or 0)
        guns = tuple(options.get("support", {}).get("artillery", []))
        return [
            o.Defend(stars=stars, cms=cms, support=guns),
            o.Defend(stars=stars, support=guns),
            o.Defend(stars=stars),
            o.Pass(),
        ]

    # -- combat -----------------------------------------------------------------------------

    def _attack_orders(self, state: GameState) -> list[tuple[list[str], list[HexId]]]:
        opts = list(attack_options(state, self.side))
        must, _ = mandatory_outstanding(state, self.side)
        grid = state.setup.map.grid
        enemy = state.setup.enemy_of(self.side)
        foe = sorted({e.hex for e in state.on_map(enemy) if e.hex})
        for uid in must:  # the cheapest way to meet a duty: the unit alone (5.1.3)
            u = state.units[uid]
            if u.hex and can_attack(state, u) is None:
                opts.extend(([uid], [h]) for h in foe if grid.adjacent(u.hex, h))
        return opts

    def _combat(self, state: GameState) -> Iterable[o.Order]:
        side = self.side
        must, must_hit = mandatory_outstanding(state, side)
        duty = bool(must or must_hit)
        attack, short = self._posture(state)
        goals = set(self._goals(state))
        scored: list[tuple[tuple[float, ...], o.Attack]] = []
        for units, hexes in self._attack_orders(state):
            decl = {"side": side, "attackers": units, "defenders": [], "targets": hexes}
            guns = tuple(support_candidates(state, engagement(state, decl), "attacker"))
            # 8.2.2, R16: its offensive air support over the defending hexes, named
            air = tuple(str(m["id"]) for m in attaching(state, side, "support-attack", hexes))
            for support in (guns, ()) if guns else ((),):
                order = o.Attack(
                    units=tuple(units),
                    target=hexes[0],
                    also=tuple(hexes[1:]),
                    support=support,
                    air=air,
                )
                p = odds.preview(state, side, order)
                if not isinstance(p, dict):
                    continue
                col = COLUMNS.index(p["column"])
                gain = p["odds"]["defender_retreats_or_loses"] - p["odds"]["attacker_loses"]
                meets = len(set(units) & set(must)) + sum(
                    1 for d in must_hit if state.units[d].hex in hexes
                )
                open_ground = not any("CM" in x and "defender +" in x for x in p["explanation"])
                on_goal = any(h in goals for h in hexes)
                bar = FAIR if open_ground else GOOD  # holding: counter-attack at good odds
                if attack and on_goal:  # objectives to take: 2:1, 3:2 late with an edge
                    edge = open_ground or p["modifier"] < 0
                    ratio = p["attack_sp"] >= 1.5 * max(1, p["defence_sp"])
                    bar = EVEN if short and edge and ratio else FAIR
                good = col >= bar
                if not good and not (duty and meets):
                    continue
                score = (
                    float(good),
                    float(on_goal and attack),
                    float(meets),
                    col + gain,
                    -len(units) - len(support),
                )
                scored.append((score, order))
        scored.sort(key=lambda x: x[0], reverse=True)
        yield from (order for _, order in scored)
        attacked = {u.hex for u in state.on_map() if u.fought and u.hex}
        targets = fire_targets(state, side)
        enemy = self._enemy(state)
        for h in sorted(targets, key=lambda h: -enemy.get(h, 0.0)):
            if h not in attacked:
                yield o.Fire(units=tuple(targets[h]), target=h)
        yield o.Done()

    def _barrage(self, state: GameState) -> Iterable[o.Order]:
        enemy = self._enemy(state)
        targets = barrage_targets(state, self.side)
        for h in sorted(targets, key=lambda h: (-enemy.get(h, 0.0), h)):
            yield o.Barrage(units=tuple(targets[h]), target=h)
        yield o.Done()

    def _air_support(self, state: GameState) -> list[o.Air]:
        """8.2.2: offensive support over the enemy hexes its next Combat Phase is likely
        to attack -- enemy-held objectives first, then the enemy stacks its units touch or
        nearly touch -- when that Combat Phase comes before the next Air Phase."""
        side = self.side
        nxt = PHASES[(state.phase + 3) % len(PHASES)]
        if nxt.kind != "combat" or side not in actors(nxt, state.setup.side_names):
            return []
        grid = state.setup.map.grid
        enemy = self._enemy(state)
        own = [(u.hex, strength(state, u, True).sp) for u in state.on_map(side) if u.hex]
        goals = set(self._goals(state))
        attack, _ = self._posture(state)

        def rank(h: HexId) -> tuple[float, float, float, str]:
            near = sum(sp for x, sp in own if grid.distance(x, h) <= 2)
            adj = sum(sp for x, sp in own if grid.adjacent(x, h))
            return (-float(attack and h in goals), -float(adj > 0), -(near / max(0.5, enemy[h])), h)

        targets = [
            h for h in sorted(enemy, key=rank) if any(grid.distance(x, h) <= 2 for x, _ in own)
        ]
        out: list[o.Air] = []
        counters = counters_left(state, side)
        left = pool_left(state, side)
        for i, h in enumerate(targets[:2]):
            if counters:
                if i < len(counters):
                    out.append(o.Air(mission="support-attack", hex=h, counter=counters[i].id))
            elif left > 0:
                out.append(o.Air(mission="support-attack", hex=h, amount=max(1, min(left, 4))))
        return out

    def _airphase(self, state: GameState) -> Iterable[o.Order]:
        if self._air < 6:
            for a in self._air_support(state):
                self._air += 1
                yield a
            opts = mission_options(state, self.side, limit=8)
            opts.sort(key=lambda a: (not a.mission.startswith("support"), a.hex))
            for a in opts:
                self._air += 1
                yield a
        yield o.Done()

    # -- movement -----------------------------------------------------------------------

    def _supply_costs(self, state: GameState) -> dict[HexId, Fraction]:
        """Supply MPs to each hex, once per phase (supply changes little within one)."""
        key = (state.turn, state.phase)
        if self._costs is None or self._costs[0] != key:
            self._costs = (key, supply_costs(state, self.side))
        return self._costs[1]

    def _lines(self, state: GameState) -> dict[str, Line]:
        key = (state.turn, state.phase)
        if self._trace is None or self._trace[0] != key:
            self._trace = (key, trace(state, self.side))
        return self._trace[1]

    def _goals(self, state: GameState) -> list[HexId]:
        """The victory hexes it does not hold and could count."""
        held = state.control
        return [
            v.hex
            for v in state.setup.victory
            if held.get(v.hex) != self.side and (v.side is None or v.side == self.side)
        ]

    def _objectives(self, state: GameState, enemy: dict[HexId, float]) -> list[HexId]:
        held = state.control
        out = [
            v.hex
            for v in state.setup.victory
            if held.get(v.hex) != self.side and (v.side is None or v.side == self.side)
        ]
        return out or sorted(enemy)

    def _garrisons(self, state: GameState) -> set[str]:
        """One unit stays on each victory hex the side holds and stands on (the one that
        can best be spared from the attack: the weakest, not an HQ)."""
        vp_hexes = {v.hex for v in state.setup.victory if state.control.get(v.hex) == self.side}
        out: set[str] = set()
        for h in sorted(vp_hexes):
            here = [
                u
                for u in state.units_at(h)
                if u.side == self.side and not state.setup.units[u.id].is_hq
            ]
            if here:
                out.add(min(here, key=lambda u: (strength(state, u, False).sp, u.id)).id)
        return out

    def _concentrate(
        self,
        state: GameState,
        enemy: dict[HexId, float],
        cels: dict[HexId, int],
        short: bool,
        keep: set[str],
    ) -> dict[str, HexId]:
        """The side must attack: for each victory hex it could take, the units that can
        reach it (empty) or a hex next to it (held by the enemy) with enough SPs for 2:1
        next Combat Phase (3:2 when time is short), the biggest first."""
        side = self.side
        grid = state.setup.map.grid
        table = state.setup.table
        mine = [
            u
            for u in state.on_map(side)
            if u.hex
            and u.id not in self._handled
            and u.id not in keep
            and not state.setup.units[u.id].is_hq
            and state.setup.units[u.id].type != "art"
            and strength(state, u, True).sp > 0
        ]
        fixed: dict[HexId, float] = {}  # SPs already next to a target that will stay
        plan: dict[str, HexId] = {}
        load = dict(cels)
        goals = sorted(
            self._goals(state),
            key=lambda g: (
                -next(v.vp for v in state.setup.victory if v.hex == g),
                min((grid.distance(u.hex, g) for u in mine if u.hex), default=99),
                g,
            ),
        )
        reach: dict[str, dict[HexId, Any]] = {}

        def moves(uid: str) -> dict[HexId, Any]:
            if uid not in reach:
                reach[uid] = legal_moves(state, uid)
            return reach[uid]

        def cover(h: HexId) -> int:
            row = table.terrain.get(state.setup.map.terrain_of(h))
            return -row.combat if row is not None else 0

        for g in goals:
            free = [u for u in mine if u.id not in plan and u.hex]
            if g not in enemy:  # empty: the nearest unit that reaches it takes it
                for u in sorted(free, key=lambda u: (grid.distance(u.hex or g, g), u.id)):
                    if u.hex == g or (g in moves(u.id) and load.get(g, 0) + u.cel <= STACK_LIMIT):
                        plan[u.id] = g
                        load[g] = load.get(g, 0) + u.cel
                        break
                continue
            ring = set(grid.neighbours(g))
            need = (1.5 if short else 2.0) * enemy[g]
            have = fixed.get(g, 0.0)
            picks: list[tuple[str, HexId, int]] = []
            for u in sorted(free, key=lambda u: (-strength(state, u, True).sp, u.id)):
                if have >= need * 1.25:
                    break
                sp = strength(state, u, True).sp
                if u.hex in ring:
                    picks.append((u.id, u.hex, 0))
                    have += sp
                    continue
                if grid.distance(u.hex or g, g) > 12:
                    continue
                spots = [
                    h for h in moves(u.id) if h in ring and load.get(h, 0) + u.cel <= STACK_LIMIT
                ]
                if not spots:
                    continue
                best = max(
                    spots,
                    key=lambda h: (
                        cover(h),
                        -sum(1 for e in enemy if grid.adjacent(h, e) and e != g),
                        h,
                    ),
                )
                picks.append((u.id, best, u.cel))
                have += sp
            if have >= need:
                for uid, h, c in picks:
                    plan[uid] = h
                    load[h] = load.get(h, 0) + c
                fixed[g] = have
        return plan

    def _movement(self, state: GameState, strategic: bool) -> Iterable[o.Order]:
        side = self.side
        enemy = self._enemy(state)
        grid = state.setup.map.grid
        table = state.setup.table
        # reinforcements first (11.1): the entry closest to the objectives
        goals = self._objectives(state, enemy)
        for u in sorted(state.units.values(), key=lambda x: x.id):
            if u.side != side or u.on_map or u.id in self._handled:
                continue
            entries = legal_entries(state, u.id)
            if not entries:
                continue
            self._handled.add(u.id)
            best = min(
                entries.values(),
                key=lambda e: (
                    min((grid.distance(e.hex, g) for g in goals), default=0),
                    e.cost,
                    e.hex,
                ),
            )
            yield o.Enter(units=(u.id,), where=best.entry, path=tuple(best.path[1:]))
        if strategic:
            yield o.Done()
            return
        lines = self._lines(state)
        costs = self._supply_costs(state)
        cels: dict[HexId, int] = {}
        for u in state.on_map(side):
            if u.hex:
                cels[u.hex] = cels.get(u.hex, 0) + u.cel
        own_sp: dict[HexId, int] = {}
        for u in state.on_map(side):
            if u.hex:
                own_sp[u.hex] = own_sp.get(u.hex, 0) + strength(state, u, True).sp
        goal_d: dict[HexId, int] = {}
        attack, short = self._posture(state)
        keep = self._garrisons(state)
        if self._planned != self._phase:
            self._planned = self._phase
            self._plan = self._concentrate(state, enemy, cels, short, keep) if attack else {}
        goal_set = set(self._goals(state))
        units = sorted(state.on_map(side), key=lambda x: (x.id in self._handled, x.id))
        for u in units:
            if u.id in self._handled or u.hex is None:
                continue
            self._handled.add(u.id)
            spec = state.setup.units[u.id]
            here = u.hex
            planned = self._plan.get(u.id)
            if planned is not None and planned != here:
                yield o.Move(units=(u.id,), path=(planned,))  # concentrate (5.1)
            if planned is not None:
                continue  # it stays to attack, or its move was refused: it holds
            if u.id in keep:
                if can_fortify(state, u) is None:
                    yield o.Fortify(units=(u.id,))  # 7.1: hold the victory hex
                continue
            reach = legal_moves(state, u.id)
            oos = u.oos >= 1 or not lines.get(u.id, None) or not lines[u.id].supplied
            sp = strength(state, u, True).sp

            def score(
                h: HexId,
                oos: bool = oos,
                here: HexId = here,
                sp: int = sp,
                spec: Any = spec,
            ) -> float:
                if oos:  # 10.2: back toward supply
                    return (
                        -float(costs[h])
                        if h in costs
                        else -100.0 - min((grid.distance(h, g) for g in goals), default=0)
                    )
                goal = goal_d.get(h)
                if goal is None:
                    goal = goal_d[h] = min((grid.distance(h, g) for g in goals), default=0)
                terrain = state.setup.map.terrain_of(h)
                row = table.terrain.get(terrain)
                cover = -row.combat if row is not None else 0
                ring = grid.neighbours(h)
                friends = sum(1 for x in ring if x in own_sp)
                near = [e for e in ring if e in enemy]
                value = -1.0 * goal + 0.6 * cover + 0.3 * min(friends, 2)
                if near:
                    mine = own_sp.get(h, 0) + (0 if h == here else sp)
                    around = {x for e in near for x in grid.neighbours(e)} - {h}
                    mine += sum(own_sp.get(x, 0) for x in around)
                    need = 2.0
                    if attack and any(e in goal_set for e in near):
                        need = 1.5  # objectives to take: contact at 3:2 (5.1.3)
                    if mine < need * max(enemy[e] for e in near) or spec.is_hq or sp <= 0:
                        value -= 50.0  # contact only where it could attack at 2:1 (5.1.3)
                    else:
                        value += 1.0
                if h not in costs:
                    value -= 10.0  # 10.1: out of supply there
                return value + self.rng.random() * 0.01

            stay = score(here)
            options = [
                (score(h), h)
                for h, r in reach.items()
                if h != here and cels.get(h, 0) + u.cel <= STACK_LIMIT
            ]
            options.sort(reverse=True)
            if options and options[0][0] > stay + 0.5:
                for _, h in options[:3]:
                    yield o.Move(units=(u.id,), path=(h,))
                continue
            if can_fortify(state, u) is None and (
                any(grid.adjacent(here, e) or grid.distance(here, e) <= 2 for e in enemy)
                or here in goals
            ):
                yield o.Fortify(units=(u.id,))
            if (
                spec.type == "art"
                and u.setup == "transport"
                and why_no_setup(state, u, "combat") is None
                and any(grid.distance(here, e) <= 4 for e in enemy)
            ):
                yield o.SetupChange(units=(u.id,), mode="combat")
        yield o.Done()
