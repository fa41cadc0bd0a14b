"""WB-95 as a rule system (`engine.system.RuleSystem`): the interface's methods, each the
WB-95 module that already does it, unchanged."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from engine import orders as o
from engine.core import Applied, Event, Rejection
from engine.model import Setup
from engine.state import Decision, GameState
from engine.system import Phase, Reach, RuleSystem
from engine.view import SupplyPicture, View, redacted_log
from engine.wb95 import (
    announce,
    checks,
    choices,
    crt,
    defaults,
    flow,
    game,
    movement,
    odds,
    supply,
    supply_cut,
    terrain,
    victory,
    zoc,
)
from engine.wb95 import view as _view
from engine.wb95.control import victory_points
from engine.wb95.reducer import reduce


class WB95(RuleSystem):
    id = "wb95"
    name = "WB-95 (Taktyka i Strategia)"

    def result_tables(self, data: Mapping[str, Any]) -> Any:
        return crt.parse_tables(data)

    def initial_state(self, setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> GameState:
        return game.initial_state(setup, seed, dice)

    def new_game(self, setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> Applied:
        return game.new_game(setup, seed, dice)

    def reduce(self, state: GameState, event: Event) -> None:
        reduce(state, event)

    def replay(
        self, setup: Setup, seed: int, dice: Sequence[int], events: Iterable[Event]
    ) -> GameState:
        return game.replay(setup, seed, dice, list(events))

    def apply(self, state: GameState, side: str | None, order: o.Order) -> Applied | Rejection:
        return game.apply(state, side, order)

    def phase(self, state: GameState) -> Phase:
        ph = flow.current_phase(state)
        return Phase(ph.kind, ph.number, flow.phase_title(state))

    def acting_sides(self, state: GameState) -> tuple[str, ...]:
        return flow.acting_sides(state)

    def awaited_sides(self, state: GameState) -> list[str]:
        return flow.awaited_sides(state)

    def done_refusal(self, state: GameState, side: str) -> Rejection | None:
        return game.done_refusal(state, side)

    def victory_points(self, state: GameState) -> dict[str, int]:
        return victory_points(state)

    def data_provenance(self, setup: Setup) -> dict[str, str]:
        # as the scenario's files say (scenarios/loader.py): the maps are reconstructed
        # (docs/maps.md), the counter values derived (docs/order-of-battle.md)
        return dict(setup.provenance)

    def victory_standing(self, state: GameState) -> dict[str, Any] | None:
        return victory.victory_standing(state) if state.setup.victory_rules else None

    def legal_actions(self, state: GameState, side: str) -> dict[str, object]:
        return game.legal_actions(state, side)

    def legal_moves(self, state: GameState, unit_id: str) -> Mapping[str, Reach]:
        return game.legal_moves(state, unit_id)

    def why_immobile(self, state: GameState, unit_id: str) -> tuple[str, str] | None:
        u = state.units[unit_id]
        if not u.on_map:
            return ("it is not on the map", "11.0")
        why = movement.can_move(state, u)
        moving = flow.current_phase(state).kind in ("movement", "strategic")  # 3.1.1
        if why is None and (not moving or u.side not in flow.awaited_sides(state)):
            why = (f"it is {flow.phase_title(state)}", "2.1.2")
        return why

    def format_cost(self, cost: Fraction) -> str:
        return movement.fmt_mp(cost)

    def candidate_orders(
        self, state: GameState, side: str, limit: int = 200, moves: bool = True
    ) -> list[o.Order]:
        return choices.candidate_orders(state, side, limit=limit, moves=moves)

    def next_default(self, state: GameState, side: str) -> o.Order | None:
        return defaults.next_default(state, side)

    def decision_defaults(self, state: GameState, decision: Decision) -> list[o.Order]:
        return defaults.answers(state, decision)

    def preview(self, state: GameState, side: str, order: o.Order) -> dict[str, Any] | Rejection:
        if not isinstance(order, o.Attack):
            return Rejection("odds are for an attack, e.g. `attack s-232 s-180 -> 1619`")
        return odds.preview(state, side, order)

    def announcements(self, state: GameState, side: str) -> list[str]:
        return announce.announcements(state, side)

    def view(self, state: GameState, viewer: str) -> View:
        return _view.view(state, viewer)

    def visible_events(
        self, events: Iterable[Event], viewer: str, state: GameState | None = None
    ) -> list[Event]:
        return redacted_log(events, viewer, state)

    def supply_picture(self, state: GameState, side: str) -> SupplyPicture:
        return supply_cut.picture(state, side)

    def hot_paths(self, state: GameState) -> dict[str, tuple[Callable[[], object], float | None]]:
        return {
            f"supply trace, all {side} units": (functools.partial(supply.trace, state, side), 50.0)
            for side in state.setup.side_names
        }

    def clear_caches(self) -> None:
        for f in (terrain._step_cost, zoc._zoc_hexes):  # memoized step costs, ZoC hexes
            f.cache_clear()

    def probes(self, state: GameState, side: str, rng: random.Random) -> list[o.Order]:
        return checks.probes(state, side, rng)

    def invariant_problems(
        self, before: GameState, after: GameState, events: Sequence[Event]
    ) -> list[str]:
        return checks.invariant_problems(before, after, events)

    def phase_end_problems(self, state: GameState) -> list[str]:
        return checks.phase_end_problems(state)

    def perturbed(self, state: GameState, viewer: str) -> tuple[GameState, list[str]]:
        return checks.perturbed(state, viewer)


SYSTEM = WB95()
