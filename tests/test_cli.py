"""DESIGN §6: `kessel run`, its JSON, exit codes and game exports; local play."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.cli import main

SCEN = """
id: t-cli
system: wb95
game: korsun
initiative: soviet
turns: 2
start: {turn: 1, phase: movement, active: soviet}
map: {layout: even-q, cols: [1, 10], rows: [1, 8], default: clear,
      terrain: {"0405": town}, names: {"0405": Steblev}}
sides:
  soviet: {nation: soviet, supply: [{edge: E}]}
  german: {nation: german, supply: [{edge: W}]}
units:
  - {id: s-232, name: 232 Rifle Division, side: soviet, type: inf, size: D, sp: 6, mp: 4,
     cel: 2, hex: "0333"}
  - {id: g-88a, name: 88 Infantry, side: german, type: inf, sp: 5, mp: 4, cel: 2, hex: "0808"}
"""


@pytest.fixture
def scen(tmp_path: Path) -> Path:
    p = tmp_path / "t-cli.yaml"
    p.write_text(SCEN.replace('"0333"', '"0303"'))
    return p


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    code = main(["run", *args, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def test_run_prints_the_design_json(
    scen: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    orders = tmp_path / "o.txt"
    orders.write_text("soviet: move s-232 0403 0404   # two hexes\n")
    code, out, _ = run(capsys, str(scen), "--orders", str(orders))
    assert code == 0
    assert (out["turn"], out["phase"], out["active"]) == (1, "movement", "soviet")
    unit = next(u for u in out["units"] if u["id"] == "s-232")
    assert unit == {
        "id": "s-232",
        "side": "soviet",
        "hex": "0404",
        "cel": 2,
        "max_cel": 2,
        "oos": 0,
        "disorganized": False,
        "fortification": None,
        "setup": None,
        "strategic": False,
        "eliminated": False,
    }
    assert out["rejected"] is None and out["pending"] == []
    assert out["vp"] == {"soviet": 0, "german": 0}
    assert out["control"]["0303"] == "soviet"
    assert [e["seq"] for e in out["events"]] == list(range(1, len(out["events"]) + 1))
    assert out["events"][-1]["kind"] == "moved"


def test_run_stops_at_the_first_rejected_order(
    scen: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    orders = tmp_path / "o.txt"
    orders.write_text("move s-232 0403\nmove s-232 0503\nmove s-232 0603\n")
    code, out, _ = run(capsys, str(scen), "--orders", str(orders))
    assert code == 2
    assert out["rejected"]["line"] == 2 and out["rejected"]["order"] == "move s-232 0503"
    assert out["rejected"]["rule"] == "3.1.6"
    assert next(u for u in out["units"] if u["id"] == "s-232")["hex"] == "0403"


def test_malformed_line_is_a_rejection_with_its_line(
    scen: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    orders = tmp_path / "o.txt"
    orders.write_text("# comment\nmarch s-232 0403\n")
    code, out, _ = run(capsys, str(scen), "--orders", str(orders))
    assert code == 2 and out["rejected"]["line"] == 2 and "march" in out["rejected"]["message"]


def test_bad_files_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: x\nunits: [\n")
    assert main(["run", str(bad)]) == 1
    assert "bad.yaml" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "missing.yaml")]) == 1
    assert main(["run", "demo-steblev", "--orders", str(tmp_path / "none.txt")]) == 1
    assert main(["run", "demo-steblev", "--dice", "3,9"]) == 1


def test_orders_from_stdin_and_shipped_ids(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("done\n"))
    code, out, _ = run(capsys, "demo-steblev", "--orders", "-")
    assert code == 0 and out["phase_number"] > 3


def test_save_and_replay_a_game_export(
    scen: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    orders = tmp_path / "o.txt"
    orders.write_text("move s-232 0403\ndone\n")
    export = tmp_path / "game.yaml"
    code, first, _ = run(
        capsys, str(scen), "--orders", str(orders), "--seed", "9", "--save", str(export)
    )
    assert code == 0 and "kessel: game-export" in export.read_text()
    code, again, _ = run(capsys, str(export))
    assert code == 0
    assert again["units"] == first["units"] and again["events"] == first["events"]
    # played on other data (issue #19): replayed all the same, and said on stderr
    text = export.read_text()
    assert "data_digest: sha256:" in text
    export.write_text(re.sub(r"data_digest: sha256:\w+", "data_digest: sha256:" + "1" * 64, text))
    code, other, err = run(capsys, str(export))
    assert code == 0 and other["events"] == first["events"]
    assert "kessel: warning:" in err and "played on the data sha256:111111111111" in err


def test_scenarios_lists_the_shipped_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios"]) == 0
    assert "demo-steblev" in capsys.readouterr().out


def test_local_play_session(tmp_path: Path) -> None:
    from bot.local import play

    lines = iter(["help", "units", "moves s-nope", "march", "done", "units german", "quit"])
    out: list[str] = []
    db = tmp_path / "kessel.db"
    assert play("demo-steblev", read=lambda _p: next(lines), write=out.append, db=db) == 0
    text = "\n".join(out)
    assert "Type orders" in text and "not an order" in text and "no unit 's-nope'" in text


COMBAT = """
id: t-combat
system: wb95
game: korsun
initiative: soviet
turns: 1
start: {turn: 1, phase: combat, active: german}
map: {cols: [1, 10], rows: [1, 8], terrain: {"0505": forest}}
sides:
  soviet: {nation: soviet}
  german: {nation: german}
