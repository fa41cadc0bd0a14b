"""The Discord bot run as shards (issue #21), without Discord: the shard settings, the bot
running its shards, and two shard processes on one game database each doing the clock's
work (reminders, expired deadlines, the opponents' moves after a restart) only for the
games of its shards, so none of it is done twice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import discord
import pytest

from bot.cli import main
from bot.discord.client import KesselBot, ShardedKesselBot, make_bot
from bot.discord.config import load_config
from bot.discord.shards import ShardError, Shards, of_discord
from bot.service import Caller, Referee, Refusal
from engine.orders import Order
from engine.state import GameState

# servers whose events Discord sends to shard 0 and to shard 1 of 2: (id >> 22) % 2
GUILD_0 = str((2**36) << 22)
GUILD_1 = str((2**36 + 1) << 22)
NOW = 1_800_000_000.0


def test_shard_settings_come_from_the_environment_or_kessel_toml(tmp_path: Path) -> None:
    env = {"KESSEL_DISCORD_TOKEN": "t"}
    cfg = load_config(tmp_path, env=env)
    assert cfg is not None and cfg.shards is None  # not sharded: one process
    cfg = load_config(tmp_path, env=env | {"KESSEL_SHARD_COUNT": "4", "KESSEL_SHARD_IDS": "0-1"})
    assert cfg is not None and cfg.shards == Shards(4, (0, 1))
    cfg = load_config(tmp_path, env=env | {"KESSEL_SHARD_COUNT": "4", "KESSEL_SHARD_IDS": "3,1"})
    assert cfg is not None and cfg.shards == Shards(4, (1, 3))
    cfg = load_config(tmp_path, env=env | {"KESSEL_SHARD_COUNT": "3"})
    assert cfg is not None and cfg.shards == Shards(3, (0, 1, 2))
    (tmp_path / "kessel.toml").write_text(
        '[discord]\ntoken = "t"\nshard_count = 4\nshard_ids = [2, 3]\n', encoding="utf-8"
    )
    cfg = load_config(tmp_path, env={})
    assert cfg is not None and cfg.shards == Shards(4, (2, 3))
    cfg = load_config(tmp_path, env={"KESSEL_SHARD_IDS": "0-1,3"})  # the environment first
    assert cfg is not None and cfg.shards == Shards(4, (0, 1, 3))
    (tmp_path / "kessel.toml").write_text(  # the variables' own names do too
        '[discord]\ntoken = "t"\nKESSEL_SHARD_COUNT = 2\nKESSEL_SHARD_IDS = "1"\n',
        encoding="utf-8",
    )
    cfg = load_config(tmp_path, env={})
    assert cfg is not None and cfg.shards == Shards(2, (1,))


@pytest.mark.parametrize(
    ("count", "ids", "says"),
    [
        ("0", "", "KESSEL_SHARD_COUNT must be a whole number from 1"),
        ("two", "", "not 'two'"),
        ("2", "0-2", "'0-2' is not a range of shards 0 to 1"),
        ("4", "3-1", "'3-1' is not a range"),
        ("4", "0;1", "e.g. '0,1' or '0-3', not '0;1'"),
        ("4", "-1", "not '-1'"),
        ("", "0", "KESSEL_SHARD_IDS needs KESSEL_SHARD_COUNT"),
    ],
)
def test_a_shard_setting_that_cannot_be_used_is_refused_in_words(
    tmp_path: Path, count: str, ids: str, says: str
) -> None:
    env = {"KESSEL_DISCORD_TOKEN": "t", "KESSEL_SHARD_COUNT": count, "KESSEL_SHARD_IDS": ids}
    with pytest.raises(ShardError) as e:
        load_config(tmp_path, env=env)
    assert says in str(e.value)


def test_kessel_bot_with_a_bad_shard_setting_says_so_and_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KESSEL_DISCORD_TOKEN", "t")
    monkeypatch.setenv("KESSEL_SHARD_COUNT", "2")
    monkeypatch.setenv("KESSEL_SHARD_IDS", "5")
    assert main(["bot"]) == 1
    err = capsys.readouterr().err
    assert "kessel bot: KESSEL_SHARD_IDS: '5' is not a range of shards 0 to 1" in err
    assert "Traceback" not in err


def test_a_server_belongs_to_the_shard_discord_sends_its_events_to() -> None:
    two = Shards(2, (1,))
    assert two.of_guild(GUILD_0) == 0 and two.of_guild(GUILD_1) == 1
    assert two.owns(GUILD_1) and not two.owns(GUILD_0)
    # games of no server (direct messages) are shard 0's; mail's and local play's games
    # are never the bot's: their own processes tick them (they alone can deliver)
    assert {two.of_guild(g) for g in ("", "local", "mail", "dm")} == {0}
    assert Shards(2, (0,)).owns("") and not two.owns("")
    assert not Shards(2, (0,)).owns("local") and not Shards(1, (0,)).owns("mail")
    assert of_discord("") and of_discord(GUILD_1) and not of_discord("mail")
    assert Shards(4, (0, 1, 2, 3)).runs_all and not two.runs_all
    assert Shards(8, (0,)).of_guild("81384788765712384") == (81384788765712384 >> 22) % 8


async def test_the_bot_runs_the_shards_of_its_process_and_shard_0_syncs(tmp_path: Path) -> None:
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        plain = make_bot(ref, None, tick=False)
        assert type(plain) is KesselBot and not isinstance(plain, discord.AutoShardedClient)
        assert plain.syncs_commands and ref.owns_guild is of_discord  # not mail's games
        second = make_bot(ref, Shards(4, (2, 3)), tick=False)
        assert isinstance(second, ShardedKesselBot)
        assert isinstance(second, discord.AutoShardedClient)
        assert second.shard_count == 4 and second.shard_ids == [2, 3]
        assert not second.syncs_commands  # shard 0's process uploads the commands
        assert ref.owns_guild is not None and ref.owns_guild(GUILD_0) is False
        first = make_bot(ref, Shards(4, (0, 1)), tick=False)
        assert first.syncs_commands and ref.owns_guild("") and not ref.owns_guild("local")
        every = make_bot(ref, Shards(4, (0, 1, 2, 3)), tick=False)
        assert every.syncs_commands and ref.owns_guild(GUILD_0) and ref.owns_guild(GUILD_1)
        # (never logged in: nothing to close)
    finally:
        await ref.close()


async def _game_with_deadline(ref: Referee, guild: str, n: int) -> str:
    alice = Caller(f"u-alice-{n}", "Alice", guild=guild, channel=f"{guild}-c")
    bob = Caller(f"u-bob-{n}", "Bob", guild=guild, channel=f"{guild}-c")
    out = await ref.new_game(alice, "demo-steblev", seed=n, side="soviet")
    gid = out[0].game
    assert gid is not None
    await ref.join(bob, gid, "german")
    await ref.mod(alice, gid, "deadline 1")
    return gid


async def test_two_shard_processes_each_tick_only_their_own_games(store_url: str) -> None:
    db = store_url  # SQLite, and PostgreSQL (what several bot processes share)
    clock = [NOW]
    maker = await Referee.open(db, opponents=None, clock=lambda: clock[0])
    try:
        games = {
            "g0": await _game_with_deadline(maker, GUILD_0, 1),
            "g1": await _game_with_deadline(maker, GUILD_1, 2),
            "dm": await _game_with_deadline(maker, "", 3),
            "g1b": await _game_with_deadline(maker, GUILD_1, 4),
        }
        by_mail = await _game_with_deadline(maker, "mail", 5)  # `kessel mail` ticks it
    finally:
        await maker.close()
    # two bot processes (shard 0 and shard 1 of 2) on the same database
    procs = [await Referee.open(db, opponents=None, clock=lambda: clock[0]) for _ in range(2)]
    try:
        for i, ref in enumerate(procs):
            make_bot(ref, Shards(2, (i,)), tick=False)
        clock[0] = NOW + 2 * 3600  # every deadline has passed
        expired = []
        for ref in procs:
            said = await ref.tick()
            expired.append({r.game for r in said if "Deadline passed" in r.text})
        assert expired == [{games["g0"], games["dm"]}, {games["g1"], games["g1b"]}]
        # each game's deadline was dealt with once: no process finds it again
        for ref in procs:
            assert await ref.tick() == []
        for ref in procs:
            for gid in games.values():
                assert (await ref.store.game(gid)).status == "paused"  # type: ignore[union-attr]
        assert (await procs[0].store.game(by_mail)).status == "active"  # type: ignore[union-attr]
        assert set(procs[0].cached) == {games["g0"], games["dm"]}  # never loaded the others
        assert set(procs[1].cached) == {games["g1"], games["g1b"]}
    finally:
        for ref in procs:
            await ref.close()


async def test_after_a_restart_each_shard_process_resumes_only_its_opponents(
    store_url: str,
) -> None:
    db = store_url
    maker = await Referee.open(db)
    ids = {}
    try:
        for n, guild in enumerate((GUILD_0, GUILD_1, "")):
            alice = Caller(f"u-alice-{n}", "Alice", guild=guild, channel=f"c{n}")
            out = await maker.new_game(alice, "demo-steblev", seed=n, side="german")
            gid = out[0].game
            assert gid is not None
            ids[guild] = gid
    finally:
        await maker.close()

    def crashing(side: str, seed: int) -> Callable[[GameState], Order | None]:
        def choose(state: GameState) -> Order | None:
            raise RuntimeError("the process stops here")

        return choose

    for guild, gid in ids.items():  # the opponent seated, then the bot stopped before it played
        quiet = await Referee.open(db, opponents=crashing)
        try:
            n = list(ids).index(guild)
            alice = Caller(f"u-alice-{n}", "Alice", guild=guild, channel=f"c{n}")
            with pytest.raises(Refusal):
                await quiet.seat_ai(alice, gid, "soviet")
            assert (await quiet.store.game(gid)).summary.awaiting == ("soviet",)  # type: ignore[union-attr]
        finally:
            await quiet.close()
    procs = [await Referee.open(db) for _ in range(2)]
    try:
        for i, ref in enumerate(procs):
            make_bot(ref, Shards(2, (i,)), tick=False)
        played = [{r.game for r in await ref.nudge()} for ref in procs]
        assert played == [{ids[GUILD_0], ids[""]}, {ids[GUILD_1]}]
        assert [await ref.nudge() for ref in procs] == [[], []]  # nothing is played twice
    finally:
        for ref in procs:
            await ref.close()
