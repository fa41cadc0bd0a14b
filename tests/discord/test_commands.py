"""Every command family through the in-process harness: games, orders with autocomplete,
looking, moderation; permission denials, friendly errors, DMs that fail, and the command
payload Discord would get from a sync."""

from __future__ import annotations

import json

from harness import ALICE, BOB, CAROL, CHANNEL, MOD, Harness, Person, h, texts

__all__ = ["h"]  # the fixture

from bot.describe import answers
from bot.discord.config import load_config


async def _demo(h: Harness, scenario: str = "demo-steblev") -> str:
    await h.command(ALICE, "game new", scenario=scenario, side="soviet", seed=3)
    await h.command(BOB, "game join", side="german")
    assert h.ref is not None
    games = await h.ref.games(await _caller(h, ALICE))
    return str(games[0]["id"])


async def _caller(h: Harness, p: Person):  # type: ignore[no-untyped-def]
    from bot.service import Caller

    return Caller(str(p.id), p.name, guild="700000000000000001", channel=str(CHANNEL))


async def test_game_family_new_join_status_seats_settings_list_export_resign(h: Harness) -> None:
    out = await h.command(ALICE, "game new", scenario="demo-steblev", side="soviet", seed=3)
    assert out[0].type == 5 and out[0].ephemeral  # deferred first, privately
    assert "created" in texts(out, "channel")
    gid = texts(out, "channel").split("**")[1]
    out = await h.command(CAROL, "spectate")
    assert "Carol watches" in texts(out, "channel")
    out = await h.command(BOB, "game join", side="german")
    assert "starts" in texts(out, "channel")
    assert any(s.where == "dm" and s.files for s in out)  # the side's map snapshot
    out = await h.command(ALICE, "game status")
    assert "Awaiting soviet" in texts(out, "followup")
    out = await h.command(ALICE, "game seats")
    assert "soviet: Alice" in texts(out) and "spectators: Carol" in texts(out)
    out = await h.command(ALICE, "game settings")
    assert "policy" in texts(out)
    out = await h.command(ALICE, "game list")
    assert gid in texts(out)
    out = await h.command(BOB, "game export")
    assert "⚠" in texts(out) and "moderator who plays no side" in texts(out)  # K96, #15
    out = await h.command(ALICE, "game export")  # the creator plays: no hidden record
    assert "⚠" in texts(out) and not out[-1].files
    out = await h.command(BOB, "game resign")
    assert "german resigns" in texts(out, "channel")
    out = await h.command(ALICE, "game export", game=gid)  # once the game is over, anyone
    assert out[-1].files == [f"kessel-{gid}.yaml"]


async def test_game_autocomplete_lists_scenarios_and_my_games(h: Harness) -> None:
    choices = await h.autocomplete(ALICE, "game new", "scenario", scenario="kors")
    assert {c["value"] for c in choices} >= {"korsun-1944", "korsun-1944-short"}
    gid = await _demo(h)
    choices = await h.autocomplete(BOB, "game status", "game", game="")
    assert [c["value"] for c in choices] == [gid]


async def test_move_autocomplete_offers_only_own_units_and_reachable_hexes(h: Harness) -> None:
    gid = await _demo(h)
    assert h.ref is not None
    g = await h.ref.game(gid)
    units = await h.autocomplete(ALICE, "move", "unit", unit="")
    ids = [c["value"] for c in units]
    assert ids and all(g.state.units[u].side == "soviet" for u in ids)
    # the German player, not awaited, gets nothing; never the enemy's units
    assert await h.autocomplete(BOB, "move", "unit", unit="") == []
    # a spectator or a stranger gets nothing either
    assert await h.autocomplete(CAROL, "move", "unit", unit="") == []
    unit = ids[0]
    hexes = await h.autocomplete(ALICE, "move", "to", unit=unit, to="")
    assert hexes and all("MP" in c["name"] for c in hexes)
    # asking for an enemy unit's hexes gives nothing
    enemy = next(u.id for u in g.state.units.values() if u.side == "german" and u.on_map)
    assert await h.autocomplete(ALICE, "move", "to", unit=enemy, to="") == []
    out = await h.command(ALICE, "move", unit=unit, to=hexes[0]["value"])
    assert f"move {unit}" in texts(out, "followup")
    assert all(s.ephemeral for s in out if s.where in ("response", "followup"))
    out = await h.command(ALICE, "undo")
    assert "Undone" in texts(out)


