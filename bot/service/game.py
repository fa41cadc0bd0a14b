"""A game as the service holds it in memory: its stored row, its seats and the engine's
game record, rebuilt from the stored log.

The log is the truth. Folding it: an `input` record appends an engine input with the
events it caused; `undo` takes the last one back; `rollback` truncates to a number of
inputs. The engine state is then a replay of the kept events (no dice are re-rolled),
or a stored snapshot plus the events after it when no undo or rollback came since; the
record then holds only the inputs after that snapshot (bot/service/tail.py, issue #21).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.service.tail import TailRecord
from bot.store import GameRow, LogRecord, SeatRow, Summary
from engine.core import Event
from engine.model import Setup
from engine.notation import parse_order
from engine.orders import Order
from engine.record import Entry, GameRecord
from engine.state import GameState
from engine.system import RuleSystem
from engine.view import MODERATOR, SPECTATOR

# Log kinds that change the engine position; every other kind is an audit record.
POSITION_KINDS = frozenset({"input", "undo", "rollback"})

AI_PREFIX = "ai:"  # user id of a built-in opponent's seat, e.g. "ai:german"


@dataclass
class LiveGame:
    row: GameRow
    setup: Setup
    record: GameRecord
    seats: list[SeatRow]
    head: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    inputs_since_snapshot: int = 0
    commitment: str = ""  # the dice seed's published commitment (engine.dice, issue #20)
    seed_by: str = "referee"  # who chose the seed: "referee" | "creator" | "unknown"
    data_digest: str = ""  # the scenario data's digest when created (engine/digest.py)
    # the built-in opponents playing its sides, kept with the game: dropped with it when
    # it leaves the cache of games, so they never outnumber the games in memory (#21)
    opponents: dict[str, Callable[[GameState], Order | None]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def state(self) -> GameState:
        return self.record.state

    @property
    def system(self) -> RuleSystem:
        return self.record.system

    @property
    def settings(self) -> dict[str, Any]:
        return self.row.settings

    @property
    def status(self) -> str:
        return self.row.status

    # --- seats ------------------------------------------------------------------------
    def players(self, side: str) -> list[SeatRow]:
        return [s for s in self.seats if s.role == "player" and s.side == side]

    def sides_of(self, user: str) -> list[str]:
        return [s.side for s in self.seats if s.role == "player" and s.user_id == user]

    def is_moderator(self, user: str) -> bool:
        return any(s.role == "moderator" and s.user_id == user for s in self.seats)

    def is_spectator(self, user: str) -> bool:
        return any(s.role == "spectator" and s.user_id == user for s in self.seats)

    def ai_sides(self) -> list[str]:
        return [
            s.side for s in self.seats if s.role == "player" and s.user_id.startswith(AI_PREFIX)
        ]

    def humans(self, side: str) -> list[str]:
        return [s.user_id for s in self.players(side) if not s.user_id.startswith(AI_PREFIX)]

    def viewer_for(self, user: str, server_mod: bool = False) -> str:
        """What `user` may see: their side; the moderator's all (also a person holding
        every side at one keyboard: hot seat); else a spectator's."""
        sides = self.sides_of(user)
        if self.is_moderator(user) or server_mod:
            return MODERATOR
        if len(sides) == 1:
            return sides[0]
        if sides and set(sides) >= set(self.setup.sides):
            return MODERATOR
        return SPECTATOR

    def unfilled(self) -> list[str]:
        return [s for s in self.setup.sides if not self.players(s)]

    # --- where the game is ----------------------------------------------------------
    def awaited(self, state: GameState | None = None, status: str | None = None) -> list[str]:
        """The sides the game waits for (in `state` and `status`; default: the current
        ones)."""
        s = self.state if state is None else state
        if (self.status if status is None else status) != "active" or s.over:
            return []
        return self.system.awaited_sides(s)

    def step_key(self, state: GameState | None = None) -> str:
        """Identifies the step of play for deadlines: it changes when the turn, the phase,
        the sides awaited or the open decisions change."""
        s = self.state if state is None else state
        decisions = ",".join(f"{d.side}:{d.kind}" for d in s.pending)
        return f"{s.turn}:{s.phase}:{','.join(self.awaited(s))}:{decisions}"

    def where(self, state: GameState | None = None) -> str:
        s = self.state if state is None else state
        date = s.setup.date_of(s.turn)
        when = f" ({date.isoformat()})" if date else ""
        return f"{self.system.phase(s).title}{when}"

    def summary(self, state: GameState | None = None, status: str | None = None) -> Summary:
        """Where the game stands (in `state` and `status`; default: now), as the games
        table keeps it for lists (issue #21)."""
        s = self.state if state is None else state
        return Summary(
            self.where(s), s.turn, tuple(self.awaited(s, status)), tuple(self.setup.sides)
        )

    @property
    def last_event(self) -> int:
        return self.state.seq


