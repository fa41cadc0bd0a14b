"""A game held by its end (issue #21): loading a game costs the same whatever its length.

The referee keeps in memory the state at the game's latest stored snapshot and the inputs
after it (`TailRecord`), not every input since the start. What needs older inputs reads
them from the store when asked: the last lines of the log and the map's recent moves read
backwards only as far as they need (`Past`); an undo past the snapshot, a rollback, an
export and the dice check read the whole log (`Referee.whole_record`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.store import Store
from engine import systems
from engine.core import Event
from engine.model import Setup
from engine.record import Entry, GameRecord
from engine.state import GameState


class TailRecord(GameRecord):
    """The inputs kept after the snapshot stored at log record `base_at`, on `base`: the
    state at that snapshot (never changed in place: a rebuild works on a copy).
    `entries` and `events` are those after the snapshot; `start_events` is empty."""

    base: GameState
    base_at: int

    @classmethod
    def at(
        cls,
        setup: Setup,
        seed: int,
        dice: tuple[int, ...],
        base: GameState,
        base_at: int,
        entries: Sequence[Entry] = (),
    ) -> TailRecord:
        out = cls.__new__(cls)
        out.setup, out.seed, out.dice = setup, seed, dice
        out.start_events = []
        out.entries = list(entries)
        out.base, out.base_at = base, base_at
        out.state = out.rebuild() if out.entries else base
        return out

    def copy(self) -> TailRecord:
        out = TailRecord.at(self.setup, self.seed, self.dice, self.base, self.base_at)
        out.entries = list(self.entries)
        out.state = self.state
        return out

    def rebuild(self) -> GameState:
        """The current state from the snapshot's and the events after it (no re-rolls)."""
        state = self.base.clone()
        reduce = self.system.reduce
        for entry in self.entries:
            for e in entry.events:
                reduce(state, e)
        return state


def complete(record: GameRecord) -> bool:
    """Whether `record` holds every input since the game's start."""
    return not isinstance(record, TailRecord)


def rebased(record: GameRecord, at: int) -> TailRecord:
    """`record` held from its current state on, once that state is stored as the snapshot
    at log record `at` (the inputs before it stay in the store)."""
    return TailRecord.at(record.setup, record.seed, record.dice, record.state, at)


@dataclass
class Kept:
    """An input the log keeps before a record's base: its side, order line and events."""

    side: str | None
    line: str
    events: tuple[Event, ...]


@dataclass
class Past:
    """The inputs a game keeps before its record's snapshot, read backwards from the store
    as far as they are asked for (newest first). The log is folded backwards: an `undo`
    takes back the input before it, a `rollback` the `dropped` inputs before it."""

    store: Store
    game_id: str
    record: TailRecord
    inputs: list[Kept] = field(default_factory=list)  # newest first
    start: list[Event] | None = None  # the game's start events, once the walk got there
    _upto: int = 0  # the records still to read are numbered below this
    _skip: int = 0  # inputs still to skip: taken back by later undos and rollbacks
    _window: int = 64

    def __post_init__(self) -> None:
        self._upto = self.record.base_at + 1

    @property
    def complete(self) -> bool:
        return self.start is not None

    async def more(self, want: int) -> None:
        """Read further back until `want` more inputs are known or the log's start is."""
        from bot.service.game import event_from_json  # (game.py builds TailRecords)

        target = len(self.inputs) + max(1, want)
        while self.start is None and len(self.inputs) < target:
            low = max(0, self._upto - self._window)
            records = await self.store.log(self.game_id, after=low, before=self._upto)
            for r in reversed(records):
                if r.kind == "undo":
                    self._skip += 1
                elif r.kind == "rollback":
                    dropped = r.body.get("dropped")
                    if not isinstance(dropped, int):  # not written by this service
                        await self._fold_all()
                        return
                    self._skip += dropped
                elif r.kind == "input":
                    if self._skip:
                        self._skip -= 1
                        continue
                    body: dict[str, Any] = r.body
                    events = tuple(event_from_json(e) for e in body["events"])
                    self.inputs.append(Kept(body.get("side"), str(body["line"]), events))
            self._upto = low + 1
            self._window *= 2
            if low == 0:
                self.start = self._start_events()

    async def _fold_all(self) -> None:
        """Every input up to the base, folded forwards (a log this walk cannot read
        backwards: a rollback without its count of dropped inputs)."""
        from bot.service.game import event_from_json, fold

        records = await self.store.log(self.game_id, before=self.record.base_at + 1)
        self.inputs = [
            Kept(side, line, tuple(event_from_json(e) for e in events))
            for side, line, events in reversed(fold(records))
        ]
        self.start = self._start_events()

    def _start_events(self) -> list[Event]:
        rec = self.record
        return list(systems.of(rec.setup).new_game(rec.setup, rec.seed, rec.dice).events)


def newest_first(record: GameRecord, past: Past | None = None) -> Iterator[Sequence[Event]]:
    """The events of `record` and of the inputs `past` has read, one input's at a time
    from the newest, then the game's start events when they are known."""
    for entry in reversed(record.entries):
        yield entry.events
    if past is not None:
        for kept in past.inputs:
            yield kept.events
    if complete(record):
        yield record.start_events
    elif past is not None and past.start is not None:
        yield past.start


def reaches_start(record: GameRecord, past: Past | None = None) -> bool:
    """Whether `newest_first` gives every event since the start of the game."""
    return complete(record) or (past is not None and past.complete)
