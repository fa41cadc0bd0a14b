"""The first built-in opponent for Army Group South -- Korsun (issue #19), kept as the
baseline the present one (bot/systems/ags/opponent.py) is measured against
(bot/systems/ags/duel.py, docs/performance.md): it plays one side with a plain strategy
aimed at the Korsun victory points (AGS-K 27.1-27.3). It moves units one at a time, never
overruns, keeps the referee's HQ activations and never air-supplies.

`Opponent(side, seed).choose(state)` returns the next input for its side, or None when
the side is not awaited. Every input it returns has been tried with the engine
(`RuleSystem.apply` on the state, discarded); when its own choice is refused it falls
back to the deadline default (`next_default`), so it is never rejected. Nothing is
hidden in AGS (19.63, 14.12), so it reads the whole state. It rolls no dice; its own
`random.Random(seed)` only breaks ties between equal hexes, so a seed gives one game.

How it plays:
- objectives: the Soviet player scores German steps (more when isolated, 25.12) and
  German units isolated at the end (27.1), so the Soviet units close on the German
  units and get between them and their supply hexes (19.72) -- closing and keeping the
  pocket; the German player scores Soviet steps (27.2) and loses points for isolated
  units, so its units out of supply move back toward their supply hexes (breaking out),
  its mechanized units toward the German units out of supply (breaking in) or else
  toward the Soviet units to attack them, and the rest hold good ground.
- combat: attacks only at good odds, computed by the engine (`engine.ags.odds`, the
  column `combat.resolve` would use, with the defender's air point counted against it):
  3-1 or better, 2-1 against a defender in clear terrain; attackers not needed for
  those odds are left out for other attacks, weakest dropped first; the side's air
  point when it lifts an attack to those odds.
- decisions: retreat when every unit can retreat to a hex out of enemy zones of
  control (a step is dearer than ground), toward supply and away from the enemy;
  otherwise the steps from the weakest units, spread so no unit dies while another can
  take the step (AGS 9.67, A27); advances declined; the defender's air point and
  over-stacking by the defaults (K162, A41).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from engine import orders as o
from engine import systems
from engine.ags import defaults, game, moves, odds, sequence
from engine.core import Applied, Rejected
from engine.hexgrid import HexId
from engine.state import Decision, GameState, UnitState

GOOD = "3-1"
FAIR = "2-1"
OPEN_TERRAIN = ("clear",)


class Opponent:
    def __init__(self, side: str, seed: int = 0) -> None:
        self.side = side
        self.rng = random.Random(seed)
        self._phase: tuple[int, int] | None = None
        self._tried: set[str] = set()

    # --- the entry point --------------------------------------------------------------

    def choose(self, state: GameState) -> o.Order | None:
        rules = systems.of(state)
        if self.side not in rules.awaited_sides(state):
            return None
        key = (state.turn, state.phase)
        if key != self._phase:
            self._phase = key
            self._new_phase()
        order = self._accepted_choice(state)
        if order is not None:
            return order
        return rules.next_default(state, self.side)

    def _new_phase(self) -> None:
        """Forget what was tried in the phase before."""
        self._tried = set()

    def _accepted_choice(self, state: GameState) -> o.Order | None:
        """Its choice when the engine accepts it, else None (the deadline default then)."""
        order = self._choice(state)
        if order is not None and self._try(state, order) is not None:
            return order
        return None

    def _try(self, state: GameState, order: o.Order) -> GameState | None:
        """The state after `order` when the engine accepts it now (thrown away by the
        callers but for a look at their own units), else None."""
        after = systems.of(state).apply(state, self.side, order)
        return after.state if isinstance(after, Applied) else None

    def _choice(self, state: GameState) -> o.Order | None:
        mine = [d for d in state.pending if d.side == self.side]
        if mine:
            return self._decide(state, mine[0])
        first = self._before_default(state)
        if first is not None:
            return first
        default = systems.of(state).next_default(state, self.side)
        if not isinstance(default, o.Done):
            return default  # reinforcements that must enter (26.0)
        kind = sequence.current(state).kind
        if kind == "combat":
            return self._attack(state) or default
        if kind == "movement":
            return self._movement(state) or default
        return default

    def _before_default(self, state: GameState) -> o.Order | None:
        """An input given before the deadline default is looked at (none here)."""
        return None

    def _movement(self, state: GameState) -> o.Order | None:
        """Its input in a movement phase, or None for the deadline default."""
        return self._move(state)

    # --- decisions --------------------------------------------------------------------

    def _decide(self, state: GameState, d: Decision) -> o.Order | None:
        if d.kind == "advance":
            return o.Pass()
        opts = d.options
        if not isinstance(opts, dict) or "steps" not in opts:
            return defaults.decision_defaults(state, d)[0]  # air, over-stacking
        units = [u for u in opts["units"] if state.units[u].on_map]
        left = [u for u in units if u not in opts.get("retreated", [])]
        n = int(opts["steps"])
        if opts.get("retreat") and left:
            paths = {u: self._retreats(state, d, u) for u in left}
            safe = all(paths[u] and paths[u][0][0] > 0 for u in left)
            if opts.get("mode") == "retreat" or safe:
                uid = left[0]
                if paths[uid]:
                    return o.Retreat(unit=uid, path=paths[uid][0][1])
                return o.Retreat(unit=uid, path=())
        if opts.get("mode") == "retreat":
            return None
        return o.Losses(units=self._weakest(state, units, n))

    def _retreats(
        self, state: GameState, d: Decision, uid: str
    ) -> list[tuple[int, tuple[HexId, ...]]]:
        """Its legal retreat paths, best first: ending out of enemy zones of control,
        far from the enemy, near its supply (first element: 1 when out of enemy ZoC)."""
        try:
            found = defaults._paths_now(state, uid, d.options)
        except (AssertionError, KeyError):
            return []
        ezoc = game.enemy_zoc(state, self.side)
        foes = self._foe_hexes(state)
        scored = []
        for p in found:
            end = p[-1]
            free = 0 if end in ezoc else 1
            score = 10 * free + self._dist(state, end, foes) - 0.5 * self._to_supply(state, end)
            scored.append((score, free, tuple(p)))
        scored.sort(key=lambda t: (-t[0], t[2]))
        return [(free, p) for _, free, p in scored]

    def _weakest(self, state: GameState, units: list[str], n: int) -> tuple[str, ...]:
        """n steps (a listing each, A27) from the weakest units: the least attack strength
        of the step shown first, never a unit's last step while another can give one."""
        left = {u: state.units[u].cel for u in units}
        out: list[str] = []
        while len(out) < n and any(left.values()):
            able = [u for u in units if left[u]]
            spare = [u for u in able if left[u] > 1] or able
            pick = min(spare, key=lambda u: (game.step(state, state.units[u]).attack, u))
            out.append(pick)
            left[pick] -= 1
        return tuple(out)

    # --- combat -----------------------------------------------------------------------

    def _attack(self, state: GameState) -> o.Order | None:
        best: tuple[int, o.Attack] | None = None
        for a in defaults.attacks(state, self.side):
            found = self._good_attack(state, a)
            if found is not None and (best is None or found[0] > best[0]):
                best = found
        return best[1] if best else None

    def _good_attack(self, state: GameState, a: o.Attack) -> tuple[int, o.Attack] | None:
        crt = game.scenario(state).crt
        h = a.target
        open_ground = game.board(state).terrain_at(h) in OPEN_TERRAIN
        need = crt.columns.index(FAIR if open_ground else GOOD)
        air = int(game.ext(state, "air", {}).get(self.side, 0)) > 0
        units = list(a.units)
        for use_air in (0, 1) if air else (0,):
            try:
                got = odds.odds(state, self.side, tuple(units), (h,), use_air)
            except Rejected:
                continue
            if got["worst_index"] < need:
                continue
            # leave out the weakest attackers not needed for these odds
            for uid in sorted(units, key=lambda u: self._attack_of(state, u)):
                if len(units) == 1:
                    break
                fewer = [u for u in units if u != uid]
                try:
                    less = odds.odds(state, self.side, tuple(fewer), (h,), use_air)
                except Rejected:
                    continue
                if less["worst_index"] >= need:
                    units, got = fewer, less
            air_ref = ("1",) if use_air else ()
            return got["worst_index"] * 100 - len(units), o.Attack(
                units=tuple(units), target=h, air=air_ref
            )
        return None

    def _attack_of(self, state: GameState, uid: str) -> int:
        return game.step(state, state.units[uid]).attack

    # --- movement ---------------------------------------------------------------------

    def _move(self, state: GameState) -> o.Move | None:
        """One unit at a time, by id, to the best of its three best-scored hexes (`_score`)
        that scores clearly better than its own and that `_keeps` allows; HQs are not
        moved here (the command net hangs on them, 11.3)."""
        targets = self._targets(state)
        for u in sorted(state.on_map(self.side), key=lambda x: x.id):
            if u.id in self._tried or u.hex is None:
                continue
            self._tried.add(u.id)
            if game.spec(state, u.id).is_hq:
                continue
            reach = moves.legal_moves(state, u.id)
            if not reach:
                continue
            here = self._score(state, u, u.hex, targets)
            ranked = sorted(
                ((self._score(state, u, h, targets) + self.rng.random() * 0.01, h) for h in reach),
                reverse=True,
            )
            keeps = self._keeps(state, u)
            for score, h in ranked[:3]:
                if score <= here + 0.5:
                    break
                order = o.Move(units=(u.id,), path=(h,))
                after = self._try(state, order)
                if after is not None and keeps(after, after.units[u.id]):
                    return order
        return None

    def _keeps(self, state: GameState, u: UnitState) -> Callable[[GameState, UnitState], bool]:
        """What a move of `u` must keep, asked of the state after it and the unit moved: a
        Soviet unit its line of communications (11.33)."""
        return lambda after, moved: self.side != "soviet" or bool(game.commanding_hqs(after, moved))

    def _targets(self, state: GameState) -> dict[str, object]:
        foes = self._foe_hexes(state)
        own_out: list[HexId] = []
        if self.side == "german":
            judged = set(game.ext(state, "out_of_supply", [])) | set(
                game.ext(state, "isolated", [])
            )
            own_out = sorted(
                state.units[u].hex  # type: ignore[misc]
                for u in judged
                if u in state.units and state.units[u].side == "german" and state.units[u].hex
            )
        return {"foes": foes, "own_out": own_out}

    def _score(self, state: GameState, u: UnitState, h: HexId, t: dict[str, object]) -> float:
        foes: list[HexId] = t["foes"]  # type: ignore[assignment]
        terrain = self._terrain(state, h)
        d_foe = self._dist(state, h, foes)
        if self.side == "soviet":
            # close on the Germans, between them and their supply hexes (27.1, 25.1)
            return -2.0 * d_foe - 0.6 * self._to_supply(state, h, "german") + 0.5 * terrain
        out: list[HexId] = t["own_out"]  # type: ignore[assignment]
        if u.id in game.ext(state, "out_of_supply", []) or u.id in game.ext(state, "isolated", []):
            return -2.0 * self._to_supply(state, h) + 0.3 * terrain  # break out (27.1)
        if out and game.spec(state, u.id).move_class == "mech":
            return -1.5 * self._dist(state, h, out) + 0.3 * terrain  # break in
        if game.spec(state, u.id).move_class == "mech":
            return -1.0 * d_foe + 0.3 * terrain  # the panzers seek Soviet units to attack
        # hold: good ground, not alone in front of the enemy
        return 1.0 * terrain + (0.0 if d_foe > 1 else -0.5)

    # --- geometry ---------------------------------------------------------------------

    def _terrain(self, state: GameState, h: HexId) -> int:
        """The defence of the hex's terrain (1 at least)."""
        sc = game.scenario(state)
        return sc.tec.row(sc.board.terrain_at(h)).defence or 1

    def _foe_hexes(self, state: GameState) -> list[HexId]:
        return sorted(game.hexes_of(state, game.enemy(self.side)))

    def _dist(self, state: GameState, h: HexId, others: Iterable[HexId]) -> float:
        g = game.board(state).grid
        return float(min((g.distance(h, x) for x in others), default=30))

    def _to_supply(self, state: GameState, h: HexId, side: str | None = None) -> float:
        side = side or self.side
        if side == "german":
            return self._dist(state, h, game.scenario(state).german_sources)
        return 0.0  # Soviet supply runs through its HQs to the map edge (19.71)


def column_index(state: GameState, label: str) -> int:
    """Where a CRT column stands (for tests and callers comparing odds)."""
    return game.scenario(state).crt.columns.index(label)
