"""Sealed inputs (DESIGN §2 "Secret and simultaneous inputs"): masking (16.1.2), the
bridge-building note (14.3.2), later the air missions (8.1.7).

A side's submission is an event, `sealed_submitted`, whose content the state keeps in
`GameState.sealed` and no other side's view shows (`engine.view`: a side sees only its own
sealed inputs; `visible_events` turns another side's into "soviet submitted a sealed
input"). Submissions belong to a *group* (e.g. one side's masks of one phase, one HQ's
bridge note, both sides' air missions of an Air Phase). A group is revealed -- one
`revealed` event listing every submission in it, in order -- when

- every side the group names in `must` has *completed* its part (`complete`, e.g. on its
  `done`), or
- the phase closes, for groups opened with `reveal="phase_end"` (the default), or
- the rule module says so (`reveal(...)`), for groups opened with `reveal="explicit"`
  (the bridge note is revealed when the bridge is finished or fails: 14.3.2).

After the `revealed` event each kind's reveal hook (`@on_reveal(kind)`) turns the
submissions into their effects, as ordinary public events (e.g. `mask_placed`). The rule
module may also rewrite a submission it holds sealed (`amend`: the bridge note keeps
whether the far bank stayed held); amendments are sealed like the submission. The full
(moderator) event log holds every content, so a replay rebuilds the state exactly; a
reveal cannot be undone (`engine.record.IRREVERSIBLE`).

The existence and timing of sealed events must never depend on secret content: a module
emits them on a player's input or unconditionally (docs/rulings.md K27).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

from engine.core import Ctx, Event, Rejected
from engine.state import GameState
from engine.wb95 import flow
from engine.wb95.reducer import on

Reveal = Literal["phase_end", "explicit"]
RevealHook = Callable[[Ctx, list[dict[str, Any]]], None]
REVEAL_HOOKS: dict[str, RevealHook] = {}

# Event kinds whose content is sealed until the submission they belong to is revealed.


def on_reveal(kind: str) -> Callable[[RevealHook], RevealHook]:
    """Register what revealing submissions of `kind` does: called with the revealed items
    of that kind (`{"submission", "side", "kind", "item"}`, in submission order)."""

    def register(fn: RevealHook) -> RevealHook:
        if kind in REVEAL_HOOKS:
            raise RuntimeError(f"two reveal hooks for '{kind}'")
        REVEAL_HOOKS[kind] = fn
        return fn

    return register


def submit(
    ctx: Ctx,
    side: str,
    kind: str,
    item: dict[str, Any],
    *,
    group: str,
    must: Iterable[str] = (),
    reveal: Reveal = "phase_end",
) -> int:
    """Hold `item` (JSON-plain) sealed for `side`; returns the submission number (the seq
    of its event). `must` and `reveal` are taken when the group is opened by its first
    submission."""
    g = ctx.state.sealed_groups.get(group)
    if g is not None and side in g["complete"]:
        raise Rejected(f"{side} has already completed its sealed input for this phase")
    ev = ctx.emit(
        "sealed_submitted",
        side=side,
        sealed_kind=kind,
        group=group,
        item=item,
        must=sorted(must),
        reveal=reveal,
    )
    _maybe_reveal(ctx, group)
    return ev.seq


def amend(ctx: Ctx, submission: int, item: dict[str, Any]) -> None:
    """Rewrite the content of a submission still sealed."""
    entry = find(ctx.state, submission)
    if entry is None:
        raise ValueError(f"no sealed submission {submission}")
    ctx.emit("sealed_amended", side=entry["side"], submission=submission, item=item)


def complete(ctx: Ctx, side: str, group: str) -> None:
    """`side` has finished its part of `group` (e.g. it said `done`); when every side the
    group must hear from has, it is revealed."""
    g = ctx.state.sealed_groups.get(group)
    if g is None or side in g["complete"]:
        return
    ctx.emit("sealed_completed", side=side, group=group)
    _maybe_reveal(ctx, group)


def _maybe_reveal(ctx: Ctx, group: str) -> None:
    g = ctx.state.sealed_groups.get(group)
    if g is not None and g["must"] and all(s in g["complete"] for s in g["must"]):
        reveal(ctx, group, "every side has submitted")


def reveal(ctx: Ctx, group: str, reason: str) -> list[dict[str, Any]]:
    """Reveal every submission of `group` together; returns them."""
    items = [dict(x) for x in ctx.state.sealed if x["group"] == group]
    if group not in ctx.state.sealed_groups and not items:
        return []
    ctx.emit("revealed", group=group, reason=reason, items=items)
    kinds: dict[str, list[dict[str, Any]]] = {}
    for x in items:
        kinds.setdefault(x["kind"], []).append(x)
    for kind, xs in kinds.items():
        hook = REVEAL_HOOKS.get(kind)
        if hook is not None:
            hook(ctx, xs)
    return items


def items(
    state: GameState,
    *,
    side: str | None = None,
    kind: str | None = None,
    group: str | None = None,
) -> list[dict[str, Any]]:
    """The sealed submissions held now, filtered."""
    return [
        x
        for x in state.sealed
        if (side is None or x["side"] == side)
        and (kind is None or x["kind"] == kind)
        and (group is None or x["group"] == group)
    ]


def find(state: GameState, submission: int) -> dict[str, Any] | None:
    for x in state.sealed:
        if x["submission"] == submission:
            return x
    return None


@flow.at_phase_end
def _phase_end(ctx: Ctx) -> None:
    """DESIGN §2: what is still sealed when its phase closes is revealed together."""
    for group, g in sorted(ctx.state.sealed_groups.items()):
        if g["reveal"] == "phase_end":
            reveal(ctx, group, "the phase has closed")


# --- reducers ------------------------------------------------------------------------------


@on("sealed_submitted")
def _sealed_submitted(state: GameState, e: Event) -> None:
    group = str(e.data["group"])
    state.sealed_groups.setdefault(
        group,
        {"must": list(e.data["must"]), "complete": [], "reveal": str(e.data["reveal"])},
    )
    state.sealed.append(
        {
            "submission": e.seq,
            "side": e.data["side"],
            "kind": e.data["sealed_kind"],
            "group": group,
            "item": dict(e.data["item"]),
        }
    )


@on("sealed_amended")
def _sealed_amended(state: GameState, e: Event) -> None:
    entry = find(state, int(e.data["submission"]))
    if entry is not None:
        entry["item"] = dict(e.data["item"])


@on("sealed_completed")
def _sealed_completed(state: GameState, e: Event) -> None:
    g = state.sealed_groups.get(str(e.data["group"]))
    if g is not None and e.data["side"] not in g["complete"]:
        g["complete"].append(str(e.data["side"]))


@on("revealed")
def _revealed(state: GameState, e: Event) -> None:
    group = str(e.data["group"])
    state.sealed = [x for x in state.sealed if x["group"] != group]
    state.sealed_groups.pop(group, None)
