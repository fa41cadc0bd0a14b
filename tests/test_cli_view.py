"""`kessel run --view SIDE|spectator|moderator` (DESIGN §2 "Views", §6): the position as
one viewer sees it -- fog of war (16.1) and sealed inputs (K27, K28)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main

SCEN = """
id: t-view
system: wb95
game: korsun
initiative: soviet
turns: 2
start: {turn: 1, phase: movement, active: german}
map: {layout: even-q, cols: [1, 10], rows: [1, 8], default: clear}
sides:
  soviet: {nation: soviet, supply: [{edge: E}]}
  german: {nation: german, supply: [{edge: W}]}
units:
  - {id: s-232, name: 232 Rifle Division, side: soviet, type: inf, sp: 6, mp: 4, cel: 2,
     hex: "0303"}
  - {id: g-top, name: 11 Panzer, side: german, type: arm, sp: 8, mp: 6, cel: 2, hex: "0808"}
  - {id: g-mid, name: 88 Infantry, side: german, type: inf, sp: 5, mp: 4, cel: 2, hex: "0808"}
"""


@pytest.fixture
def scen(tmp_path: Path) -> Path:
    p = tmp_path / "t-view.yaml"
    p.write_text(SCEN)
    return p


def run(
    capsys: pytest.CaptureFixture[str], scen: Path, orders: str, *args: str
) -> tuple[int, dict[str, Any], str]:
    path = scen.parent / "orders.txt"
    path.write_text(orders)
    code = main(["run", str(scen), "--orders", str(path), "--json", *args])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def test_the_default_is_the_moderator_view(scen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    orders = "german: mask 0808 on\n"
    _, default, _ = run(capsys, scen, orders)
    code, mod, _ = run(capsys, scen, orders, "--view", "moderator")
    assert code == 0 and mod == default
    assert {u["id"] for u in mod["units"]} == {"s-232", "g-top", "g-mid"}
    sub = mod["events"][-1]
    assert sub["kind"] == "sealed_submitted" and sub["item"] == {"hex": "0808", "on": True}


def test_a_side_sees_the_top_counter_and_not_the_enemys_sealed_input(
    scen: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, scen, "german: mask 0808 on\n", "--view", "soviet")
    assert code == 0 and out["view"] == "soviet"
    german = [u for u in out["units"] if u["side"] == "german"]
    assert [(u["known"], u.get("id")) for u in german] == [("full", "g-top"), ("hidden", None)]
    assert "g-mid" not in json.dumps(out)
    assert out["events"][-1] == {
        "seq": out["events"][-1]["seq"],
        "kind": "sealed_submitted",
        "side": "german",
        "sealed": True,
        "note": "german submitted a sealed input",
    }
    assert out["sealed"] == [] and out["masked"] == []
    _, own, _ = run(capsys, scen, "german: mask 0808 on\n", "--view", "german")
    assert [x["item"] for x in own["sealed"]] == [{"hex": "0808", "on": True}]
    assert own["events"][-1]["item"] == {"hex": "0808", "on": True}


def test_a_revealed_mask_shows_a_plain_counter_to_the_enemy_and_the_spectator(
    scen: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    orders = "german: mask 0808 on\ngerman: done\n"
    for viewer in ("soviet", "spectator"):
        code, out, _ = run(capsys, scen, orders, "--view", viewer)
        assert code == 0
        german = [u for u in out["units"] if u["side"] == "german"]
        assert [(u["hex"], u["known"], u.get("id")) for u in german] == [("0808", "masked", None)]
        assert out["masked"] == ["0808"] and "0808" not in out["stacks"]
        text = json.dumps(out["units"])
        assert "g-top" not in text and "arm" not in text
        sub = next(e for e in out["events"] if e["kind"] == "sealed_submitted")
        assert sub["item"] == {"hex": "0808", "on": True}  # revealed: now in the open
        assert any(e["kind"] == "mask_placed" for e in out["events"])


def test_a_bad_viewer_is_a_bad_argument(scen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", str(scen), "--json", "--view", "finnish"])
    _, err = capsys.readouterr()
    assert code == 1 and "--view" in err and "spectator" in err


def test_the_text_output_goes_through_the_view(
    scen: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = scen.parent / "orders.txt"
    path.write_text("german: mask 0808 on\n")
    assert main(["run", str(scen), "--orders", str(path), "--view", "soviet"]) == 0
    out, _ = capsys.readouterr()
    assert "german submitted a sealed input" in out
    assert "g-mid" not in out and "0808 on" not in out and "mask on at" not in out
    assert main(["run", str(scen), "--orders", str(path)]) == 0
    out, _ = capsys.readouterr()
    assert "german seals: mask on at 0808 (16.1.2)" in out and "g-mid" in out
