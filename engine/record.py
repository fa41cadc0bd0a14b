"""A game record: scenario + seed + forced dice + the ordered list of accepted inputs
(DESIGN §2) with the events they caused and the current state.

The record is what a referee stores and what `kessel run` replays. Undo takes back a
side's last input, but never past a die roll or a reveal (DESIGN §2): those are public.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import systems
from engine.core import Applied, Event, Rejection
from engine.model import Setup
from engine.notation import format_order
from engine.orders import Order
from engine.state import GameState
from engine.system import RuleSystem

# Events after which an input can no longer be taken back.
IRREVERSIBLE = frozenset({"dice_rolled", "revealed"})


@dataclass(frozen=True)
class Entry:
    side: str | None
    order: Order
    events: tuple[Event, ...]

    @property
    def line(self) -> str:
        prefix = f"{self.side}: " if self.side and self.order.side is None else ""
        return prefix + format_order(self.order)


@dataclass
class GameRecord:
    setup: Setup
    seed: int = 0
    dice: tuple[int, ...] = ()
    start_events: list[Event] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    state: GameState = field(init=False)

    def __post_init__(self) -> None:
        started = self.system.new_game(self.setup, self.seed, self.dice)
        self.start_events = list(started.events)
        self.state = started.state

    @property
    def system(self) -> RuleSystem:
        """The rule system the game is played by (the scenario's `system:`)."""
        return systems.of(self.setup)

    @property
    def events(self) -> list[Event]:
        out = list(self.start_events)
        for e in self.entries:
            out.extend(e.events)
        return out

    def submit(self, side: str | None, order: Order) -> Applied | Rejection:
        """Apply an input; on success it is recorded and the state moves on."""
        acted = side if side is not None else order.side
        if acted is None:
            awaited = self.system.awaited_sides(self.state)
            acted = awaited[0] if len(awaited) == 1 else None
        result = self.system.apply(self.state, acted, order)
        if isinstance(result, Applied):
            self.entries.append(Entry(acted, order, tuple(result.events)))
            self.state = result.state
        return result

    def undo(self, side: str) -> Rejection | Entry:
        """Take back `side`'s last input if nothing irreversible happened since."""
        if not self.entries:
            return Rejection("there is nothing to undo")
        last = self.entries[-1]
        if last.side != side:
            return Rejection(f"the last input was not {side}'s; only your own last input")
        if any(e.kind in IRREVERSIBLE for e in last.events):
            return Rejection("cannot undo past a die roll or a reveal")
        if any(e.kind == "phase_started" for e in last.events):
            return Rejection("cannot undo: the phase has ended since")
        self.entries.pop()
        self.state = self.rebuild()
        return last

    def copy(self) -> GameRecord:
        """A record that shares this one's entries so far and can go on separately (states
        and events are never mutated in place, so sharing them is safe)."""
        out = GameRecord.__new__(GameRecord)
        out.setup, out.seed, out.dice = self.setup, self.seed, self.dice
        out.start_events = list(self.start_events)
        out.entries = list(self.entries)
        out.state = self.state
        return out

    def rebuild(self) -> GameState:
        """The current state from the initial position and the events (no re-rolls)."""
        return self.system.replay(self.setup, self.seed, self.dice, self.events)

    def order_lines(self) -> list[str]:
        return [e.line for e in self.entries]
