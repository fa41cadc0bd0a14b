"""The identity of a scenario's data (issue #19, engine/digest.py): the same data give the
same digest in any process; any changed value gives another; games record it and a rated
league season refuses games whose data are not the ones it began with."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bot.service import Caller, Referee
from engine.digest import setup_digest
from scenarios import load_scenario, load_scenario_data
from scenarios.loader import scenario_data

MOD = Caller("u-mod", "Org", server_mod=True, guild="g", channel="c")
ALICE = Caller("u-a", "Alice", guild="g", channel="c")
BOB = Caller("u-b", "Bob", guild="g", channel="c")


def test_the_same_data_give_the_same_digest_in_any_process() -> None:
    code = "from scenarios import load_scenario; from engine.digest import setup_digest; "
    code += "print(setup_digest(load_scenario('korsun-1944')))"
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert seen == {setup_digest(load_scenario("korsun-1944"))}


def test_a_changed_value_changes_the_digest() -> None:
    data = scenario_data("demo-steblev")
    base = setup_digest(load_scenario_data(scenario_data("demo-steblev")))
    assert base.startswith("sha256:") and base == setup_digest(load_scenario("demo-steblev"))
    data["turns"] = int(data["turns"]) + 1
    assert setup_digest(load_scenario_data(data)) != base


async def test_a_game_records_its_data_and_status_says_so(store_url: str) -> None:
    ref = await Referee.open(store_url, opponents=None)
    try:
        gid = (await ref.new_game(ALICE, "demo-steblev", seed=1, side="soviet"))[0].game
        assert gid is not None
        g = await ref.game(gid)
        assert g.data_digest == setup_digest(load_scenario("demo-steblev"))
        (status,) = await ref.status(ALICE, gid)
        assert f"Data: {g.data_digest}" in status.text
        await ref.resign(ALICE, gid)
        out = await ref.import_game(ALICE, await ref.export(ALICE, gid))
        copy = await ref.game(str(out[0].game))
        assert copy.data_digest == g.data_digest  # an imported game records it too
    finally:
        await ref.close()


async def test_a_rated_season_refuses_games_of_other_data(store_url: str) -> None:
    ref = await Referee.open(store_url, opponents=None)
    try:
        await ref.leagues.create_league(MOD, "Cup")
        (league,) = await ref.store.leagues("g")
        out = await ref.leagues.create_season(MOD, league.id, "S")
        (season,) = await ref.store.seasons(league.id)
        want = setup_digest(load_scenario("demo-steblev"))
        assert season.settings["data_digest"] == want and want[:19] in out[0].text
        for p in (ALICE, BOB):
            await ref.leagues.join(p, season.id)
        # the data change before the start (say, a corrected map ships): no game is made
        other = season.settings | {"data_digest": "sha256:" + "0" * 64}
        await ref.store.set_season(season.id, status=season.status, settings=other)
        out = await ref.leagues.start(MOD, season.id)
        assert "not created" in out[0].text and "are not the season's" in out[0].text
        (p,) = await ref.store.pairings(season.id)
        assert p.game is None and p.result is None
        await ref.leagues.decide(MOD, season.id, p.key, "draw", "the data changed")
        (p,) = await ref.store.pairings(season.id)
        assert p.result is not None
    finally:
        await ref.close()


@pytest.mark.parametrize("scenario", ["ags-korsun", "kursk-joint"])
def test_every_system_has_a_digest(scenario: str) -> None:
    assert setup_digest(load_scenario(scenario)).startswith("sha256:")
