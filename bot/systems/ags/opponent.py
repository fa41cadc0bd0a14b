"""The built-in opponent for Army Group South -- Korsun (issue #19): it plays one side for
the Korsun victory points (AGS-K 27.1-27.3) with the system's tools -- HQ activation,
overruns, concentrated attacks, air points and air supply. The first opponent is kept as
`bot/systems/ags/baseline.py`; `bot/systems/ags/duel.py` plays one against the other
(figures in docs/performance.md).

`Opponent(side, seed).choose(state)` returns the next input for its side, or None when
the side is not awaited. Every input it returns has been tried with the engine
(`RuleSystem.apply` on the state, discarded); a choice the engine refuses is never given
again that phase and the next one is tried, and when none is left it gives the deadline
default (`next_default`), so it is never rejected.

What it sees: its side's view (`engine.view.view`) for the enemy's counters -- in AGS every
counter is seen in full (AGS-K 19.63, 14.12, engine/ags/view.py) -- and the rules' own
questions any player may ask (where a unit may move, `moves.legal_moves`; the odds of an
attack, `engine.ags.odds`, the `preview` of the interface; whether an input is accepted).
It never reads the dice to come: the outcome of an input it tries is thrown away unread,
and `random.Random(seed)` only breaks ties between equal hexes, so a seed gives one game.

How it plays, on top of the baseline's decisions (retreats, losses, advances declined):
- Soviet command (AGS-K 23.11, 23.12, A33): at the start of each Soviet player-turn it
  activates the HQs with most attack strength of the units in their command at the front
  (mechanized units count double: only they move again in the Mechanized Movement Phase,
  23.14), the printed turn-1 HQs first on turn 1.
- overruns (AGS 6.0, AGS-K 19.4): in its movement phases a stack beside an enemy hex, or a
  unit that can reach a hex beside one with three MPs left, overruns at 5-1 or better
  (the odds as `overrun` computes them: attack halved, 6.0), where every CRT row costs the
  defender a step or a retreat and disrupts him (6.31).
- concentration: enemy hexes whose defence is a third or less of the attack strength near
  them are the phase's targets; units move beside them (the Soviet keeping a line of
  communications to an active HQ, 11.33, 23.14), then attack at 3-1 (2-1 in clear
  terrain) with the air point when it lifts the odds (14.13), as the baseline does.
- Soviet aims (27.1, 25.1): close on the German units, between them and their supply
  hexes. German aims (27.2, 27.1): hold good ground beside friendly units (a line of
  zones of control, 8.1), the panzers toward weak Soviet stacks or the units out of
  supply; units out of supply, and from Game-Turn 10 those far from the supply hexes,
  pull back toward them (isolated units score for the Soviet at the end); in the German
  Air Power Phase an Air marker on the town whose drop zone holds most isolated units
  (25.2, K164).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.systems.ags import baseline
from bot.systems.ags.baseline import column_index as column_index  # for tests and callers
from engine import orders as o
from engine import systems
from engine.ags import air, combat, command, game, moves, overrun, sequence
from engine.ags import crt as table
from engine.ags import integrity as panzer
from engine.core import Applied, Rejected
from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.view import view

OVERRUN = "5-1"  # every row of 5-1 and up costs the defender (AGS 9.5)
PULL_OUT_FROM = 10  # the German units far from supply head home for the end (27.1)
FAR = 6


class Opponent(baseline.Opponent):
    KEEP_ACTIVE = True  # a Soviet unit in command of an active HQ stays so when it moves

    def __init__(self, side: str, seed: int = 0) -> None:
        super().__init__(side, seed)
        self._refused: set[str] = set()
        self._plan: dict[str, HexId] = {}  # unit -> the enemy hex it moved beside to overrun
        self._asked: set[str] = set()  # once-a-phase choices made (activation, air supply)
        self._cache: dict[str, Any] = {}
        self._good: set[str] = set()  # inputs tried and accepted on the state of this call
        self._known: dict[str, Any] = {}  # the enemy's defences, while the enemy is unchanged

    # --- the entry point (the baseline's `choose`) -------------------------------------

    def _new_phase(self) -> None:
        super()._new_phase()
        self._refused, self._plan, self._asked = set(), {}, set()

    def _accepted_choice(self, state: GameState) -> o.Order | None:
        """Its first choice the engine accepts; a refused one is not chosen again."""
        self._cache, self._good = {}, set()  # what it saw, for this input only
        for _ in range(60):
            order = self._choice(state)
            if order is None:
                break
            if self._accepted(state, order):
                return order
            self._refused.add(repr(order))
        return None

    def _try(self, state: GameState, order: o.Order) -> GameState | None:
        """The baseline's trial of an input; one refused is kept as refused this phase."""
        after = super()._try(state, order)
        if after is None:
            self._refused.add(repr(order))
        return after

    def _accepted(self, state: GameState, order: o.Order) -> bool:
        """Whether the referee takes `order` now; what it would do is not looked at."""
        if repr(order) in self._refused:
            return False
        if repr(order) in self._good:
            return True  # tried on this very state by the choice that made it
        return self._try(state, order) is not None

    def _before_default(self, state: GameState) -> o.Order | None:
        """The Soviet HQ activation, once a phase, at the player-turn's start (23.11)."""
        if self.side == "soviet" and "activate" not in self._asked:
            self._asked.add("activate")
            if command.at_player_turn_start(state):
                act = self._activation(state)
                if act is not None and self._accepted(state, act):
                    return act
        return None

    def _movement(self, state: GameState) -> o.Order | None:
        """German air supply in the Air Power Phase (25.2), else overruns, else moves."""
        if self.side == "german" and air.air_phase(state):
            drop = self._air_supply(state)
            if drop is not None and self._accepted(state, drop):
                return drop
        return self._overrun(state) or self._move(state)

    # --- what it sees -----------------------------------------------------------------

    def _foes(self, state: GameState) -> dict[HexId, list[str]]:
        """The enemy's counters by hex, from the side's view."""
        got = self._cache.get("foes")
        if got is None:
            got = {}
            enemy = game.enemy(self.side)
            for v in view(state, self.side).units:
                if v.side == enemy and v.hex is not None and not v.eliminated and v.id:
                    got.setdefault(v.hex, []).append(v.id)
            self._cache["foes"] = got
        return got

    def _foe_hexes(self, state: GameState) -> list[HexId]:
        return sorted(self._foes(state))

    # --- Soviet command (23.11, 23.12) -------------------------------------------------

    def _activation(self, state: GameState) -> o.Activate | None:
        sc = game.scenario(state)
        hqs = command.hqs_on_map(state)
        limit = sc.track.turn(state.turn).active_hqs
        must = [h for h in sc.active_turn_1 if h in hqs] if state.turn == 1 else []
        foes = self._foe_hexes(state)
        disrupted = set(game.ext(state, "disrupted", []))
        weight = {h: 0 for h in hqs}
        for u in state.on_map("soviet"):
            sp = game.spec(state, u.id)
            if sp.is_hq or u.hex is None or self._dist(state, u.hex, foes) > 3:
                continue
            w = game.step(state, u).attack * (2 if sp.mechanized else 1)
            for h in game.commanding_hqs(state, u):
                if h not in disrupted:
                    weight[h] += w
        rest = sorted((h for h in hqs if h not in must), key=lambda h: (-weight[h], h))
        pick = sorted([*must, *rest][: max(limit, len(must))])
        if set(pick) == set(game.ext(state, "active_hqs", [])):
            return None
        return o.Activate(units=tuple(pick))

    # --- German air supply (25.2) ------------------------------------------------------

    def _air_supply(self, state: GameState) -> o.Air | None:
        if air.points(state, "german") < 1:
            return None
        until = game.ext(state, "air_supplied", {})
        cut = [
            u.hex
            for u in air.isolated_by_line(state)
            if air.heavy(state, u.id) < 3 and int(until.get(u.id, 0)) <= state.turn
        ]  # isolated now (25.1) and not yet supplied through the next Game-Turn (25.23)
        if not cut:
            return None
        b = game.board(state)
        best: tuple[int, HexId] | None = None
        for h in sorted(b.hexes()):
            if b.terrain_at(h) not in air.TOWNS or not any(
                b.grid.distance(h, x) <= 4 for x in cut if x
            ):
                continue
            zone = air.drop_zone(state, h)
            n = sum(1 for x in cut if x in zone)
            if n and (best is None or n > best[0]):
                best = (n, h)
        return o.Air(mission="supply", hex=best[1], amount=1) if best else None

    # --- overruns (6.0) ----------------------------------------------------------------

    def _overrun_index(self, state: GameState, order: o.Attack) -> int:
        """The CRT column the overrun would be resolved on, as `overrun.overrun` finds it
        (attack halved, AGS 6.0); Rejected when it is not legal now."""
        attackers, defenders, _ = overrun.check(state, self.side, order)
        doubled = panzer.attack_doubled(state, attackers)
        raw = sum(combat.unit_attack(state, a, True, a.id in doubled)[0] for a in attackers)
        fighting = [d for d in defenders if not game.spec(state, d.id).is_hq]
        total_d = sum(
            combat.unit_defence(state, d, attackers, game.in_supply(state, d), not fighting)[0]
            for d in defenders
        )
        crt = game.scenario(state).crt
        column = table.odds_column(crt, max(1, raw // 2), max(1, total_d), 0)
        return crt.columns.index(column)

    def _good_overrun(self, state: GameState, order: o.Attack) -> bool:
        if repr(order) in self._refused:
            return False
        need = game.scenario(state).crt.columns.index(OVERRUN)
        try:
            good = self._overrun_index(state, order) >= need
        except Rejected:
            good = False
        if not good:
            self._refused.add(repr(order))
        return good

    def _overrun(self, state: GameState) -> o.Attack | o.Move | None:
        for uid, target in sorted(self._plan.items()):
            del self._plan[uid]
            order = o.Attack(units=(uid,), target=target)
            if self._good_overrun(state, order):
                return order
        foes = self._foes(state)
        g = game.board(state).grid
        mine: dict[HexId, list[str]] = {}
        for u in state.on_map(self.side):
            if u.hex is not None and not game.spec(state, u.id).is_hq:
                mine.setdefault(u.hex, []).append(u.id)
        for h, units in sorted(mine.items()):
            for t in sorted(x for x in foes if g.adjacent(h, x)):
                order = o.Attack(units=tuple(sorted(units)), target=t)
                if self._good_overrun(state, order):
                    return order
        return self._move_to_overrun(state, mine)

    def _move_to_overrun(self, state: GameState, mine: dict[HexId, list[str]]) -> o.Move | None:
        """A mechanized unit that can reach an empty hex beside a weak enemy hex with three
        MPs left moves there; its overrun is its next input (6.13-6.16)."""
        if "overrun moves" in self._asked:
            return None
        foes = self._foes(state)
        g = game.board(state).grid
        weak = self._weak(state)
        if not weak:
            self._asked.add("overrun moves")
            return None
        for u in sorted(
            state.on_map(self.side), key=lambda x: (-self._attack_of(state, x.id), x.id)
        ):
            sp = game.spec(state, u.id)
            if sp.is_hq or not sp.mechanized or u.mp_spent or u.id in self._tried:
                continue
            if u.id in game.ext(state, "out_of_supply", []):
                continue  # 6.12
            left = moves.allowance(state, u) - overrun.COST
            might = combat.unit_attack(state, u, True, False)[0] // 2  # 6.0: halved
            defences = self._defences(state)
            assert u.hex is not None
            if not any(
                might >= 4 * defences[t] and g.distance(u.hex, t) <= 2 * left + 1 for t in weak
            ):
                continue  # no weak hex near enough (roads: half an MP a hex, 10.23)
            reach = moves.legal_moves(state, u.id)
            spots = sorted(
                (r.cost, h, t)
                for h, r in reach.items()
                if r.cost <= left and h not in mine and h not in foes
                for t in weak
                if g.adjacent(h, t)
            )
            for _, h, t in spots[:4]:
                order = o.Move(units=(u.id,), path=(h,))
                after = systems.of(state).apply(state, self.side, order)
                if not isinstance(after, Applied):
                    continue
                attack = o.Attack(units=(u.id,), target=t)
                try:
                    fine = self._overrun_index(after.state, attack) >= (
                        game.scenario(state).crt.columns.index(OVERRUN)
                    )
                except Rejected:
                    fine = False
                if fine:
                    self._tried.add(u.id)
                    self._plan[u.id] = t
                    return order
        self._asked.add("overrun moves")
        return None

    # --- concentration ------------------------------------------------------------------

    def _defences(self, state: GameState) -> dict[HexId, int]:
        """Each enemy hex's defence as an attack would meet it (terrain, supply and the
        rest: `combat.unit_defence`, AGS 9.3, 10.0, 12.23), worked out again only when the
        enemy's counters seen have moved or lost steps."""
        foes = self._foes(state)
        seen = tuple(sorted((i, h, state.units[i].cel) for h, ids in foes.items() for i in ids))
        if self._known.get("seen") != seen:
            out = {}
            for h, ids in foes.items():
                defenders = [state.units[i] for i in ids]
                fighting = [d for d in defenders if not game.spec(state, d.id).is_hq]
                out[h] = max(
                    1,
                    sum(
                        combat.unit_defence(state, x, [], game.in_supply(state, x), not fighting)[0]
                        for x in defenders
                    ),
                )
            self._known = {"seen": seen, "defences": out}
        return self._known["defences"]  # type: ignore[no-any-return]

    def _weak(self, state: GameState) -> list[HexId]:
        """Enemy hexes whose defence is at most a third of the attack strength of the
        side's units within four hexes."""
        got = self._cache.get("weak")
        if got is not None:
            return got  # type: ignore[no-any-return]
        g = game.board(state).grid
        own = [
            (u.hex, self._attack_of(state, u.id))
            for u in state.on_map(self.side)
            if u.hex is not None and not game.spec(state, u.id).is_hq
        ]
        out = []
        for h, d in sorted(self._defences(state).items()):
            near = sum(a for x, a in own if x is not None and g.distance(x, h) <= 4)
            if near >= 3 * d:
                out.append(h)
        self._cache["weak"] = out
        return out

    # --- movement -----------------------------------------------------------------------

    def _targets(self, state: GameState) -> dict[str, object]:
        t = super()._targets(state)
        t["weak"] = self._weak(state)
        t["friends"] = [x.hex for x in state.on_map(self.side) if x.hex is not None]
        return t

    def _move(self, state: GameState) -> o.Move | None:
        """The baseline's one unit at a time to its best hex, scored by `_score`, kept by
        `_keeps`; then the Soviet HQs follow their units (`_move_hq`)."""
        order = super()._move(state)
        if order is not None:
            self._good.add(repr(order))
            return order
        if self.side == "soviet":
            return self._move_hq(state)
        return None

    def _keeps(self, state: GameState, u: UnitState) -> Callable[[GameState, UnitState], bool]:
        """A German unit in supply keeps its line of supply (12.1, 25.1); a Soviet unit keeps
        a line of communications to an active HQ when it has one (its attacks and mechanized
        moves need it, 23.13, 23.14), else to any HQ (11.33)."""
        active = (
            self.side == "soviet"
            and self.KEEP_ACTIVE
            and bool(game.commanding_hqs(state, u, active_only=True))
        )
        supplied = self.side == "german" and game.in_supply(state, u)

        def keeps(after: GameState, moved: UnitState) -> bool:
            if supplied and not game.in_supply(after, moved):
                return False
            return self.side != "soviet" or bool(
                game.commanding_hqs(after, moved, active_only=active)
            )

        return keeps

    def _move_hq(self, state: GameState) -> o.Move | None:
        """An HQ left behind follows its units: one step toward the front that keeps at
        least as many Soviet units in command (11.31, 11.33) and stays out of enemy zones
        of control."""
        if sequence.current(state).mech:
            return None
        foes = self._foe_hexes(state)
        ezoc = game.enemy_zoc(state, "soviet")
        for hq in sorted(state.on_map("soviet"), key=lambda x: x.id):
            key = f"hq {hq.id}"
            if key in self._asked or hq.hex is None or not game.spec(state, hq.id).is_hq:
                continue
            self._asked.add(key)
            if self._dist(state, hq.hex, foes) <= 3:
                continue
            before = self._in_command(state)
            reach = moves.legal_moves(state, hq.id)
            ranked = sorted(
                (self._dist(state, h, foes), r.cost, h)
                for h, r in reach.items()
                if h not in ezoc and self._dist(state, h, foes) >= 2
            )
            for d, _, h in ranked[:3]:
                if d >= self._dist(state, hq.hex, foes):
                    break
                order = o.Move(units=(hq.id,), path=(h,))
                after = systems.of(state).apply(state, "soviet", order)
                if isinstance(after, Applied) and self._in_command(after.state) >= before:
                    return order
        return None

    def _in_command(self, state: GameState) -> int:
        return sum(
            1
            for u in state.on_map("soviet")
            if not game.spec(state, u.id).is_hq and game.commanding_hqs(state, u)
        )

    def _score(self, state: GameState, u: UnitState, h: HexId, t: dict[str, object]) -> float:
        base = super()._score(state, u, h, t)
        weak: list[HexId] = t["weak"]  # type: ignore[assignment]
        g = game.board(state).grid
        beside_weak = any(g.adjacent(h, w) for w in weak)
        sp = game.spec(state, u.id)
        if self.side == "soviet":
            return base + (4.0 if beside_weak else 0.0)
        judged = set(game.ext(state, "out_of_supply", [])) | set(game.ext(state, "isolated", []))
        far = self._to_supply(state, h)
        if u.id in judged or (state.turn >= PULL_OUT_FROM and far > FAR):
            return -2.0 * far + 0.3 * self._terrain(state, h)  # home before the end (27.1)
        if sp.move_class == "mech":
            return base + (3.0 if beside_weak else 0.0)  # counter-attack weak stacks
        around: list[HexId] = t["friends"]  # type: ignore[assignment]
        friends = sum(1 for x in around if x != u.hex and g.adjacent(x, h))
        return base + 0.4 * min(friends, 2)  # a line: zones of control joined (8.1)
