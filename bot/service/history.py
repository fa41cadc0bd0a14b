"""The turn log in plain language, per viewer (fog of war applies), written by the describer
of the game's rule system (bot/systems; WB-95's is `bot.describe`).

Events reach a viewer only through `engine.view.visible_events`, given the current state:
sealed inputs and private reports are redacted, and a unit the viewer does not see in
full now (an enemy counter under the top of its stack, 16.1.1) is named only "a Soviet
unit".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot import systems
from bot.service.tail import Past, newest_first, reaches_start
from engine.core import Event
from engine.record import GameRecord
from engine.state import GameState
from engine.view import visible_events


def events_for(events: Iterable[Event], state: GameState, viewer: str) -> list[Event]:
    """`events` as `viewer` may read them (engine.view.visible_events with the state)."""
    return visible_events(events, viewer, state)


def lines_for(
    events: Iterable[Event], state: GameState, viewer: str, *, numbered: bool = False
) -> list[str]:
    """One line per event `viewer` may read, in words (the system's describer; events with nothing
    to say are left out, a run of alike events is one line); `numbered`: with the event
    numbers `mod rollback` takes."""
    describer = systems.describer(state)
    return describer.lines(events_for(events, state, viewer), numbered=numbered)


def tail_events(
    record: GameRecord, count: int | None, after: int = 0, past: Past | None = None
) -> tuple[list[Event], bool]:
    """The last `count` events of `record` (None: every one) numbered after `after`, read
    from the end of the record (issue #21: a long game's whole log is not read to show
    its last lines), then from the older inputs `past` has read from the store. Also says
    whether they are all the events after `after`: not when the record and `past` end
    before the log does (a record held from its snapshot on: tail.py)."""
    chunks: list[Sequence[Event]] = []
    n = 0
    for events in newest_first(record, past):
        if count is not None and n >= count:
            return [e for c in reversed(chunks) for e in c], False
        if events and events[-1].seq <= after:
            break
        part = [e for e in events if e.seq > after]
        chunks.append(part)
        n += len(part)
    else:
        if not reaches_start(record, past):
            return [e for c in reversed(chunks) for e in c], False
    return [e for c in reversed(chunks) for e in c], True


def last_lines(
    record: GameRecord,
    state: GameState,
    viewer: str,
    limit: int | None,
    *,
    after: int = 0,
    numbered: bool = False,
    past: Past | None = None,
) -> list[str] | None:
    """The last `limit` lines (None: every line) of the events after event `after`, as
    `lines_for` words the whole log, paged from the end: a growing tail of events until
    it gives more than `limit` lines (the first line of a tail may be a cut run of alike
    events, so it is not shown; what a line says depends on its event, the later events
    (a reveal) and the state only, so the other lines are those of the whole log).
    None when the events in memory (the record's and those `past` has read) do not reach
    back far enough: read older ones (`Past.more`) and ask again."""
    count = None if limit is None else 4 * limit + 16
    while True:
        events, whole = tail_events(record, count, after, past)
        if not whole and (count is None or len(events) < count):
            return None  # the events in memory are exhausted before the log's start
        lines = lines_for(events, state, viewer, numbered=numbered)
        if whole:
            return lines if limit is None else lines[-limit:]
        if limit is not None and len(lines) > limit:
            return lines[-limit:]
        assert count is not None
        count *= 4
