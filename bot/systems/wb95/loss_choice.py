"""Which CELs a built-in WB-95 opponent gives up (5.2.1 f), shared by the baseline and the
opponent of issue #23: both choose losses the same way."""

from __future__ import annotations

from typing import Any

from engine import orders as o
from engine.state import GameState


def spare_cels(state: GameState, options: dict[str, Any]) -> o.Losses:
    """5.2.1 f: the units that must pay first, then never the last CEL of a unit while
    another can pay; then the most CELs left and the fewest SPs per CEL."""
    can: dict[str, int] = dict(options["units"])
    count = int(options["count"])
    cel = {u: state.units[u].cel for u in can}
    picks: list[str] = []
    for u in options.get("must_include", []):
        if can.get(u, 0) > 0 and len(picks) < count:
            picks.append(u)
            can[u] -= 1
            cel[u] -= 1
    while len(picks) < count and any(n > 0 for n in can.values()):

        def cost(u: str) -> tuple[int, float, str]:
            spec = state.setup.units[u]
            per_cel = spec.sp / max(1, state.units[u].max_cel)
            return (1 if cel[u] <= 1 else 0, -cel[u] + per_cel, u)

        u = min((u for u, n in can.items() if n > 0), key=cost)
        picks.append(u)
        can[u] -= 1
        cel[u] -= 1
    return o.Losses(units=tuple(picks))