async def test_permission_denials(h: Harness) -> None:
    gid = await _demo(h)
    unit = (await h.autocomplete(ALICE, "move", "unit", unit=""))[0]["value"]
    # a player ordering the other side's turn / unit
    out = await h.command(BOB, "move", unit=unit, to="0101")
    assert "⚠" in texts(out) and all(s.ephemeral for s in out if s.where != "channel")
    assert not [s for s in out if s.where == "channel"]
    # a spectator ordering
    await h.command(CAROL, "spectate")
    out = await h.command(CAROL, "done")
    assert "spectators cannot give orders" in texts(out)
    # a player using moderator tools
    out = await h.command(BOB, "mod act", text="pause", game=gid)
    assert "only the game's moderators" in texts(out)
    out = await h.command(BOB, "mod role")
    assert "Manage Server" in texts(out)


async def test_moderator_tools_and_the_moderator_role(h: Harness) -> None:
    gid = await _demo(h)
    out = await h.command(MOD, "mod act", text="pause")
    assert "paused" in texts(out).lower()
    out = await h.command(ALICE, "done")
    assert "paused" in texts(out)
    out = await h.command(MOD, "mod act", text="resume")
    assert "⚠" not in texts(out)
    out = await h.command(MOD, "mod act", text="announce Turn deadlines are 48 h")
    assert "48 h" in texts(out, "channel")
    # a member with the configured role moderates without Manage Server
    role = 555
    dana = Person(100000000000000004, "Dana", roles=(role,))
    out = await h.command(dana, "mod act", text="pause", game=gid)
    assert "only the game's moderators" in texts(out)
    assert h.ref is not None
    await h.ref.store.set_server_setting("700000000000000001", "mod_role", str(role))
    out = await h.command(dana, "mod act", text="pause", game=gid)
    assert "⚠" not in texts(out)
    out = await h.command(MOD, "mod help")
    assert "rollback" in texts(out)


async def test_looking_map_hex_unit_log_rule_odds(h: Harness) -> None:
    await _demo(h)
    out = await h.command(ALICE, "map")
    assert out[0].ephemeral and out[-1].files and out[-1].files[0].endswith("map.png")
    out = await h.command(ALICE, "map", around="0101", radius=3, private=False)
    # acknowledged privately (a refusal would stay private), the map itself public
    assert out[0].ephemeral and not out[-1].ephemeral and out[-1].files
    unit = (await h.autocomplete(ALICE, "move", "unit", unit=""))[0]["value"]
    out = await h.command(ALICE, "unit", unit=unit)
    assert unit in texts(out)
    out = await h.command(BOB, "unit", unit=unit)  # Bob may or may not see it; no leak
    assert unit in texts(out)
    out = await h.command(ALICE, "hex", hex="zz")
    assert "not a hex" in texts(out)
    out = await h.command(ALICE, "log")
    assert "recent log" in texts(out)
    out = await h.command(ALICE, "rule", case="5.1.3")
    assert "must" in texts(out) and "attack" in texts(out)
    out = await h.command(ALICE, "rule", case="99.9")
    assert "No rule case" in texts(out)
    out = await h.command(ALICE, "odds", units=unit, target="0101")
    assert "⚠" in texts(out)  # not an attack the engine allows now; said privately
    assert all(s.ephemeral for s in out)


async def test_attack_in_the_movement_phase_previews_for_planning_only(h: Harness) -> None:
    """K181: /attack while moving shows the odds the coming Combat Phase would give and
    offers nothing to confirm (attacks are declared in the Combat Phase, 2.1.2)."""
    await _demo(h)
    await h.command(ALICE, "move", unit="s-180", to="0307")
    out = await h.command(ALICE, "attack", units="s-180", target="0306")
    shown = out[-1]
    assert shown.ephemeral and "Attack preview" in shown.content
    assert "planning: it is the Movement Phase" in shown.content
    assert "declared in the Combat Phase (2.1.2)" in shown.content
    assert not shown.buttons()


