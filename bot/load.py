"""`kessel load`: load through the referee service and its SQLite store (issue #9).

Loopback only: the synthetic players call the service in this process (the service is
what the Discord adapter calls); nothing goes over a network. N concurrent games of the
demo scenarios, both seats of each held by synthetic users, receive inputs at a target
rate (open loop: an input is due every 1/rate s whatever the service's speed; each goes
to a game that is not busy). Each input is a legal one, chosen as a player would from
what the engine offers (`candidate_orders`, `legal_moves`): moves, attacks, answers to
decisions, `done`. Reported: the service's latency per input (the `orders` call, from
the request to the acknowledged reply: engine judging, the log transaction with
`synchronous=FULL`, the last-seen write), its p50/p99, throughput, the CPU left and the
process's memory (RSS after the setup, at the end and at its peak; issue #21). `--store`
names the store: `sqlite` (a temporary file, or `--db FILE`), or a PostgreSQL database's
URL (`postgresql://user@host/db`: the games are added to it), where `--processes N` runs
N bot processes on the one database (issue #21): this process sets the games up, then
N child processes (`python -m bot.load --child`) each drive their share of the games
(as Discord shards would: a game is served by one shard) at rate/N, all at once; their
latencies are merged.

Also here, for `kessel bench` (bot/bench.py's hook): the time of one event append (one
input's log transaction) and of loading a long game (a 25-turn `korsun-1944` played by
the built-in opponents, stored input by input with a snapshot every 40 inputs as the
service does it) from SQLite.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import orders as o
from engine import systems
from engine.notation import format_order
from engine.state import GameState

DEMOS = ("demo-steblev", "demo-kursk")


def choose_input(state: GameState, side: str, rng: random.Random) -> o.Order:
    """A legal input a player of `side` might give now: an answer to its open decision,
    a move of one of its units (Movement Phase, most of the time), or another listed
    input (attacks, fire, air, entries, `done` ...)."""
    rules = systems.of(state)
    if any(d.side == side for d in state.pending):
        answers = rules.candidate_orders(state, side, limit=50)
        return rng.choice(answers) if answers else o.Done()
    if rules.phase(state).kind in ("movement", "strategic") and rng.random() < 0.6:
        movers = [u.id for u in state.on_map(side) if rules.why_immobile(state, u.id) is None]
        if movers:
            uid = rng.choice(movers)
            reach = sorted(rules.legal_moves(state, uid))
            if reach:
                return o.Move(units=(uid,), path=(rng.choice(reach),))
    others = rules.candidate_orders(state, side, limit=50, moves=False)
    return rng.choice(others) if others else o.Done()


STORES = ("sqlite", "postgresql://...")  # `--store`


def store_refusal(kind: str, processes: int = 1) -> str | None:
    """Why `kessel load --store KIND [--processes N]` cannot run (None: it can)."""
    if kind.startswith(("postgresql://", "postgres://")):
        return None
    if kind == "sqlite":
        if processes > 1:
            return (
                "--processes: several bot processes share a PostgreSQL store only "
                "(--store postgresql://user@host/db); SQLite has one writing process"
            )
        return None
    if kind.lower() in ("postgresql", "postgres", "pg"):
        return (
            "--store postgresql: give the database's URL, --store postgresql://user@host/db "
            "(an empty database made for the run: the games are added to it)"
        )
    return (
        f"--store {kind!r}: there is no such store; --store sqlite or "
        "--store postgresql://user@host/db"
    )


def rss_mb() -> tuple[float, float]:
    """This process's resident memory now and at its peak, in MB (Linux /proc; else the
    peak from getrusage for both)."""
    try:
        fields = dict(
            line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines()
        )
        now = int(fields["VmRSS"].split()[0]) / 1024
        peak = int(fields["VmHWM"].split()[0]) / 1024
        return now, peak
    except (OSError, KeyError, ValueError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return peak, peak


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of `values`; 0 for none."""
    if not values:
        return 0.0
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * len(s) + 0.5) - 1))
    return s[k]


# --- the load run ----------------------------------------------------------------------


@dataclass
class _Slot:
    gid: str
    callers: dict[str, Any]
    rng: random.Random
    busy: bool = False


