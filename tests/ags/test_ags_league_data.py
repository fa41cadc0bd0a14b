"""A league's own data files in place of the shipped ones (issue #19; docs/ags.md "A
league's data"; scenarios/overrides.py, scenarios/override_check.py): read by the loaders,
checked by `kessel validate`, said as league-supplied in status, the scenario list and
combat explanations, and recorded in the data's digest that rated seasons require."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from agsleague import (
    ROW_1,
    SCENARIOS,
    WHO,
    every_file,
    league_crt,
    league_file,
    malformed,
    shipped_files,
)
from agsstart import start
from leaguedata import ALICE, BOB, MOD

from bot import systems as bot_systems
from bot.league_data import ConfigError, configured
from bot.service import Referee
from engine import orders as o
from engine import systems
from engine.core import Applied
from engine.digest import setup_digest
from scenarios import load_scenario, overrides
from scenarios.override_check import activate, problems
from scenarios.provenance import data_note
from scenarios.validate import validate


@pytest.fixture(autouse=True)
def shipped_again() -> Iterator[None]:
    """Every test starts and ends on the shipped files (the loaded scenarios forgotten)."""
    with shipped_files():
        yield


def korsun_attack() -> Applied:
    """The Soviet cavalry's attack on 0513 at 1-1, the die forced to 1 (AGS 9.4, 9.5)."""
    rec = start(load_scenario("ags-korsun"), 1, dice=(1,))
    assert isinstance(rec.submit("soviet", o.Done()), Applied)
    r = rec.submit("soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513"))
    assert isinstance(r, Applied), r
    return r


def resolved(r: Applied) -> dict[str, object]:
    return next(e for e in r.events if e.kind == "combat_resolved").data


# --- loading -----------------------------------------------------------------------------
def test_a_league_crt_changes_the_result_of_a_combat_with_the_same_die(tmp_path: Path) -> None:
    shipped = resolved(korsun_attack())
    assert (shipped["column"], shipped["die"], shipped["result"]) == ("1-1", 1, "-/1")
    assert activate(league_crt(tmp_path)) == []
    r = korsun_attack()
    league = resolved(r)
    # the same odds and die, the league's cell: both defenders eliminated (AGS 9.65)
    assert (league["column"], league["die"], league["result"]) == ("1-1", 1, "-/E")
    assert league["crt"] == "league-supplied"
    assert f"the CRT (league-supplied by {WHO})" in league["data"]  # type: ignore[operator]
    words = bot_systems.get("ags").describer
    assert words is not None
    text = words.event(next(e for e in r.events if e.kind == "combat_resolved"))
    assert "Not printed in the rules" in text and f"the CRT (league-supplied by {WHO})" in text


def test_the_parts_a_league_supplies_are_said_with_who_supplied_them(tmp_path: Path) -> None:
    d = league_crt(tmp_path)
    league_file(d, "maps/ags/ags-korsun.yaml")
    assert activate(d) == []
    setup = load_scenario("ags-korsun")
    prov = systems.of(setup).data_provenance(setup)
    assert prov["the CRT"] == f"league-supplied by {WHO}"
    assert prov["the map"] == f"league-supplied by {WHO}"
    assert prov["the Terrain Effects Chart"] == "printed"  # not replaced: the shipped file
    note = data_note("ags-korsun")
    assert f"the CRT (league-supplied by {WHO})" in note
    assert "the Soviet set-up (reconstructed)" in note


def test_who_supplied_a_file_is_said_on_one_line_of_printable_characters(
    tmp_path: Path,
) -> None:
    d = tmp_path / "league"
    league_file(
        d, "tables/ags-results.yaml", {f"supplied_by: {WHO!r}": 'supplied_by: "A\\x1b[31mB\\nC"'}
    )
    assert activate(d) == []
    setup = load_scenario("ags-korsun")
    assert systems.of(setup).data_provenance(setup)["the CRT"] == "league-supplied by A [31mB C"


