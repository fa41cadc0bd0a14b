"""The rule-system interface: what the referee, the tools and the renderer may ask of a
game's rules, whatever the system (WB-95, SPI's Army Group South, ...).

A scenario names its system (`system: wb95`); `engine.systems.of(setup)` returns the
`RuleSystem` that plays it. Everything above the engine (bot/, render/, scenarios/) goes
through this interface, never into a system's package, so a new system plugs in by
implementing it and registering (docs/architecture.md, "Adding a rule system").

What is common stays in the core and is used by every system: the hex grid, dice, events
and `Ctx`, the game record and its replay, orders and their notation, views' common
fields (`engine.view.View`), the redaction of the event log and pending decisions
(`engine.state.Decision`).

Methods without a body here are required; the others have a default that is right for a
system without that feature (no odds previews, no announcements, no fuzz probes).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

from engine.core import Applied, Event, Rejection
from engine.orders import Order
from engine.state import Decision, GameState

if TYPE_CHECKING:  # engine.view imports this module's registry
    from engine.model import Setup
    from engine.view import SupplyPicture, View


@dataclass(frozen=True)
class Phase:
    """Where a game stands in its sequence of play: the phase's kind (a word the tools
    branch on: "movement", "combat", ...), its printed number, and its title as players
    read it ("the German Movement Phase, turn 3")."""

    kind: str
    number: int
    title: str


class Reach(Protocol):
    """A hex a unit may reach now (`RuleSystem.legal_moves`)."""

    @property
    def hex(self) -> str: ...
    @property
    def cost(self) -> Fraction: ...
    @property
    def path(self) -> tuple[str, ...]: ...
    @property
    def stops(self) -> bool: ...


class RuleSystem:
    """One rule system. Stateless: every method takes the state it is about; a system
    keeps its own per-game values in `GameState` (see docs/architecture.md on the
    system-owned fields)."""

    id: str = ""  # the scenario's `system:` value
    name: str = ""  # as players read it: "WB-95 (Taktyka i Strategia)"
    # what `UnitState.cel`/`max_cel` count, as output names them ("CEL n/m"; AGS: steps)
    strength_name: str = "CEL"

    # --- a game ------------------------------------------------------------------------

    def result_tables(self, data: Mapping[str, Any]) -> Any:
        """The system's result tables (CRT, fire tables ...) from their data file,
        `scenarios/tables/<id>-results.yaml`, as `Setup.results` carries them; raises
        ValueError naming what is wrong."""
        return data

    def turn_dates(self, setup: Setup, turn: int) -> tuple[dt.date, ...]:
        """The calendar days of `turn`, first to last (empty without a calendar); WB-95:
        one day a turn (2.1.6)."""
        date = setup.date_of(turn)
        return () if date is None else (date,)

    def strength_label(self, cel: int, max_cel: int) -> str:
        """A unit's strength left as text output shows it: "CEL 3/4", "steps 1/2"."""
        return f"{self.strength_name} {cel}/{max_cel}"

    def initial_state(self, setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> GameState:
        """The state before any event: the scenario's position."""
        raise NotImplementedError

    def new_game(self, setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> Applied:
        """The initial state and the events of the game's start."""
        raise NotImplementedError

    def reduce(self, state: GameState, event: Event) -> None:
        """Apply one event to `state` in place: the only way a state changes."""
        raise NotImplementedError

    def replay(
        self, setup: Setup, seed: int, dice: Sequence[int], events: Iterable[Event]
    ) -> GameState:
        """Rebuild a state from the initial position and the events (no dice re-rolled)."""
        state = self.initial_state(setup, seed, dice)
        for e in events:
            self.reduce(state, e)
        return state

    def apply(self, state: GameState, side: str | None, order: Order) -> Applied | Rejection:
        """The events `order` by `side` (None: the side awaited) causes with the new state,
        or a rejection citing the rule; `state` itself is never changed."""
        raise NotImplementedError

    # --- where the game stands -----------------------------------------------------------

    def phase(self, state: GameState) -> Phase:
        raise NotImplementedError

    def acting_sides(self, state: GameState) -> tuple[str, ...]:
        """The sides whose phase it is (decisions aside)."""
        raise NotImplementedError

    def awaited_sides(self, state: GameState) -> list[str]:
        """The sides the game waits for now: those with an open decision, else the acting
        sides that have not finished. Empty only when the game is over."""
        raise NotImplementedError

    def done_refusal(self, state: GameState, side: str) -> Rejection | None:
        """Why `side` may not say `done` now, or None when it may."""
        raise NotImplementedError

    def victory_points(self, state: GameState) -> dict[str, int]:
        """Each side's victory points now ({} where the system counts none)."""
        return {}

    def data_provenance(self, setup: Setup) -> dict[str, str]:
        """Each data part of the scenario (map, set-up, tables, counters ...) with where its
        values come from: printed, reconstructed, league-supplied (issue #19;
        `engine.provenance`). Empty: the system says nothing (all printed)."""
        return {}

    def victory_standing(self, state: GameState) -> dict[str, Any] | None:
        """Who would win if the game ended now, with why; None where the scenario says
        nothing more than the VPs."""
        return None

    # --- what a side may do --------------------------------------------------------------

    def legal_actions(self, state: GameState, side: str) -> dict[str, object]:
        """What `side` may do now, JSON-plain (autocomplete, `legal`, the clients); always
        has "decisions", "moves" and "done"."""
        raise NotImplementedError

    def legal_moves(self, state: GameState, unit_id: str) -> Mapping[str, Reach]:
        """Every hex the unit may move to now, with cost and path; empty when it may not."""
        return {}

    def why_immobile(self, state: GameState, unit_id: str) -> tuple[str, str] | None:
        """Why the unit may not move this phase at all (words, rule), or None."""
        return None

    def format_cost(self, cost: Fraction) -> str:
        """A movement cost as players write it."""
        return str(cost.numerator) if cost.denominator == 1 else f"{float(cost):g}"

    def candidate_orders(
        self, state: GameState, side: str, limit: int = 200, moves: bool = True
    ) -> list[Order]:
        """Orders `side` could give now (the fuzzer's and the load generator's menu, the
        opponent's fallback): answers to its decisions, or its phase's actions and `done`.
        Each is likely, not certain, to be accepted."""
        return []

    def next_default(self, state: GameState, side: str) -> Order | None:
        """What the deadline policy gives for an absent `side` next: an input the referee
        accepts and that moves the game on (an answer, a duty, `done`), or None."""
        raise NotImplementedError

    def decision_defaults(self, state: GameState, decision: Decision) -> list[Order]:
        """The default answers of an open decision, best first."""
        return []

    def preview(self, state: GameState, side: str, order: Order) -> dict[str, Any] | Rejection:
        """A what-if for a proposed attack (odds, results), from what `side` may see."""
        return Rejection(f"odds previews are not available for {self.name or self.id} games")

    def announcements(self, state: GameState, side: str) -> list[str]:
        """Sentences for `side` as its step of play begins (what it may or must do now);
        only what that side may know."""
        return []

    # --- what a viewer sees --------------------------------------------------------------

    def view(self, state: GameState, viewer: str) -> View:
        """Everything `viewer` (a side, "spectator", "moderator") may see now."""
        raise NotImplementedError

    def visible_events(
        self, events: Iterable[Event], viewer: str, state: GameState | None = None
    ) -> list[Event]:
        """The event log as `viewer` may read it (sealed inputs and hidden units
        redacted); given `state`, no event names a unit the viewer does not see now."""
        raise NotImplementedError

    def supply_picture(self, state: GameState, side: str) -> SupplyPicture | None:
        """What `side`'s supply overlay draws (where its lines reach, where they are cut),
        or None where the system has no such overlay."""
        return None

    # --- the benchmarks (kessel bench) -----------------------------------------------------

    def hot_paths(self, state: GameState) -> dict[str, tuple[Callable[[], object], float | None]]:
        """The system's costly computations on `state`, by name, each with its target in
        ms (None: none), for `kessel bench` (WB-95: each side's supply trace)."""
        return {}

    def clear_caches(self) -> None:
        """Forget memoized values, to time a first call as after loading a game."""

    # --- the fuzzer's checks (bot/fuzz.py) --------------------------------------------------

    def probes(self, state: GameState, side: str, rng: random.Random) -> list[Order]:
        """Orders a real player has that `candidate_orders` does not offer, for the fuzzer
        to try (the engine judges them)."""
        return []

    def invariant_problems(
        self, before: GameState, after: GameState, events: Sequence[Event]
    ) -> list[str]:
        """Broken invariants of the system's own values after an accepted input took
        `before` to `after` with `events` (out of bounds, changed without their event);
        [] when all hold."""
        return []

    def phase_end_problems(self, state: GameState) -> list[str]:
        """Broken invariants of a state at the very end of a phase (e.g. stacking)."""
        return []

    def perturbed(self, state: GameState, viewer: str) -> tuple[GameState, list[str]]:
        """A copy of `state` in which what `viewer` may not see is changed, and the units
        changed: the fog-of-war check compares the viewer's views of both."""
        return state, []