@dataclass
class LoadResult:
    games: int
    seconds: float
    rate: float
    elapsed: float = 0.0
    accepted: list[float] = field(default_factory=list)  # latencies (ms) of accepted inputs
    refused: list[float] = field(default_factory=list)  # latencies (ms) of refused ones
    choose_ms: list[float] = field(default_factory=list)  # the synthetic players' choosing
    skipped: int = 0  # due inputs with every game busy
    finished: int = 0  # games played to their end (replaced by new ones)
    setup_s: float = 0.0
    cpu_s: float = 0.0
    store: str = "sqlite"
    rss_setup_mb: float = 0.0  # resident memory once the games are set up
    rss_end_mb: float = 0.0
    rss_peak_mb: float = 0.0
    errors: list[str] = field(default_factory=list)
    why_refused: Counter[str] = field(default_factory=Counter)

    @property
    def throughput(self) -> float:
        return len(self.accepted) / self.elapsed if self.elapsed else 0.0

    def summary(self) -> dict[str, Any]:
        both = self.accepted + self.refused
        return {
            "games": self.games,
            "seconds": round(self.elapsed, 1),
            "target_rate": self.rate,
            "inputs": len(both),
            "accepted": len(self.accepted),
            "refused": len(self.refused),
            "skipped": self.skipped,
            "throughput_per_s": round(len(both) / self.elapsed, 2) if self.elapsed else 0.0,
            "p50_ms": round(percentile(both, 50), 1),
            "p90_ms": round(percentile(both, 90), 1),
            "p99_ms": round(percentile(both, 99), 1),
            "max_ms": round(max(both, default=0.0), 1),
            "mean_ms": round(statistics.fmean(both), 1) if both else 0.0,
            "choose_mean_ms": (
                round(statistics.fmean(self.choose_ms), 1) if self.choose_ms else 0.0
            ),
            "games_finished": self.finished,
            "setup_s": round(self.setup_s, 1),
            "store": self.store,
            "rss_setup_mb": round(self.rss_setup_mb, 1),
            "rss_end_mb": round(self.rss_end_mb, 1),
            "rss_peak_mb": round(self.rss_peak_mb, 1),
            "cpu_percent": round(100 * self.cpu_s / self.elapsed, 0) if self.elapsed else 0.0,
            "errors": self.errors[:5],
            "refusals": dict(self.why_refused.most_common(5)),
        }


async def _new_slot(ref: Any, i: int, scenario: str, seed: int) -> _Slot:
    from bot.service import Caller

    a = Caller(f"load:{i}:a", f"Player {i}A", guild="load", channel=f"c{i % 20}")
    b = Caller(f"load:{i}:b", f"Player {i}B", guild="load", channel=f"c{i % 20}")
    out = await ref.new_game(a, scenario, seed=seed, side=None)
    gid = out[0].game
    g = await ref.game(gid)
    first, second = list(g.setup.sides)[:2]
    await ref.join(a, gid, first)
    await ref.join(b, gid, second)
    return _Slot(gid, {first: a, second: b}, random.Random(seed))


async def run_load(
    games: int = 200,
    seconds: float = 60.0,
    rate: float = 20.0,
    *,
    path: str | Path | None = None,
    scenarios: tuple[str, ...] = DEMOS,
    seed: int = 1,
    progress: Callable[[str], None] | None = None,
    store: str = "sqlite",
    processes: int = 1,
) -> LoadResult:
    """Drive `games` concurrent games at `rate` inputs/s for `seconds` (see the module)."""
    from bot.service import Referee

    refused = store_refusal(store, processes)
    if refused is not None:
        raise ValueError(refused)
    res = LoadResult(games, seconds, rate, store=_shown_store(store))
    tmp = None
    if store != "sqlite":
        path = store
    elif path is None:
        tmp = tempfile.mkdtemp(prefix="kessel-load-")
        path = Path(tmp) / "load.db"
    ref = await Referee.open(path, opponents=None)
    try:
        t0 = time.perf_counter()
        slots = [
            await _new_slot(ref, i, scenarios[i % len(scenarios)], seed + i) for i in range(games)
        ]
        res.setup_s = time.perf_counter() - t0
        res.rss_setup_mb = rss_mb()[0]
        if progress:
            progress(
                f"{games} games set up in {res.setup_s:.1f} s (RSS {res.rss_setup_mb:.0f} MB); "
                f"loading for {seconds:g} s"
                + (f" with {processes} bot processes" if processes > 1 else "")
            )
        if processes > 1:
            await ref.close()
            await _children(str(path), slots, res, processes, seed, scenarios)
            return res
        await _drive(ref, slots, res, seed=seed, scenarios=scenarios, progress=progress)
        res.rss_end_mb, res.rss_peak_mb = rss_mb()
        if await ref.store.check() != "ok":
            res.errors.append("integrity_check failed after the run")
    finally:
        await ref.close()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return res


