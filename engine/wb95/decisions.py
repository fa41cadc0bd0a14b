"""DESIGN §4, K101: a decision with exactly one legal answer is taken automatically and logged.

One helper for every kind (issue #16): `only_answer` counts a pending decision's legal
answers -- as far as two -- from its options, and `take_forced` answers, after every input,
each open decision that has one answer only, as its side would (the answer's own handler,
so the events are the same as if it were typed), with a `decision_automatic` event first
saying so. Kinds with an answer that is always open (`pass` a pursuit or a defence, no
repair, a retreat not made) never have one answer only.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations_with_replacement
from typing import Any

from engine import orders as o
from engine.core import Ctx, Event
from engine.notation import format_order
from engine.state import Decision, GameState
from engine.wb95.reducer import on

Answer = Callable[[Ctx, str, Any], None]


def _loss_picks(options: dict[str, Any], limit: int = 2) -> list[tuple[str, ...]]:
    """The distinct legal answers of a `losses` decision (5.1.8, 15.1.7), up to `limit`:
    `count` CELs from `units` (each at most its CELs), at least one from `must_include`."""
    units: dict[str, int] = options["units"]
    count = int(options["count"])
    must = set(options.get("must_include") or ())
    if count > sum(units.values()) or count < 1 or len(units) > 40:
        return []  # not a position a loss decision is opened in; leave it to the player
    out: list[tuple[str, ...]] = []
    for pick in combinations_with_replacement(sorted(units), count):
        if any(pick.count(u) > n for u, n in units.items()):
            continue
        if must and not must & set(pick):
            continue
        out.append(pick)
        if len(out) >= limit:
            break
    return out


def only_answer(state: GameState, d: Decision) -> o.Order | None:
    """The one legal answer of `d`, or None when there are several (or none)."""
    if d.kind == "losses":
        picks = _loss_picks(d.options)
        return o.Losses(units=picks[0]) if len(picks) == 1 else None
    return None


def take_forced(ctx: Ctx, handlers: dict[type[o.Order], Answer]) -> None:
    """Answer every open decision that has one legal answer (a bounded loop: an answer may
    open the next decision)."""
    for _ in range(50):
        found = next(
            ((d, a) for d in ctx.state.pending if (a := only_answer(ctx.state, d)) is not None),
            None,
        )
        if found is None:
            return
        d, answer = found
        ctx.emit(
            "decision_automatic",
            side=d.side,
            decision=d.kind,
            answer=format_order(answer),
            rule=d.rule,
            why="the only legal answer (DESIGN §4)",
        )
        handlers[type(answer)](ctx, d.side, answer)


@on("decision_automatic")
def _automatic(state: GameState, e: Event) -> None:
    """A record for the log: the answer's own events change the state."""