def test_a_league_counter_file_makes_the_counters_its_own(tmp_path: Path) -> None:
    d = tmp_path / "league"
    league_file(d, "tables/ags-korsun-counters.yaml")
    assert activate(d) == []
    setup = load_scenario("ags-korsun")
    said = systems.of(setup).data_provenance(setup)["the counters"]
    # the Soviet backs and types are the league's; German steps below the front come
    # from the printed 16.0 ladders (AGS 16.0, 9.61)
    assert said.startswith("fronts league-supplied; backs partly printed")
    assert WHO in said and "reconstructed" not in said


def test_a_league_counter_value_is_the_one_a_combat_adds(tmp_path: Path) -> None:
    d = tmp_path / "league"
    row = '{id: s-gd-cd-1, des: "1 Gd", size: XX, type: gd-cavalry-division, front: 4-2-6'
    league_file(d, "tables/ags-korsun-counters.yaml", {row: row.replace("4-2-6", "8-4-6")})
    assert activate(d) == []
    league = resolved(korsun_attack())
    # 8 + 4 against 6: 2-1 where the printed 4 + 4 made 1-1 (AGS 9.4); the league's
    # strengths are said (the front of a league's counter is the league's)
    assert (league["attack"], league["column"]) == (12, "2-1")
    assert "s-gd-cd-1's strengths (league-supplied)" in league["data"]  # type: ignore[operator]


async def test_status_and_the_scenario_list_say_league_supplied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    assert activate(league_crt(tmp_path)) == []
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        gid = (await ref.new_game(ALICE, "ags-korsun", seed=1, side="soviet"))[0].game
        assert gid is not None
        (status,) = await ref.status(ALICE, gid)
        assert f"the CRT (league-supplied by {WHO})" in status.text
    finally:
        await ref.close()
    assert main(["scenarios"]) == 0  # the process's data directory, as set by --data
    assert f"the CRT (league-supplied by {WHO})" in capsys.readouterr().out


# --- the digest and rated seasons ------------------------------------------------------
async def test_status_says_when_the_data_in_use_are_not_those_of_the_game(
    tmp_path: Path,
) -> None:
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        gid = (await ref.new_game(ALICE, "ags-korsun", seed=1, side="soviet"))[0].game
        assert gid is not None
        (status,) = await ref.status(ALICE, gid)
        assert "not those the game was created with" not in status.text
    finally:
        await ref.close()
    assert activate(league_crt(tmp_path)) == []  # the referee restarted with --data
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        (status,) = await ref.status(ALICE, gid)
        assert "The data in use now are not those the game was created with" in status.text
        assert f"the CRT (league-supplied by {WHO})" in status.text
    finally:
        await ref.close()


async def test_a_league_file_changes_the_digest_and_a_rated_season_requires_its_data(
    tmp_path: Path,
) -> None:
    shipped = setup_digest(load_scenario("ags-korsun"))
    d = league_crt(tmp_path)
    with overrides.scoped(d):
        league = setup_digest(load_scenario("ags-korsun"))
    assert league != shipped and setup_digest(load_scenario("ags-korsun")) == shipped
    ref = await Referee.open(tmp_path / "k.db", opponents=None)
    try:
        await ref.leagues.create_league(MOD, "Cup", system="ags")
        (cup,) = await ref.store.leagues("g")
        seasons = []
        for name in ("on shipped data", "on the league's data"):
            if name == "on the league's data":
                assert activate(d) == []  # loaded scenarios are kept per data directory
            out = await ref.leagues.create_season(MOD, cup.id, name, scenario="ags-korsun")
            said = "the league's own data: the CRT" in out[0].text
            assert said == (name == "on the league's data"), out[0].text
            season = next(s for s in await ref.store.seasons(cup.id) if s.name == name)
            for p in (ALICE, BOB):
                await ref.leagues.join(p, season.id)
            seasons.append(season)
        assert [s.settings["data_digest"] for s in seasons] == [shipped, league]
        # now on the league's data: the season begun on the shipped data makes no game
        out = await ref.leagues.start(MOD, seasons[0].id)
        assert "not created" in out[0].text and "are not the season's" in out[0].text
        # back on the shipped data: the season begun on the league's makes none either
        activate(None)
        out = await ref.leagues.start(MOD, seasons[1].id)
        assert "not created" in out[0].text and "are not the season's" in out[0].text
    finally:
        await ref.close()


