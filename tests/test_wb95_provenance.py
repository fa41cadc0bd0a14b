"""Where a WB-95 scenario's data come from, said to players (issue #19; engine/provenance.py):
the rulebooks print the tables and the set-ups, not the map nor the counter values -- the
shipped maps are reconstructions (docs/maps.md) and the counter values derived
(docs/order-of-battle.md); the demonstration scenarios are made up. A league may replace a
countersheet or a map with its own transcription, said with who supplied it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from leaguedata import SCENARIOS, WHO, league_file, shipped_files

from bot.service import Caller, Referee
from engine import systems
from engine.digest import setup_digest
from scenarios import load_scenario
from scenarios.override_check import activate, problems
from scenarios.provenance import data_note, data_tag

ALICE = Caller("u-alice", "Alice", guild="g1", channel="c1")
A_75 = "- id: g-75-inf-a\n  name: A/75 INF-R\n  side: german\n  nation: german\n  type: inf\n"
A_75 += "  size: R\n  formation: 75 INF\n  sp: 3\n"


@pytest.fixture(autouse=True)
def shipped_again() -> Iterator[None]:
    with shipped_files():
        yield


def provenance(scenario: str) -> dict[str, str]:
    setup = load_scenario(scenario)
    return systems.of(setup).data_provenance(setup)


@pytest.mark.parametrize(
    "scenario", ["korsun-1944", "deblockade", "the-retreat", "kursk", "prokhorovka", "kursk-joint"]
)
def test_the_shipped_maps_and_counter_values_are_said_reconstructed(scenario: str) -> None:
    prov = provenance(scenario)
    assert prov["the map"] == "reconstructed"
    assert prov["the counter values"] == "reconstructed"
    assert prov["the result tables"] == "printed"  # scenarios/tables/wb95-results.yaml
    assert data_note(scenario) == (
        "Data not printed in the rules: the map (reconstructed); "
        "the counter values (reconstructed)."
    )
    assert data_tag(scenario) == "reconstructed data"


@pytest.mark.parametrize("scenario", ["demo-steblev", "demo-kursk"])
def test_a_demonstration_says_its_data_are_invented(scenario: str) -> None:
    prov = provenance(scenario)
    assert {prov[p] for p in ("the map", "the counter values", "the set-up")} == {"invented"}
    assert data_tag(scenario) == "invented data"


@pytest.mark.parametrize("scenario", ["korsun-1944", "ags-korsun"])
def test_status_says_what_is_not_printed(tmp_path: Path, scenario: str) -> None:
    async def go() -> str:
        ref = await Referee.open(tmp_path / "kessel.db")
        try:
            out = await ref.new_game(ALICE, scenario, seed=1, side="soviet")
            gid = out[0].game
            assert gid is not None
            return "\n".join(r.text for r in await ref.status(ALICE, gid))
        finally:
            await ref.close()

    text = asyncio.run(go())
    assert "Data not printed in the rules" in text and "the map (reconstructed)" in text


def test_a_league_countersheet_is_read_and_said_with_who_supplied_it(tmp_path: Path) -> None:
    shipped = load_scenario("korsun-1944")
    d = tmp_path / "league"
    league_file(d, "countersheets/korsun.yaml", {A_75: A_75.replace("sp: 3", "sp: 4")})
    assert activate(d) == []
    setup = load_scenario("korsun-1944")
    assert (shipped.units["g-75-inf-a"].sp, setup.units["g-75-inf-a"].sp) == (3, 4)
    assert provenance("korsun-1944")["the counter values"] == f"league-supplied by {WHO}"
    assert provenance("korsun-1944")["the map"] == "reconstructed"  # not replaced
    assert data_tag("korsun-1944") == "reconstructed and league-supplied data"
    # a rated season's digest follows the values (engine/digest.py), not who said them
    assert setup_digest(setup) != setup_digest(shipped)


def test_a_league_file_that_says_nothing_of_itself_is_refused(tmp_path: Path) -> None:
    d = tmp_path / "league"
    p = d / "countersheets" / "korsun.yaml"
    p.parent.mkdir(parents=True)
    p.write_text((SCENARIOS / "countersheets" / "korsun.yaml").read_text(encoding="utf-8"))
    found = problems(d)
    assert any("provenance" in x and "league-supplied" in x for x in found), found
    assert activate(d) == found and provenance("korsun-1944")["the counter values"] == (
        "reconstructed"
    )  # nothing changed


def test_a_league_map_is_checked_before_use_and_said_as_the_leagues(tmp_path: Path) -> None:
    d = tmp_path / "league"
    bad = league_file(d, "maps/korsun.yaml", {"cols: [1, 64]": "cols: [1, 20]"})
    found = problems(d)
    # the league's map loses the hexes its own terrain and the scenarios use: refused, named
    assert any(x.startswith(f"{bad}: terrain.") and "not on the map" in x for x in found)
    assert activate(d) == found and provenance("korsun-1944")["the map"] == "reconstructed"
    league_file(d, "maps/korsun.yaml")  # the same values, transcribed by the league
    assert activate(d) == []
    assert provenance("deblockade")["the map"] == f"league-supplied by {WHO}"


def test_the_rulebooks_tables_are_not_a_leagues_to_replace(tmp_path: Path) -> None:
    d = tmp_path / "league"
    league_file(d, "tables/wb95-results.yaml")
    assert any("replaces no shipped data file" in x or "is not read" in x for x in problems(d))
