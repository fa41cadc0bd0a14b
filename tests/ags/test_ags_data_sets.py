"""Data sets per league (issue #19; docs/leagues.md "A league's own data";
scenarios/data_sets.py): the referee's operator declares named league data directories in
kessel.toml, an organiser picks one by name for the league (`league set LEAGUE data NAME`),
and each game records the set it was created with and loads with it whatever the
process's default data: two leagues on one referee play two CRTs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agsleague import WHO, league_crt, malformed, shipped_files
from agsstart import start
from leaguedata import ALICE, BOB, MOD

from bot.cli import main
from bot.league_data import ConfigError, sets
from bot.service import Referee, Refusal
from engine import orders as o
from engine.core import Applied
from engine.digest import setup_digest
from engine.model import Setup
from scenarios import data_sets, load_scenario, overrides
from scenarios.override_check import activate, declare


@pytest.fixture(autouse=True)
def shipped_again() -> Iterator[None]:
    """Every test starts and ends on the shipped files with no data set declared."""
    with shipped_files():
        data_sets.declare({})
        try:
            yield
        finally:
            data_sets.declare({})


def crt_cell(setup: Setup) -> str:
    """The result of the Soviet cavalry's attack on 0513 at 1-1 with the die forced to 1
    (AGS 9.4, 9.5): the printed CRT's -/1, the league's -/E (tests/ags/agsleague.py)."""
    rec = start(setup, 1, dice=(1,))
    assert isinstance(rec.submit("soviet", o.Done()), Applied)
    r = rec.submit("soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513"))
    assert isinstance(r, Applied), r
    resolved = next(e for e in r.events if e.kind == "combat_resolved").data
    assert (resolved["column"], resolved["die"]) == ("1-1", 1)
    return str(resolved["result"])


async def league_game(ref: Referee, name: str, data: str | None) -> tuple[str, str, str]:
    """A league of AGS (with the data set `data`, if any), a rated season of ags-korsun
    with Alice and Bob, started: (league, season, its game)."""
    await ref.leagues.create_league(MOD, name, system="ags")
    league = next(x for x in await ref.store.leagues("g") if x.name == name)
    if data is not None:
        out = await ref.leagues.set_league(MOD, league.id, "data", data)
        assert f"League **{name}** ({league.id}) plays" in out[0].text
    await ref.leagues.create_season(MOD, league.id, "Winter", scenario="ags-korsun")
    (season,) = await ref.store.seasons(league.id)
    for p in (ALICE, BOB):
        await ref.leagues.join(p, season.id)
    await ref.leagues.start(MOD, season.id)
    (pairing,) = await ref.store.pairings(season.id)
    assert pairing.game is not None
    return league.id, season.id, pairing.game


async def test_19_two_leagues_on_one_referee_play_their_own_crt(tmp_path: Path) -> None:
    d = league_crt(tmp_path)
    assert declare({"ostfront": d}) == []
    with overrides.scoped(d):
        theirs = setup_digest(load_scenario("ags-korsun"))
    shipped = setup_digest(load_scenario("ags-korsun"))
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        _, s_own, g_own = await league_game(ref, "Ostfront Cup", "ostfront")
        _, s_shipped, g_shipped = await league_game(ref, "Open Cup", None)
        own, printed = await ref.game(g_own), await ref.game(g_shipped)
        assert own.settings["data"] == "ostfront" and "data" not in printed.settings
        # the same attack, the same die: the league's cell in one, the printed in the other
        assert crt_cell(own.setup) == "-/E"
        assert crt_cell(printed.setup) == "-/1"
        # each rated season recorded the digest of its own data, and its game is on them
        season_own, season_shipped = (
            await ref.store.season(s_own),
            await ref.store.season(s_shipped),
        )
        assert season_own is not None and season_shipped is not None
        assert season_own.settings["data_digest"] == theirs == own.data_digest
        assert season_shipped.settings["data_digest"] == shipped == printed.data_digest
        # status names the league's parts and who supplied them, for its game only
        (said,) = await ref.status(ALICE, g_own)
        assert f"the CRT (league-supplied by {WHO})" in said.text
        assert "Data set: ostfront" in said.text and "not those the game" not in said.text
        (said,) = await ref.status(ALICE, g_shipped)
        assert "league-supplied" not in said.text and "Data set" not in said.text
    finally:
        await ref.close()


async def test_19_the_season_announcement_names_the_set_and_its_parts(tmp_path: Path) -> None:
    assert declare({"ostfront": league_crt(tmp_path)}) == []
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        await ref.leagues.create_league(MOD, "Cup", system="ags")
        (cup,) = await ref.store.leagues("g")
        await ref.leagues.set_league(MOD, cup.id, "data", "ostfront")
        out = await ref.leagues.create_season(MOD, cup.id, "Winter", scenario="ags-korsun")
        assert "data set ostfront" in out[0].text
        assert "the league's own data: the CRT" in out[0].text
        listed = (await ref.leagues.list(MOD))[0].text
        assert f"{cup.id}: Cup (ags, data set ostfront)" in listed
    finally:
        await ref.close()


async def test_19_a_game_keeps_its_set_across_a_restart_whatever_the_default(
    tmp_path: Path,
) -> None:
    d = league_crt(tmp_path)
    assert declare({"ostfront": d}) == []
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        _, _, g_own = await league_game(ref, "Ostfront Cup", "ostfront")
        _, _, g_shipped = await league_game(ref, "Printed Cup", "shipped")
        _, _, g_default = await league_game(ref, "Plain Cup", None)
    finally:
        await ref.close()
    # the referee restarts with the league's directory as the process's default data
    assert activate(d) == []
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        assert crt_cell((await ref.game(g_own)).setup) == "-/E"  # its set, as before
        assert crt_cell((await ref.game(g_shipped)).setup) == "-/1"  # Kessel's own files
        # a game recording no set plays the process's default, as every game always has
        assert crt_cell((await ref.game(g_default)).setup) == "-/E"
        (said,) = await ref.status(ALICE, g_shipped)
        assert "Data set: shipped (Kessel's own files" in said.text
        assert "not those the game was created with" not in said.text
    finally:
        await ref.close()
    activate(None)
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        assert crt_cell((await ref.game(g_own)).setup) == "-/E"
    finally:
        await ref.close()


async def test_19_a_game_whose_set_is_no_longer_declared_refuses_in_one_sentence(
    tmp_path: Path,
) -> None:
    assert declare({"ostfront": league_crt(tmp_path)}) == []
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        lid, sid, g_own = await league_game(ref, "Ostfront Cup", "ostfront")
        _, _, g_shipped = await league_game(ref, "Open Cup", None)
    finally:
        await ref.close()
    data_sets.declare({})  # the operator removed [data.ostfront] and restarted
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        with pytest.raises(Refusal) as refused:
            await ref.status(ALICE, g_own)
        said = str(refused.value)
        assert said == (
            f"game {g_own} cannot be loaded: it plays the data set 'ostfront', which the "
            "referee's operator no longer declares: the operator must declare it again "
            "([data.ostfront] in kessel.toml, docs/leagues.md)."
        )
        assert "Traceback" not in said and "\n" not in said
        (other,) = await ref.status(ALICE, g_shipped)  # the other games are unaffected
        assert f"game {g_shipped}" in other.text
        # the league cannot open a season on the set either, and says why
        with pytest.raises(Refusal, match=r"no longer declares.*league set .* data NAME"):
            await ref.leagues.create_season(MOD, lid, "Spring", scenario="ags-korsun")
        assert (await ref.store.season(sid)) is not None
    finally:
        await ref.close()


async def test_19_an_organiser_picks_only_a_declared_name_never_a_path(tmp_path: Path) -> None:
    d = league_crt(tmp_path)
    assert declare({"ostfront": d}) == []
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        await ref.leagues.create_league(MOD, "Cup", system="ags")
        (cup,) = await ref.store.leagues("g")
        with pytest.raises(Refusal) as unknown:
            await ref.leagues.set_league(MOD, cup.id, "data", "slavic")
        assert str(unknown.value) == (
            "there is no data set 'slavic': the data sets declared: ostfront; or shipped "
            "(Kessel's own files) or default (the referee's default data)"
        )
        for path in (str(d), "../league", "league/", "~/league", str(tmp_path / "league")):
            with pytest.raises(Refusal, match="never a directory: the data sets declared: ostf"):
                await ref.leagues.set_league(MOD, cup.id, "data", path)
        with pytest.raises(Refusal, match="only the league's organisers"):
            await ref.leagues.set_league(ALICE, cup.id, "data", "ostfront")
        with pytest.raises(Refusal, match="a league's settings: data; not 'colour'"):
            await ref.leagues.set_league(MOD, cup.id, "colour", "red")
        assert (await ref.store.league(cup.id)).settings == {}  # type: ignore[union-attr]
        # a player may not give a game a data set either: it is no game setting
        gid = (await ref.new_game(ALICE, "ags-korsun", seed=1))[0].game
        assert gid is not None
        with pytest.raises(Refusal, match="unknown setting 'data'"):
            await ref.new_game(ALICE, "ags-korsun", settings={"data": str(d)})
        # a name, shipped, and back to the default
        await ref.leagues.set_league(MOD, cup.id, "data", "OSTFRONT")
        assert (await ref.store.league(cup.id)).settings == {"data": "ostfront"}  # type: ignore[union-attr]
        await ref.leagues.set_league(MOD, cup.id, "data", "shipped")
        assert (await ref.store.league(cup.id)).settings == {"data": "shipped"}  # type: ignore[union-attr]
        await ref.leagues.set_league(MOD, cup.id, "data", "default")
        assert (await ref.store.league(cup.id)).settings == {}  # type: ignore[union-attr]
    finally:
        await ref.close()


# --- kessel.toml and the commands ------------------------------------------------------
def test_19_kessel_toml_declares_sets_and_its_errors_name_the_file_and_key(
    tmp_path: Path,
) -> None:
    toml = tmp_path / "kessel.toml"
    assert sets(tmp_path) == {}
    toml.write_text('[data.ostfront]\ndir = "ostfront-data"\n[data.slavic]\ndir = "/srv/s"\n')
    assert sets(tmp_path) == {"ostfront": str(tmp_path / "ostfront-data"), "slavic": "/srv/s"}
    for text, said in (
        ('data = "x"\n', f"{toml}: data: must be tables of data sets"),
        ('[data."Our Set"]\ndir = "x"\n', f"{toml}: data.Our Set: a data set's name is"),
        ('[data.shipped]\ndir = "x"\n', f"{toml}: data.shipped: a data set's name is"),
        ("[data]\nostfront = 3\n", f"{toml}: data.ostfront: must be a table"),
        ("[data.ostfront]\n", f"{toml}: data.ostfront.dir: must be the path of a directory"),
        ("[data.ostfront]\ndir = 3\n", f"{toml}: data.ostfront.dir: must be the path of a"),
        ('[data.ostfront]\ndir = "x"\npath = "y"\n', f"{toml}: data.ostfront.path: unknown key"),
        ("[data.ostfront\n", f"{toml}: cannot be read"),
    ):
        toml.write_text(text)
        with pytest.raises(ConfigError) as e:
            sets(tmp_path)
        assert str(e.value).startswith(said), str(e.value)


def test_19_the_names_kessel_toml_accepts_are_the_names_a_league_may_pick() -> None:
    from bot.league_data import _NAME

    assert _NAME.pattern == data_sets.NAME.pattern


def test_19_a_set_with_a_problem_stops_the_command_before_it_reads_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _, bad = malformed(tmp_path)
    (tmp_path / "kessel.toml").write_text('[data.ostfront]\ndir = "league"\n')
    db = tmp_path / "k.db"
    assert main(["league", "list", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    shown = bad.relative_to(tmp_path)  # the directory as kessel.toml names it
    assert f"data set ostfront: {shown}" in err and "YAML syntax error" in err
    assert "the data sets of kessel.toml are not used: 1 problem(s) in ostfront" in err
    assert "Traceback" not in err and not db.exists()  # no database opened
    assert data_sets.declared() == {}
    (tmp_path / "kessel.toml").write_text("[data.ostfront]\n")
    assert main(["league", "list", "--db", str(db)]) == 1
    assert "kessel.toml: data.ostfront.dir: must be" in capsys.readouterr().err


def test_19_kessel_validate_checks_every_declared_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kessel validate` with no file checks each data set kessel.toml declares, as
    `--data DIR` checks one, naming the set with each problem."""
    monkeypatch.chdir(tmp_path)
    league_crt(tmp_path)  # tmp_path/league: a good set
    (tmp_path / "kessel.toml").write_text('[data.ostfront]\ndir = "league"\n')
    assert main(["validate"]) == 0
    assert "league: data set ostfront ok" in capsys.readouterr().out
    malformed(tmp_path / "other")
    (tmp_path / "kessel.toml").write_text(
        '[data.ostfront]\ndir = "league"\n[data.slavic]\ndir = "other/league"\n'
    )
    assert main(["validate"]) == 1
    out, err = capsys.readouterr()
    assert "data set ostfront ok" in out
    assert "YAML syntax error" in err and "other/league: 1 problem(s)" in err
    (tmp_path / "kessel.toml").unlink()
    assert main(["validate"]) == 1
    assert "the data sets of kessel.toml" in capsys.readouterr().err