# --- kessel validate ---------------------------------------------------------------------
def test_validate_accepts_a_good_league_directory(tmp_path: Path) -> None:
    d = every_file(tmp_path)
    assert problems(d) == []
    assert overrides.current() is None  # checking uses nothing
    with overrides.scoped(d):  # `kessel validate ID` reads the league's file by its id
        assert validate("ags-korsun").file == str(d / "ags" / "ags-korsun.yaml")
        assert validate("ags-korsun").ok
    assert validate("ags-korsun").file.startswith(str(SCENARIOS))
    assert activate(d) == [] and overrides.current() == d.resolve()
    assert load_scenario("ags-korsun").results.supplied_by.keys() == {
        "crt",
        "counters",
        "map",
        "scenario",
    }


def one_problem(d: Path, *words: str) -> str:
    found = problems(d)
    assert found, "the directory was accepted"
    assert any(all(w in p for w in words) for p in found), found
    return next(p for p in found if all(w in p for w in words))


@pytest.mark.parametrize("claim", ["printed", "reconstructed"])
def test_validate_refuses_a_league_file_that_claims_printed_or_reconstructed(
    tmp_path: Path, claim: str
) -> None:
    d = tmp_path / "league"
    p = league_file(d, "tables/ags-results.yaml")
    p.write_text(p.read_text().replace("provenance: league-supplied", f"provenance: {claim}"))
    said = one_problem(d, str(p), "provenance", f"says '{claim}'", "league-supplied")
    assert said.startswith(f"{p}: provenance:")


def test_validate_refuses_a_part_or_unit_still_reconstructed_and_no_supplier(
    tmp_path: Path,
) -> None:
    d = tmp_path / "league"
    sc = league_file(d, "ags/ags-korsun.yaml", {f"supplied_by: {WHO!r}\n": ""})
    text = sc.read_text()
    start = text.index("start_line:")
    at = text.index("provenance: league-supplied", start)
    sc.write_text(text[:at] + "provenance: reconstructed" + text[at + 27 :])
    one_problem(d, f"{sc}: supplied_by: missing")
    one_problem(d, f"{sc}: start_line.provenance: says 'reconstructed'")


def test_validate_refuses_a_crt_missing_values(tmp_path: Path) -> None:
    d = tmp_path / "league"
    p = league_file(d, "tables/ags-results.yaml", {ROW_1 + "\n": ""})
    one_problem(d, str(p), "rows", "one row for each die face 1-6 (AGS 9.4)")
    league_file(d, "tables/ags-results.yaml", {'"-/E", "-/E", "-/E"]\n  2:': '"-/E", "-/E"]\n  2:'})
    one_problem(d, str(p), "rows.1", "11 cells for 12 columns")
    league_file(d, "tables/ags-results.yaml", {'"1-1", "2-1", "3-1"': '"1-1", "3-1", "3-1"'})
    one_problem(d, str(p), "columns[3]", "3-1 does not follow 1-1")


def test_validate_refuses_a_map_that_fails_the_map_checks(tmp_path: Path) -> None:
    d = tmp_path / "league"
    p = league_file(d, "maps/ags/ags-korsun.yaml")
    text = p.read_text()
    river = next(x for x in text.splitlines() if x.strip().startswith('"3308": "dnieper"'))
    p.write_text(text.replace(river + "\n", ""))
    one_problem(d, str(p), "the Dniepr's river hexes are not one chain", "AGS-K 19.25")


