"""`kessel bench`: one table of timings against the targets of issue #9, and a JSON file.

Each benchmark is a function in `BENCHES`: it takes the run's settings and returns rows
(`Row`: a name, a figure in ms, the target in ms or None, a note). Later benchmarks
(event append and game load from SQLite, service latency under load) plug in by appending
a function to `BENCHES`; nothing else changes. Benchmarks are never timed unit tests.
"""

from __future__ import annotations

import json
import platform
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine import orders as o
from engine import systems
from engine.model import Setup
from engine.record import GameRecord
from engine.state import GameState
from engine.system import RuleSystem
from scenarios import load_scenario


@dataclass(frozen=True)
class Settings:
    scenario: str = "korsun-1944"
    repeat: int = 5  # timings are the median of this many runs
    quick: bool = False


@dataclass(frozen=True)
class Row:
    name: str
    ms: float
    target_ms: float | None = None
    note: str = ""

    @property
    def ok(self) -> bool | None:
        return None if self.target_ms is None else self.ms <= self.target_ms


def median_ms(fn: Callable[[], object], n: int) -> float:
    """The median CPU time of `n` calls, in ms: the process's CPU time, not the wall
    clock, so that other work on a shared machine does not inflate the figure."""
    times = []
    for _ in range(max(1, n)):
        t = time.process_time()
        fn()
        times.append((time.process_time() - t) * 1000)
    return statistics.median(times)


@lru_cache(maxsize=4)
def setup_of(scenario: str) -> Setup:
    """Loading the Korsun map takes a second: once per run."""
    return load_scenario(scenario)


def movement_position(scenario: str) -> tuple[GameState, str]:
    """The scenario's first Movement Phase: everyone says `done` until one side moves."""
    rec = GameRecord(setup_of(scenario), 0)
    rules = rec.system
    for _ in range(200):
        state = rec.state
        if rules.phase(state).kind == "movement" and not state.pending:
            return state, rules.awaited_sides(state)[0]
        side = rules.awaited_sides(state)[0]
        rec.submit(side, o.Done())
    raise RuntimeError(f"{scenario}: no Movement Phase reached")


def cold_caches(rules: RuleSystem) -> None:
    """Forget the memoized hex arithmetic and the system's own memos (WB-95: step costs
    and ZoC hexes), to time a first call as after loading a game."""
    from engine.hexgrid import _neighbours, _to_cube, parse_hex

    rules.clear_caches()
    for f in (_neighbours, _to_cube, parse_hex):
        f.cache_clear()


def cold_ms(fn: Callable[[], object], rules: RuleSystem) -> float:
    cold_caches(rules)
    t = time.process_time()
    fn()
    return (time.process_time() - t) * 1000


def bench_legal_moves(s: Settings) -> list[Row]:
    state, side = movement_position(s.scenario)
    rules = systems.of(state)
    legal_moves = rules.legal_moves
    units = [u.id for u in state.on_map(side) if legal_moves(state, u.id)]
    cold = cold_ms(lambda: [legal_moves(state, uid) for uid in units], rules)
    per_unit = [median_ms(lambda uid=uid: legal_moves(state, uid), s.repeat) for uid in units]  # type: ignore[misc]
    whole = median_ms(lambda: [legal_moves(state, uid) for uid in units], s.repeat)
    return [
        Row(
            "legal moves, one unit (median)",
            statistics.median(per_unit),
            2.0,
            f"{side}, {len(units)} units; slowest {max(per_unit):.1f} ms",
        ),
        Row(
            "legal moves, whole side",
            whole,
            None,
            f"{side}, {len(units)} units; first call {cold:.0f} ms (caches cold)",
        ),
    ]


def bench_supply(s: Settings) -> list[Row]:
    """The system's own hot paths (`RuleSystem.hot_paths`; WB-95: each side's supply
    trace) on the opening position."""
    state = GameRecord(setup_of(s.scenario), 0).state
    rules = systems.of(state)
    rows = []
    for name, (fn, target) in rules.hot_paths(state).items():
        cold = cold_ms(fn, rules)
        ms = median_ms(fn, s.repeat)
        note = f"{len(state.on_map())} units on the map; first call {cold:.0f} ms (caches cold)"
        rows.append(Row(name, ms, target, note))
    return rows