async def test_a_closed_dm_falls_back_and_is_remembered(h: Harness) -> None:
    h.http.blocked.add(ALICE.id)
    await h.command(ALICE, "game new", scenario="demo-steblev", side="soviet", seed=3)
    # Bob's join makes it Alice's turn: Alice's DM fails -> a private thread in the channel
    out = await h.command(BOB, "game join", side="german")
    threads = [s for s in out if s.where == "thread"]
    assert threads and f"<@{ALICE.id}>" in threads[0].content
    assert h.bot is not None and str(ALICE.id) in h.bot.notifier.dm_closed
    dm_tries = sum(1 for m, p in h.http.calls if p == "/users/@me/channels")
    # when Alice herself acts, her private notices come as ephemeral follow-ups, and no
    # new DM is attempted (Discord counts failed requests)
    out = await h.command(ALICE, "map")
    assert sum(1 for m, p in h.http.calls if p == "/users/@me/channels") == dm_tries
    # a restart remembers both the closed DMs and the private thread
    bot = await h.restart()
    assert await bot.notifier._dms_closed(str(ALICE.id))
    threads_before = sum(1 for m, p in h.http.calls if p.endswith("/threads"))
    await h.command(BOB, "done")  # may notify Alice again: same thread, no new DM
    assert sum(1 for m, p in h.http.calls if p == "/users/@me/channels") == dm_tries
    assert sum(1 for m, p in h.http.calls if p.endswith("/threads")) == threads_before


async def test_errors_are_friendly_and_private(h: Harness) -> None:
    out = await h.command(ALICE, "done")
    assert "no game runs here" in texts(out)
    out = await h.command(ALICE, "game new", scenario="nope")
    assert "no shipped scenario" in texts(out) and all(s.ephemeral for s in out)


async def test_commands_work_in_a_dm_with_the_game_named(h: Harness) -> None:
    gid = await _demo(h)
    out = await h.command(ALICE, "game status", dm=True)
    assert "Awaiting soviet" in texts(out)  # Alice's only game
    out = await h.command(ALICE, "game status", dm=True, game=gid)
    assert gid in texts(out)


def test_the_sync_payload_is_valid_offline(tmp_path: object) -> None:
    import asyncio

    from bot.discord.client import KesselBot
    from bot.service import Referee

    async def payload() -> list[dict[str, object]]:
        ref = await Referee.open(f"{tmp_path}/k.db", opponents=None)
        bot = KesselBot(ref, tick=False)
        try:
            return [c.to_dict(bot.tree) for c in bot.tree.get_commands()]
        finally:
            await ref.close()

    commands = asyncio.run(payload())
    names = {c["name"] for c in commands}
    assert {"game", "move", "attack", "orders", "map", "rule", "mod", "spectate"} <= names
    assert len(commands) <= 100 and len(json.dumps(commands)) < 100_000
    for c in commands:
        assert len(list(c.get("options", []))) <= 25  # type: ignore[call-overload]


def test_decision_answers_are_listed_from_the_options() -> None:
    # the numbered answers buttons send (bot/describe.py): full retreats first (5.3.7)
    retreat = {"paths": {"s-1": [["0101"], ["0102", "0103"]]}, "hexes": 2}
    assert answers("retreat", retreat)[:3] == [
        "retreat s-1 0102 0103",
        "retreat s-1 0101",
        "retreat s-1",
    ]
    got = answers("losses", {"units": {"a": 2, "b": 1}, "count": 2})
    assert sorted(got) == ["losses a a", "losses a b"]
    assert answers("place-if", {"count": 30}) == ["done"]  # placing is free-form (7.2.1)


def test_config_from_env_toml_and_dotenv(tmp_path: object) -> None:
    from pathlib import Path

    d = Path(str(tmp_path))
    assert load_config(d, env={}) is None
    (d / ".env").write_text("KESSEL_DISCORD_TOKEN=abc\nKESSEL_DB=/data/k.db\n")
    cfg = load_config(d, env={})
    assert cfg is not None and cfg.token == "abc" and cfg.db == "/data/k.db"
    (d / "kessel.toml").write_text('[discord]\ntoken = "xyz"\nguild = "42"\n')
    cfg = load_config(d, env={})
    assert cfg is not None and cfg.token == "xyz" and cfg.guild == "42"
    cfg = load_config(d, env={"KESSEL_DISCORD_TOKEN": "env"})
    assert cfg is not None and cfg.token == "env"