def _shown_store(store: str) -> str:
    if store == "sqlite":
        return store
    from bot.store import shown_url

    return shown_url(store)


async def _drive(
    ref: Any,
    slots: list[_Slot],
    res: LoadResult,
    *,
    seed: int,
    scenarios: tuple[str, ...],
    progress: Callable[[str], None] | None = None,
    next_game: int | None = None,
) -> None:
    """Send inputs to `slots` at `res.rate` per second for `res.seconds` (open loop)."""
    from bot.service import Refusal

    seconds, rate = res.seconds, res.rate
    next_game = len(slots) if next_game is None else next_game
    rng = random.Random(seed)

    async def one(slot: _Slot) -> None:
        nonlocal next_game
        try:
            g = await ref.game(slot.gid)
            awaited = g.awaited()
            if g.status != "active" or not awaited:
                res.finished += 1
                i = next_game
                next_game += 1
                new = await _new_slot(ref, i, scenarios[i % len(scenarios)], seed + i)
                slot.gid, slot.callers, slot.rng = new.gid, new.callers, new.rng
                return
            side = slot.rng.choice(awaited)
            c = time.perf_counter()
            order = choose_input(g.state, side, slot.rng)
            res.choose_ms.append((time.perf_counter() - c) * 1000)
            text = format_order(order)
            t = time.perf_counter()
            try:
                await ref.orders(slot.callers[side], slot.gid, text, key=os.urandom(8).hex())
            except Refusal as e:
                res.refused.append((time.perf_counter() - t) * 1000)
                res.why_refused[str(e).split(" — ")[-1][:70]] += 1
            else:
                res.accepted.append((time.perf_counter() - t) * 1000)
        except Exception as e:  # counted and reported, the run goes on
            res.errors.append(f"{slot.gid}: {e!r}")
        finally:
            slot.busy = False

    tasks: set[asyncio.Task[None]] = set()
    cpu0 = time.process_time()
    start = time.perf_counter()
    due = start
    k = 0
    while True:
        k += 1
        due = start + k / rate
        now = time.perf_counter()
        if due - start > seconds:
            break
        if due > now:
            await asyncio.sleep(due - now)
        idle = [s for s in slots if not s.busy]
        if not idle:
            res.skipped += 1
            continue
        slot = rng.choice(idle)
        slot.busy = True
        task = asyncio.create_task(one(slot))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        if progress and k % max(1, int(rate * 10)) == 0:
            done = res.accepted + res.refused
            progress(
                f"{now - start:5.0f} s: {len(done)} inputs, "
                f"p50 {percentile(done, 50):.0f} ms, p99 {percentile(done, 99):.0f} ms"
            )
    if tasks:
        await asyncio.gather(*tasks)
    res.elapsed = time.perf_counter() - start
    res.cpu_s = time.process_time() - cpu0


# --- several bot processes on one PostgreSQL database ----------------------------------


