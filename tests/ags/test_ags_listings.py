"""AGS in the listings and `kessel run` (issue #19): the Discord scenario choices, the
`/game new` note and local play's scenario menu name reconstructed data
(`RuleSystem.data_provenance`); `kessel run` says steps and the two-day Game-Turn
(AGS 9.61, AGS-K 17.0) through `RuleSystem.strength_label`/`turn_dates`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.discord.cogs.game import _choice_name, _provenance_note
from bot.local import _data_mark
from engine import systems
from scenarios import list_scenarios, load_scenario


def _path(sid: str) -> Path:
    return {s.id: s.path for s in list_scenarios()}[sid]


def test_the_scenario_lists_name_reconstructed_data() -> None:
    name = _choice_name("ags-korsun", "Korsun " * 30, _path("ags-korsun"))
    assert len(name) <= 100 and name.endswith("[reconstructed data]")
    assert _choice_name("korsun-1944", "Korsuń 1944", _path("korsun-1944")) == (
        "korsun-1944 — Korsuń 1944 [reconstructed data]"  # its map and counter values
    )
    assert "the map (reconstructed)" in _provenance_note("ags-korsun")
    assert "the counter values (reconstructed)" in _provenance_note("korsun-1944")
    assert _data_mark(_path("ags-korsun")) == "reconstructed data"
    assert _data_mark(_path("korsun-1944")) == "reconstructed data"


def test_ags_turns_are_two_days_and_units_count_steps() -> None:
    setup = load_scenario("ags-korsun")
    rules = systems.of(setup)
    assert [d.isoformat() for d in rules.turn_dates(setup, 13)] == ["1944-02-19", "1944-02-20"]
    assert rules.strength_label(1, 2) == "steps 1/2"
    wb = load_scenario("korsun-1944")
    assert systems.of(wb).strength_label(3, 4) == "CEL 3/4"
    assert len(systems.of(wb).turn_dates(wb, 1)) == 1


def test_kessel_run_for_ags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    orders = tmp_path / "o.txt"
    orders.write_text("done\n")  # the German set-up as printed (K170)
    assert main(["run", "ags-korsun", "--orders", str(orders), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["system"] == "ags" and out["strength"] == "steps"
    assert out["dates"] == ["1944-01-26", "1944-01-27"] and out["date"] == "1944-01-26"
    assert main(["run", "ags-korsun", "--orders", str(orders)]) == 0
    text = capsys.readouterr().out
    assert "Turn 1 (26-27 Jan 1944): the Soviet Initial Movement Phase" in text
    assert "steps 4/4" in text and "CEL" not in text
