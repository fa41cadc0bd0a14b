"""The referee service (DESIGN §1): games, seats, orders, decisions, history, moderators
and deadlines over the engine and the store. Transport-agnostic: every command takes a
`Caller` and returns `Reply` objects (or plain data for looks such as views and maps);
a refused command raises `Refusal` and changes nothing.

Writes: every command that changes a game holds that game's lock, computes the new
position on the side, writes the log records in one transaction and only then updates
the game in memory and answers. So an acknowledged input is on disk, and a failed write
leaves the game as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import yaml

from bot import incident
from bot import systems as bot_systems
from bot.service import roles
from bot.service.announce import announcements
from bot.service.game import AI_PREFIX, LiveGame, build_record, event_json, stale
from bot.service.history import last_lines, lines_for
from bot.service.model import DEFAULT_SETTINGS, Caller, Refusal, Reply
from bot.service.tail import Past, TailRecord, complete, newest_first, rebased
from bot.store import (
    Conflict,
    GameRow,
    LogRecord,
    NewRecord,
    SeatRow,
    Store,
    StoreError,
    Summary,
)
from engine import dice as dice_proof
from engine import numbers
from engine.core import Applied, Event, Rejection
from engine.digest import other_data, setup_digest
from engine.model import Setup
from engine.notation import NotationError, format_order, parse_order, parse_orders
from engine.orders import Attack, Mod, Order
from engine.provenance import sentence as provenance_sentence
from engine.record import Entry, GameRecord
from engine.state import GameState
from engine.systems import of as system_of
from engine.view import MODERATOR, SPECTATOR, View, view, visible_events
from scenarios import (
    ScenarioError,
    data_sets,
    list_scenarios,
    load_scenario,
    load_scenario_data,
    overrides,
)
from scenarios.yamlio import parse_yaml

SNAPSHOT_EVERY = 40  # engine inputs between stored snapshots
CACHE_SIZE = 256  # games held in memory (least recently used ones are dropped: issue #21)
MAX_BLOCK_LINES = 500  # orders in one block (a whole side's turn is ~150)
MAX_BLOCK_CHARS = 100_000
AI_INPUT_LIMIT = 5000  # inputs a built-in opponent may give in a row before we stop it
SERVICE_VERBS = (
    "rollback",
    "pause",
    "resume",
    "extend",
    "deadline",
    "policy",
    "set",
    "announce",
    "substitute",
    "seat",
    "unseat",
    "moderator",
    "answer",
    "end",
)

Opponent = Callable[[GameState], Order | None]
OpponentFactory = Callable[[str, int], Opponent]


@functools.cache
def shipped_ids() -> frozenset[str]:
    """The shipped scenarios' ids, read once (listing parses every scenario file)."""
    return frozenset(s.id for s in list_scenarios())


class _ShippedSetups:
    """`shipped_setup(id)`: a shipped scenario, loaded once per process and shared by its
    games (a `Setup` is immutable): parsing a scenario with its map takes up to seconds,
    far more than loading a game's log (docs/performance.md). Kept per league data
    directory in use (scenarios/overrides.py, the game's data set's inside its scope:
    `Referee._setup`), whose files replace the shipped ones."""

    def __init__(self) -> None:
        self._load = functools.cache(self._build)

    def __call__(self, scenario: str) -> Setup:
        return self._load(scenario, overrides.key())

    def cache_clear(self) -> None:
        self._load.cache_clear()

    @staticmethod
    def _build(scenario: str, _data: str) -> Setup:
        return load_scenario(scenario)


shipped_setup = _ShippedSetups()


