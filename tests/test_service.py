"""The referee service (issue #7): games, seats, orders, permissions, undo, idempotency,
history per viewer, moderator tools, deadlines, export/import and restarts."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.script import run_script
from bot.service import Caller, Referee, Refusal, Reply
from scenarios import load_scenario

ALICE = Caller("u-alice", "Alice", guild="g1", channel="c1")
BOB = Caller("u-bob", "Bob", guild="g1", channel="c1")
CAROL = Caller("u-carol", "Carol", guild="g1", channel="c1")
MOD = Caller("u-mod", "Mo", server_mod=True, guild="g1", channel="c1")


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def ref(store_url: str, clock: Clock) -> Referee:
    """The referee on each backend (issue #21): an SQLite file, a PostgreSQL database."""
    r = await Referee.open(store_url, clock=clock, opponents=None)
    yield r  # type: ignore[misc]
    await r.close()


async def _game(ref: Referee, scenario: str = "demo-steblev", seed: int = 3) -> str:
    out = await ref.new_game(ALICE, scenario, seed=seed, side="soviet")
    gid = out[0].game
    assert gid is not None
    await ref.join(BOB, gid, "german")
    return gid


def _texts(replies: list[Reply], to: str | None = None) -> str:
    return "\n".join(r.text for r in replies if to is None or r.to == to)


async def test_create_join_and_start_when_seats_are_filled(ref: Referee) -> None:
    out = await ref.new_game(ALICE, "demo-steblev", seed=3, side="soviet")
    gid = out[0].game
    assert gid is not None
    g = await ref.game(gid)
    assert g.status == "open"
    with pytest.raises(Refusal, match="not started"):
        await ref.orders(ALICE, gid, "done")
    out = await ref.join(BOB, gid, "german")
    assert g.status == "active"
    # the side to act is pinged, privately
    turn = [r for r in out if r.to == "side" and r.side == "soviet"]
    assert turn and turn[0].mention == ("u-alice",)
    listed = await ref.games(ALICE)
    assert [x["id"] for x in listed] == [gid]
    assert listed[0]["awaiting"] == ["soviet"]


async def test_two_games_in_parallel_and_a_player_in_both(ref: Referee) -> None:
    import asyncio

    from engine.orders import Done

    g1 = await _game(ref)
    g2 = await _game(ref, "demo-steblev", seed=9)
    assert g1 != g2
    mine = await ref.games(BOB, mine=True)
    assert {x["id"] for x in mine} == {g1, g2}
    # both games take inputs at the same time; each keeps its own log and position
    await asyncio.gather(ref.orders(ALICE, g1, "done"), ref.order(ALICE, g2, Done()))
    a, b = await ref.game(g1), await ref.game(g2)
    assert a.state.phase == b.state.phase and a.awaited() == b.awaited()
    assert a.row.seed != b.row.seed
    assert [r.body["line"] for r in await ref.store.log(g1) if r.kind == "input"] == ["done"]
    assert [r.body["line"] for r in await ref.store.log(g2) if r.kind == "input"] == ["done"]


async def test_permissions_other_side_spectator_and_moderator_tools(ref: Referee) -> None:
    gid = await _game(ref)
    with pytest.raises(Refusal, match="you play german, not soviet"):
        await ref.orders(BOB, gid, "soviet: done")
    with pytest.raises(Refusal, match="german cannot give orders now"):
        await ref.orders(BOB, gid, "done")
    await ref.join(CAROL, gid, "spectator")
    with pytest.raises(Refusal, match="spectators cannot give orders"):
        await ref.orders(CAROL, gid, "done")
    with pytest.raises(Refusal, match="only the game's moderators"):
        await ref.mod(BOB, gid, "pause")
    with pytest.raises(Refusal, match="hold no seat"):
        await ref.orders(Caller("u-x", "X", guild="g1", channel="c1"), gid, "done")


async def test_bad_input_changes_nothing_and_explains(ref: Referee) -> None:
    gid = await _game(ref)
    g = await ref.game(gid)
    head, seq = g.head, g.state.seq
    with pytest.raises(Refusal, match="no game 'zzzz'"):
        await ref.orders(ALICE, "zzzz", "done")
    with pytest.raises(Refusal, match="line 1"):
        await ref.orders(ALICE, gid, "frobnicate s-180")
    dest = sorted((await ref.legal(ALICE, gid))["moves"]["s-180"])[0]
    with pytest.raises(Refusal, match=r"line 2.*Nothing of this block was applied"):
        await ref.orders(ALICE, gid, f"move s-180 {dest}\nmove s-180 6464")
    assert (g.head, g.state.seq) == (head, seq)
    assert (await ref.store.log(gid))[-1].seq == head


async def test_a_block_of_orders_applies_in_order(ref: Referee) -> None:
    gid = await _game(ref)
    g = await ref.game(gid)
    dest = sorted((await ref.legal(ALICE, gid))["moves"]["s-180"])[0]
    out = await ref.orders(ALICE, gid, f"# my turn\nmove s-180 {dest}\ndone")
    assert "✔ soviet: move s-180" in _texts(out, "caller")
    assert g.state.units["s-180"].hex == dest
    assert "soviet" not in g.awaited() or g.state.phase != 0


async def test_idempotency_key_applies_once_and_stale_keys_are_refused(ref: Referee) -> None:
    gid = await _game(ref)
    g = await ref.game(gid)
    first = await ref.orders(ALICE, gid, "done", key="i-1")
    head = g.head
    again = await ref.orders(ALICE, gid, "done", key="i-1")
    assert [r.text for r in again] == [r.text for r in first[: len(again)]]
    assert g.head == head
    with pytest.raises(Refusal, match="already used for a different request"):
        await ref.orders(ALICE, gid, "move s-180 0306", key="i-1")
    with pytest.raises(Refusal, match="moved on"):
        await ref.orders(ALICE, gid, "done", expect=0)


async def test_undo_own_last_input_only(ref: Referee) -> None:
    gid = await _game(ref)
    g = await ref.game(gid)
    dest = sorted((await ref.legal(ALICE, gid))["moves"]["s-180"])[0]
    start = g.state.units["s-180"].hex
    await ref.orders(ALICE, gid, f"move s-180 {dest}")
    with pytest.raises(Refusal, match="only your own"):
        await ref.undo(BOB, gid)
    await ref.undo(ALICE, gid)
    assert g.state.units["s-180"].hex == start
    with pytest.raises(Refusal, match="nothing to undo"):
        await ref.undo(ALICE, gid)


async def test_restart_continues_exactly_where_it_was(store_url: str, clock: Clock) -> None:
    db = store_url
    ref = await Referee.open(db, clock=clock, opponents=None, snapshot_every=3)
    gid = await _game(ref)
    legal = await ref.legal(ALICE, gid)
    dest = sorted(legal["moves"]["s-180"])[0]
    await ref.orders(ALICE, gid, f"move s-180 {dest}")
    await ref.orders(ALICE, gid, "done")
    before = (await ref.game(gid)).state.snapshot()
    head = (await ref.game(gid)).head
    await ref.close()
    ref2 = await Referee.open(db, clock=clock, opponents=None)
    g = await ref2.game(gid)
    assert g.state.snapshot() == before
    assert g.head == head
    assert g.status == "active"
    out = await ref2.status(BOB, gid)
    assert "Awaiting" in out[0].text
    await ref2.close()


async def test_snapshot_and_full_replay_give_the_same_state(store_url: str, clock: Clock) -> None:
    db = store_url
    ref = await Referee.open(db, clock=clock, opponents=None, snapshot_every=1)
    gid = await _game(ref)
    await ref.orders(ALICE, gid, "done")
    await ref.orders(ALICE, gid, "done")
    want = (await ref.game(gid)).state.snapshot()
    assert await ref.store.snapshot(gid) is not None
    await ref.close()
    ref2 = await Referee.open(db, clock=clock, opponents=None)
    assert (await ref2.game(gid)).state.snapshot() == want
    await ref2.store._write([("DELETE FROM snapshots", ())])
    ref2.forget(gid)
    assert (await ref2.game(gid)).state.snapshot() == want
    await ref2.close()


async def test_history_is_per_viewer_and_since_last_turn(ref: Referee) -> None:
    gid = await _game(ref)
    dest = sorted((await ref.legal(ALICE, gid))["moves"]["s-180"])[0]
    await ref.orders(ALICE, gid, f"move s-180 {dest}\ndone")
    mine = _texts(await ref.history(ALICE, gid))
    theirs = _texts(await ref.history(BOB, gid))
    assert "s-180 moves" in mine
    g = await ref.game(gid)
    seen = {u.id for u in (await ref.view(BOB, gid)).units if u.known == "full" and u.id}
    if "s-180" not in seen:
        assert "s-180" not in theirs
        assert "a Soviet unit moves" in theirs
    since = _texts(await ref.history(ALICE, gid, since_last=True))
    assert "nothing new" in since or "Since your last turn" in since
    assert g.state.seq > 0


async def test_moderator_rollback_pause_resume_announce_and_edit(ref: Referee) -> None:
    gid = await _game(ref)
    g = await ref.game(gid)
    mark = g.state.seq
    start_hex = g.state.units["s-180"].hex
    dest = sorted((await ref.legal(ALICE, gid))["moves"]["s-180"])[0]
    await ref.orders(ALICE, gid, f"move s-180 {dest}\ndone")
    out = await ref.mod(MOD, gid, f"rollback {mark}")
    assert "rolled game" in _texts(out)
    assert g.state.units["s-180"].hex == start_hex
    assert g.state.seq == mark
    await ref.mod(MOD, gid, "pause")
    with pytest.raises(Refusal, match="paused"):
        await ref.orders(ALICE, gid, "done")
    await ref.mod(MOD, gid, "resume")
    out = await ref.mod(MOD, gid, "announce Turn 2 by Friday")
    assert out[0].to == "channel" and set(out[0].mention) == {"u-alice", "u-bob"}
    out = await ref.mod(MOD, gid, f"place s-180 {dest}")
    assert g.state.units["s-180"].hex == dest
    assert f"place s-180 {dest}" not in _texts(out, "channel")  # the raw command is private
    kinds = [r.kind for r in await ref.store.log(gid)]
    assert "rollback" in kinds and "announce" in kinds
    assert [r.actor for r in await ref.store.log(gid) if r.kind == "rollback"] == ["u-mod"]


async def test_moderator_answers_for_a_side_and_substitutes_a_player(ref: Referee) -> None:
    gid = await _game(ref)
    g = await ref.game(gid)
    out = await ref.mod(MOD, gid, "answer soviet done")
    assert g.state.seq > 0
    assert [r.side for r in out if "answered for you: done" in r.text] == ["soviet"]
    await ref.mod(MOD, gid, "substitute u-bob u-carol Carol")
    assert g.sides_of("u-carol") == ["german"]
    assert g.sides_of("u-bob") == []
    old = await ref.store.seats(gid, current=False)
    assert any(s.user_id == "u-bob" and s.left_seq is not None for s in old)


async def test_deadlines_remind_then_pause(ref: Referee, clock: Clock) -> None:
    gid = await _game(ref)
    await ref.mod(MOD, gid, "deadline 48")
    await ref.mod(MOD, gid, "policy pause")
    assert await ref.tick() == []
    clock.now += 25 * 3600
    out = await ref.tick()
    assert [r.kind for r in out] == ["reminder"] and out[0].side == "soviet"
    assert await ref.tick() == []  # once per mark
    clock.now += 24 * 3600
    out = await ref.tick()
    assert "paused" in _texts(out)
    assert (await ref.game(gid)).status == "paused"


async def test_deadline_pass_policy_moves_the_game_on(ref: Referee, clock: Clock) -> None:
    gid = await _game(ref)
    g = await ref.game(gid)
    await ref.mod(MOD, gid, "deadline 1")
    await ref.mod(MOD, gid, "policy pass")
    phase = g.state.phase
    clock.now += 3601
    out = await ref.tick()
    assert "passed" in _texts(out)
    assert g.state.phase != phase
    assert any(r.actor == "deadline" for r in await ref.store.log(gid))


async def test_extend_is_capped(ref: Referee, clock: Clock) -> None:
    gid = await _game(ref)
    await ref.mod(MOD, gid, "deadline 10")
    await ref.mod(MOD, gid, "set max_extensions 1")
    due = (await ref.store.deadline(gid))[1]  # type: ignore[index]
    await ref.mod(MOD, gid, "extend 5")
    assert (await ref.store.deadline(gid))[1] == due + 5 * 3600  # type: ignore[index]
    with pytest.raises(Refusal, match="all 1 extensions"):
        await ref.mod(MOD, gid, "extend 5")


async def test_export_replays_with_kessel_run_and_imports(ref: Referee) -> None:
    gid = await _game(ref)
    dest = sorted((await ref.legal(ALICE, gid))["moves"]["s-180"])[0]
    await ref.orders(ALICE, gid, f"move s-180 {dest}\ndone")
    with pytest.raises(Refusal, match="hidden information"):
        await ref.export(BOB, gid)
    text = await ref.export(MOD, gid)
    import yaml

    data = yaml.safe_load(text)
    res = run_script(load_scenario(data["scenario"]), data["orders"], data["seed"], data["dice"])
    assert res.rejected is None
    assert res.record.state.snapshot() == (await ref.game(gid)).state.snapshot()
    out = await ref.import_game(MOD, text)
    g2 = await ref.game(out[0].game or "")
    assert g2.state.snapshot() == res.record.state.snapshot()


async def test_an_export_names_its_data_and_is_not_replayed_on_other_data(
    ref: Referee, tmp_path: Path
) -> None:
    """Issue #19: an export carries the digest of the data it was played on; `kessel run`
    and an import refuse it on other data (another league's set, a changed map) in one
    sentence instead of replaying a different game."""
    import yaml

    from bot.script import SourceError, load_source
    from engine.digest import setup_digest

    gid = await _game(ref)
    await ref.orders(ALICE, gid, "done")
    data = yaml.safe_load(await ref.export(MOD, gid))
    assert data["data_digest"] == setup_digest(load_scenario(data["scenario"]))
    other = dict(data, data_digest="sha256:" + "0" * 64)
    path = tmp_path / "other.yaml"
    path.write_text(yaml.safe_dump(other), encoding="utf-8")
    src = load_source(str(path))  # kessel run: replayed, and said to be on other data
    assert "played on the data sha256:000000000000" in src.warning
    assert load_source(str(path)).orders == data["orders"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(dict(data, data_digest=7)), encoding="utf-8")
    with pytest.raises(SourceError, match="data_digest: must be the digest"):
        load_source(str(bad))
    before = len(await ref.games(MOD))
    with pytest.raises(Refusal, match="does not replay here: it was played on the data"):
        await ref.import_game(MOD, yaml.safe_dump(other))
    with pytest.raises(Refusal, match="data set 'ostfront', which this referee does not"):
        await ref.import_game(MOD, yaml.safe_dump(dict(data, data_set="ostfront")))
    assert len(await ref.games(MOD)) == before  # nothing was created
    del other["data_digest"]  # an export from before digests: replayed as it always was
    assert (await ref.import_game(MOD, yaml.safe_dump(other)))[0].game


async def test_resign_ends_the_game(ref: Referee) -> None:
    gid = await _game(ref)
    out = await ref.resign(BOB, gid)
    assert "soviet wins" in _texts(out)
    with pytest.raises(Refusal, match="over"):
        await ref.orders(ALICE, gid, "done")


async def test_sealed_air_missions_stay_hidden_until_revealed(ref: Referee) -> None:
    """8.1.7: air missions are sealed; the other side learns only that one was given; a
    second submission after the reveal is refused and changes nothing."""
    gid = await _game(ref)
    g = await ref.game(gid)
    await ref.orders(ALICE, gid, "done")  # to the Air Phase, both sides act
    assert set(g.awaited()) == {"soviet", "german"}
    out = await ref.orders(ALICE, gid, "air 2 attack 0305")
    assert all(r.to == "caller" and r.private for r in out if "0305" in r.text)
    bob_log = _texts(await ref.history(BOB, gid))
    assert "0305" not in bob_log
    assert "0305" not in _texts(await ref.status(BOB, gid))
    await ref.orders(ALICE, gid, "done")
    await ref.orders(BOB, gid, "done")
    assert "0305" in _texts(await ref.history(BOB, gid))  # revealed together
    head = g.head
    with pytest.raises(Refusal):
        await ref.orders(ALICE, gid, "air 2 attack 0305")
    assert g.head == head


async def test_built_in_opponent_plays_its_side(tmp_path: Path, clock: Clock) -> None:
    ref = await Referee.open(tmp_path / "k.db", clock=clock)  # the shipped opponent
    out = await ref.new_game(ALICE, "demo-steblev", seed=5, side="soviet")
    gid = out[0].game or ""
    await ref.seat_ai(ALICE, gid, "german")
    g = await ref.game(gid)
    assert g.status == "active"
    from engine.notation import format_order
    from engine.wb95.defaults import next_default

    for _ in range(40):  # Alice plays the defaults; the opponent does the rest by itself
        if g.state.over or g.status != "active" or g.state.turn >= 2:
            break
        assert "soviet" in g.awaited()
        order = next_default(g.state, "soviet")
        assert order is not None
        await ref.orders(ALICE, gid, format_order(order))
    log = [r for r in await ref.store.log(gid) if r.kind == "input"]
    assert "ai:german" in {r.actor for r in log}
    since = _texts(await ref.history(ALICE, gid, since_last=True))
    if log[-1].actor == "ai:german":  # what the opponent did after Alice's last input
        assert "nothing new" not in since
    assert g.state.turn >= 2 or g.state.over
    await ref.close()


async def test_a_co_moderator_gets_the_tools_and_unseat_takes_them_away(ref: Referee) -> None:
    gid = await _game(ref)
    with pytest.raises(Refusal, match="only the game's moderators"):
        await ref.mod(CAROL, gid, "pause")
    # Alice created the game but plays: appointing moderators is a referee's (roles.py)
    with pytest.raises(Refusal, match="belong to a moderator who plays no side"):
        await ref.mod(ALICE, gid, "moderator u-carol Carol")
    await ref.mod(MOD, gid, "moderator u-carol Carol")  # the server's moderator
    await ref.mod(CAROL, gid, "pause")
    assert (await ref.game(gid)).status == "paused"
    await ref.mod(MOD, gid, "unseat u-carol")
    with pytest.raises(Refusal, match="only the game's moderators"):
        await ref.mod(CAROL, gid, "resume")


async def test_a_new_or_imported_game_is_summarised_in_its_creating_transaction(
    ref: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #21: the games table says where a game stands from its first transaction on
    (no second write after creating it, which a crash could lose)."""
    written: list[str] = []

    async def set_summary(game_id: str, summary: object) -> None:
        written.append(game_id)

    monkeypatch.setattr(ref.store, "set_summary", set_summary)
    gid = await _game(ref)
    await ref.orders(ALICE, gid, "done")
    out = await ref.import_game(MOD, await ref.export(MOD, gid))
    for game in (out[0].game or "", gid):
        row = await ref.store.game(game)
        assert row is not None and row.summary is not None
        ref.forget(game)
        assert row.summary == (await ref.game(game)).summary()
    assert written == []
