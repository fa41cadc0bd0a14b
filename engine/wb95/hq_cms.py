"""9.1.6-9.1.7 The CMs a side gains when it eliminates an enemy HQ (R17).

Each HQ loss gives its enemy 5 CMs, usable -- all in one combat or spread over several --
in the next two Combat Phases after the one in which the HQ fell, in combats whose
defending hex is within 8 hexes of the hex where it fell (R18: hex distance).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core import Ctx, Event
from engine.hexgrid import HexId
from engine.state import GameState
from engine.wb95.reducer import on
from engine.wb95.sequence import PHASES

HQ_LOSS_CMS = 5  # 9.1.6
HQ_LOSS_RANGE = 8  # 9.1.7
COMBAT_PHASES = tuple(i for i, p in enumerate(PHASES) if p.kind == "combat")


def _window(loss: dict[str, Any]) -> list[tuple[int, int]]:
    """The two Combat Phases (turn, phase index) after the one in which the HQ fell."""
    fell = (int(loss["turn"]), int(loss["phase"]))
    later = [
        (t, i) for t in (fell[0], fell[0] + 1, fell[0] + 2) for i in COMBAT_PHASES if (t, i) > fell
    ]
    return later[:2]


def _usable(state: GameState, side: str, hexes: Sequence[HexId]) -> list[int]:
    grid = state.setup.map.grid
    out = []
    for i, loss in enumerate(state.hq_losses):
        if loss["gainer"] != side or loss.get("hex") is None:
            continue
        if (state.turn, state.phase) not in _window(loss):
            continue
        if not any(grid.distance(loss["hex"], h) <= HQ_LOSS_RANGE for h in hexes):
            continue
        if HQ_LOSS_CMS - int(loss.get("spent", 0)) > 0:
            out.append(i)
    return out


def available(state: GameState, side: str, hexes: Sequence[HexId]) -> int:
    return sum(
        HQ_LOSS_CMS - int(state.hq_losses[i].get("spent", 0)) for i in _usable(state, side, hexes)
    )


def spend(ctx: Ctx, side: str, cms: int, hexes: Sequence[HexId]) -> None:
    """Take `cms` from the oldest usable HQ losses first (checked against `available`)."""
    left = cms
    for i in _usable(ctx.state, side, hexes):
        if left <= 0:
            break
        have = HQ_LOSS_CMS - int(ctx.state.hq_losses[i].get("spent", 0))
        take = min(have, left)
        ctx.emit("hq_cms_spent", side=side, loss=i, cms=take, rule="9.1.6", ruling="R17")
        left -= take


@on("hq_cms_spent")
def _hq_cms_spent(state: GameState, e: Event) -> None:
    loss = state.hq_losses[int(e.data["loss"])]
    loss["spent"] = int(loss.get("spent", 0)) + int(e.data["cms"])
