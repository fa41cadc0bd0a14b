"""SPI's Army Group South -- Korsun behind the rule-system interface (engine/system.py,
docs/architecture.md "Adding a rule system"; docs/ags.md)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from engine import orders as o
from engine.ags import defaults, game, moves, sequence
from engine.ags import orders as ags_orders
from engine.ags import view as ags_view
from engine.ags.reducer import reduce as ags_reduce
from engine.ags.scenario import Scenario
from engine.core import Applied, Ctx, Event, Rejection
from engine.dice import DiceState
from engine.model import Setup
from engine.state import Decision, GameState, UnitState
from engine.system import Phase, Reach, RuleSystem
from engine.view import View, redacted_log


def _coming_combat(state: GameState, side: str) -> GameState | None:
    """In `side`'s own Initial Movement Phase (set-up done, no decision open), the state as
    its Combat Phase would begin with nothing moved further (AGS 4.2: it follows at
    once); None otherwise. Shares the unchanged parts with `state` (a preview changes
    nothing)."""
    from engine.ags import deploy

    now = sequence.current(state)
    if deploy.title(state) is not None or state.pending or now.side != side:
        return None
    if now.kind != "movement" or now.mech or state.phase + 1 >= len(sequence.PHASES):
        return None
    return dataclasses.replace(state, phase=state.phase + 1, done=[])


class AgsSystem(RuleSystem):
    id = "ags"
    name = "Army Group South (SPI) -- Korsun"
    strength_name = "steps"  # AGS 9.61

    def turn_dates(self, setup: Setup, turn: int) -> tuple[dt.date, ...]:
        """Two days a Game-Turn (AGS-K 17.0): 26-27 Jan 1944 for turn 1."""
        sc = setup.results
        if not isinstance(sc, Scenario):
            return ()
        first = sc.date(turn)
        return tuple(first + dt.timedelta(days=i) for i in range(sc.days_per_turn))

    # --- a game ---------------------------------------------------------------------------

    def initial_state(self, setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> GameState:
        units: dict[str, UnitState] = {}
        for i, st in enumerate(setup.starts):
            steps = len(setup.results.units[st.id].steps)
            units[st.id] = UnitState(
                st.id,
                setup.units[st.id].side,
                st.hex,
                steps,
                steps,
                arrives=None if st.arrives is None else dict(st.arrives),
                entered_seq=i,
            )
        return GameState(setup, 1, 0, units, {}, DiceState(seed=seed, forced=list(dice)))

    def new_game(self, setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> Applied:
        ctx = Ctx(self.initial_state(setup, seed, dice), ags_reduce)
        sc = setup.results
        ctx.emit(
            "game_started",
            scenario=setup.id,
            seed=seed,
            system=self.id,
            provenance=dict(sc.provenance),
        )
        sequence.start_game(ctx)
        return ctx.done()

    def reduce(self, state: GameState, event: Event) -> None:
        ags_reduce(state, event)

    def apply(self, state: GameState, side: str | None, order: o.Order) -> Applied | Rejection:
        return ags_orders.apply(state, side, order)

    # --- where the game stands --------------------------------------------------------------

    def phase(self, state: GameState) -> Phase:
        p = sequence.current(state)
        return Phase(p.kind, p.number, sequence.title(state))

    def acting_sides(self, state: GameState) -> tuple[str, ...]:
        return (sequence.current(state).side,)

    def awaited_sides(self, state: GameState) -> list[str]:
        return ags_orders.awaited(state)

    def done_refusal(self, state: GameState, side: str) -> Rejection | None:
        return ags_orders.done_refusal(state, side)

    def victory_points(self, state: GameState) -> dict[str, int]:
        return dict(game.ext(state, "vp", {"soviet": 0, "german": 0}))

    def data_provenance(self, setup: Setup) -> dict[str, str]:
        from engine.ags import data

        return data.provenance(setup.results)

    def victory_standing(self, state: GameState) -> dict[str, object] | None:
        vp = self.victory_points(state)
        level = game.scenario(state).victory.level(vp["soviet"], vp["german"])
        return {
            "level": level,
            "vp": vp,
            "why": f"Soviet {vp['soviet']} - German {vp['german']} (AGS-K 27.3)",
        }

    # --- what a side may do -----------------------------------------------------------------

    def legal_actions(self, state: GameState, side: str) -> dict[str, object]:
        mine = side in self.awaited_sides(state)
        decisions = [d.to_json() for d in state.pending if d.side == side]
        mv = {}
        if mine and not decisions and sequence.current(state).kind == "movement":
            mv = {u.id: sorted(moves.legal_moves(state, u.id)) for u in state.on_map(side)}
            mv = {k: v for k, v in mv.items() if v}
        attacks = []
        if mine and not decisions and sequence.current(state).kind == "combat":
            attacks = [
                {"units": list(a.units), "target": a.target} for a in defaults.attacks(state, side)
            ]
        return {
            "decisions": decisions,
            "moves": mv,
            "attacks": attacks,
            "done": mine and not decisions and self.done_refusal(state, side) is None,
        }

    def legal_moves(self, state: GameState, unit_id: str) -> Mapping[str, Reach]:
        return moves.legal_moves(state, unit_id)

    def why_immobile(self, state: GameState, unit_id: str) -> tuple[str, str] | None:
        u = state.units.get(unit_id)
        if u is None:
            return ("no such unit", "")
        return moves.why_immobile(state, u)

    def format_cost(self, cost: Fraction) -> str:
        return str(cost.numerator) if cost.denominator == 1 else f"{float(cost):g}"

    def candidate_orders(
        self, state: GameState, side: str, limit: int = 200, moves: bool = True
    ) -> list[o.Order]:
        return defaults.candidate_orders(state, side, limit, moves)

    def next_default(self, state: GameState, side: str) -> o.Order | None:
        return defaults.next_default(state, side)

    def decision_defaults(self, state: GameState, decision: Decision) -> list[o.Order]:
        return defaults.decision_defaults(state, decision)

    def clear_caches(self) -> None:
        game.clear_caches()  # supply, command and ZoC memoized by position (engine/ags/game.py)

    def preview(self, state: GameState, side: str, order: o.Order) -> dict[str, object] | Rejection:
        from engine.ags import odds
        from engine.core import Rejected

        if not isinstance(order, o.Attack):
            return Rejection("only an attack has odds to preview", "AGS 9.4")
        ahead = _coming_combat(state, side)
        if ahead is None and sequence.current(state).kind != "combat":
            return Rejection(
                "odds are previewed for attacks in a Combat Phase, or planned in your "
                "Initial Movement Phase (an overrun's are not)",
                "AGS 9.11, 6.0, 4.2",
            )
        try:
            out = odds.preview(ahead or state, side, order)
        except Rejected as e:
            return e.rejection
        if ahead is not None:  # K181: planning, as the Combat Phase that follows would count
            out["planning"] = True
            out["explanation"] = [
                "planning: it is the Initial Movement Phase; counted as the coming Combat "
                "Phase would count it, the units where they stand now (AGS 4.2, K181)"
            ]
        return out

    def announcements(self, state: GameState, side: str) -> list[str]:
        from engine.ags import command

        return command.announcements(state, side)

    # --- what a viewer sees -----------------------------------------------------------------

    def view(self, state: GameState, viewer: str) -> View:
        return ags_view.view(state, viewer)

    def visible_events(
        self, events: Iterable[Event], viewer: str, state: GameState | None = None
    ) -> list[Event]:
        return redacted_log(events, viewer, state, ags_view.EVENTS)

    # --- the fuzzer's checks ----------------------------------------------------------------

    def invariant_problems(
        self, before: GameState, after: GameState, events: Sequence[Event]
    ) -> list[str]:
        out = []
        lost = {e.data["unit"] for e in events if e.kind == "step_lost"}
        for u in after.units.values():
            if not 0 <= u.cel <= u.max_cel:
                out.append(f"{u.id} has {u.cel} steps of {u.max_cel} (AGS 9.61)")
            was = before.units.get(u.id)
            if was is not None and was.cel != u.cel and u.id not in lost:
                out.append(f"{u.id}'s steps changed without a step_lost event")
        return out

    def phase_end_problems(self, state: GameState) -> list[str]:
        from engine.ags.stacking import stack_problem

        by_hex: dict[str, list[str]] = {}
        for u in state.on_map():
            if u.hex is not None:
                by_hex.setdefault(u.hex, []).append(u.id)
        return [
            f"{h} over-stacked: {why}"
            for h, ids in sorted(by_hex.items())
            if (why := stack_problem(game.spec(state, i) for i in ids)) is not None
        ]

    def perturbed(self, state: GameState, viewer: str) -> tuple[GameState, list[str]]:
        return state, []  # nothing is hidden in AGS (engine/ags/view.py)

    def probes(self, state: GameState, side: str, rng: random.Random) -> list[o.Order]:
        return []


SYSTEM = AgsSystem()