async def _children(
    url: str,
    slots: list[_Slot],
    res: LoadResult,
    processes: int,
    seed: int,
    scenarios: tuple[str, ...],
) -> None:
    """Run `processes` child bot processes, each driving every Nth game at rate/N, started
    together; merge what they measured into `res`."""
    import json
    import subprocess
    import sys
    from dataclasses import asdict

    procs = []
    for i in range(processes):
        mine = [
            [s.gid, {side: asdict(c) for side, c in s.callers.items()}, seed + n]
            for n, s in enumerate(slots)
            if n % processes == i
        ]
        spec = {
            "url": url,
            "slots": mine,
            "seconds": res.seconds,
            "rate": res.rate / processes,
            "seed": seed + 7919 * i,
            "next_game": len(slots) + 1_000_000 * (i + 1),
            "scenarios": list(scenarios),
        }
        procs.append(
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot.load",
                "--child",
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        )
        assert procs[-1].stdin is not None
        procs[-1].stdin.write(json.dumps(spec).encode() + b"\n")
        await procs[-1].stdin.drain()
    for p in procs:  # every child has its referee open and its games loaded
        assert p.stdout is not None
        line = await p.stdout.readline()
        if line.strip() != b"ready":
            res.errors.append(f"a bot process did not start: {line.decode(errors='replace')}")
    for p in procs:
        assert p.stdin is not None
        p.stdin.write(b"go\n")
        await p.stdin.drain()
        p.stdin.close()
    cpu = 0.0
    for p in procs:
        out, _ = await p.communicate()
        try:
            got = json.loads(out.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            res.errors.append(f"a bot process exited {p.returncode} without its figures")
            continue
        res.accepted += got["accepted"]
        res.refused += got["refused"]
        res.choose_ms += got["choose_ms"]
        res.skipped += got["skipped"]
        res.finished += got["finished"]
        res.errors += got["errors"]
        res.why_refused.update(got["why_refused"])
        res.elapsed = max(res.elapsed, got["elapsed"])
        cpu += got["cpu_s"]
        res.rss_end_mb = max(res.rss_end_mb, got["rss_end_mb"])
        res.rss_peak_mb = max(res.rss_peak_mb, got["rss_peak_mb"])
    res.cpu_s = cpu


async def _child() -> None:
    """One bot process of a `--processes N` run (spec on stdin; figures on stdout)."""
    import json

    from bot.service import Caller, Referee

    spec = json.loads(sys.stdin.readline())
    ref = await Referee.open(spec["url"], opponents=None)
    try:
        slots = []
        for gid, callers, seed in spec["slots"]:
            await ref.game(gid)
            who = {side: Caller(**c) for side, c in callers.items()}
            slots.append(_Slot(gid, who, random.Random(seed)))
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        res = LoadResult(len(slots), spec["seconds"], spec["rate"])
        await _drive(
            ref,
            slots,
            res,
            seed=spec["seed"],
            scenarios=tuple(spec["scenarios"]),
            next_game=spec["next_game"],
        )
        res.rss_end_mb, res.rss_peak_mb = rss_mb()
    finally:
        await ref.close()
    got = {
        "accepted": res.accepted,
        "refused": res.refused,
        "choose_ms": res.choose_ms,
        "skipped": res.skipped,
        "finished": res.finished,
        "errors": res.errors,
        "why_refused": dict(res.why_refused),
        "elapsed": res.elapsed,
        "cpu_s": res.cpu_s,
        "rss_end_mb": res.rss_end_mb,
        "rss_peak_mb": res.rss_peak_mb,
    }
    print(json.dumps(got), flush=True)


# --- storage timings -------------------------------------------------------------------


async def time_append(n: int = 300) -> dict[str, float]:
    """Wall time of one input's log transaction (BEGIN IMMEDIATE, head check, the input
    record with 6 events, the request row, head update, COMMIT with synchronous=FULL)."""
    from bot.store import GameRow, NewRecord, Store

    tmp = tempfile.mkdtemp(prefix="kessel-append-")
    try:
        store = await Store.open(Path(tmp) / "a.db")
        row = GameRow(
            "bench", "bench", "", "", "demo-steblev", None, 1, (), "active", {}, "u", 0, 0
        )
        await store.create_game(row)
        head = 0
        times = []
        for i in range(n):
            events = [
                {"seq": i * 6 + j, "kind": "moved", "data": {"unit": "s-180", "path": ["0305"]}}
                for j in range(6)
            ]
            rec = NewRecord(
                "u", "input", {"side": "soviet", "line": "move s-180 0305", "events": events}
            )
            t = time.perf_counter()
            head = await store.append(
                "bench", head, [rec], request=(f"k{i}", "fp", {"replies": [{"text": "✔"}]})
            )
            times.append((time.perf_counter() - t) * 1000)
        await store.close()
        return {"p50_ms": percentile(times, 50), "p99_ms": percentile(times, 99), "n": n}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kessel" / "bench"


def code_fingerprint() -> str:
    """A digest of the code and data a stored game depends on (the engine, the built-in
    opponent, the service and the shipped scenarios): a cached long game made by other
    code is never used, so a defect cannot hide behind an old cache."""
    import hashlib

    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for sub, pattern in (("engine", "*.py"), ("bot", "*.py"), ("scenarios", "*.yaml")):
        for f in sorted((root / sub).rglob(pattern)):
            h.update(f.relative_to(root).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:12]


async def long_game_db(
    scenario: str = "korsun-1944",
    turns: int = 25,
    *,
    directory: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[Path, str]:
    """A database holding one game of `scenario` played for `turns` turns by the built-in
    opponents through the service, one input per `orders` call (so stored as a human
    game is: a log transaction per input, a snapshot every 40). Made in `directory`
    (default: the cache directory, where it is kept for the next run of the same code)."""
    from bot.service import Caller, Referee, Refusal
    from bot.systems import builtin_opponent

    target = (directory or cache_dir()) / f"{scenario}-{turns}t-{code_fingerprint()}.db"
    if target.exists():
        ref = await Referee.open(target, opponents=None)
        try:
            rows = await ref.store.games()
            if rows:
                g = await ref.game(rows[0].id)
                if g.state.turn >= turns or g.state.over:
                    return target, rows[0].id
        except Refusal:
            pass
        finally:
            await ref.close()
    target.parent.mkdir(parents=True, exist_ok=True)
    work = target.with_suffix(".tmp.db")
    for p in (work, Path(f"{work}-wal"), Path(f"{work}-shm")):
        p.unlink(missing_ok=True)
    ref = await Referee.open(work, opponents=None)
    try:
        callers = {}
        out = await ref.new_game(Caller("bench:mod", "Mod"), scenario, seed=1)
        gid = out[0].game
        assert gid is not None
        g = await ref.game(gid)
        for s in g.setup.sides:
            callers[s] = Caller(f"bench:{s}", s)
            await ref.join(callers[s], gid, s)
        players = {s: builtin_opponent(s, 1) for s in g.setup.sides}
        n = 0
        while g.state.turn <= turns and not g.state.over and g.status == "active" and n < 20000:
            side = g.system.awaited_sides(g.state)[0]
            tries = _inputs_to_try(g.state, side, players[side])
            why = ""
            for order in tries:
                if order is None:
                    continue
                try:
                    await ref.orders(callers[side], gid, format_order(order))
                    break
                except Refusal as e:
                    why = str(e)
            else:  # the referee guarantees the awaited side an accepted input (K97)
                raise RuntimeError(f"{scenario}: no input of {side} accepted at {g.where()}: {why}")
            n += 1
            if progress and n % 200 == 0:
                progress(f"  long game: turn {g.state.turn}, {n} inputs")
    finally:
        await ref.close()
    os.replace(work, target)
    for suffix in ("-wal", "-shm"):
        Path(f"{work}{suffix}").unlink(missing_ok=True)
    for old in target.parent.glob(f"{scenario}-{turns}t*.db"):  # made by other code
        if old != target and not old.name.endswith(".tmp.db"):
            old.unlink(missing_ok=True)
    return target, gid


def _inputs_to_try(state: GameState, side: str, player: Any) -> Iterator[o.Order | None]:
    """The built-in opponent's input, then the default policy's (which always has one
    the referee accepts, K97), `done`, then any listed input."""
    rules = systems.of(state)
    yield player(state)
    yield rules.next_default(state, side)
    yield o.Done()
    yield from rules.candidate_orders(state, side, limit=200)


async def time_game_load(db: Path, gid: str, repeat: int = 5) -> dict[str, Any]:
    """Loading the stored game into a fresh referee (as after a restart): the latest
    snapshot and the log records after it (issue #21; the whole log when none is usable).
    `cold` includes parsing the scenario (once per process); `warm` is every later game
    of the same scenario. `in_memory`: the inputs the loaded game holds (after its
    snapshot), of `inputs` the game keeps."""
    from bot.service import Referee
    from bot.service.game import fold
    from bot.service.referee import shipped_setup

    times = []
    cold = None
    info: dict[str, Any] = {}
    for i in range(repeat + 1):
        if i == 0:
            shipped_setup.cache_clear()
        ref = await Referee.open(db, opponents=None)
        try:
            t = time.perf_counter()
            g = await ref.game(gid)
            ms = (time.perf_counter() - t) * 1000
            if i == 0:
                cold = ms
                records = await ref.store.log(gid)
                snap = await ref.store.snapshot(gid)
                info = {
                    "turn": g.state.turn,
                    "inputs": len(fold(records)),
                    "in_memory": len(g.record.entries),
                    "events": g.state.seq,
                    "records": len(records),
                    "snapshot_at": snap[0] if snap else None,
                    "db_kib": round(db.stat().st_size / 1024),
                }
            else:
                times.append(ms)
        finally:
            await ref.close()
    return {"cold_ms": cold, "warm_ms": statistics.median(times), **info}


# --- kessel bench rows (bot/bench.py's hook) --------------------------------------------


def bench_store_rows(s: Any) -> list[Any]:
    from bot.bench import Row

    a = asyncio.run(time_append(100 if s.quick else 300))
    turns = 3 if s.quick else 25
    with tempfile.TemporaryDirectory(prefix="kessel-bench-") as tmp:
        # --quick: a short game made afresh in a temporary directory; the full run keeps
        # its 25-turn game in the cache directory for the next run of the same code
        where = Path(tmp) if s.quick else None
        db, gid = asyncio.run(long_game_db("korsun-1944", turns, directory=where, progress=print))
        ld = asyncio.run(time_game_load(db, gid, s.repeat))
    return [
        Row(
            "event append (one input's txn)",
            a["p50_ms"],
            None,
            f"wall, synchronous=FULL; p99 {a['p99_ms']:.1f} ms over {a['n']}",
        ),
        Row(
            f"game load, {turns}-turn korsun-1944",
            ld["warm_ms"],
            200.0 if turns == 25 else None,
            f"wall; {ld['inputs']} inputs ({ld['in_memory']} in memory), {ld['events']} "
            f"events, snapshot at record "
            f"{ld['snapshot_at']} of {ld['records']}; cold (scenario parse) {ld['cold_ms']:.0f} ms",
        ),
    ]


def bench_service_rows(s: Any) -> list[Any]:
    from bot.bench import Row

    games, seconds = (20, 5.0) if s.quick else (200, 20.0)
    r = asyncio.run(run_load(games, seconds, 20.0)).summary()
    return [
        Row(
            f"service p99, {games} games at 20 inputs/s",
            r["p99_ms"],
            250.0,
            f"wall; p50 {r['p50_ms']} ms, {r['throughput_per_s']} inputs/s over "
            f"{r['seconds']} s ({r['refused']} refused); `kessel load` for 60 s",
        )
    ]


# --- kessel load -------------------------------------------------------------------------


def main(args: Any) -> int:
    """`kessel load [--games 200] [--seconds 60] [--rate 20] [--db FILE] [--json FILE]`."""
    import json

    from bot.bench import machine

    def say(text: str) -> None:
        print(text, flush=True)

    from bot.script import SourceError
    from bot.store import StoreError

    kind = getattr(args, "store", "sqlite")
    processes = getattr(args, "processes", 1)
    refused = store_refusal(kind, processes)
    if refused is not None:
        raise SourceError(refused)
    try:
        res = asyncio.run(
            run_load(
                args.games,
                args.seconds,
                args.rate,
                path=args.db,
                seed=args.seed,
                progress=say,
                store=kind,
                processes=processes,
            )
        )
    except StoreError as failed:  # --db cannot be opened (or written): one line, exit 1
        raise SourceError(str(failed)) from None
    out = res.summary()
    out["machine"] = machine()
    say(
        f"{out['games']} games, {out['seconds']} s at a target of {out['target_rate']:g} "
        f"inputs/s: {out['inputs']} inputs ({out['accepted']} accepted, {out['refused']} refused"
        f", {out['skipped']} skipped: all games busy), {out['throughput_per_s']} inputs/s"
    )
    say(
        f"service latency: p50 {out['p50_ms']} ms, p90 {out['p90_ms']} ms, "
        f"p99 {out['p99_ms']} ms (target <= 250), max {out['max_ms']} ms; "
        f"choosing inputs {out['choose_mean_ms']} ms each; "
        f"CPU {out['cpu_percent']:g}% of one core; "
        f"{out['games_finished']} games finished"
    )
    say(
        f"memory (RSS): {out['rss_setup_mb']:g} MB after the setup, {out['rss_end_mb']:g} MB "
        f"at the end, peak {out['rss_peak_mb']:g} MB; store: {out['store']}"
    )
    for why, n in out["refusals"].items():
        say(f"refused {n}x: {why}")
    for e in out["errors"]:
        say(f"error: {e}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 1 if res.errors else 0


if __name__ == "__main__" and sys.argv[1:] == ["--child"]:
    asyncio.run(_child())
