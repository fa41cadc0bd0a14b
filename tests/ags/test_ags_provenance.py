"""What the referee says about data not printed in the rules (issue #19): `status`, the
scenario list and every combat explanation that used a reconstructed value."""

from __future__ import annotations

import pytest
from agsstart import start

from bot import systems as bot_systems
from engine import orders as o
from engine import systems
from engine.core import Applied
from engine.provenance import not_printed, sentence
from scenarios import load_scenario
from scenarios.provenance import data_note


def test_the_ags_system_names_each_data_part_with_its_provenance() -> None:
    setup = load_scenario("ags-korsun")
    prov = systems.of(setup).data_provenance(setup)
    assert prov["the CRT"] == "printed" and prov["the map"] == "reconstructed"
    assert "reconstructed" in prov["the counters"]  # Soviet backs (K121)
    assert "the CRT" not in not_printed(prov)
    said = sentence(prov)
    assert "the map (reconstructed)" in said and "the Soviet set-up (reconstructed)" in said


def test_the_scenario_list_names_reconstructed_data(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import _scenarios

    assert "the map (reconstructed)" in data_note("ags-korsun")
    assert "the map (invented)" in data_note("demo-steblev")  # tests/test_wb95_provenance.py
    _scenarios()
    out = capsys.readouterr().out
    line = next(i for i, x in enumerate(out.splitlines()) if x.startswith("ags-korsun"))
    assert "reconstructed" in out.splitlines()[line + 1]


def test_a_combat_explanation_says_which_values_were_reconstructed() -> None:
    rec = start(load_scenario("ags-korsun"), 1, dice=(1,))
    _ = rec.submit("soviet", o.Done())
    r = rec.submit("soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513"))
    assert isinstance(r, Applied)
    e = next(e for e in r.events if e.kind == "combat_resolved")
    used = e.data["data"]
    for uid in e.data["reconstructed"]:
        assert any(x.startswith(uid) for x in used)
    words = bot_systems.get("ags").describer
    assert words is not None
    text = words.event(e)
    if used:
        assert "Not printed in the rules" in text and used[0] in text
    # a defence helped by the map's terrain names the reconstructed map
    sc = rec.state.setup.results
    terrain = sc.board.terrain_at("0513")
    if (sc.tec.row(terrain).defence or 1) > 1:
        assert any("map" in x for x in used)


def test_a_defence_doubled_by_the_reconstructed_map_names_the_map() -> None:
    from engine.ags import data

    rec = start(load_scenario("ags-korsun"), 1)
    sc = rec.state.setup.results
    helped = next(
        u
        for u in rec.state.on_map("german")
        if u.hex is not None and (sc.tec.row(sc.board.terrain_at(u.hex)).defence or 1) > 1
    )
    used = data.used_in_combat(rec.state, [], [helped])
    assert f"the {sc.board.terrain_at(helped.hex)} of {helped.hex} (reconstructed map)" in used