units:
  - {id: g-a, side: german, type: arm, sp: 6, mp: 8, hex: "0604", formation: 11PzD}
  - {id: g-b, side: german, type: arm, sp: 6, mp: 8, hex: "0605", formation: 11PzD}
  - {id: g-c, side: german, type: arm, sp: 5, mp: 8, hex: "0506", formation: 11PzD}
  - {id: s-1, side: soviet, type: cav, sp: 4, mp: 5, hex: "0505"}
  - {id: s-2, side: soviet, type: cav, sp: 4, mp: 5, hex: "0505"}
"""


def test_run_drives_a_whole_combat_with_forced_dice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scen = tmp_path / "c.yaml"
    scen.write_text(COMBAT)
    orders = tmp_path / "o.txt"
    orders.write_text(
        "german: attack g-a g-b g-c -> 0505\n"
        "soviet: retreat s-1 0404\n"
        "soviet: retreat s-2 0404\n"
        "german: pursue g-a 0505\n"
        "german: pass\n"
        "german: done\n"
    )
    code, out, _ = run(capsys, str(scen), "--orders", str(orders), "--dice", "3,4")
    assert code == 0, out["rejected"]
    kinds = [e["kind"] for e in out["events"]]
    assert "combat_resolved" in kinds and "retreated" in kinds and "pursued" in kinds
    combat = next(e for e in out["events"] if e["kind"] == "combat_resolved")
    assert combat["result"] == "- / D1" and combat["column"] == "2:1"
    where = {u["id"]: u["hex"] for u in out["units"]}
    assert where == {"g-a": "0505", "g-b": "0605", "g-c": "0506", "s-1": "0404", "s-2": "0404"}
    assert out["over"] is True
    code = main(["run", str(scen), "--orders", str(orders), "--dice", "3,4"])
    text = capsys.readouterr().out
    assert code == 0 and "combat: g-a g-b g-c (17 SP) attack 0505 (8 SP): 2:1 -> 2:1" in text


def test_16_6_readme_examples_run_on_demo_steblev(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue #16: the README's example units exist; its move / attack / retreat lines run
    in order on demo-steblev (seed 1: the Soviet attack must retreat)."""
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    for line in ("move s-180 0308 0408", "attack s-180 -> 0306", "retreat s-180 0308"):
        assert line in readme, line
    assert main(["moves", "demo-steblev", "s-180"]) == 0
    assert "0408" in capsys.readouterr().out
    f = tmp_path / "o.txt"
    f.write_text("move s-180 0307\ndone\nattack s-180 -> 0306\nretreat s-180 0308\n", "utf-8")
    assert main(["run", "demo-steblev", "--orders", str(f), "--seed", "1"]) == 0


def test_16_6_moves_of_a_unit_that_does_not_exist_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["moves", "demo-steblev", "s-guards-5"]) == 1
    assert "there is no unit 's-guards-5' in demo-steblev" in capsys.readouterr().err
    assert main(["moves", "demo-steblev", "g-88-245"]) == 0  # exists, not its turn: says why
    assert "cannot move now: it is soviet's Movement Phase" in capsys.readouterr().out
