"""Issue #17's Discord polish: the harness enforces Discord's limits (and the bot keeps
within them), /help and a description for every option, /move by path, private errors of
a public /map, decision answers paged, and /orders forms that survive a restart."""

from __future__ import annotations

import pytest
from discord import app_commands
from harness import (
    ALICE,
    BOB,
    CHANNEL,
    GUILD,
    DiscordLimitError,
    Harness,
    check_limits,
    h,
    texts,
)

__all__ = ["h"]  # the fixture

from bot.discord.notify import chunks, listing
from bot.discord.views import PAGE, page_text, page_view
from bot.service import Caller


async def _demo(h: Harness) -> str:
    await h.command(ALICE, "game new", scenario="demo-steblev", side="soviet", seed=3)
    await h.command(BOB, "game join", side="german")
    assert h.ref is not None
    games = await h.ref.games(
        Caller(str(ALICE.id), "Alice", guild=str(GUILD), channel=str(CHANNEL))
    )
    return str(games[0]["id"])


@pytest.mark.parametrize(
    "body",
    [
        {"content": "x" * 2001},
        {"embeds": [{"title": "t" * 257}]},
        {"embeds": [{"description": "d" * 4097}]},
        {"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]},
        {"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]},
        {"embeds": [{"footer": {"text": "f" * 2049}}]},
        {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]},
        {"embeds": [{"title": "t"}] * 11},
        {"components": [{"type": 1, "components": []}] * 6},
        {"components": [{"type": 1, "components": [{"type": 2, "custom_id": "a"}] * 6}]},
        {"components": [{"type": 1, "components": [{"type": 2, "custom_id": "a" * 101}]}]},
        {"components": [{"type": 1, "components": [{"type": 2, "label": "l" * 81}]}]},
        {"components": [{"type": 1, "components": [{"type": 3, "options": [{}] * 26}]}]},
        {"type": 9, "data": {"title": "t" * 46, "custom_id": "x", "components": []}},
        {"type": 8, "data": {"choices": [{"name": "n", "value": "v"}] * 26}},
        {"type": 8, "data": {"choices": [{"name": "n" * 101, "value": "v"}]}},
    ],
)
def test_the_harness_refuses_what_discord_refuses(body: dict[str, object]) -> None:
    with pytest.raises(DiscordLimitError):
        check_limits(body, "test")  # type: ignore[arg-type]
    check_limits({"content": "x" * 2000, "embeds": [{"title": "t"}]}, "test")


async def test_seats_with_seventy_spectators_fit_one_message(h: Harness) -> None:
    gid = await _demo(h)
    assert h.ref is not None
    for n in range(70):
        who = Caller(
            str(300000000000000000 + n),
            f"Spectator number {n:02d} of many",
            guild=str(GUILD),
            channel=str(CHANNEL),
        )
        await h.ref.join(who, gid, "spectator")
    out = await h.command(ALICE, "game seats")
    assert "and 50 more" in texts(out)
    assert all(len(s.content) <= 2000 for s in out)


def test_long_texts_are_cut_at_line_ends() -> None:
    text = "\n".join(f"line {n} " + "x" * 50 for n in range(200))
    parts = chunks(text)
    assert len(parts) > 1 and all(len(p) <= 2000 for p in parts)
    assert "\n".join(parts) == text
    assert listing(["a", "b", "c"], limit=2) == "a, b and 1 more"


def test_a_decision_with_many_answers_is_paged_not_cut() -> None:
    lines = [f"retreat s-{n}-inf 0{n:03d}" for n in range(57)]
    seen: list[str] = []
    for page in range(3):
        view = page_view("g1", 12, lines, page)
        rows = view.to_components()
        check_limits({"content": page_text(lines, page), "components": rows}, "page")
        buttons = [c for r in rows for c in r["components"]]
        seen += [b["label"] for b in buttons if b["custom_id"].startswith("k:d:")]
        more = [b for b in buttons if b["custom_id"].startswith("k:dp:")]
        assert more and more[0]["custom_id"] == f"k:dp:g1:12:{(page + 1) % 3}"
    assert seen == lines  # every answer, once, in order
    assert len(page_view("g1", 12, lines[:PAGE], 0).children) == PAGE  # one page: no "more"


def test_every_option_of_every_command_is_described(tmp_path: object) -> None:
    import discord

    from bot.discord.cogs import register

    tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(
        discord.Client(intents=discord.Intents.none())
    )
    register(tree)
    bare = [
        f"/{c.qualified_name} {p.name}"
        for c in tree.walk_commands()
        if isinstance(c, app_commands.Command)
        for p in c.parameters
        if p.description.strip(" .…") == "" or len(p.description) > 100
    ]
    assert bare == []


async def test_help_lists_every_command_and_explains_one(h: Harness) -> None:
    out = await h.command(ALICE, "help")
    text = texts(out)
    for name in ("/game new", "/move", "/orders", "/map", "/mod act", "/help"):
        assert f"`{name}`" in text
    assert all(s.ephemeral for s in out)
    out = await h.command(ALICE, "help", topic="move")
    assert "`path`" in texts(out) and "(optional)" in texts(out)
    out = await h.command(ALICE, "help", topic="decisions")
    assert "More answers" in texts(out)
    choices = await h.autocomplete(ALICE, "help", "topic", topic="ga")
    assert "game new" in [c["value"] for c in choices]


async def test_move_by_path_alone(h: Harness) -> None:
    await _demo(h)
    out = await h.command(ALICE, "move", unit="s-nope")
    assert "`to`" in texts(out) and all(s.ephemeral for s in out)
    out = await h.command(ALICE, "move", unit="s-nope", path="0101 0102")
    assert "move s-nope 0101 0102" in texts(out) or "s-nope" in texts(out)


async def test_a_public_map_refusal_stays_private(h: Harness) -> None:
    await _demo(h)
    out = await h.command(ALICE, "map", around="zz99", private=False)
    assert "⚠" in texts(out)
    assert all(s.ephemeral for s in out if s.where in ("response", "followup"))


async def test_an_orders_form_submitted_after_a_restart_is_carried_out(h: Harness) -> None:
    await _demo(h)
    opened = await h.command(ALICE, "orders")
    assert opened[-1].type == 9
    await h.restart()  # the form is still open in Alice's client
    out = await h.submit_modal(ALICE, opened[-1], ["done"])
    assert out and out[0].ephemeral
    assert "⚠" not in texts(out), texts(out)
    # refused orders come back to the player to copy: nothing typed is lost
    opened = await h.command(BOB, "orders")
    await h.restart()
    out = await h.submit_modal(BOB, opened[-1], ["move s-nope 0101\nmove s-nope 0102"])
    assert "⚠" in texts(out) and "move s-nope 0102" in texts(out)
    assert all(s.ephemeral for s in out)


async def test_turn_notices_and_decisions_are_embeds_with_the_deadline(h: Harness) -> None:
    await h.command(ALICE, "game new", scenario="demo-steblev", side="soviet", seed=3)
    await h.command(ALICE, "mod act", text="deadline 48")
    out = await h.command(BOB, "game join", side="german")
    notices = [s for s in out if s.where == "channel" and s.embeds()]
    assert notices, [s.content for s in out]
    e = notices[-1].embeds()[0]
    assert "Turn" in e["title"] and e["description"] and e.get("color")
    await h.command(ALICE, "done")
    dms = [s for s in h.sent if s.where == "dm" and s.embeds()]
    assert dms
    fields = [f for s in [*notices, *dms] for em in s.embeds() for f in em.get("fields", [])]
    assert any(f["name"] == "Deadline" and f["value"].startswith("<t:") for f in fields)


async def test_a_lost_channel_is_reported_and_mod_channel_moves_the_game(h: Harness) -> None:
    from harness import MOD, NEXT_DOOR

    gid = await _demo(h)
    h.http.deleted.add(CHANNEL)  # someone deleted the game's channel
    await h.command(ALICE, "done")  # a turn notice for the channel: 404
    told = [s for s in h.sent if s.where == "dm" and "/mod channel" in s.content]
    assert told and {s.target for s in told} >= {str(ALICE.id)}  # the creator moderates
    before = len(told)
    await h.command(ALICE, "done", game=gid)  # no second report
    assert len([s for s in h.sent if s.where == "dm" and "/mod channel" in s.content]) == before
    # a player may not move it; a server moderator who plays no side may
    out = await h.command(ALICE, "mod channel", channel=NEXT_DOOR, game=gid)
    assert "⚠" in texts(out) and all(s.ephemeral for s in out)
    out = await h.command(MOD, "mod channel", channel=NEXT_DOOR, game=gid)
    assert "moves to this channel" in texts(out, "channel"), texts(out)
    assert h.ref is not None and (await h.ref.game(gid)).row.channel == str(NEXT_DOOR)
    out = await h.command(BOB, "game status", channel=NEXT_DOOR)
    assert gid in texts(out)


async def test_a_decision_dm_with_57_answers_pages_them(h: Harness) -> None:
    from bot.service import Reply

    gid = await _demo(h)
    assert h.bot is not None and h.ref is not None
    paths = {"s-9-inf": [[f"0{n:03d}"] for n in range(56)]}
    decision = {"kind": "retreat", "rule": "9.1", "options": {"paths": paths}}
    lines = [f"retreat s-9-inf {p[0]}" for p in paths["s-9-inf"]] + ["retreat s-9-inf"]
    at = (await h.ref.game(gid)).last_event
    r = Reply(
        "user",
        "Retreat s-9-inf",
        game=gid,
        user=str(ALICE.id),
        kind="decision",
        data={"decision": decision, "answers": lines, "expect": at},
    )
    await h.bot.notifier.deliver([r])
    dm = [s for s in h.sent if s.where == "dm" and s.buttons()][-1]
    labels = [b["label"] for b in dm.buttons()]
    assert len(labels) == PAGE + 1 and labels[-1] == "More answers (page 2/3)"
    assert "57 answers" in dm.content
    assert "page 2/3" in page_text(lines, 1)
    # no such decision is open in the game: the page is refused, privately
    out = await h.click(ALICE, dm, "More answers (page 2/3)", dm=True)
    assert "no decision of yours is open" in texts(out) and all(s.ephemeral for s in out)


def test_a_long_odds_preview_says_what_it_leaves_out() -> None:
    from bot.odds_words import format_odds

    odds = {"text": "3:1", "explanation": [f"reason {n} " + "x" * 60 for n in range(60)]}
    short = format_odds(odds)
    assert len(short) <= 1600 and "more lines: `/odds` shows them all" in short
    assert "reason 59" in format_odds(odds, limit=None)


async def test_17_decision_shows_the_open_decision_again_and_a_button_answers_it(
    h: Harness,
) -> None:
    """Issue #17: `/decision` shows the prompt again (privately) with its numbered answers
    as buttons; a button sends the answer's number, read off the same list as the text."""
    await h.command(ALICE, "game new", scenario="demo-steblev", side="soviet", seed=1)
    await h.command(BOB, "game join", side="german")
    out = await h.command(ALICE, "decision")
    assert "no decision of yours is open" in texts(out) and all(s.ephemeral for s in out)
    opened = await h.command(ALICE, "orders")
    await h.submit_modal(ALICE, opened[-1], ["move s-180 0307\ndone"])
    opened = await h.command(ALICE, "orders")
    await h.submit_modal(ALICE, opened[-1], ["attack s-180 -> 0306"])  # seed 1: A1, retreat
    out = await h.command(ALICE, "decision")
    shown = [s for s in out if s.buttons()]
    assert shown and all(s.ephemeral for s in out)
    body = texts(out)
    assert "soviet must decide: the retreat (5.3)" in body
    first = shown[-1].buttons()[0]["label"]
    assert first.startswith("retreat s-180") and f"1) {first}" in body  # button 1 = answer 1
    out = await h.click(ALICE, shown[-1], first)
    assert "⚠" not in texts(out), texts(out)
    assert f"✔ soviet: {first}" in texts(out)
    out = await h.command(BOB, "decision")  # the retreat opened the German pursuit
    assert "german must decide: pursuit" in texts(out) and "pass  (pursue no further)" in texts(out)


async def test_17_combat_results_and_decisions_show_a_map_crop_in_their_embed(
    h: Harness,
) -> None:
    """Issue #17: the channel's combat result and the side's combat decision carry a
    phone-sized crop around the hex fought for, shown inside the embed; the channel gets
    the spectators' picture."""
    import io

    from PIL import Image

    from bot.service import Reply

    await h.command(ALICE, "game new", scenario="demo-steblev", side="soviet", seed=1)
    await h.command(BOB, "game join", side="german")
    opened = await h.command(ALICE, "orders")
    await h.submit_modal(ALICE, opened[-1], ["move s-180 0307\ndone"])
    before = len(h.sent)
    opened = await h.command(ALICE, "orders")
    await h.submit_modal(ALICE, opened[-1], ["attack s-180 -> 0306"])
    new = h.sent[before:]
    result = [s for s in new if s.where == "channel" and "combat:" in str(s.embeds())]
    assert result and result[-1].files, [s.where for s in new]
    (image,) = [e.get("image", {}).get("url", "") for e in result[-1].embeds()]
    assert image.startswith("attachment://") and image.endswith("-spectator.png")
    decision = [s for s in new if s.where == "dm" and "must decide" in str(s.embeds())]
    assert decision and decision[-1].files and decision[-1].files[0].endswith("-soviet.png")
    assert h.ref is not None  # phone-sized: a crop, not the whole map
    gid = str((await h.ref.games(_alice()))[0]["id"])
    notice = Reply("side", "", game=gid, map_viewer="soviet", data={"map_around": "0306"})
    png = await h.ref.reply_map(notice)
    assert png is not None and Image.open(io.BytesIO(png)).width < 900


def _alice() -> Caller:
    return Caller(str(ALICE.id), "Alice", guild=str(GUILD), channel=str(CHANNEL))


async def test_17_an_orders_form_left_open_is_forgotten_and_still_works_late(h: Harness) -> None:
    """Issue #17: forms closed unsent do not pile up in the bot (they time out of its
    memory and discord.py's); one submitted later is carried out all the same."""
    import asyncio

    await _demo(h)
    opened = await h.command(ALICE, "orders")
    assert h.bot is not None
    custom_id = opened[-1].body["data"]["custom_id"]
    assert custom_id in h.bot.open_forms
    store = h.bot._connection._view_store
    form = store._modals[custom_id]
    assert form.timeout is not None and form.timeout > 0
    form._dispatch_timeout()  # as the timeout would
    await asyncio.sleep(0)
    assert custom_id not in h.bot.open_forms and custom_id not in store._modals
    out = await h.submit_modal(ALICE, opened[-1], ["done"])
    assert out and "⚠" not in texts(out), texts(out)