def bench_full_turn(s: Settings) -> list[Row]:
    """One game turn played by the fuzz players: only their choices and the engine's
    judging are timed (the fuzzer's invariant checks are not)."""
    from bot.fuzz import RandomPlayer

    rec = GameRecord(setup_of(s.scenario), 1)
    player = RandomPlayer()
    rng = random.Random(1)
    start = rec.state.turn
    inputs = 0
    engine = judging = 0.0
    while rec.state.turn == start and not rec.state.over and inputs < 5000:
        t = time.process_time()
        side = rng.choice(rec.system.awaited_sides(rec.state))
        order = player.choose(rec.state, side, rng) or o.Done()
        t2 = time.process_time()
        rec.submit(side, order)
        engine += time.process_time() - t
        judging += time.process_time() - t2
        inputs += 1
    accepted = len(rec.entries)
    return [
        Row(
            "one full turn, fuzz players",
            engine * 1000,
            1000.0,
            f"turn {start}: {inputs} inputs ({accepted} accepted), "
            f"{engine * 1000 / max(1, inputs):.1f} ms/input; judging {judging * 1000:.0f} ms, "
            f"choosing (legal listings) {(engine - judging) * 1000:.0f} ms",
        )
    ]


def bench_render(s: Settings) -> list[Row]:
    from render.bench import measure

    m = measure(s.scenario, n=s.repeat)
    return [
        Row(
            "full-map render + PNG",
            m["full_ms"],
            400.0,
            f"{m['full_kib']:.0f} KiB; cold {m['full_cold_ms']:.0f} ms",
        ),
        Row("crop render + PNG", m["crop_ms"], 150.0, f"{m['crop_kib']:.0f} KiB"),
    ]


def bench_store(s: Settings) -> list[Row]:
    """Event append and loading a 25-turn game (with snapshots) from SQLite (bot/load.py)."""
    from bot.load import bench_store_rows

    return bench_store_rows(s)


def bench_service(s: Settings) -> list[Row]:
    """Service latency under load: 200 demo games at 20 inputs/s (bot/load.py)."""
    from bot.load import bench_service_rows

    return bench_service_rows(s)


def child_cpu_ms(argv: list[str], n: int) -> float:
    """The median CPU time (user + system) of `n` runs of a command, in ms: the children's
    rusage, so that a loaded machine does not inflate it as a wall clock would."""
    import resource
    import subprocess

    times = []
    for _ in range(max(1, n)):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
    return statistics.median(times)


def bench_startup(s: Settings) -> list[Row]:
    """`kessel --help` against the bare interpreter (issue #13: at most about 3x)."""
    import sys

    script = Path(sys.executable).parent / "kessel"
    kessel = [str(script)] if script.exists() else [sys.executable, "-m", "bot.cli"]
    n = 5 if s.quick else 21
    bare = child_cpu_ms([sys.executable, "-c", "pass"], n)
    help_ms = child_cpu_ms([*kessel, "--help"], n)
    scen_ms = child_cpu_ms([*kessel, "scenarios"], n)
    return [
        Row(
            "kessel --help start-up",
            help_ms,
            3 * bare,
            f"CPU; {help_ms / bare:.1f}x the bare interpreter ({bare:.0f} ms); "
            f"`kessel scenarios` {scen_ms:.0f} ms",
        )
    ]


# The hook: storage and service benchmarks are bench_store and bench_service above.
BENCHES: list[Callable[[Settings], list[Row]]] = [
    bench_startup,
    bench_legal_moves,
    bench_supply,
    bench_full_turn,
    bench_render,
    bench_store,
    bench_service,
]


def run(s: Settings) -> list[Row]:
    rows: list[Row] = []
    for fn in BENCHES:
        rows.extend(fn(s))
    return rows


def table(rows: list[Row]) -> list[str]:
    out = [f"{'benchmark':38} {'ms':>9} {'target':>9}  ok   note"]
    for r in rows:
        target = "" if r.target_ms is None else f"<= {r.target_ms:g}"
        ok = "" if r.ok is None else ("yes" if r.ok else "NO")
        out.append(f"{r.name:38} {r.ms:9.1f} {target:>9}  {ok:4} {r.note}")
    return out


def machine() -> dict[str, Any]:
    import os

    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "system": platform.platform(),
    }


def main(args: Any) -> int:
    """`kessel bench [SCENARIO] [--json FILE] [--quick]`."""
    s = Settings(args.scenario, 1 if args.quick else 5, args.quick)
    rows = run(s)
    print(f"{s.scenario}, median of {s.repeat} ({machine()['python']}, {machine()['cpus']} CPUs)")
    print("\n".join(table(rows)))
    if args.json:
        data = {
            "scenario": s.scenario,
            "repeat": s.repeat,
            "machine": machine(),
            "rows": [{**asdict(r), "ok": r.ok} for r in rows],
        }
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0
