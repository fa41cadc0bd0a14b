"""Sealed inputs (DESIGN §2, K27): held in the state, hidden from other viewers, revealed
together; the full event log still rebuilds the state."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import play, scenario

from engine.core import Ctx, Rejected
from engine.record import IRREVERSIBLE
from engine.view import view, visible_events
from engine.wb95 import sealed
from engine.wb95.game import replay
from engine.wb95.reducer import reduce

UNITS = [
    {"id": "s-a", "hex": "0203"},
    {"id": "s-b", "hex": "0205"},
    {"id": "g-a", "hex": "0805"},
]

SEEN: list[list[dict[str, Any]]] = []


@sealed.on_reveal("test-note")
def _seen(ctx: Ctx, items: list[dict[str, Any]]) -> None:
    SEEN.append(items)
    ctx.emit("phase_skipped", number=0, phase="test", reason="a reveal hook ran")


def replays(rec) -> bool:  # type: ignore[no-untyped-def]
    return bool(rec.rebuild().snapshot() == rec.state.snapshot())


def test_k27_a_sealed_input_is_seen_only_by_its_side_and_the_moderator() -> None:
    rec = play(scenario(UNITS), "mask 0203 on")
    ev = rec.events[-1]
    assert ev.kind == "sealed_submitted" and ev.data["item"] == {"hex": "0203", "on": True}
    assert rec.state.sealed and rec.state.sealed[0]["submission"] == ev.seq
    assert [x["item"] for x in view(rec.state, "soviet").sealed] == [{"hex": "0203", "on": True}]
    assert len(view(rec.state, "moderator").sealed) == 1
    assert view(rec.state, "german").sealed == () == view(rec.state, "spectator").sealed
    for viewer in ("german", "spectator"):
        seen = visible_events(rec.events, viewer)[-1]
        assert seen.seq == ev.seq and seen.kind == "sealed_submitted"
        assert seen.data == {
            "side": "soviet",
            "sealed": True,
            "note": "soviet submitted a sealed input",
        }
        assert "0203" not in repr(seen.to_json())
    assert visible_events(rec.events, "soviet")[-1] == ev
    assert visible_events(rec.events, "moderator") == rec.events
    assert replays(rec)


def test_k27_sealed_inputs_are_revealed_together_when_the_phase_closes() -> None:
    rec = play(scenario(UNITS), "mask 0203 on", "mask 0205 on", "done")
    kinds = [e.kind for e in rec.events]
    rev = next(e for e in rec.events if e.kind == "revealed")
    assert rev.data["reason"] == "the phase has closed"
    assert [x["item"]["hex"] for x in rev.data["items"]] == ["0203", "0205"]
    assert kinds.index("revealed") < kinds.index("mask_placed")
    assert rec.state.sealed == [] and rec.state.sealed_groups == {}
    # once revealed, the submissions are readable by everyone in the log
    german = visible_events(rec.events, "german")
    subs = [e for e in german if e.kind == "sealed_submitted"]
    assert [e.data["item"]["hex"] for e in subs] == ["0203", "0205"]
    assert "revealed" in IRREVERSIBLE
    assert replays(rec)


def test_k27_a_sealed_input_may_be_undone_before_the_reveal() -> None:
    rec = play(scenario(UNITS), "mask 0203 on")
    assert rec.undo("soviet") is not None
    assert rec.state.sealed == [] and rec.state.sealed_groups == {}
    assert replays(rec)


def test_k27_a_group_that_must_hear_from_every_side_opens_when_all_have_completed() -> None:
    """The general mechanism (for air missions 8.1.7): submissions of both sides, each
    side completes, the group is revealed once, with the hook run on the items."""
    rec = play(scenario(UNITS))
    ctx = Ctx(rec.state, reduce)
    SEEN.clear()
    both = ("soviet", "german")
    sealed.submit(ctx, "german", "test-note", {"n": 1}, group="g1", must=both, reveal="explicit")
    sealed.submit(ctx, "soviet", "test-note", {"n": 2}, group="g1", must=both, reveal="explicit")
    sealed.complete(ctx, "soviet", "g1")
    assert ctx.state.sealed_groups["g1"]["complete"] == ["soviet"]
    with pytest.raises(Rejected):
        sealed.submit(ctx, "soviet", "test-note", {"n": 3}, group="g1")
    sealed.complete(ctx, "soviet", "g1")  # a second completion changes nothing
    assert [e.kind for e in ctx.events].count("sealed_completed") == 1
    sub = ctx.events[0].seq
    sealed.amend(ctx, sub, {"n": 10})
    assert SEEN == []
    sealed.complete(ctx, "german", "g1")
    rev = [e for e in ctx.events if e.kind == "revealed"]
    assert len(rev) == 1 and rev[0].data["reason"] == "every side has submitted"
    assert [x["item"] for x in rev[0].data["items"]] == [{"n": 10}, {"n": 2}]
    assert [[x["item"]["n"] for x in xs] for xs in SEEN] == [[10, 2]]
    assert ctx.state.sealed == [] and ctx.state.sealed_groups == {}
    # what each side read before the reveal: its own in full, the other's as a note
    events = [*rec.events, *ctx.events]
    before = [e for e in events if e.seq < rev[0].seq]
    for_german = visible_events(before, "german")
    mine = [e for e in for_german if e.kind == "sealed_submitted" and not e.data.get("sealed")]
    assert [e.data["item"] for e in mine] == [{"n": 1}]
    amended = next(e for e in for_german if e.kind == "sealed_amended")
    assert amended.data["item"] == {"n": 10}  # its own amendment
    amended_s = next(e for e in visible_events(before, "soviet") if e.kind == "sealed_amended")
    assert amended_s.data == {
        "side": "german",
        "sealed": True,
        "note": "german's sealed input was brought up to date",
    }
    done = [e for e in visible_events(before, "german") if e.kind == "sealed_completed"]
    assert [e.data for e in done] == [
        {"side": "soviet", "sealed": True, "note": "soviet has completed its sealed input"},
        {"side": "german", "group": "g1"},
    ]
    # the moderator's full log rebuilds the state exactly
    rebuilt = replay(rec.setup, rec.seed, rec.dice, events)
    assert rebuilt.snapshot() == ctx.state.snapshot()


def test_k27_explicit_groups_wait_for_their_module() -> None:
    rec = play(scenario(UNITS))
    ctx = Ctx(rec.state, reduce)
    sealed.submit(ctx, "soviet", "test-note", {"n": 1}, group="later", reveal="explicit")
    sealed.submit(ctx, "soviet", "test-note", {"n": 2}, group="now")
    sealed._phase_end(ctx)
    assert [x["group"] for x in ctx.state.sealed] == ["later"]
    assert [x["item"]["n"] for x in sealed.reveal(ctx, "later", "done with it")] == [1]
    assert sealed.reveal(ctx, "later", "again") == []
    assert ctx.state.sealed == []