def test_validate_refuses_a_map_too_large_to_be_one(tmp_path: Path) -> None:
    d = tmp_path / "league"
    p = league_file(d, "maps/ags/ags-korsun.yaml", {"cols: [1, 39]": "cols: [1, 100000]"})
    one_problem(d, f"{p}: cols: [1, 100000] is not a span within 0-99")


def test_validate_refuses_malformed_yaml_and_changes_nothing(tmp_path: Path) -> None:
    d, bad = malformed(tmp_path)
    one_problem(d, str(bad), "YAML syntax error")
    assert activate(d) != [] and overrides.current() is None  # nothing of it is read
    assert load_scenario("ags-korsun").results.tec.provenance == "printed"


def test_validate_refuses_paths_leaving_the_directory_and_unknown_files(tmp_path: Path) -> None:
    d = tmp_path / "league"
    (d / "tables").mkdir(parents=True)
    outside = league_file(tmp_path / "elsewhere", "tables/ags-results.yaml")
    os.symlink(outside, d / "tables" / "ags-results.yaml")
    one_problem(d, "ags-results.yaml", "leaves the league's data directory")
    os.symlink(tmp_path / "elsewhere" / "tables", d / "maps")
    one_problem(d, f"{d / 'maps'}: a link to a directory")
    (d / "tables" / "ags-result.yaml").write_text("provenance: league-supplied\n")
    one_problem(d, "ags-result.yaml", "replaces no shipped data file")
    (d / "tables" / "korsun-terrain.yaml").write_text("provenance: league-supplied\n")
    one_problem(d, "korsun-terrain.yaml", "is not read")
    (d / "tables" / "ags-tec.yaml").mkdir()
    one_problem(d, "ags-tec.yaml: a directory where a data file of that name is expected")
    # the loaders refuse a link out of the directory too, whatever said it was good
    with overrides.scoped(d), pytest.raises(Exception, match="leaves the league's data"):
        load_scenario("ags-korsun")


def test_validate_refuses_a_directory_of_thousands_of_entries(tmp_path: Path) -> None:
    d = league_crt(tmp_path)
    for i in range(300):
        (d / f"d{i}").mkdir()
    one_problem(d, "more than 200 entries")


def test_validate_refuses_a_scenario_renamed(tmp_path: Path) -> None:
    d = tmp_path / "league"
    p = league_file(d, "ags/ags-korsun.yaml", {"id: ags-korsun": "id: our-korsun"})
    one_problem(d, f"{p}: id: is 'our-korsun'; the scenario it replaces is 'ags-korsun'")


def test_a_missing_directory_or_kessels_own_is_refused(tmp_path: Path) -> None:
    assert "not a directory" in problems(tmp_path / "nowhere")[0]
    (tmp_path / "empty").mkdir()
    assert "holds no data file" in problems(tmp_path / "empty")[0]
    assert "Kessel's own scenarios directory" in problems(SCENARIOS)[0]


# --- where the directory is configured ---------------------------------------------------
def test_the_data_directory_comes_from_the_option_the_environment_or_kessel_toml(
    tmp_path: Path,
) -> None:
    assert configured(None, tmp_path, env={}) is None
    (tmp_path / "kessel.toml").write_text('[league]\ndata = "ours"\n')
    assert configured(None, tmp_path, env={}) == str(tmp_path / "ours")
    assert configured(None, tmp_path, env={"KESSEL_DATA": "/srv/x"}) == "/srv/x"
    assert configured("/opt/y", tmp_path, env={"KESSEL_DATA": "/srv/x"}) == "/opt/y"
    (tmp_path / "kessel.toml").write_text("[league]\ndata = 3\n")
    with pytest.raises(ConfigError, match=r"league\.data: must be the path of a directory"):
        configured(None, tmp_path, env={})
