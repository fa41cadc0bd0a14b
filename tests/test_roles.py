"""Issue #15 at the service: roles (bot/service/roles.py), scoping, joining and seats.

The six findings of the outside review, as regression tests: (1) a player who also
moderates sees only their side; (2) a game is out of reach from another server or
channel, and server rights count only in the game's own server; (3) nobody takes a second
side, and a started game's seats go through its moderators; (4) seats take mentions, no
user holds both sides, an unseat that empties a side pauses the game. (5, 6: the event
log's redaction, tests/test_redaction.py.)"""

from __future__ import annotations

import pytest

from bot.service import Caller, Referee, Refusal
from bot.service.roles import Role, role_of, viewer_of
from engine.view import MODERATOR, SPECTATOR

G, C = "111", "222"
ALICE = Caller("1001", "Alice", guild=G, channel=C)  # creates the game and plays soviet
BOB = Caller("1002", "Bob", guild=G, channel=C)
CAROL = Caller("1003", "Carol", guild=G, channel=C)
ADMIN = Caller("1004", "Admin", server_mod=True, guild=G, channel=C)  # Manage Server
OTHER_ADMIN = Caller("1005", "Eve", server_mod=True, guild="999", channel="998")
NEXT_DOOR = Caller("1003", "Carol", guild=G, channel="223")  # same server, other channel
DM = Caller("1001", "Alice", guild="", channel="")  # Alice from a direct message


@pytest.fixture
async def ref(store_url: str) -> Referee:
    r = await Referee.open(store_url, opponents=None)
    yield r  # type: ignore[misc]
    await r.close()


async def _game(ref: Referee) -> str:
    gid = (await ref.new_game(ALICE, "demo-steblev", seed=3, side="soviet"))[0].game
    assert gid is not None
    await ref.join(BOB, gid, "german")
    return gid


async def test_15_1_the_creator_who_plays_sees_only_their_side(ref: Referee) -> None:
    gid = await _game(ref)
    g = await ref.game(gid)
    assert role_of(g, ALICE) is Role.ORGANISER and viewer_of(g, ALICE) == "soviet"
    assert (await ref.status(ALICE, gid))[0].data["viewer"] == "soviet"
    assert (await ref.view(ALICE, gid)).viewer == "soviet"
    with pytest.raises(Refusal, match="only a moderator may look through another side"):
        await ref.view(ALICE, gid, as_viewer="german")
    with pytest.raises(Refusal, match="moderator who plays no side"):
        await ref.export(ALICE, gid)
    with pytest.raises(Refusal, match="belong to a moderator who plays no side"):
        await ref.mod(ALICE, gid, "place s-180 0208")
    await ref.mod(ALICE, gid, "pause")  # scheduling stays the organiser's
    await ref.mod(ALICE, gid, "resume")
    # the server's moderator sees everything, until they take a side
    assert viewer_of(g, ADMIN) == MODERATOR and "kessel: game-export" in await ref.export(
        ADMIN, gid
    )
    await ref.join(ADMIN, gid, "spectator")
    assert viewer_of(g, ADMIN) == MODERATOR
    await ref.mod(ADMIN, gid, f"seat german {ADMIN.id} Admin")
    assert viewer_of(await ref.game(gid), ADMIN) == "german"
    with pytest.raises(Refusal):
        await ref.export(ADMIN, gid)


async def test_15_2_a_game_is_out_of_reach_from_another_server_or_channel(
    ref: Referee,
) -> None:
    gid = await _game(ref)
    for stranger in (OTHER_ADMIN, NEXT_DOOR, Caller("1006", "Dan", guild="", channel="")):
        for call in (ref.status, ref.history, ref.export, ref.view):
            with pytest.raises(Refusal, match=r"there is no game .* here"):
                await call(stranger, gid)
        with pytest.raises(Refusal, match="there is no game"):
            await ref.mod(stranger, gid, "pause")
        with pytest.raises(Refusal, match="there is no game"):
            await ref.join(stranger, gid, "spectator")
        assert await ref.games(stranger) == [] and await ref.games(stranger, mine=True) == []
    # a player reaches their own game from a direct message, with their side's view only
    assert (await ref.status(DM, gid))[0].data["viewer"] == "soviet"
    assert [x["id"] for x in await ref.games(DM, mine=True)] == [gid]
    # server rights count in the game's own server only
    g = await ref.game(gid)
    assert role_of(g, OTHER_ADMIN) is Role.OUTSIDER
    assert role_of(g, Caller(ADMIN.id, "Admin", server_mod=True)) is Role.OUTSIDER  # from a DM


