"""`kessel bench`: time map snapshots of a scenario's opening position (issue 6 budgets:
full map render + PNG encode <= 400 ms, crop <= 150 ms, full-map PNG < 2 MB) and the
Supply Phase's line-of-supply trace of every unit of each side (issue 4: well under a
second on the full Korsun map)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from engine.record import GameRecord
from engine.wb95.supply import trace
from render.snapshot import Around, snapshot, to_png
from render.terrain import clear_cache
from scenarios import load_scenario


def _time(fn: Callable[[], bytes], n: int) -> tuple[float, int]:
    times = []
    size = 0
    for _ in range(n):
        t = time.perf_counter()
        size = len(fn())
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), size


def _ms(fn: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def bench(
    scenario: str = "korsun-1944", around: str = "3211", radius: int = 4, n: int = 5
) -> list[str]:
    setup = load_scenario(scenario)
    state = GameRecord(setup, 0, ()).state
    viewer = setup.side_names[0]
    clear_cache()
    t = time.perf_counter()
    full_png = to_png(snapshot(state, viewer))
    cold = (time.perf_counter() - t) * 1000
    full_ms, full_size = _time(lambda: to_png(snapshot(state, viewer)), n)
    crop = Around(around, radius)
    clear_cache()
    t = time.perf_counter()
    to_png(snapshot(state, viewer, crop=crop))
    crop_cold = (time.perf_counter() - t) * 1000
    crop_ms, crop_size = _time(lambda: to_png(snapshot(state, viewer, crop=crop)), n)
    del full_png
    where = f"crop around {around} radius {radius}"
    supply_lines = []
    for side in setup.side_names:
        units = len(state.on_map(side))
        ms = _ms(lambda side=side: trace(state, side), n)  # type: ignore[misc]
        supply_lines.append(
            f"  supply trace, {side} ({units} units): {ms:7.1f} ms  (budget well under 1 s)"
        )
    return [
        f"{scenario}, view {viewer}, median of {n}:",
        f"  full map, cold (terrain layer drawn): {cold:7.1f} ms",
        f"  full map render + PNG:  {full_ms:7.1f} ms  {full_size / 1024:7.1f} KiB"
        "  (budget 400 ms, 2 MB)",
        f"  {where}, cold: {crop_cold:7.1f} ms",
        f"  {where} + PNG: {crop_ms:7.1f} ms  {crop_size / 1024:7.1f} KiB  (budget 150 ms)",
        *supply_lines,
    ]