def _fingerprint(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _default_opponent_factory() -> OpponentFactory | None:
    from bot.systems import builtin_opponent  # the game's system's opponent (bot/systems)

    return builtin_opponent


class Referee:
    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.time,
        opponents: OpponentFactory | None = None,
        snapshot_every: int = SNAPSHOT_EVERY,
        cache_size: int = CACHE_SIZE,
    ) -> None:
        self.store = store
        self.clock = clock
        self._opponents = opponents if opponents is not None else _default_opponent_factory()
        self.snapshot_every = snapshot_every
        # the games in memory, least recently used first: at most `cache_size` of them,
        # beyond those whose lock is held (a command in progress is never dropped)
        self._games: OrderedDict[str, LiveGame] = OrderedDict()
        self.cache_size = max(1, cache_size)
        # games whose record was found damaged when loaded (lists say so without loading)
        self._damaged: set[str] = set()
        self._loading = asyncio.Lock()
        # several processes on one database (the Discord bot's shards, issue #21): whether
        # this one does the work no command asks for (`tick`, `nudge()`) for the games of
        # a server (by its id; "" for none); None: every game's
        self.owns_guild: Callable[[str], bool] | None = None
        from bot.service.leagues import LeagueDesk  # it builds on this class

        self.leagues = LeagueDesk(self)

    @classmethod
    async def open(cls, path: str | Path, *, read_only: bool = False, **kw: Any) -> Referee:
        """The referee on the game database at `path` (StoreError when it cannot be
        opened). A file that cannot be written is opened read-only, as `read_only` asks:
        games are listed, loaded and exported; every write is refused."""
        return cls(await Store.open(path, read_only=read_only), **kw)

    async def close(self) -> None:
        await self.store.close()

    # --- loading ----------------------------------------------------------------------
    @staticmethod
    def _setup(row: GameRow) -> Setup:
        """The game's scenario, loaded with the data set it was created with (its
        settings' `data`; none: the process's default data, scenarios/data_sets.py)."""
        try:
            with data_sets.scope(_data_set(row.settings)):
                if row.scenario_data is not None:
                    return load_scenario_data(row.scenario_data, name=f"game {row.id}: scenario")
                return shipped_setup(row.scenario)
        except data_sets.Undeclared as e:
            raise Refusal(f"game {row.id} cannot be loaded: {e}.") from None
        except ScenarioError as e:
            raise Refusal(f"game {row.id}: its scenario no longer loads: {e}") from None

    async def game(self, game_id: str) -> LiveGame:
        """A game by id: from memory, else loaded from the store (and kept in memory while
        it is among the `cache_size` games used last)."""
        gid = game_id.strip().lower()
        live = self._games.get(gid)
        if live is not None:
            self._games.move_to_end(gid)
            if self.store.shared and not live.lock.locked():
                await self._catch_up(live)  # another process may have played it
            return live
        async with self._loading:
            live = self._games.get(gid)
            if live is not None:
                self._games.move_to_end(gid)
                return live
            row = await self.store.game(gid)
            if row is None:
                raise Refusal(
                    f"there is no game '{numbers.shown(game_id)}'; the game list shows the games"
                )
            setup = self._setup(row)
            try:
                # the latest snapshot and the records after it: a load costs the same
                # however long the game (issue #21); the whole log when an undo or a
                # rollback since makes the snapshot stale (a game from before #21)
                snap = await self.store.snapshot(gid)
                records = await self.store.log(gid, after=0 if snap is None else snap[0])
                if snap is not None and stale(records, snap[0]):
                    records = await self.store.log(gid)
                rec = await asyncio.to_thread(build_record, setup, row, records, snap)
                first = records[:1] if complete(rec) else await self.store.log(gid, before=2)
            except Exception as e:  # a record that is not what the service wrote
                self._damaged.add(gid)
                raise Refusal(
                    f"game {gid} cannot be loaded: its stored record is damaged ({e!r}); "
                    "the other games are not affected. Restore it from a backup."
                ) from None
            seats = await self.store.seats(gid)
            live = LiveGame(row, setup, rec, seats, row.head)
            made = next((r.body for r in first if r.kind == "created"), {})
            # a game created before issue #20 committed to nothing: its commitment is
            # computed now, and says so (seed_by "unknown")
            live.commitment = str(made.get("commitment") or dice_proof.commitment(row.seed))
            live.seed_by = str(made.get("seed_by") or "unknown")
            live.data_digest = str(made.get("data_digest") or "")
            if complete(rec):
                # the next input writes a snapshot (an older game loaded by a full replay)
                live.inputs_since_snapshot = self.snapshot_every
            else:
                live.inputs_since_snapshot = len(rec.entries)
            self._damaged.discard(gid)
            if row.summary is None and self.store.read_only is None:
                # a game from before issue #21 (or whose creation's summary was not
                # written): summarised once, now
                summary = live.summary()
                live.row = replace(row, summary=summary)
                # a locked or full database: the game still loads; summarised next time
                with contextlib.suppress(StoreError):
                    await self.store.set_summary(gid, summary)
            self._games[gid] = live
            self._evict()
            return live

    def _evict(self) -> None:
        """Drop the games used longest ago beyond `cache_size`, never one whose lock is
        held (its command is running; a dropped game is reloaded from the store whole)."""
        over = len(self._games) - self.cache_size
        if over <= 0:
            return
        for gid in [k for k, g in self._games.items() if not g.lock.locked()][:over]:
            del self._games[gid]

    @asynccontextmanager
    async def _hold(self, g: LiveGame) -> AsyncIterator[LiveGame]:
        """Hold a game for one command's read-check-append: its lock in this process and,
        when other processes share the store (PostgreSQL), the store's lock on it, taken
        before the game in memory is compared with the stored head and reloaded if another
        process appended meanwhile (issue #21). So a command always judges the latest
        position, and two processes never judge the same game at once."""
        async with g.lock, contextlib.AsyncExitStack() as held:
            try:
                await held.enter_async_context(self.store.game_lock(g.id))
                if self.store.shared:
                    await self._catch_up(g)
            except StoreError as e:
                raise Refusal(f"nothing was saved: {e}") from None
            yield g

    async def _catch_up(self, g: LiveGame) -> None:
        """Reload `g` in place when the stored log has moved past it (another process
        appended): the same object, so whoever holds it or its lock sees the new state."""
        try:
            head = await self.store.head(g.id)
        except StoreError as e:
            raise Refusal(f"the game database cannot be read: {e}") from None
        if head == g.head:
            return
        self._games.pop(g.id, None)
        fresh = await self.game(g.id)  # (a game gone from the store: refused there)
        for f in fields(LiveGame):
            if f.name != "lock":
                setattr(g, f.name, getattr(fresh, f.name))
        self._games[g.id] = g

    async def reach(self, caller: Caller, game_id: str) -> LiveGame:
        """A game as `caller` may reach it from where they are: its own server and channel,
        or a direct message from someone who holds a seat in it (roles.py). A game out of
        reach is refused in the words of one that does not exist."""
        g = await self.game(game_id)
        if not roles.reachable(g, caller):
            raise Refusal(
                f"there is no game '{numbers.shown(game_id)}' here; the game list shows the "
                "games of this channel"
            )
        return g

    async def _reload_seats(self, g: LiveGame) -> None:
        g.seats = await self.store.seats(g.id)

    def forget(self, game_id: str) -> None:
        """Drop a game from memory (the next command reloads it from the store)."""
        self._games.pop(game_id, None)

    @property
    def cached(self) -> list[str]:
        """The ids of the games in memory, least recently used first."""
        return list(self._games)

    # --- the inputs before a game's snapshot (issue #21: bot/service/tail.py) -----------
    async def whole_record(self, g: LiveGame, *, replay: bool = False) -> GameRecord:
        """`g`'s record with every input since its start, read from the store when the
        game is held from its snapshot on. Its state is the game's current one, or, with
        `replay`, rebuilt from the start."""
        if complete(g.record):
            return g.record
        try:
            records = await self.store.log(g.id)
            rec = await asyncio.to_thread(
                build_record, g.setup, g.row, records, None, replay=replay
            )
        except StoreError as e:
            raise Refusal(f"nothing was read: {e}") from None
        except Exception as e:  # a record before the snapshot that is not what was written
            raise _damaged_before_snapshot(g, e) from None
        if not replay:
            rec.state = g.state
        return rec

    async def _before_snapshot(self, g: LiveGame) -> GameRecord:
        """`g`'s record with the inputs after the oldest stored snapshot that serves (the
        store keeps a few, bot/store.py KEEP_SNAPSHOTS): an undo past the latest snapshot
        reads only the records since, however long the game, and the undos after it take
        back inputs held in memory; the whole record when no snapshot serves."""
        assert isinstance(g.record, TailRecord)
        try:
            for seq in await self.store.snapshot_seqs(g.id):  # the oldest first
                if seq >= g.record.base_at:
                    break
                older = await self.store.snapshot(g.id, before=seq + 1)
                records = await self.store.log(g.id, after=seq, before=g.head + 1)
                if older is None or older[0] != seq or stale(records, seq):
                    continue
                rec = await asyncio.to_thread(build_record, g.setup, g.row, records, older)
                if rec.entries:
                    return rec
        except StoreError as e:
            raise Refusal(f"nothing was read: {e}") from None
        except Exception as e:  # a record before the snapshot that is not what was written
            raise _damaged_before_snapshot(g, e) from None
        return await self.whole_record(g)

    async def _more(self, g: LiveGame, past: Past, want: int) -> None:
        """`past.more(want)`: a damaged older record refused in words, as a load does."""
        try:
            await past.more(want)
        except StoreError as e:
            raise Refusal(f"nothing was read: {e}") from None
        except Exception as e:
            raise _damaged_before_snapshot(g, e) from None

    def _past(self, g: LiveGame) -> Past | None:
        """A reader of the inputs before `g`'s snapshot (None: all are in memory)."""
        rec = g.record
        return Past(self.store, g.id, rec) if isinstance(rec, TailRecord) else None

    async def last_input(self, g: LiveGame) -> Entry | None:
        """The last input the game keeps, None before the first."""
        if g.record.entries or complete(g.record):
            return g.record.entries[-1] if g.record.entries else None
        past = self._past(g)
        assert past is not None
        await self._more(g, past, 1)
        if not past.inputs:
            return None
        last = past.inputs[0]
        order = parse_order(last.line)
        return None if order is None else Entry(last.side, order, last.events)

    async def played_sides(self, g: LiveGame, enough: int = 2) -> set[str]:
        """The sides that have given an input, read back until `enough` are found."""
        sides = {e.side for e in g.record.entries if e.side}
        past = self._past(g)
        while past is not None and len(sides) < enough and not past.complete:
            await self._more(g, past, 2 * len(past.inputs) + 16)
            sides |= {k.side for k in past.inputs if k.side}
        return sides

    async def _recent_events(self, g: LiveGame) -> list[Event]:
        """The game's events back to the start of its current turn at least (what the
        map's recent moves need: render.snapshot.last_phase_events), read from the store
        as far back as the record in memory does not reach."""
        turn = g.state.turn
        past = self._past(g)
        while True:
            chunks = list(newest_first(g.record, past))
            if past is None or past.complete:
                break
            if any(_turn_started(e, turn) for c in chunks for e in c):
                break
            await self._more(g, past, 2 * len(past.inputs) + 16)
        return [e for c in reversed(chunks) for e in c]

    # --- games and seats -------------------------------------------------------------
    async def new_game(
        self,
        caller: Caller,
        scenario: str,
        *,
        name: str | None = None,
        seed: int | None = None,
        side: str | None = None,
        settings: dict[str, Any] | None = None,
        scenario_data: dict[str, Any] | None = None,
    ) -> list[Reply]:
        """Create a game in the caller's channel; the caller moderates it and may take a
        side at once."""
        row = await self._new_row(caller, scenario, name, seed, settings, scenario_data)
        setup = self._setup(row)
        seats = [Store.seat_join(row.id, caller.id, caller.display, "moderator", "", 0)]
        if side is not None:
            side = self._side(setup, side)
            seats.append(Store.seat_join(row.id, caller.id, caller.display, "player", side, 0))
        created = self._created_record(caller, row, seed, setup)
        g = await self._create(row, [created], seats)
        sides = " and ".join(setup.sides)
        text = (
            f"Game **{g.id}** created: {setup.name} ({g.row.scenario}). "
            f"Seats: {sides}; join a side to play."
        )
        out = [Reply("caller", text, game=g.id, kind="result"), Reply("channel", text, game=g.id)]
        return out + await self._maybe_start(g, caller)

    @staticmethod
    def _created_record(
        caller: Caller, row: GameRow, seed: int | None, setup: Setup | None = None
    ) -> NewRecord:
        """A new game's first log record: its scenario and seed, and the commitment to the
        seed published at the start (issue #20)."""
        return NewRecord(
            caller.id,
            "created",
            {
                "scenario": row.scenario,
                "seed": row.seed,
                "commitment": dice_proof.commitment(row.seed),
                "seed_by": "creator" if seed is not None else "referee",
                # the identity of the scenario's data (engine/digest.py, issue #19)
                **({"data_digest": setup_digest(setup)} if setup is not None else {}),
            },
        )

    async def _create(
        self, row: GameRow, records: Sequence[NewRecord], seats: Sequence[tuple[str, Sequence[Any]]]
    ) -> LiveGame:
        """Write a new game whole, in ONE transaction (its row, its first records from
        `created` on, its seats: a crash leaves nothing or all of it), then load it."""
        if row.summary is None:  # where it stands, in the same transaction (issue #21)
            row = replace(row, summary=self._first_summary(row, records))
        try:
            await self.store.create_game(row, records, seats=seats)
        except StoreError as e:
            said = str(e)
            raise Refusal(
                said if "nothing was saved" in said else f"nothing was saved: {said}"
            ) from None
        return await self.game(row.id)

    def _first_summary(self, row: GameRow, records: Sequence[NewRecord]) -> Summary:
        """Where a new (or imported) game stands after its first records: the same fold
        as a load, so the row's summary is what the game, once loaded, says."""
        logged = [
            LogRecord(i, row.created_at, r.actor, r.kind, r.body)
            for i, r in enumerate(records, start=1)
        ]
        setup = self._setup(row)
        return LiveGame(row, setup, build_record(setup, row, logged, None), [], 0).summary()

    async def _new_row(
        self,
        caller: Caller,
        scenario: str,
        name: str | None,
        seed: int | None,
        settings: dict[str, Any] | None,
        scenario_data: dict[str, Any] | None,
        data_set: str | None = None,
    ) -> GameRow:
        """A new game's row; `data_set`: the named data set it plays (a league's choice,
        scenarios/data_sets.py), kept in its settings; None: the process's default."""
        if scenario_data is None:
            known = shipped_ids()
            if scenario not in known:
                raise Refusal(
                    f"there is no shipped scenario '{numbers.shown(scenario, 60)}'; choose one of "
                    + ", ".join(sorted(known))
                )
        try:
            with data_sets.scope(data_set):
                if scenario_data is None:
                    setup = shipped_setup(scenario)
                else:
                    setup = load_scenario_data(scenario_data, name="scenario")
        except data_sets.Undeclared as e:
            raise Refusal(f"the game cannot be created: {e}.") from None
        except ScenarioError as e:
            raise Refusal(str(e)) from None
        if seed is not None and not 0 <= seed < 2**63:
            raise Refusal("a seed is a whole number from 0 to 2^63 - 1")
        merged = dict(DEFAULT_SETTINGS)
        for k, v in (settings or {}).items():
            merged[k] = _setting(k, v)
        if data_set is not None:  # the operator's, never a user's setting (`set` refuses it)
            merged["data"] = data_set
        rng = random.Random(f"{caller.id}:{self.clock()}")
        gid = ""
        while not gid:  # a few candidate ids checked, not the whole list read (issue #21)
            tries = [_new_id(rng, set()) for _ in range(8)]
            taken = await self.store.taken(tries)
            gid = next((t for t in tries if t not in taken), "")
        return GameRow(
            id=gid,
            name=name or setup.name,
            guild=caller.guild,
            channel=caller.channel,
            scenario=scenario,
            scenario_data=scenario_data,
            # the referee's own seed: 63 secure random bits (a published commitment must
            # not be searchable, issue #20); a seed given by the creator is used as given
            seed=secrets.randbelow(2**63) if seed is None else seed,
            dice=(),
            status="open",
            settings=merged,
            created_by=caller.id,
            created_at=self.clock(),
            head=0,
        )

    async def games(
        self, caller: Caller, *, here: bool = True, mine: bool = False, finished: bool = False
    ) -> list[dict[str, Any]]:  # `here` is always so now; kept for the callers' sake
        """The games of the caller's channel (`mine`: those the caller holds a seat in);
        from a direct message, the caller's own games of every server. Never the games of
        another channel or server: they are out of reach (roles.py)."""
        statuses = () if finished else ("open", "active", "paused")
        in_dm = not caller.guild
        rows = await self.store.games(
            guild=None if in_dm else caller.guild,
            channel=None if in_dm else caller.channel,
            user=caller.id if mine or in_dm else None,
            statuses=statuses,
        )
        # where each game stands is its row's summary: no game is loaded (issue #21), but
        # one never summarised yet (from an older Kessel) once
        seats = await self.store.seats_of([r.id for r in rows])
        out = []
        for row in rows:
            summary = row.summary
            if row.id not in self._damaged and summary is None:
                with contextlib.suppress(Refusal):
                    summary = (await self.game(row.id)).row.summary
            if row.id in self._damaged or summary is None:
                # a damaged game is listed, and does not hide the others
                out.append(
                    {"id": row.id, "name": row.name, "scenario": row.scenario}
                    | {"status": "damaged", "awaiting": [], "seats": {}, "mine": []}
                    | {"where": f"game {row.id} cannot be loaded: its stored record is damaged"}
                )
                continue
            players = [p for p in seats.get(row.id, []) if p.role == "player"]
            out.append(
                {
                    "id": row.id,
                    "name": row.name,
                    "scenario": row.scenario,
                    "status": row.status,
                    "where": summary.phase,
                    "awaiting": list(summary.awaiting),
                    "seats": {
                        s: [p.display for p in players if p.side == s] for s in summary.sides
                    },
                    "mine": [p.side for p in players if p.user_id == caller.id],
                }
            )
        return out

    async def join(self, caller: Caller, game_id: str, side: str) -> list[Reply]:
        """Take a seat: a side, or `spectator`."""
        g = await self.reach(caller, game_id)
        async with self._hold(g):
            if g.status == "over":
                raise Refusal(f"game {g.id} is over")
            role, seat_side = ("spectator", "") if side.lower() == "spectator" else ("player", "")
            if role == "player":
                seat_side = self._side(g.setup, side)
                mine = g.sides_of(caller.id)
                if seat_side in mine:
                    raise Refusal(f"you already play {seat_side} in game {g.id}")
                if mine and not roles.hot_seat(g):
                    raise Refusal(
                        f"you already play {' and '.join(mine)} in game {g.id}: one person "
                        "plays one side"
                    )
                if g.ai_sides() and seat_side in g.ai_sides():
                    raise Refusal(f"{seat_side} is played by the built-in opponent in game {g.id}")
                if g.status != "open":
                    if g.players(seat_side):
                        raise Refusal(
                            f"game {g.id} has started and {seat_side} has a player: a "
                            "moderator can substitute a player who leaves"
                        )
                    if g.settings.get("late_join", "moderator") != "open":
                        return self._join_request(g, caller, seat_side)
            elif g.is_spectator(caller.id):
                raise Refusal(f"you already watch game {g.id}")
            seat = Store.seat_join(g.id, caller.id, caller.display, role, seat_side, g.head + 1)
            await self._write(
                g, [NewRecord(caller.id, "seat", {"join": role, "side": seat_side})], seats=[seat]
            )
            await self._reload_seats(g)
            what = f"plays {seat_side}" if role == "player" else "watches"
            out = [Reply("channel", f"{caller.display} {what} in game {g.id}.", game=g.id)]
            out.append(
                Reply(
                    "caller",
                    f"You play {seat_side} in game {g.id}."
                    if role == "player"
                    else f"You watch game {g.id}.",
                    game=g.id,
                    private=True,
                )
            )
            return out + await self._maybe_start(g, caller)

    def _join_request(self, g: LiveGame, caller: Caller, side: str) -> list[Reply]:
        """An open seat of a started game: the moderators seat the newcomer (setting
        `late_join: moderator`, the default); nothing is written until they do."""
        return [
            Reply(
                "moderators",
                f"{caller.display} asks to play {side} in game {g.id}, which has started: "
                f"`seat {side} {caller.id}` seats them.",
                game=g.id,
                mention=(caller.id,),
                data={"organisers": True},  # nothing hidden: the moderators who play too
            ),
            Reply(
                "caller",
                f"Game {g.id} has started: your request to play {side} went to its "
                "moderators, who seat you.",
                game=g.id,
                private=True,
            ),
        ]

    async def leave(self, caller: Caller, game_id: str) -> list[Reply]:
        g = await self.reach(caller, game_id)
        async with self._hold(g):
            mine = [s for s in g.seats if s.user_id == caller.id and s.role != "moderator"]
            if not mine:
                raise Refusal(f"you hold no seat in game {g.id}")
            if g.status in ("active", "paused") and any(s.role == "player" for s in mine):
                raise Refusal(
                    "a player cannot leave a running game: resign, or ask a moderator to "
                    "substitute you (`mod: substitute`)"
                )
            seats = [Store.seat_leave(g.id, s.user_id, s.role, s.side, g.head + 1) for s in mine]
            await self._write(g, [NewRecord(caller.id, "seat", {"leave": True})], seats=seats)
            await self._reload_seats(g)
            return [Reply("channel", f"{caller.display} left game {g.id}.", game=g.id)]

    async def seat_ai(self, caller: Caller, game_id: str, side: str) -> list[Reply]:
        """Seat the built-in opponent on an empty side (the game's moderator, or the only
        player when they play alone)."""
        g = await self.reach(caller, game_id)
        async with self._hold(g):
            if self._opponents is None:
                raise Refusal("this Kessel has no built-in opponent")
            s = self._side(g.setup, side)
            if not (roles.may_schedule(g, caller) or g.sides_of(caller.id)):
                raise Refusal("only a moderator or a player of this game may seat the opponent")
            if g.status != "open" and not roles.may_referee(g, caller):
                # a started game's empty seat is filled through its moderators (issue #15)
                raise Refusal(
                    f"game {g.id} has started: a moderator who plays no side seats a player "
                    "or the built-in opponent on an empty side"
                )
            if g.players(s):
                raise Refusal(f"{s} already has a player in game {g.id}")
            user = AI_PREFIX + s
            seat = Store.seat_join(
                g.id, user, "Kessel (built-in opponent)", "player", s, g.head + 1
            )
            await self._write(g, [NewRecord(caller.id, "seat", {"ai": s})], seats=[seat])
            await self._reload_seats(g)
            out = [Reply("channel", f"The built-in opponent plays {s} in game {g.id}.", game=g.id)]
            return out + await self._maybe_start(g, caller)

    async def _maybe_start(self, g: LiveGame, caller: Caller) -> list[Reply]:
        if g.status != "open" or g.unfilled() or not g.settings.get("autostart", True):
            return []
        return await self._start(g, caller)

    async def start(self, caller: Caller, game_id: str) -> list[Reply]:
        g = await self.reach(caller, game_id)
        async with self._hold(g):
            if not roles.may_schedule(g, caller):
                raise Refusal("only the game's moderator may start it")
            if g.status != "open":
                raise Refusal(f"game {g.id} has already started")
            if g.unfilled():
                raise Refusal(
                    "every side needs a player first: "
                    + ", ".join(g.unfilled())
                    + " (or seat the built-in opponent)"
                )
            return await self._start(g, caller)

    async def _start(self, g: LiveGame, caller: Caller) -> list[Reply]:
        records = [NewRecord(caller.id, "status", {"status": "active"})]
        g.row = replace(g.row, status="active")
        try:
            await self._write(g, records, status="active", deadline=self._deadline_for(g))
        except BaseException:
            g.row = replace(g.row, status="open")
            raise
        out = [
            Reply(
                "channel",
                f"Game {g.id} starts: {g.setup.name}. {_commitment_text(g)}",
                game=g.id,
                kind="turn",
            )
        ]
        out += await self._run_ai(g)
        return out + self._next_step(g, None)

    async def resign(self, caller: Caller, game_id: str) -> list[Reply]:
        g = await self.reach(caller, game_id)
        async with self._hold(g):
            sides = g.sides_of(caller.id)
            if not sides:
                raise Refusal(f"you play no side in game {g.id}")
            if g.status == "over":
                raise Refusal(f"game {g.id} is already over")
            loser = sides[0]
            winner = g.setup.enemy_of(loser)
            result = {"winner": winner, "reason": f"{loser} resigned"}
            await self._write(
                g,
                [NewRecord(caller.id, "resign", {"side": loser, "result": result})],
                status="over",
                deadline=None,
            )
            g.row = replace(g.row, status="over", settings=g.row.settings | {"result": result})
            text = f"Game {g.id}: {loser} resigns. {winner} wins. {_reveal_text(g)}"
            league = await self.leagues.game_over(g, "resigned")
            return [Reply("channel", text, game=g.id, kind="result"), *league]

    # --- looking ---------------------------------------------------------------------
    async def status(self, caller: Caller, game_id: str) -> list[Reply]:
        g = await self.reach(caller, game_id)
        viewer = roles.viewer_of(g, caller)
        lines = [f"**{g.row.name}** — game {g.id} ({g.row.scenario}), {g.status}"]
        if g.status == "over":
            lines.append(f"Result: {_result_text(g)}")
            lines.append(_reveal_text(g))
        else:
            lines.append(f"Now: {g.where()}")
            lines += self._awaiting_lines(g)
            lines.append(f"Dice: seed committed to as {g.commitment} (revealed at the end).")
        for s in g.setup.sides:
            who = ", ".join(p.display for p in g.players(s)) or "(empty seat)"
            lines.append(f"{s}: {who}")
        vp = g.system.victory_points(g.state)
        if vp:
            lines.append("VPs: " + ", ".join(f"{k} {v}" for k, v in vp.items()))
        note = provenance_sentence(g.system.data_provenance(g.setup))
        named = _data_set(g.settings)
        if named is not None:  # a league's choice among the operator's data sets
            said = "Kessel's own files" if named == data_sets.SHIPPED else "the operator's"
            lines.append(f"Data set: {named} ({said}, chosen by its league)")
        if g.data_digest:
            lines.append(f"Data: {g.data_digest} (the scenario's map, tables and counters)")
            now = setup_digest(g.setup)
            if now != g.data_digest:  # e.g. the referee restarted with a league's data
                lines.append(
                    f"The data in use now are not those the game was created with ({now[:19]}"
                    "...): it is played on the data in use. A rated season's next games "
                    "need the data it began with (docs/leagues.md)."
                )
        if note:
            lines.append(note)  # issue #19: the referee says what is reconstructed
        dl = await self.store.deadline(g.id)
        if dl is not None:
            lines.append(f"Deadline: <t:{int(dl[1])}:R>")
        v = view(g.state, viewer)
        mine = [p for p in v.pending if p.options is not None]
        data = {"viewer": viewer, "pending": [p.__dict__ for p in mine]}
        return [Reply("caller", "\n".join(lines), game=g.id, private=True, data=data)]

    def _awaiting_lines(self, g: LiveGame) -> list[str]:
        out = []
        for side in g.awaited():
            who = ", ".join(p.display for p in g.players(side)) or side
            asks = [d for d in g.state.pending if d.side == side]
            if asks:
                out.append(f"Awaiting {side} ({who}): a {asks[0].kind} decision ({asks[0].rule})")
            else:
                out.append(f"Awaiting {side} ({who}): orders, then `done`")
        return out

    async def view(self, caller: Caller, game_id: str, as_viewer: str | None = None) -> View:
        """The position as the caller may see it (a moderator may ask for another view)."""
        g = await self.reach(caller, game_id)
        return view(g.state, self._viewer(g, caller, as_viewer))

    def _viewer(self, g: LiveGame, caller: Caller, as_viewer: str | None) -> str:
        own = roles.viewer_of(g, caller)
        if as_viewer is None or as_viewer == own:
            return own
        if own != MODERATOR:
            if as_viewer == SPECTATOR:
                return SPECTATOR
            raise Refusal("only a moderator may look through another side's eyes")
        if as_viewer not in (*g.setup.sides, SPECTATOR, MODERATOR):
            raise Refusal(f"'{as_viewer}' is not a viewer of game {g.id}")
        return as_viewer

    async def history(
        self, caller: Caller, game_id: str, *, since_last: bool = False, limit: int = 40
    ) -> list[Reply]:
        """The turn log as the caller may read it: the last `limit` lines, or what happened
        since the caller's last input."""
        if not 1 <= limit <= 1000:
            raise Refusal("the log shows 1 to 1000 lines")
        g = await self.reach(caller, game_id)
        viewer = roles.viewer_of(g, caller)
        after = await self.store.last_seen(g.id, caller.id) if since_last else 0
        # paged from the end of the record: only the events the last lines need, read
        # back from the store past the game's snapshot as far as they are needed (#21)
        past = self._past(g)
        while True:
            lines = last_lines(
                g.record,
                g.state,
                viewer,
                None if since_last else limit,
                after=after,
                numbered=True,
                past=past,
            )
            if lines is not None:
                break
            assert past is not None
            await self._more(g, past, 2 * len(past.inputs) + limit + 16)
        head = "Since your last turn:" if since_last else f"Game {g.id}, recent log:"
        head += " (#N: event numbers; `mod rollback N` keeps the game up to event N)"
        text = "\n".join([head, *lines]) if lines else f"{head} nothing new."
        return [Reply("caller", text, game=g.id, private=True)]

    async def legal(self, caller: Caller, game_id: str, side: str | None = None) -> dict[str, Any]:
        """What the caller's side may do now (autocomplete, menus); empty when it is not
        one of the caller's sides."""
        g = await self.reach(caller, game_id)
        sides = g.sides_of(caller.id)
        s = side if side in sides else (sides[0] if len(sides) == 1 else None)
        if s is None:
            for x in g.awaited():
                if x in sides:
                    s = x
                    break
        if s is None or g.status != "active":
            return {}
        return await asyncio.to_thread(g.system.legal_actions, g.state, s)

    async def moves(self, caller: Caller, game_id: str, unit: str) -> list[dict[str, Any]]:
        """Where one of the caller's own units may move now: hex, MPs, path, and whether it
        must stop there (enemy ZoC); empty when it cannot move. Another side's unit is
        refused in the same words as a unit that does not exist (16.1)."""
        g = await self.reach(caller, game_id)
        uid = unit.strip()
        u = g.state.units.get(uid) or g.state.units.get(uid.lower())
        if u is None or u.side not in g.sides_of(caller.id):
            raise Refusal(f"you have no unit '{unit.strip()}' in game {g.id}")
        if g.status != "active":
            return []
        reach = await asyncio.to_thread(g.system.legal_moves, g.state, u.id)
        mp = g.system.format_cost
        return [
            {"hex": h, "mp": mp(r.cost), "path": list(r.path), "stops": r.stops}
            for h, r in sorted(reach.items(), key=lambda kv: (kv[1].cost, kv[0]))
        ]

    async def odds(self, caller: Caller, game_id: str, text: str) -> dict[str, Any]:
        """A what-if for a proposed attack by the caller's side (`RuleSystem.preview`)."""
        g = await self.reach(caller, game_id)
        order = self._parse_one(text)
        if not isinstance(order, Attack):
            raise Refusal("odds are for an attack, e.g. `attack s-232 s-180 -> 1619`")
        side = self._acting_side(g, caller, order)
        result = await asyncio.to_thread(g.system.preview, g.state, side, order)
        if isinstance(result, Rejection):
            raise Refusal(str(result), result.rule)
        return dict(result)

    async def map_png(
        self,
        caller: Caller,
        game_id: str,
        *,
        around: str | None = None,
        radius: int = 4,
        as_viewer: str | None = None,
        recent: bool = True,
        whole: bool = True,
        supply: bool = False,
    ) -> bytes:
        """A map snapshot in the caller's own view (rendered off the event loop). With no
        `around` and `whole=False`: a phone-sized crop where the caller's counters are
        thickest (render.focus_hex, issue #18). `supply`: the overlay of the viewer's own
        lines of supply and where they are cut (K102); a spectator has none to see."""
        g = await self.reach(caller, game_id)
        viewer = self._viewer(g, caller, as_viewer)
        if supply and viewer not in g.setup.sides and viewer != MODERATOR:
            raise Refusal(
                "the supply overlay shows a side's own lines of supply: only a player of "
                "the game (or its moderator) sees one (16.1)"
            )
        if around is None and not whole:
            from engine.view import view
            from render import focus_hex

            around = focus_hex(g.setup.map, view(g.state, viewer), radius)
        return await self._draw(g, viewer, around, radius, recent, supply=supply)

    async def legend_png(self, caller: Caller, game_id: str, as_viewer: str | None = None) -> bytes:
        """The full legend of the game's map, with what the caller's view shows (#18)."""
        from render import legend, to_png

        g = await self.reach(caller, game_id)
        viewer = self._viewer(g, caller, as_viewer)
        state = g.state
        return await asyncio.to_thread(lambda: to_png(legend(state, viewer)))

    async def reply_map(self, reply: Reply) -> bytes | None:
        """The map a reply of the service carries (`map_viewer`: drawn for the audience the
        service addressed it to, e.g. a side's turn notice), for the transport that
        delivers the reply to that audience only."""
        if not reply.map_viewer or not reply.game:
            return None
        g = await self.game(reply.game)
        viewer = reply.map_viewer
        if reply.data.get("map_whole"):
            return await self._draw(g, viewer, None, 4, True)
        # phone-sized (#18): around the hex the reply is about, else where the viewer's
        # counters are thickest
        around = reply.data.get("map_around")
        if not isinstance(around, str) or not g.setup.map.grid.contains(around):
            from engine.view import view
            from render import focus_hex

            around = focus_hex(g.setup.map, view(g.state, viewer), 4)
        return await self._draw(g, viewer, around, 4, True)

    async def _draw(
        self,
        g: LiveGame,
        viewer: str,
        around: str | None,
        radius: int,
        recent: bool,
        *,
        supply: bool = False,
    ) -> bytes:
        from render import Around, RenderError, snapshot, to_png

        state = g.state
        events = visible_events(await self._recent_events(g), viewer, state) if recent else None
        crop = Around(around, radius) if around else None

        def draw() -> bytes:
            return to_png(snapshot(state, viewer, crop=crop, events=events, supply=supply))

        try:
            return await asyncio.to_thread(draw)
        except RenderError as e:
            raise Refusal(str(e)) from None

    async def verify(self, caller: Caller, game_id: str) -> list[Reply]:
        """Check the dice of a game (issue #20): the seed against the commitment published
        at its start, and every logged roll recomputed from the seed. Anyone who may read
        the game may ask once it is over (the seed is revealed then); before, only a
        moderator who plays no side (who may export the game and its seed anyway)."""
        g = await self.reach(caller, game_id)
        over = g.status == "over" or g.state.over
        if not over and await self.leagues.rated(g.id):
            raise Refusal(
                f"game {g.id} is a rated league game: its dice seed stays secret from "
                "everyone, moderators too, until it ends; check it then"
            )
        if not over and not self._may_moderate(g, caller):
            raise Refusal(
                f"game {g.id} is not over: its dice seed is revealed, and can be checked, "
                "when it ends"
            )
        events = (await self.whole_record(g)).events
        return [Reply("caller", dice_report(g, events), game=g.id, private=True, kind="result")]

    async def export(self, caller: Caller, game_id: str) -> str:
        """A game record `kessel run` replays exactly. It holds every hidden move and
        sealed input, so only moderators get it while the game runs."""
        g = await self.reach(caller, game_id)
        if g.status != "over" and await self.leagues.rated(g.id):
            raise Refusal(
                f"game {g.id} is a rated league game: its record (with its secret dice seed) "
                "is exported when it ends, to everyone"
            )
        if g.status != "over" and not self._may_moderate(g, caller):
            raise Refusal(
                "the full record holds hidden information: a moderator who plays no side "
                "may export it now, everyone once the game is over"
            )
        scenario: Any = g.row.scenario_data if g.row.scenario_data is not None else g.row.scenario
        rec = await self.whole_record(g)  # every input, older ones read from the store
        data = {
            "kessel": "game-export",
            "scenario": scenario,
            "seed": rec.seed,
            "dice": list(rec.dice),
            # the data it was played on (engine/digest.py): a replay on other data (another
            # league's set, another map) is refused, not silently different (issue #19)
            "data_digest": g.data_digest or setup_digest(g.setup),
            **({"data_set": name} if (name := _data_set(g.row.settings)) else {}),
            "orders": "".join(line + "\n" for line in rec.order_lines()),
        }
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)

    async def import_game(
        self, caller: Caller, text: str, *, name: str | None = None
    ) -> list[Reply]:
        """A new game from an export (`kessel: game-export`), replayed order by order; the
        caller moderates it, its seats are empty."""
        try:
            data = parse_yaml(text, "import")
        except ScenarioError as e:
            raise Refusal(str(e)) from None
        if not isinstance(data, dict) or data.get("kessel") != "game-export":
            raise Refusal("not a Kessel game export (it must start with `kessel: game-export`)")
        scen = data.get("scenario")
        dice = data.get("dice") or []
        try:
            seed = numbers.seed(data.get("seed", 0), "the export's seed")
        except numbers.NumberError as e:
            raise Refusal(str(e)) from None
        if not isinstance(dice, list) or len(dice) > 100_000:
            raise Refusal("the export's dice must be a list of die faces 1-6")
        if not all(type(d) is int and 1 <= d <= 6 for d in dice):
            raise Refusal("the export's dice must be die faces 1-6")
        data_set = data.get("data_set")  # a league's named set, when this referee has it
        if data_set is not None and (
            not isinstance(data_set, str) or not data_sets.known(data_set)
        ):
            raise Refusal(
                f"the export was played on the data set '{numbers.shown(data_set, 40)}', which "
                f"this referee does not declare ({data_sets.choices()})"
            )
        if isinstance(scen, dict):
            row = await self._new_row(caller, "inline", name, seed, None, scen, data_set)
        elif isinstance(scen, str):
            row = await self._new_row(caller, scen, name, seed, None, None, data_set)
        else:
            raise Refusal("the export must name its scenario")
        row = replace(row, dice=tuple(dice))
        setup = self._setup(row)
        problem = other_data(data.get("data_digest"), setup)
        if problem:
            raise Refusal(f"the export does not replay here: {problem}")
        try:
            orders = parse_orders(str(data.get("orders") or ""))
        except NotationError as e:
            raise Refusal(e.message) from None
        rec = GameRecord(setup, row.seed, row.dice)
        made = {
            "scenario": row.scenario,
            "import": True,
            "commitment": dice_proof.commitment(row.seed),
            "seed_by": "export",  # the seed of the game exported, public in the file
            "data_digest": setup_digest(setup),  # as every new game records it
        }
        records = [NewRecord(caller.id, "created", made)]
        for order in orders:
            result = rec.submit(None, order)
            if isinstance(result, Rejection):
                raise Refusal(f"the export does not replay: line {order.line}: {result}")
            last = rec.entries[-1]
            records.append(NewRecord("import", "input", _input_body(last)))
        seats = [Store.seat_join(row.id, caller.id, caller.display, "moderator", "", 0)]
        g = await self._create(row, records, seats)  # one transaction, as new_game
        return [
            Reply(
                "caller",
                f"Imported as game {g.id} at {g.where()}; seats are empty.",
                game=g.id,
                kind="result",
            )
        ]

    # --- play ------------------------------------------------------------------------
    async def orders(
        self,
        caller: Caller,
        game_id: str,
        text: str,
        *,
        key: str | None = None,
        expect: int | None = None,
    ) -> list[Reply]:
        """Orders or decision answers in the notation, one per line (a PBEM block). All
        or nothing: if a line is refused, none is applied and the reply names the line.
        `key` makes a doubled request apply once; `expect` is the log position the caller
        acted on (a stale button is refused)."""
        g = await self.reach(caller, game_id)
        async with self._hold(g):
            stored = await self._replayed(g, key, "orders", caller.id, text)
            if stored is not None:
                return stored
            self._check_playing(g, expect)
            if len(text) > MAX_BLOCK_CHARS or text.count("\n") >= MAX_BLOCK_LINES:
                raise Refusal(
                    f"that block is too long ({len(text):,} characters, "
                    f"{text.count(chr(10)) + 1:,} lines); send at most {MAX_BLOCK_LINES} "
                    f"orders ({MAX_BLOCK_CHARS:,} characters) at a time"
                )
            text = self._numbered_answer(g, caller, text)
            try:
                parsed = parse_orders(text)
            except NotationError as e:
                raise Refusal(e.message) from None
            if not parsed:
                raise Refusal("no orders: write one order per line, e.g. `move s-232 0434`")
            given = [(self._acting_side(g, caller, o), o) for o in parsed]
            if any(isinstance(o, Mod) for _, o in given):
                raise Refusal("moderator lines go through `/mod`, not orders")
            entries, state = await asyncio.to_thread(_apply_all, g.state, given)
            records = [NewRecord(caller.id, "input", _input_body(e)) for e in entries]
            return await self._commit_inputs(
                g, caller, entries, records, key, "orders", text, state=state
            )

    async def order(
        self,
        caller: Caller,
        game_id: str,
        order: Order,
        *,
        key: str | None = None,
        expect: int | None = None,
    ) -> list[Reply]:
        """A structured order (a slash command's options, a button's answer): written in
        the notation and judged exactly as a typed line, so the log reads the same."""
        return await self.orders(caller, game_id, format_order(order), key=key, expect=expect)

    async def undo(self, caller: Caller, game_id: str) -> list[Reply]:
        """Take back the caller's last input, not past a die roll or a reveal."""
        g = await self.reach(caller, game_id)
        async with self._hold(g):
            self._check_playing(g, None)
            sides = g.sides_of(caller.id)
            if not sides:
                raise self._not_a_player(g, caller)
            rec = g.record
            if not rec.entries and not complete(rec):
                # the input to take back is before the game's snapshot: held from an
                # older snapshot when one serves, else every input read from the store
                rec = await self._before_snapshot(g)
            if not rec.entries:
                raise Refusal("there is nothing to undo")
            last = rec.entries[-1]
            if last.side not in sides:
                raise Refusal(
                    "you may undo only your own last input, and only if nothing came after it"
                )
            trial = rec.copy()
            r = await asyncio.to_thread(trial.undo, last.side or "")
            if isinstance(r, Rejection):
                raise Refusal(str(r))
            await self._write(
                g,
                [NewRecord(caller.id, "undo", {"side": last.side, "line": last.line})],
                state=trial.state,
                snapshot_now=True,
            )
            # a record held from an older snapshot keeps its base and the inputs left, so
            # the next undo needs no store read; a whole one is held from the snapshot
            # just written (its older inputs left to the store)
            g.record = trial if isinstance(trial, TailRecord) else rebased(trial, g.head)
            return [Reply("caller", f"Undone: {last.line}", game=g.id, private=True)]

    # --- moderation ------------------------------------------------------------------
    def _may_moderate(self, g: LiveGame, caller: Caller) -> bool:
        """The full moderator tools: a moderator who plays no side (roles.py)."""
        return roles.may_referee(g, caller)

    async def mod(
        self, caller: Caller, game_id: str, text: str, *, key: str | None = None
    ) -> list[Reply]:
        """A moderator command: `rollback EVENT`, `pause`, `resume`, `extend HOURS`,
        `deadline HOURS|off`, `policy pass|default|pause`, `set KEY VALUE`, `announce TEXT`,
        `substitute OLD_USER NEW_USER [NAME]`, `seat SIDE USER [NAME]`, `unseat USER`,
        `moderator USER [NAME]` (a co-moderator),
        `answer SIDE ORDER...`, `end [SIDE|draw] REASON`, or a position edit the engine
        referees (`place UNIT HEX`, `cel UNIT N`, ...). Every act goes into the log."""
        g = await self.reach(caller, game_id)
        async with self._hold(g):
            if not roles.may_schedule(g, caller):
                raise Refusal("only the game's moderators may use moderator tools")
            stored = await self._replayed(g, key, "mod", caller.id, text)
            if stored is not None:
                return stored
            body = text.strip()
            if body.lower().startswith("mod:"):
                body = body[4:].strip()
            words = body.split()
            if not words:
                raise Refusal("a moderator command: " + ", ".join(SERVICE_VERBS) + ", or an edit")
            verb = words[0].lower()
            if verb not in roles.SCHEDULING and not roles.may_referee(g, caller):
                sides = " and ".join(g.sides_of(caller.id))
                raise Refusal(
                    f"you play {sides} in game {g.id}: a moderator who plays may schedule "
                    f"({', '.join(sorted(roles.SCHEDULING - {'start'}))}), but position edits, "
                    "answers, rollbacks, seats and the end of the game belong to a moderator "
                    "who plays no side"
                )
            # only the service's own verbs have handlers; anything else is a position edit
            # the engine referees ("edit place s-180 0208" = "place s-180 0208")
            handler = getattr(self, f"_mod_{verb}", None) if verb in SERVICE_VERBS else None
            if handler is None:
                if verb == "edit":
                    body = " ".join(words[1:])
                    if not body:
                        raise Refusal("edit what? e.g. `edit place s-180 0208` (mod: place ...)")
                out: list[Reply] = await self._mod_edit(g, caller, body, key)
            else:
                out = await handler(g, caller, words[1:], key)
            return out

    async def _mod_edit(
        self, g: LiveGame, caller: Caller, body: str, key: str | None
    ) -> list[Reply]:
        order = self._parse_one("mod: " + body)
        entries, state = await asyncio.to_thread(_apply_all, g.state, [("mod", order)])
        records = [NewRecord(caller.id, "input", _input_body(e) | {"mod": True}) for e in entries]
        out = await self._commit_inputs(g, caller, entries, records, key, "mod", body, state=state)
        # the command itself may name hidden counters: the channel reads only the events as
        # a spectator sees them (16.1.1), added by _commit_inputs
        out.append(Reply("channel", f"Moderator edit by {caller.display}.", game=g.id))
        return out

    async def _mod_answer(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        if len(words) < 2:
            raise Refusal("answer SIDE ORDER: e.g. `answer soviet retreat s-232 0335`")
        side = self._side(g.setup, words[0])
        order = self._parse_one(" ".join(words[1:]))
        self._check_playing(g, None, allow_paused=True)
        entries, state = await asyncio.to_thread(_apply_all, g.state, [(side, order)])
        records = [NewRecord(caller.id, "input", _input_body(e) | {"for": side}) for e in entries]
        out = await self._commit_inputs(
            g, caller, entries, records, key, "mod", " ".join(words), state=state
        )
        out.append(Reply("channel", f"A moderator answered for {side}.", game=g.id))
        out.append(  # the order may be a sealed input or name hidden counters: only its side
            Reply(
                "side", f"A moderator answered for you: {format_order(order)}", game=g.id, side=side
            )
        )
        return out

    async def _mod_rollback(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        usage = "rollback EVENT: the number of the last event to keep (see the log)"
        if len(words) != 1:
            raise Refusal(usage)
        try:
            to = numbers.whole(words[0], "the event number", 0)
        except numbers.NumberError as why:
            raise Refusal(f"{why}; {usage}") from None
        whole = await self.whole_record(g)  # the inputs before the snapshot too
        keep = 0
        for i, e in enumerate(whole.entries):
            if e.events and e.events[-1].seq > to:
                break
            keep = i + 1
        dropped = len(whole.entries) - keep
        if dropped == 0:
            raise Refusal(f"nothing to roll back: event {to} is at or after the last input")
        trial = whole.copy()
        del trial.entries[keep:]
        trial.state = await asyncio.to_thread(trial.rebuild)
        # a finished game rolled back before its end runs again, and its result goes
        # (a league re-scores it: issue #20); one ended by resignation or `end` keeps it
        reopen = g.status == "over" and g.state.over and not trial.state.over
        if reopen:
            refused = await self.leagues.reopen_refusal(g)
            if refused is not None:
                raise Refusal(refused)
        settings = {k: v for k, v in g.settings.items() if k != "result"}
        await self._write(
            g,
            [
                NewRecord(
                    caller.id, "rollback", {"inputs": keep, "to_event": to, "dropped": dropped}
                )
            ],
            deadline=self._deadline_for(g, trial.state),
            state=trial.state,
            snapshot_now=True,
            **({"status": "active", "settings": settings} if reopen else {}),
        )
        g.record = rebased(trial, g.head)  # the state is the snapshot just written
        if reopen:
            g.row = replace(g.row, status="active", settings=settings)
            await self.leagues.reopened(g, caller)
        text = (
            f"A moderator rolled game {g.id} back to event {trial.state.seq} "
            f"({dropped} inputs undone). Now: {g.where()}"
        )
        return [Reply("channel", text, game=g.id, kind="announcement"), *self._next_step(g, None)]

    async def _mod_pause(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        if g.status != "active":
            raise Refusal(f"game {g.id} is {g.status}, not running")
        await self._set_status(g, caller, "paused", " ".join(words))
        return [
            Reply(
                "channel",
                f"Game {g.id} is paused by a moderator. " + " ".join(words),
                game=g.id,
                kind="announcement",
            )
        ]

    async def _mod_resume(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        if g.status != "paused":
            raise Refusal(f"game {g.id} is not paused")
        await self._set_status(g, caller, "active", "")
        out = [Reply("channel", f"Game {g.id} resumes.", game=g.id, kind="announcement")]
        out += await self._run_ai(g)
        return out + self._next_step(g, None)

    async def _set_status(self, g: LiveGame, caller: Caller, status: str, why: str) -> None:
        old = g.row
        g.row = replace(g.row, status=status)
        try:
            dl: Any = self._deadline_for(g) if status == "active" else None
            await self._write(
                g,
                [NewRecord(caller.id, "status", {"status": status, "why": why})],
                status=status,
                deadline=dl,
            )
        except BaseException:
            g.row = old
            raise

    async def _mod_extend(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        hours = _hours(words)
        dl = await self.store.deadline(g.id)
        if dl is None:
            raise Refusal("there is no deadline running to extend")
        used = int(g.settings.get("extensions_used", 0))
        cap = int(g.settings.get("max_extensions", 3))
        if used >= cap:
            raise Refusal(f"this game has used all {cap} extensions (`set max_extensions N`)")
        settings = g.settings | {"extensions_used": used + 1}
        due = dl[1] + hours * 3600
        await self._write(
            g,
            [NewRecord(caller.id, "extend", {"hours": hours})],
            settings=settings,
            deadline=(dl[0], due),
        )
        g.row = replace(g.row, settings=settings)
        return [
            Reply(
                "channel",
                f"Deadline extended by {hours:g} h: now <t:{int(due)}:R> "
                f"({used + 1}/{cap} extensions).",
                game=g.id,
                kind="announcement",
            )
        ]

    async def _mod_deadline(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        hours = None if words and words[0].lower() in ("off", "none") else _hours(words)
        return await self._change_settings(g, caller, {"deadline_hours": hours})

    async def _mod_policy(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        if len(words) != 1:
            raise Refusal("policy pass|default|pause")
        return await self._change_settings(g, caller, {"policy": _setting("policy", words[0])})

    async def _mod_set(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        if len(words) < 2:
            raise Refusal(
                "set KEY VALUE; keys: "
                + ", ".join(k for k in DEFAULT_SETTINGS if k != "extensions_used")
            )
        return await self._change_settings(
            g, caller, {words[0]: _setting(words[0], " ".join(words[1:]))}
        )

    async def _change_settings(
        self, g: LiveGame, caller: Caller, change: dict[str, Any]
    ) -> list[Reply]:
        settings = g.settings | change
        old = g.row
        g.row = replace(g.row, settings=settings)
        try:
            await self._write(
                g,
                [NewRecord(caller.id, "settings", change)],
                settings=settings,
                deadline=self._deadline_for(g),
            )
        except BaseException:
            g.row = old
            raise
        text = ", ".join(f"{k} = {v}" for k, v in change.items())
        return [Reply("channel", f"Game {g.id} settings: {text}.", game=g.id, kind="announcement")]

    async def _mod_announce(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        text = " ".join(words)
        if not text:
            raise Refusal("announce TEXT")
        await self._write(g, [NewRecord(caller.id, "announce", {"text": text})])
        mention = tuple(
            s.user_id for s in g.seats if s.role == "player" and not s.user_id.startswith(AI_PREFIX)
        )
        return [Reply("channel", f"📣 {text}", game=g.id, kind="announcement", mention=mention)]

    async def _mod_substitute(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        if len(words) < 2:
            raise Refusal("substitute OLD_USER NEW_USER [NAME]")
        old_user = _user(words[0])
        new_user, name = _named(words[1], words[2:])
        seats = [s for s in g.seats if s.user_id == old_user and s.role == "player"]
        if not seats:
            raise Refusal(f"{words[0]} plays no side in game {g.id}")
        self._one_side(g, new_user, name, {s.side for s in seats})
        changes = []
        for s in seats:
            changes.append(Store.seat_leave(g.id, old_user, "player", s.side, g.head + 1))
            changes.append(Store.seat_join(g.id, new_user, name, "player", s.side, g.head + 1))
        await self._write(
            g,
            [NewRecord(caller.id, "substitute", {"old": old_user, "new": new_user})],
            seats=changes,
        )
        await self._reload_seats(g)
        sides = ", ".join(s.side for s in seats)
        return [
            Reply(
                "channel",
                f"{name} takes over {sides} in game {g.id}.",
                game=g.id,
                kind="announcement",
                mention=(new_user,),
            )
        ]

    async def _mod_seat(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        if len(words) < 2:
            raise Refusal("seat SIDE USER [NAME]")
        side = self._side(g.setup, words[0])
        user, name = _named(words[1], words[2:])
        if side in g.sides_of(user):
            raise Refusal(f"{name} already plays {side} in game {g.id}")
        self._one_side(g, user, name, {side})
        seat = Store.seat_join(g.id, user, name, "player", side, g.head + 1)
        await self._write(
            g,
            [NewRecord(caller.id, "seat", {"join": "player", "side": side, "user": user})],
            seats=[seat],
        )
        await self._reload_seats(g)
        return [
            Reply("channel", f"{name} plays {side} in game {g.id}.", game=g.id)
        ] + await self._maybe_start(g, caller)

    async def _mod_moderator(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        """`moderator USER [NAME]`: give another person the game's moderator tools."""
        if not words:
            raise Refusal("moderator USER [NAME]")
        user, name = _named(words[0], words[1:])
        if g.is_moderator(user):
            raise Refusal(f"{name} already moderates game {g.id}")
        seat = Store.seat_join(g.id, user, name, "moderator", "", g.head + 1)
        await self._write(g, [NewRecord(caller.id, "seat", {"moderator": user})], seats=[seat])
        await self._reload_seats(g)
        return [Reply("channel", f"{name} now moderates game {g.id}.", game=g.id)]

    async def _mod_unseat(
        self, g: LiveGame, caller: Caller, words: list[str], key: str | None
    ) -> list[Reply]:
        if len(words) != 1:
            raise Refusal("unseat USER")
        user = _user(words[0])
        mine = [s for s in g.seats if s.user_id == user]
        if not mine:
            raise Refusal(f"{words[0]} holds no seat in game {g.id}")
        seats = [Store.seat_leave(g.id, s.user_id, s.role, s.side, g.head + 1) for s in mine]
        # a running game whose side is left without a player waits for one (paused)
        left = {s.side for s in mine if s.role == "player"}
        empty = sorted(x for x in left if all(p.user_id == user for p in g.players(x)))
        pause = bool(empty) and g.status == "active"
        await self._write(
            g,
            [NewRecord(caller.id, "seat", {"unseat": user})],
            seats=seats,
            status="paused" if pause else None,
        )
        if pause:
            g.row = replace(g.row, status="paused")
        await self._reload_seats(g)
        text = f"{words[0]} no longer holds a seat in game {g.id}."
        if pause:
            text += (
                f" {' and '.join(empty)} has no player now: the game is paused until a "
                "moderator seats one (`seat SIDE USER`) and resumes it."
            )
        return [Reply("channel", text, game=g.id, kind="announcement" if pause else "info")]

    def _one_side(self, g: LiveGame, user: str, name: str, sides: set[str]) -> None:
        """One person plays one side (except at one keyboard: local hot seat)."""
        other = [x for x in g.sides_of(user) if x not in sides]
        if other and not roles.hot_seat(g):
            raise Refusal(
                f"{name} already plays {' and '.join(other)} in game {g.id}: one person "
                "plays one side"
            )

    async def _mod_end(
        self,
        g: LiveGame,
        caller: Caller,
        words: list[str],
        key: str | None,
        *,
        league: bool = True,
    ) -> list[Reply]:
        if not words:
            raise Refusal("end SIDE|draw REASON")
        who = words[0].lower()
        winner = None if who == "draw" else self._side(g.setup, who)
        result = {"winner": winner, "reason": " ".join(words[1:]) or "ended by a moderator"}
        await self._write(
            g,
            [NewRecord(caller.id, "end", {"result": result})],
            status="over",
            settings=g.settings | {"result": result},
            deadline=None,
        )
        g.row = replace(g.row, status="over", settings=g.settings | {"result": result})
        # a league game's result (unless a league decision ended it: it records its own)
        scored = await self.leagues.game_over(g, "moderator") if league else []
        return [
            Reply(
                "channel",
                f"Game {g.id} ended by a moderator: {_result_text(g)}. {_reveal_text(g)}",
                game=g.id,
                kind="result",
            ),
            *scored,
        ]

    # --- deadlines -------------------------------------------------------------------
    def _deadline_for(
        self, g: LiveGame, state: GameState | None = None
    ) -> tuple[str, float] | None:
        hours = g.settings.get("deadline_hours")
        if g.status != "active" or not hours:
            return None
        s = g.state if state is None else state
        if s.over:
            return None
        return g.step_key(s), self.clock() + float(hours) * 3600

    async def tick(self, now: float | None = None) -> list[Reply]:
        """Reminders and expired deadlines of every game (call it every minute or so)."""
        now = self.clock() if now is None else now
        out: list[Reply] = []
        # only the deadlines that need the referee now: a reminder or the end is due
        for gid, step, due, reminded in await self.store.deadlines(wake_by=now):
            if not await self._owned(gid):  # another process's (shard's) game
                continue
            try:
                g = await self.game(gid)
            except Refusal:
                continue
            async with self._hold(g):
                current = await self.store.deadline(gid)
                if current is None or current[0] != step or g.status != "active":
                    continue
                reminded = max(reminded, current[2])  # (another process may have reminded)
                if current[0] != g.step_key():  # the step changed without a new deadline
                    await self._write(g, [], deadline=self._deadline_for(g))
                    continue
                if now >= due:
                    out += await self._expire(g)
                    continue
                marks = sorted((float(h) for h in g.settings.get("reminders") or ()), reverse=True)
                due_marks = [i for i, h in enumerate(marks, start=1) if now >= due - h * 3600]
                sent = max([reminded, *due_marks])
                later = [due - h * 3600 for i, h in enumerate(marks, start=1) if i > sent]
                wake = min([due, *later])  # when this deadline next needs the referee
                if not due_marks or max(due_marks) <= reminded:
                    await self.store.mark_reminded(gid, reminded, wake)  # (a row of schema 3)
                else:
                    await self.store.mark_reminded(gid, max(due_marks), wake)
                    for side in g.awaited():
                        out.append(
                            Reply(
                                "side",
                                f"Reminder: game {g.id} awaits you ({g.where()}); "
                                f"deadline <t:{int(due)}:R>.",
                                game=g.id,
                                side=side,
                                kind="reminder",
                                mention=tuple(g.humans(side)),
                            )
                        )
        return out

    async def _owned(self, game_id: str) -> bool:
        """Whether this process does `game_id`'s clock work (`owns_guild`)."""
        if self.owns_guild is None:
            return True
        live = self._games.get(game_id)
        row = live.row if live is not None else await self.store.game(game_id)
        return row is not None and self.owns_guild(row.guild)

    async def _expire(self, g: LiveGame) -> list[Reply]:
        policy = g.settings.get("policy", "pause")
        late = [s for s in g.awaited() if s not in g.ai_sides()]
        gone = await self.leagues.forfeit_due(g, late)  # a league's deadline forfeit
        if gone is not None:
            winner = g.setup.enemy_of(gone)
            why = f"{gone} forfeits: too many deadlines missed"
            actor = Caller("deadline", "deadline")
            out = await self._mod_end(g, actor, [winner, *why.split()], None, league=False)
            return out + await self.leagues.record_forfeit(g, gone)
        if policy == "pause":
            await self._set_status(g, Caller("deadline"), "paused", "deadline passed")
            return [
                Reply(
                    "channel",
                    f"Deadline passed in game {g.id} (awaiting {', '.join(late)}): the game is "
                    "paused until a moderator resumes it.",
                    game=g.id,
                    kind="announcement",
                )
            ]
        entries: list[Entry] = []
        trial = _copy_record(g)
        stuck = None
        for side in late:
            for _ in range(AI_INPUT_LIMIT):
                if side not in g.system.awaited_sides(trial.state) or trial.state.over:
                    break
                order = g.system.next_default(trial.state, side)
                if order is None:
                    break
                result: Applied | Rejection = Rejection("")
                if policy == "pass" and not any(d.side == side for d in trial.state.pending):
                    done = parse_order("done")
                    assert done is not None
                    result = await asyncio.to_thread(trial.submit, side, done)
                if not isinstance(result, Applied):  # a decision, or `done` not yet allowed
                    result = await asyncio.to_thread(trial.submit, side, order)
                if isinstance(result, Rejection):
                    stuck = f"{side}: {format_order(order)} was refused: {result}"
                    break
                entries.append(trial.entries[-1])
            if stuck:
                break
        if not entries and stuck is None:  # nothing to give: pause rather than expire again
            stuck = "the deadline policy found no input to give for " + ", ".join(late)
        actor = Caller("deadline", "deadline")
        records = [
            NewRecord("deadline", "input", _input_body(e) | {"policy": policy}) for e in entries
        ]
        out = await self._commit_inputs(
            g, actor, entries, records, None, "deadline", "", trial=trial
        )
        how = "passed" if policy == "pass" else "played by the default policy"
        text = f"Deadline passed in game {g.id}: {', '.join(late)} {how} ({len(entries)} inputs)."
        out.insert(0, Reply("channel", text, game=g.id, kind="announcement"))
        if stuck:
            await self._set_status(g, actor, "paused", stuck)
            out.append(
                Reply(
                    "moderators",
                    f"Game {g.id} paused: the deadline policy could not go on ({stuck}).",
                    game=g.id,
                )
            )
        return out

    # --- the built-in opponent --------------------------------------------------------
    @property
    def has_opponent(self) -> bool:
        return self._opponents is not None

    async def nudge(self, game_id: str | None = None) -> list[Reply]:
        """Let the built-in opponent play where a game awaits only it (after a restart
        that fell between a player's input and the opponent's answer). Without a game id:
        every running game with an opponent seat."""
        if game_id is None:
            out: list[Reply] = []
            rows = await self.store.games(statuses=("active",))
            seats = await self.store.seats_of([r.id for r in rows])
            for row in rows:
                if self.owns_guild is not None and not self.owns_guild(row.guild):
                    continue  # another process's (shard's) game
                # from the summaries: only a game that awaits its opponent alone is loaded
                bots = {s.side for s in seats.get(row.id, []) if s.user_id.startswith(AI_PREFIX)}
                if not bots:
                    continue
                if row.summary is not None and not (
                    row.summary.awaiting and set(row.summary.awaiting) <= bots
                ):
                    continue
                try:
                    out += await self.nudge(row.id)
                except Refusal:  # a damaged game does not stop the others
                    continue
            return out
        g = await self.game(game_id)
        async with self._hold(g):
            awaited = g.awaited()
            ai = g.ai_sides()
            if not ai or not awaited or any(s not in ai for s in awaited):
                return []
            return await self._run_ai(g) + self._next_step(g, None)

    # --- the write path --------------------------------------------------------------
    async def _write(
        self,
        g: LiveGame,
        records: Sequence[NewRecord],
        *,
        state: GameState | None = None,
        snapshot_now: bool = False,
        **kw: Any,
    ) -> None:
        """Append `records` (store.append's keywords in `kw`) with where the game then
        stands: `state` (default: the current one) and the status written (default: the
        current one). `snapshot_now`: `state` is stored as a snapshot too (after an undo or
        a rollback, so the next load does not replay the whole game: issue #21)."""
        s = g.state if state is None else state
        kw["summary"] = g.summary(s, kw.get("status"))
        if snapshot_now:
            kw["snapshot"] = (g.head + len(records), s.snapshot())
        dl = kw.get("deadline")
        if isinstance(dl, tuple) and len(dl) == 2:  # when it first needs the referee
            marks = (kw.get("settings") or g.settings).get("reminders") or ()
            first = max((float(h) for h in marks), default=0.0)
            kw["deadline"] = (dl[0], dl[1], dl[1] - first * 3600)
        try:
            g.head = await self.store.append(g.id, g.head, records, ts=self.clock(), **kw)
        except Conflict:
            self.forget(g.id)
            raise Refusal("the game changed meanwhile; please try again") from None
        except StoreError as e:
            raise Refusal(f"nothing was saved: {e}") from None
        g.row = replace(g.row, head=g.head, summary=kw["summary"])
        if snapshot_now:
            g.inputs_since_snapshot = 0

    async def _replayed(
        self, g: LiveGame, key: str | None, verb: str, user: str, text: str
    ) -> list[Reply] | None:
        if key is None:
            return None
        found = await self.store.request(key)
        if found is None:
            return None
        gid, fingerprint, reply = found
        if gid != g.id or fingerprint != _fingerprint(verb, user, text):
            raise Refusal(
                "this request id was already used for a different request; nothing was applied"
            )
        return [Reply.from_json(r) for r in reply["replies"]]

    def _check_playing(self, g: LiveGame, expect: int | None, allow_paused: bool = False) -> None:
        if g.status == "open":
            raise Refusal(
                f"game {g.id} has not started: seats to fill: {', '.join(g.unfilled()) or 'none'}"
            )
        if g.status == "paused" and not allow_paused:
            raise Refusal(f"game {g.id} is paused by its moderator")
        if g.status == "over" or g.state.over:
            raise Refusal(f"game {g.id} is over: {_result_text(g)}")
        if expect is not None and expect != g.last_event:
            raise Refusal("the game has moved on since that message; look at its status again")

    async def _commit_inputs(
        self,
        g: LiveGame,
        caller: Caller,
        entries: list[Entry],
        records: list[NewRecord],
        key: str | None,
        verb: str,
        text: str,
        *,
        state: GameState | None = None,
        trial: GameRecord | None = None,
    ) -> list[Reply]:
        before_step = g.step_key()
        if trial is None:
            new = _copy_record(g)
            new.entries.extend(entries)
            new.state = g.state if state is None else state
        else:
            new = trial
        viewer_of_caller = roles.viewer_of(g, caller)
        events = [e for entry in entries for e in entry.events]
        replies = self._input_replies(g, new.state, caller, viewer_of_caller, entries, events)
        person = caller.id and not caller.id.startswith(AI_PREFIX) and caller.id != "deadline"
        seen = (caller.id, new.state.seq) if person else None  # "since your last turn"
        await self._write_inputs(g, new, records, key, verb, caller.id, text, replies, seen)
        ai_replies = await self._run_ai(g)
        league = await self._league_over(g, "played")
        return replies + ai_replies + self._next_step(g, before_step) + league

    async def _league_over(self, g: LiveGame, how: str) -> list[Reply]:
        """A league game that has just ended has its result recorded (bot/service/leagues.py);
        nothing for any other game."""
        if g.status != "over" and not g.state.over:
            return []
        return await self.leagues.game_over(g, how)

    async def _end_for_league(self, g: LiveGame, caller: Caller, side: str, reason: str) -> None:
        """A league organiser's decision ends a running game (`end SIDE|draw REASON`)."""
        async with self._hold(g):
            if g.status != "over":
                await self._mod_end(g, caller, [side, *reason.split()], None, league=False)

    async def _write_inputs(
        self,
        g: LiveGame,
        new: GameRecord,
        records: list[NewRecord],
        key: str | None,
        verb: str,
        user: str,
        text: str,
        replies: list[Reply],
        seen: tuple[str, int] | None = None,
    ) -> None:
        g.inputs_since_snapshot += len(records)
        snap = None
        if g.inputs_since_snapshot >= self.snapshot_every:
            snap = (g.head + len(records), new.state.snapshot())
        over = new.state.over
        request = (
            None
            if key is None
            else (key, _fingerprint(verb, user, text), {"replies": [r.to_json() for r in replies]})
        )
        deadline: tuple[str, float] | bool | None = False  # unchanged while the step is
        if over:
            deadline = None
        elif g.step_key(new.state) != g.step_key():
            deadline = self._deadline_for(g, new.state)
        try:
            await self._write(
                g,
                records,
                state=new.state,
                request=request,
                snapshot=snap,
                status="over" if over else None,
                deadline=deadline,
                seen=seen,
            )
        except BaseException:
            g.inputs_since_snapshot -= len(records)
            raise
        # only once it is on disk; from a snapshot on, the inputs before it are left to
        # the store (issue #21: memory and the next load do not grow with the game)
        g.record = new if snap is None else rebased(new, g.head)
        if snap is not None:
            g.inputs_since_snapshot = 0
        if over:
            g.row = replace(g.row, status="over")

    async def _run_ai(self, g: LiveGame) -> list[Reply]:
        """Let built-in opponents play while the game awaits only them."""
        if self._opponents is None or g.status != "active":
            return []
        ai = g.ai_sides()
        if not ai:
            return []
        trial = _copy_record(g)
        entries: list[Entry] = []
        stuck = None
        for _ in range(AI_INPUT_LIMIT):
            if trial.state.over:
                break
            awaited = g.system.awaited_sides(trial.state)
            side = next((s for s in awaited if s in ai), None)
            if side is None:
                break
            player = g.opponents.get(side)
            if player is None:  # kept with the game: dropped with it from the cache
                player = self._opponents(side, g.row.seed)
                g.opponents[side] = player
            order = await asyncio.to_thread(player, trial.state)
            result: Applied | Rejection | None = None
            if order is not None:
                result = await asyncio.to_thread(trial.submit, side, order)
            if order is None or isinstance(result, Rejection):
                fallback = g.system.next_default(trial.state, side)
                if fallback is None:
                    stuck = f"the built-in opponent ({side}) has no input"
                    break
                result = await asyncio.to_thread(trial.submit, side, fallback)
                if isinstance(result, Rejection):
                    stuck = f"the built-in opponent ({side}) is stuck: {result}"
                    break
            entries.append(trial.entries[-1])
        if not entries and stuck is None:
            return []
        actor = Caller(AI_PREFIX + "opponent", "Kessel")
        records = [NewRecord(AI_PREFIX + (e.side or ""), "input", _input_body(e)) for e in entries]
        events = [e for entry in entries for e in entry.events]
        replies = (
            [
                Reply(
                    "channel",
                    "\n".join(lines_for(events, trial.state, SPECTATOR)) or "The opponent plays.",
                    game=g.id,
                    kind="turn",
                )
            ]
            if events
            else []
        )
        for side in g.setup.sides:
            if g.humans(side) and events:
                text = "\n".join(lines_for(events, trial.state, side))
                if text:
                    replies.append(Reply("side", text, game=g.id, side=side))
        await self._write_inputs(g, trial, records, None, "ai", actor.id, "", replies)
        if stuck:
            await self._set_status(g, actor, "paused", stuck)
            replies.append(Reply("moderators", f"Game {g.id} paused: {stuck}", game=g.id))
        return replies + await self._league_over(g, "played")  # the opponents finished it

    # --- replies ---------------------------------------------------------------------
    def _input_replies(
        self,
        g: LiveGame,
        state: GameState,
        caller: Caller,
        viewer: str,
        entries: list[Entry],
        events: list[Event],
    ) -> list[Reply]:
        lines = [f"✔ {e.line}" for e in entries]
        lines += lines_for(events, state, viewer)
        out = [Reply("caller", "\n".join(lines), game=g.id, private=True, kind="result")]
        public = lines_for(events, state, SPECTATOR)
        if any(e.kind in _PUBLIC_KINDS for e in events) and public:
            fought = [
                h for e in events if e.kind == "combat_resolved" for h in e.data.get("hexes") or []
            ]
            # a combat's result shows the public map around the hex fought for
            out.append(
                Reply(
                    "channel",
                    "\n".join(public),
                    game=g.id,
                    kind="result",
                    map_viewer=SPECTATOR if fought else None,
                    data={"map_around": fought[0]} if fought else {},
                )
            )
        return out

    def _next_step(self, g: LiveGame, before_step: str | None) -> list[Reply]:
        """Who must act now, pinged when it changed; decisions go to their side."""
        if g.status == "over" or g.state.over:
            return [
                Reply(
                    "channel",
                    f"Game {g.id} is over: {_result_text(g)}. {_reveal_text(g)}",
                    game=g.id,
                    kind="result",
                    map_viewer=SPECTATOR,
                    data={"map_whole": True},  # the final position, whole
                )
            ]
        if g.status != "active" or g.step_key() == before_step:
            return []
        out = []
        for side in g.awaited():
            humans = tuple(g.humans(side))
            if not humans:
                continue
            asks = [d for d in g.state.pending if d.side == side]
            if asks:
                out.append(replace(self._decision_reply(g, side), mention=humans))
            else:
                out.append(
                    Reply(
                        "side",
                        "\n".join(
                            [
                                f"Game {g.id}: your turn — {g.where()}.",
                                *announcements(g.state, side),
                            ]
                        ),
                        game=g.id,
                        side=side,
                        kind="turn",
                        mention=humans,
                        map_viewer=side,
                    )
                )
        if out:
            out.insert(
                0,
                Reply(
                    "channel",
                    f"Game {g.id}: {g.where()}. " + "; ".join(self._awaiting_lines(g)),
                    game=g.id,
                    kind="turn",
                ),
            )
        return out

    def _decision_reply(self, g: LiveGame, side: str) -> Reply:
        """`side`'s first open decision as its prompt (its system's describer), addressed to the
        side; `data` carries the numbered answers of the prompt (a transport's buttons send
        the number, judged by `_numbered_answer` like a typed one) and the log position the
        prompt was written at (`expect`: a click after the game moved on is refused)."""
        d = next(x for x in g.state.pending if x.side == side)
        v = view(g.state, side)
        mine = [p for p in v.pending if p.options is not None]
        options = mine[0].options if mine else None
        words = bot_systems.describer(g.state)  # the game's rule system's sentences
        text = words.decision(
            d.kind, d.rule, options, d.info, side=side, state=g.state, viewer=side
        )
        answers = words.answers(d.kind, d.options, d.info, side=side, state=g.state)
        fight = g.state.combat  # a combat's decision shows the side's map around its hex
        hexes = list(fight.get("targets") or []) if fight else []
        return Reply(
            "side",
            f"Game {g.id}: {text}",
            game=g.id,
            side=side,
            kind="decision",
            map_viewer=side if hexes else None,
            data={
                "decision": {"kind": d.kind, "rule": d.rule, "options": options},
                "answers": answers,
                "expect": g.last_event,
                **({"map_around": hexes[0]} if hexes else {}),
            },
        )

    async def decision(self, caller: Caller, game_id: str) -> list[Reply]:
        """The caller's open decisions shown again (`decision`, `/decision`), to the caller
        only: a seat's own prompt, whatever else the caller may see (DESIGN §2)."""
        g = await self.reach(caller, game_id)
        sides = g.sides_of(caller.id)
        if not sides:
            raise Refusal(f"no decision of yours is open in game {g.id}: you play no side")
        open_for = [s for s in sides if any(d.side == s for d in g.state.pending)]
        if not open_for:
            waiting = "; ".join(self._awaiting_lines(g)) or "nobody is awaited"
            raise Refusal(f"no decision of yours is open in game {g.id} ({waiting})")
        return [
            replace(self._decision_reply(g, s), to="caller", side=None, private=True)
            for s in open_for
        ]

    # --- parsing helpers -------------------------------------------------------------
    @staticmethod
    def _side(setup: Setup, side: str) -> str:
        s = side.strip().lower()
        if s not in setup.sides:
            raise Refusal(
                f"'{side}' is not a side of this game; the sides are {', '.join(setup.sides)}"
            )
        return s

    @staticmethod
    def _parse_one(text: str) -> Order:
        try:
            order = parse_order(text)
        except NotationError as e:
            raise Refusal(e.message) from None
        if order is None:
            raise Refusal("no order given")
        return order

    @staticmethod
    def _not_a_player(g: LiveGame, caller: Caller) -> Refusal:
        """Why someone who holds no side may not give (or undo) a side's inputs."""
        if g.is_spectator(caller.id):
            return Refusal("spectators cannot give orders")
        if roles.moderates(g, caller):
            return Refusal("a moderator gives orders for a side with `answer SIDE ORDER`")
        return Refusal(f"you hold no seat in game {g.id}")

    def _numbered_answer(self, g: LiveGame, caller: Caller, text: str) -> str:
        """A decision answered by its number in the prompt ("2", or "german: 2"): the
        order line it stands for (bot/describe.py `answers`); any other text as it is."""
        side_word, colon, rest = text.strip().partition(":")
        number = (rest if colon else side_word).strip()
        if not numbers.is_whole(number) or "\n" in text.strip():
            return text
        sides = g.sides_of(caller.id)
        if colon:
            sides = [s for s in sides if s == side_word.strip().lower()]
        mine = [d for d in g.state.pending if d.side in sides]
        if not mine:
            if not g.sides_of(caller.id):
                raise self._not_a_player(g, caller)
            why = f"no decision of yours is open to answer with '{numbers.shown(number)}'"
            if g.state.pending:
                d = g.state.pending[0]
                raise Refusal(f"{why}: waiting for {d.side} to answer a {d.kind} decision", d.rule)
            raise Refusal(f"{why} (a number answers a decision prompt)")
        d = mine[0]
        words = bot_systems.describer(g.state)
        lines = words.answers(d.kind, d.options, d.info, side=d.side, state=g.state)
        n = int(number)
        if not 1 <= n <= len(lines):
            raise Refusal(
                f"answer {d.kind} with a number from 1 to {len(lines)} (the prompt's list), "
                "or with the order itself"
                if lines
                else f"this {d.kind} decision has no numbered answers: give the order"
            )
        return f"{d.side}: {lines[n - 1]}"

    def _acting_side(self, g: LiveGame, caller: Caller, order: Order) -> str:
        sides = g.sides_of(caller.id)
        if order.side == "mod":
            raise Refusal("moderator lines go through `/mod`")
        if not sides:
            raise self._not_a_player(g, caller)
        if order.side is not None:
            if order.side not in sides:
                raise Refusal(f"you play {' and '.join(sides)}, not {order.side}")
            return order.side
        if len(sides) == 1:
            return sides[0]
        awaited = [s for s in g.awaited() if s in sides]
        if len(awaited) == 1:
            return awaited[0]
        raise Refusal(
            "you play more than one side here: start the line with the side, e.g. `german: done`"
        )

    async def move_channel(
        self, caller: Caller, game_id: str, guild: str, channel: str
    ) -> list[Reply]:
        """Move a game to another channel of its server (its channel was deleted): a
        referee's act (a moderator who plays no side), run from the new channel."""
        refused = Refusal(
            f"there is no game '{numbers.shown(game_id)}' that you referee in this server: "
            "a moderator who plays no side moves a game, from a channel of its own server"
        )
        try:  # the same words whether the game exists or not
            g = await self.game(game_id)
        except Refusal:
            raise refused from None
        async with self._hold(g):
            if not guild or guild != g.row.guild or not roles.may_referee(g, caller):
                raise refused
            if channel == g.row.channel:
                raise Refusal(f"game {g.id} is already in this channel")
            await self.store.move_game(g.id, guild, channel)
            self.forget(g.id)
        text = f"Game {g.id} ({g.row.name}) moves to this channel."
        return [
            Reply("caller", text, game=g.id, private=True),
            Reply("channel", f"📣 {text} {g.where()}", game=g.id, kind="announcement"),
        ]


# Events worth a line in the game's public channel (as a spectator reads them); plain
# moves stay in the players' own replies and the log.
_PUBLIC_KINDS = frozenset(
    {
        "dice_rolled",  # every die is rolled in the open
        "combat_resolved",
        "cel_lost",
        "retreated",
        "pursued",
        "fire_resolved",
        "air_battle",
        "revealed",
        "unit_eliminated",
        "hq_lost",
        "game_ended",
        "turn_started",
        "reinforcement_entered",
        "bridge_destroyed",
        "bridge_built",
        "withdrawn",
        "mod_edited",
    }
)


def _is_done(order: Order) -> bool:
    return order.verb == "done"


def _input_body(e: Entry) -> dict[str, Any]:
    return {
        "side": e.side,
        "line": format_order(e.order),
        "events": [event_json(ev) for ev in e.events],
    }


def _copy_record(g: LiveGame) -> GameRecord:
    return g.record.copy()


def _apply_all(state: GameState, given: list[tuple[str, Order]]) -> tuple[list[Entry], GameState]:
    """Apply orders in turn to the position; all or nothing."""
    out = []
    for i, (side, order) in enumerate(given, start=1):
        result = system_of(state).apply(state, side, order)
        if isinstance(result, Rejection):
            where = f"line {order.line or i}: " if len(given) > 1 else ""
            kept = " Nothing of this block was applied." if len(given) > 1 else ""
            raise Refusal(f"{where}{format_order(order)} — {result}.{kept}", result.rule)
        out.append(Entry(side, order, tuple(result.events)))
        state = result.state
    return out, state


def _damaged_before_snapshot(g: LiveGame, e: Exception) -> Refusal:
    """A record older than the game's snapshot, read only now, is damaged: the game
    plays on from its snapshot; what needs that record is refused."""
    return Refusal(
        f"game {g.id}: a stored record before its latest snapshot is damaged ({e!r}), so "
        "its older history cannot be read (play goes on from the snapshot); the other "
        "games are not affected. Restore it from a backup."
    )


def _turn_started(e: Event, turn: int) -> bool:
    """A phase of another turn than `turn` starts: no earlier event is of `turn`."""
    return e.kind == "phase_started" and e.data.get("turn") != turn


def dice_report(g: LiveGame, events: Sequence[Event]) -> str:
    """Sentences on a game's dice: the commitment and every roll checked (engine.dice);
    `events`: all of the game's (`Referee.whole_record`)."""
    found = dice_proof.audit(g.record.seed, g.record.dice, events)
    committed = dice_proof.commitment(g.record.seed)
    lines = [f"Game {g.id}: dice seed {g.record.seed}, published commitment {g.commitment}."]
    if committed == g.commitment:
        lines.append("✔ the seed matches the commitment published at the start.")
    else:
        lines.append(f"✘ the seed does NOT match the commitment (it gives {committed}).")
    forced = f" ({found.forced} forced by the game's creator)" if found.forced else ""
    if found.ok:
        lines.append(f"✔ all {found.rolls} rolls ({found.faces} dice{forced}) are the seed's own.")
    else:
        lines.append(f"✘ {len(found.wrong)} roll(s) do NOT come from the seed:")
        lines += [f"  event #{seq}: {why}" for seq, why in found.wrong]
    return "\n".join(lines)


def _commitment_text(g: LiveGame) -> str:
    by = {
        "creator": "chosen by the game's creator",
        "export": "the seed of the imported game",
        "referee": "secure random",
    }.get(g.seed_by, "of a game created before commitments")
    return (
        f"Dice: every roll comes from a seed ({by}) committed to as {g.commitment}; it is "
        f"revealed when the game ends, and `verify` then checks every roll."
    )


def _reveal_text(g: LiveGame) -> str:
    return (
        f"Dice seed revealed: {g.record.seed} (committed as {g.commitment}); "
        f"`verify` recomputes every roll from it."
    )


def _result_text(g: LiveGame) -> str:
    result = g.settings.get("result") or g.state.result or {}
    if not result:
        return "no result"
    winner = result.get("winner")
    why = result.get("reason") or result.get("why") or ""
    return (f"{winner} wins" if winner else "a draw") + (f" ({why})" if why else "")


def _hours(words: list[str]) -> float:
    if len(words) != 1:
        raise Refusal("give one number of hours, e.g. 24")
    try:
        h = numbers.decimal(words[0], "the number of hours", 0, 24 * 30)
    except numbers.NumberError as e:
        raise Refusal(str(e)) from None
    if h <= 0:
        raise Refusal("the number of hours must be more than 0 (at most 720)")
    return h


def _data_set(settings: dict[str, Any]) -> str | None:
    """The named data set a game records (scenarios/data_sets.py); None: the default."""
    name = settings.get("data")
    return str(name) if name is not None else None


def _setting(key: str, value: Any) -> Any:
    if key not in DEFAULT_SETTINGS or key == "extensions_used":
        raise Refusal(
            f"unknown setting '{key}'; settings: "
            + ", ".join(k for k in DEFAULT_SETTINGS if k != "extensions_used")
        )
    text = str(value).strip().lower()
    if key == "policy":
        if text not in ("pass", "default", "pause"):
            raise Refusal("policy must be pass, default or pause (docs/deadlines.md)")
        return text
    if key == "deadline_hours":
        if value is None or text in ("off", "none"):
            return None
        return _hours([text])
    if key == "reminders":
        if isinstance(value, list):
            return [_hours([str(v)]) for v in value]
        return [_hours([p]) for p in text.replace(",", " ").split()]
    if key == "max_extensions":
        try:
            return numbers.whole(text, "max_extensions", 0, 50)
        except numbers.NumberError as e:
            raise Refusal(str(e)) from None
    if key == "autostart":
        if text not in ("true", "false", "on", "off", "yes", "no"):
            raise Refusal("autostart must be on or off")
        return text in ("true", "on", "yes")
    if key == "late_join":
        if text not in ("moderator", "open"):
            raise Refusal(
                "late_join must be moderator (a player asks, a moderator seats them) or open"
            )
        return text
    return value


def _user(word: str) -> str:
    """A user named in a moderator command: an id, or a mention (`<@123>`, `<@!123>`)."""
    w = word.strip()
    if w.startswith("<@") and w.endswith(">"):
        w = w[2:-1].removeprefix("!")
    if not w or any(c.isspace() or not c.isprintable() for c in w) or len(w) > 64:
        raise Refusal(f"'{numbers.shown(word)}' is not a user: give a mention (@name) or an id")
    return w


def _named(word: str, name_words: list[str]) -> tuple[str, str]:
    """(user id, display name) from `USER [NAME]`: a mention displays as itself."""
    user = _user(word)
    name = " ".join(name_words) or (f"<@{user}>" if word.strip().startswith("<@") else user)
    return user, name


_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def _new_id(rng: random.Random, taken: set[str]) -> str:
    while True:
        gid = "".join(rng.choice(_ALPHABET) for _ in range(4))
        if gid not in taken:
            return gid


# --- the service's error boundary --------------------------------------------------------


def _boundary(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A public service call: a refusal passes through; a store error becomes a refusal
    with its explanation; anything unforeseen is recorded as an incident and becomes a
    refusal naming it, after the games held in memory are dropped (the next call reads
    them again from the store, so nothing half-changed survives)."""

    @functools.wraps(fn)
    async def call(self: Referee, *args: Any, **kw: Any) -> Any:
        try:
            return await fn(self, *args, **kw)
        except Refusal:
            raise
        except StoreError as e:
            self._games.clear()
            raise Refusal(str(e)) from None  # its own words: what was (not) done
        except Exception as e:
            self._games.clear()
            iid = incident.record(e, f"service {fn.__name__}")
            raise Refusal(incident.sentence(iid)) from None

    return call


for _name, _fn in list(vars(Referee).items()):
    if not _name.startswith("_") and asyncio.iscoroutinefunction(_fn) and _name != "close":
        setattr(Referee, _name, _boundary(_fn))


__all__ = ["Caller", "LogRecord", "Referee", "Refusal", "Reply", "SeatRow"]