async def test_15_3_nobody_takes_a_second_side_and_started_games_seat_through_moderators(
    ref: Referee,
) -> None:
    gid = (await ref.new_game(ALICE, "demo-steblev", seed=3, side="soviet"))[0].game
    assert gid is not None
    with pytest.raises(Refusal, match="one person plays one side"):
        await ref.join(ALICE, gid, "german")
    await ref.join(BOB, gid, "german")  # the game starts
    with pytest.raises(Refusal, match="one person plays one side"):
        await ref.join(BOB, gid, "soviet")
    with pytest.raises(Refusal, match="has started and soviet has a player"):
        await ref.join(CAROL, gid, "soviet")
    await ref.mod(ADMIN, gid, f"unseat {BOB.id}")  # german is empty: the game waits
    g = await ref.game(gid)
    assert g.status == "paused" and not g.players("german")
    out = await ref.join(CAROL, gid, "german")  # asks; the moderators seat
    assert [r.to for r in out] == ["moderators", "caller"]
    assert f"seat german {CAROL.id}" in out[0].text and not g.players("german")
    await ref.mod(ADMIN, gid, f"seat german <@{CAROL.id}>")
    assert [p.display for p in g.players("german")] == [f"<@{CAROL.id}>"]
    await ref.mod(ADMIN, gid, "resume")
    await ref.mod(ADMIN, gid, f"unseat <@!{CAROL.id}>")
    await ref.mod(ADMIN, gid, "set late_join open")
    await ref.join(CAROL, gid, "german")  # open: an empty seat is taken at once
    assert [p.user_id for p in (await ref.game(gid)).players("german")] == [CAROL.id]


async def test_15_4_seats_take_mentions_and_no_user_holds_both_sides(ref: Referee) -> None:
    gid = await _game(ref)
    with pytest.raises(Refusal, match=r"already plays soviet .* one person plays one side"):
        await ref.mod(ADMIN, gid, f"seat german <@{ALICE.id}>")
    with pytest.raises(Refusal, match=r"already plays soviet .* one person plays one side"):
        await ref.mod(ADMIN, gid, f"substitute <@{BOB.id}> <@{ALICE.id}>")
    with pytest.raises(Refusal, match="is not a user"):
        await ref.mod(ADMIN, gid, "seat german <@>")
    await ref.mod(ADMIN, gid, f"substitute <@{BOB.id}> <@{CAROL.id}> Carol")
    g = await ref.game(gid)
    assert [(p.user_id, p.display) for p in g.players("german")] == [(CAROL.id, "Carol")]
    assert viewer_of(g, BOB) == SPECTATOR and viewer_of(g, CAROL) == "german"


async def test_15_hot_seat_is_the_only_place_one_person_holds_two_sides(ref: Referee) -> None:
    me = Caller("local:player", "Me", guild="local", channel="terminal")
    gid = (await ref.new_game(me, "demo-steblev", seed=3, side="soviet"))[0].game
    assert gid is not None
    await ref.join(me, gid, "german")
    g = await ref.game(gid)
    assert g.sides_of(me.id) == ["soviet", "german"] and viewer_of(g, me) == MODERATOR


async def test_17_mod_edit_is_a_position_edit_not_something_went_wrong(ref: Referee) -> None:
    """Issue #17: `/mod act edit ...` answered "something went wrong" (the word `edit`
    reached the edit helper as a service verb)."""
    gid = await _game(ref)
    out = await ref.mod(ADMIN, gid, "edit place s-180 0208")
    assert "s-180 hex 0207 -> 0208" in out[0].text
    with pytest.raises(Refusal, match="edit what"):
        await ref.mod(ADMIN, gid, "edit")
    assert (await ref.game(gid)).state.units["s-180"].hex == "0208"