def fold(records: list[LogRecord]) -> list[tuple[str | None, str, list[dict[str, Any]]]]:
    """The engine inputs the log keeps: (side, line, events) after undos and rollbacks."""
    kept: list[tuple[str | None, str, list[dict[str, Any]]]] = []
    for r in records:
        if r.kind == "input":
            kept.append((r.body.get("side"), r.body["line"], r.body["events"]))
        elif r.kind == "undo" and kept:
            kept.pop()
        elif r.kind == "rollback":
            del kept[int(r.body["inputs"]) :]
    return kept


def event_json(e: Event) -> dict[str, Any]:
    """An event as the log stores it: its data nested, so no data key can ever shadow the
    event's own `seq` or `kind` (the engine asserts none does, engine/core.py)."""
    return {"seq": e.seq, "kind": e.kind, "data": e.data}


def event_from_json(d: dict[str, Any]) -> Event:
    if set(d) == {"seq", "kind", "data"} and isinstance(d["data"], dict):
        return Event(int(d["seq"]), str(d["kind"]), d["data"])
    return Event.from_json(d)  # the flat form of earlier logs


def build_record(
    setup: Setup,
    row: GameRow,
    records: list[LogRecord],
    snapshot: tuple[int, dict[str, Any]] | None,
    *,
    replay: bool = True,
) -> GameRecord:
    """The engine's game record from the stored log: with the latest snapshot, when no
    undo or rollback since makes it stale, the snapshot's state and only the inputs after
    it (`records` may start there; issue #21: a load costs the same however long the game);
    else every input of `records` (the whole log), replayed (`replay=False`: the state is
    left as the game's start, for a caller that needs the inputs only)."""
    state = _from_snapshot(setup, records, snapshot)
    if state is not None and snapshot is not None:
        after = [r for r in records if r.seq > snapshot[0]]
        return TailRecord.at(setup, row.seed, row.dice, state, snapshot[0], _entries(after))
    rec = GameRecord(setup, row.seed, row.dice)
    rec.entries = _entries(records)
    if replay:
        rec.state = rec.rebuild()
    return rec


def _entries(records: list[LogRecord]) -> list[Entry]:
    out = []
    for side, line, events in fold(records):
        order = parse_order(line)
        if order is None:  # pragma: no cover - the service stores only orders
            continue
        out.append(Entry(side, order, tuple(event_from_json(e) for e in events)))
    return out


def _from_snapshot(
    setup: Setup, records: list[LogRecord], snapshot: tuple[int, dict[str, Any]] | None
) -> GameState | None:
    if snapshot is None:
        return None
    at, data = snapshot
    if stale(records, at):
        return None
    return GameState.from_snapshot(setup, data)


def stale(records: Sequence[LogRecord], at: int) -> bool:
    """Whether a snapshot taken at log record `at` cannot be the base of the records after
    it: an undo after it takes back an input from before it, or a rollback after it (a
    rollback counts inputs from the game's start)."""
    after = 0  # the inputs after the snapshot still kept at this point of the log
    for r in records:
        if r.seq <= at:
            continue
        if r.kind == "input":
            after += 1
        elif r.kind == "undo":
            if after == 0:
                return True
            after -= 1
        elif r.kind == "rollback":
            return True
    return False


def rebuild_state(setup: Setup, rec: GameRecord) -> GameState:
    return rec.system.replay(setup, rec.seed, rec.dice, rec.events)
