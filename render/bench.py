"""`kessel bench`: time map snapshots of a scenario's opening position (issue 6 budgets:
full map render + PNG encode <= 400 ms, crop <= 150 ms, full-map PNG < 2 MB) and the
rule system's own hot paths (`RuleSystem.hot_paths`; WB-95: the Supply Phase's
line-of-supply trace of every unit of each side, issue 4: well under a second on the full
Korsun map). Times are CPU times of the process (`time.process_time`), so other work on a
shared machine does not inflate them."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from engine import systems
from engine.record import GameRecord
from render.snapshot import Around, snapshot, to_png
from render.terrain import clear_cache
from scenarios import load_scenario


def _time(fn: Callable[[], bytes], n: int) -> tuple[float, int]:
    times = []
    size = 0
    for _ in range(n):
        t = time.process_time()
        size = len(fn())
        times.append((time.process_time() - t) * 1000)
    return statistics.median(times), size


def _ms(fn: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        t = time.process_time()
        fn()
        times.append((time.process_time() - t) * 1000)
    return statistics.median(times)


def measure(
    scenario: str = "korsun-1944", around: str = "3211", radius: int = 4, n: int = 5
) -> dict[str, float]:
    """The render figures (medians of `n`, in ms and KiB) of `bench`, as data (bot/bench.py)."""
    setup = load_scenario(scenario)
    state = GameRecord(setup, 0, ()).state
    viewer = setup.side_names[0]
    clear_cache()
    t = time.process_time()
    to_png(snapshot(state, viewer))
    cold = (time.process_time() - t) * 1000
    full_ms, full_size = _time(lambda: to_png(snapshot(state, viewer)), n)
    crop = Around(around, radius)
    clear_cache()
    t = time.process_time()
    to_png(snapshot(state, viewer, crop=crop))
    crop_cold = (time.process_time() - t) * 1000
    crop_ms, crop_size = _time(lambda: to_png(snapshot(state, viewer, crop=crop)), n)
    return {
        "full_cold_ms": cold,
        "full_ms": full_ms,
        "full_kib": full_size / 1024,
        "crop_cold_ms": crop_cold,
        "crop_ms": crop_ms,
        "crop_kib": crop_size / 1024,
    }


def bench(
    scenario: str = "korsun-1944", around: str = "3211", radius: int = 4, n: int = 5
) -> list[str]:
    setup = load_scenario(scenario)
    state = GameRecord(setup, 0, ()).state
    viewer = setup.side_names[0]
    m = measure(scenario, around, radius, n)
    where = f"crop around {around} radius {radius}"
    supply_lines = []  # the system's own hot paths (WB-95: each side's supply trace)
    for name, (fn, _) in systems.of(setup).hot_paths(state).items():
        ms = _ms(fn, n)
        supply_lines.append(f"  {name}: {ms:7.1f} ms  (budget well under 1 s)")
    return [
        f"{scenario}, view {viewer}, median of {n}:",
        f"  full map, cold (terrain layer drawn): {m['full_cold_ms']:7.1f} ms",
        f"  full map render + PNG:  {m['full_ms']:7.1f} ms  {m['full_kib']:7.1f} KiB"
        "  (budget 400 ms, 2 MB)",
        f"  {where}, cold: {m['crop_cold_ms']:7.1f} ms",
        f"  {where} + PNG: {m['crop_ms']:7.1f} ms  {m['crop_kib']:7.1f} KiB  (budget 150 ms)",
        *supply_lines,
    ]