def test_19_kessel_league_set_picks_a_declared_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    league_crt(tmp_path)
    (tmp_path / "kessel.toml").write_text('[data.ostfront]\ndir = "league"\n')
    db = str(tmp_path / "k.db")
    assert main(["league", "new", "Cup", "system", "ags", "--db", db]) == 0
    lid = capsys.readouterr().out.split("(")[1].split(",")[0]
    assert main(["league", "set", lid, "data", "slavic", "--db", db]) == 2
    assert "the data sets declared: ostfront" in capsys.readouterr().err
    assert main(["league", "set", lid, "data", "ostfront", "--db", db]) == 0
    assert "plays the data set ostfront" in capsys.readouterr().out
    assert main(["league", "list", "--db", db]) == 0
    assert f"{lid}: Cup (ags, data set ostfront)" in capsys.readouterr().out


async def test_19_an_export_carries_its_set_and_imports_on_it(tmp_path: Path) -> None:
    """A league game's export names its set and data digest: imported on a referee that
    declares the set it replays on the league's data; without the set it is refused."""
    import yaml

    assert declare({"ostfront": league_crt(tmp_path)}) == []
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        _, _, gid = await league_game(ref, "Ostfront Cup", "ostfront")
        await ref.resign(BOB, gid)  # a rated game is exported once it is over
        text = await ref.export(ALICE, gid)
        data = yaml.safe_load(text)
        assert data["data_set"] == "ostfront"
        assert data["data_digest"] == (await ref.game(gid)).data_digest
        out = await ref.import_game(MOD, text)
        copy = await ref.game(out[0].game or "")
        assert copy.settings["data"] == "ostfront" and crt_cell(copy.setup) == "-/E"
        data_sets.declare({})
        with pytest.raises(Refusal, match="data set 'ostfront', which this referee does not"):
            await ref.import_game(MOD, text)
    finally:
        await ref.close()