async def test_the_deadline_clock_reminds_and_announces(h: Harness) -> None:
    import time

    await _demo(h)
    out = await h.command(MOD, "mod act", text="deadline 24")
    assert "⚠" not in texts(out)
    assert h.bot is not None
    before = len(h.sent)
    await h.bot.tick(now=time.time() + 23 * 3600)
    reminders = [s for s in h.sent[before:] if s.where == "dm" and s.target == str(ALICE.id)]
    assert reminders and "<t:" in reminders[0].content  # a Discord timestamp
    (embed,) = reminders[0].embeds()  # issue #17: an embed, with the deadline as a field
    assert "Reminder" in embed["title"] and embed["fields"][0]["name"] == "Deadline"
    before = len(h.sent)
    await h.bot.tick(now=time.time() + 25 * 3600)
    assert "Deadline passed" in texts(h.sent[before:], "channel")


async def test_commands_are_synced_once_until_they_change(h: Harness) -> None:
    assert h.bot is not None
    calls: list[str] = []

    async def fake_sync(where: str) -> int:
        calls.append(where)
        return 21

    h.bot.sync = fake_sync  # type: ignore[method-assign]
    assert await h.bot.sync_if_changed("global") == 21
    assert await h.bot.sync_if_changed("global") is None
    assert calls == ["global"]


async def test_unit_autocomplete_never_lists_unseen_enemy_units(h: Harness) -> None:
    gid = await _demo(h)
    assert h.ref is not None
    seen = {
        u.id
        for u in (await h.ref.view(await _caller(h, BOB), gid)).units
        if u.id and u.known == "full"
    }
    g = await h.ref.game(gid)
    choices = await h.autocomplete(BOB, "unit", "unit", unit="s-")
    assert {c["value"] for c in choices} <= seen
    hidden = [u.id for u in g.state.units.values() if u.side == "soviet" and u.id not in seen]
    if hidden:
        out = await h.command(BOB, "unit", unit=hidden[0])
        assert "You see no unit" in texts(out)


def test_logs_are_json_lines() -> None:
    import logging

    from bot.discord.run import JsonFormatter, sync_target

    rec = logging.LogRecord("kessel", logging.INFO, "x", 1, "synced", None, None)
    rec.where = "global"
    line = json.loads(JsonFormatter().format(rec))
    assert line["msg"] == "synced" and line["where"] == "global" and line["level"] == "INFO"
    assert sync_target(["guild", "42"], "") == "42" and sync_target(["global"], "") == "global"
    assert sync_target(None, "7") is None


async def test_a_closed_dm_to_the_person_acting_comes_as_an_ephemeral_follow_up(
    h: Harness,
) -> None:
    h.http.blocked.add(BOB.id)
    await h.command(ALICE, "game new", scenario="korsun-1944", side="soviet", seed=1)
    out = await h.command(BOB, "game join", side="german")  # Bob must decide at once
    private = [s for s in out if s.where == "followup" and "place-if" in s.content]
    assert private and all(s.ephemeral for s in private)
    assert not [s for s in out if s.where in ("dm", "thread")]


async def test_payloads_out_of_range_get_a_clear_message_and_change_nothing(h: Harness) -> None:
    """Bad input from Discord (values outside an option's range, a seed too big to keep,
    text where a hex belongs) is refused privately, and no game changes."""
    gid = await _demo(h)
    assert h.ref is not None
    g = await h.ref.game(gid)
    head, seq = g.head, g.state.seq
    for path, opts in [
        ("map", {"around": "0305", "radius": 99}),
        ("log", {"lines": 0}),
        ("move", {"unit": "s-180", "to": "not-a-hex"}),
        ("move", {"unit": "x" * 300, "to": "0306"}),
    ]:
        out = await h.command(ALICE, path, **opts)
        assert out and all(s.ephemeral for s in out if s.where in ("response", "followup"))
        assert "⚠" in texts(out) or "must be" in texts(out).lower(), (path, texts(out))
    out = await h.command(CAROL, "game new", scenario="demo-steblev", seed=10**30)
    assert "⚠" in texts(out)
    assert (g.head, g.state.seq) == (head, seq)
    assert [x["id"] for x in await h.ref.games(await _caller(h, CAROL))] == [gid]
