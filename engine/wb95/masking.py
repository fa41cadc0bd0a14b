"""16.1.2 Unit masking.

A side may cover one of its stacks with a masking counter, so that even the top counter
is hidden (16.1.1 shows only the top counter of an enemy stack; K12). `mask HEX on|off` is
given in the side's own Movement or Strategic Movement Phase for a hex holding its units
(docs/rulings.md K28). It is a sealed input (DESIGN §2, `engine.wb95.sealed`, K27): until
the phase closes the enemy sees the stack as before; then the side's masking orders of
that phase are revealed together and take effect (`mask_placed`, `mask_removed`, the last
order for a hex winning).

A mask covers the side's units in the hex, those that join later too, and is lifted at
the end of a phase that left the hex without a unit of the side. What a masked stack
still shows -- types and CELs next to enemy units (16.1.4), counters that fought in the
current Combat Phase (16.1.3) -- is decided in `engine.view` (K28).
"""

from __future__ import annotations

from typing import Any

from engine import orders as o
from engine.core import Ctx, Event, Rejected
from engine.hexgrid import HexId, HexIdError, normalize
from engine.state import GameState
from engine.wb95 import flow, sealed
from engine.wb95.dispatch import handles
from engine.wb95.reducer import on

KIND = "mask"
MASK_PHASES = ("movement", "strategic")


def masked_by(state: GameState, h: HexId) -> str | None:
    """The side whose revealed mask covers its units in `h`, or None."""
    side = state.masks.get(h)
    if side is None or not any(u.side == side for u in state.units_at(h)):
        return None
    return side


def group(state: GameState, side: str) -> str:
    """The sealed group of `side`'s masking orders of the current phase."""
    return f"{KIND}:{side}:{state.turn}:{state.phase}"


def will_be_masked(state: GameState, side: str, h: HexId) -> bool:
    """Whether `h` is masked for `side` once its sealed orders of this phase are revealed."""
    now = state.masks.get(h) == side
    for x in sealed.items(state, side=side, kind=KIND, group=group(state, side)):
        if x["item"]["hex"] == h:
            now = bool(x["item"]["on"])
    return now


@handles(o.Mask)
def do_mask(ctx: Ctx, side: str, order: o.Mask) -> None:
    """Put a mask on, or take it off, one of the side's stacks: sealed until the phase
    closes (16.1.2, K27, K28)."""
    state = ctx.state
    if flow.current_phase(state).kind not in MASK_PHASES:
        raise Rejected(
            "stacks are masked or unmasked in their side's Movement or Strategic Movement "
            f"Phase; it is {flow.phase_title(state)}",
            "16.1.2",
            "K28",
        )
    try:
        h = normalize(order.hex)
    except HexIdError as e:
        raise Rejected(str(e)) from None
    m = state.setup.map
    if not m.grid.contains(h):
        raise Rejected(f"{h} is not on the map", "1.1")
    mine = [u for u in state.units_at(h) if u.side == side]
    masked = will_be_masked(state, side, h)
    if order.on:
        if not mine:
            raise Rejected(f"there is no unit of yours at {m.label(h)} to mask", "16.1.2")
        if masked:
            raise Rejected(f"your stack at {m.label(h)} is already masked", "16.1.2")
    elif not masked:
        raise Rejected(f"your stack at {m.label(h)} is not masked", "16.1.2")
    sealed.submit(ctx, side, KIND, {"hex": h, "on": order.on}, group=group(state, side))


@sealed.on_reveal(KIND)
def _reveal(ctx: Ctx, items: list[dict[str, Any]]) -> None:
    """The masking orders of a phase take effect together; the last for a hex wins. A mask
    for a hex its side has left meanwhile is void."""
    final: dict[tuple[str, HexId], bool] = {}
    for x in items:
        final[(str(x["side"]), str(x["item"]["hex"]))] = bool(x["item"]["on"])
    for (side, h), on_ in sorted(final.items()):
        now = ctx.state.masks.get(h) == side
        here = any(u.side == side for u in ctx.state.units_at(h))
        if on_ and not now and here:
            ctx.emit("mask_placed", side=side, hex=h, rule="16.1.2")
        elif not on_ and now:
            ctx.emit("mask_removed", side=side, hex=h, reason="taken off", rule="16.1.2")


@flow.at_phase_end
def _lift_empty(ctx: Ctx) -> None:
    """K28: a mask on a hex its side has left is lifted as the phase ends."""
    for h, side in sorted(ctx.state.masks.items()):
        if not any(u.side == side for u in ctx.state.units_at(h)):
            ctx.emit(
                "mask_removed",
                side=side,
                hex=h,
                reason="no unit of the side is left in the hex",
                rule="16.1.2",
            )


@on("mask_placed")
def _mask_placed(state: GameState, e: Event) -> None:
    state.masks[str(e.data["hex"])] = str(e.data["side"])


@on("mask_removed")
def _mask_removed(state: GameState, e: Event) -> None:
    if state.masks.get(str(e.data["hex"])) == e.data["side"]:
        del state.masks[str(e.data["hex"])]
