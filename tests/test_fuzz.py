"""Self-play fuzzing (issue #9, bot/fuzz.py): a bounded number of seeds over every shipped
scenario (about 40 s on 2 cores; `make fuzz` runs long), the fuzzer's own checks, and the
regressions it found (tests/regressions/*.yaml, replayed with the invariants checked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot import fuzz
from bot.cli import main
from bot.script import load_source, run_script
from engine import orders as o
from engine.notation import format_order, parse_order
from engine.record import GameRecord
from engine.view import view
from engine.wb95 import checks
from scenarios import list_scenarios, load_scenario

REGRESSIONS = Path(__file__).parent / "regressions"
SMALL = {"demo-steblev", "demo-kursk"}  # played to the end; the big ones a few phases only


@pytest.mark.parametrize("scenario", [s.id for s in list_scenarios()])
def test_fuzz_keeps_the_invariants(scenario: str, tmp_path: Path) -> None:
    seeds, inputs = (range(3), 400) if scenario in SMALL else (range(1), 70)
    summary = fuzz.run([scenario], seeds, max_inputs=inputs, out=tmp_path)
    assert not summary.failures, summary.failures[0].failure
    assert summary.inputs > 0


def test_the_built_in_opponent_plays_a_fuzzed_game(tmp_path: Path) -> None:
    pytest.importorskip("bot.systems.wb95.opponent")
    report = fuzz.play_game("demo-steblev", 0, 400, player=fuzz.OpponentPlayer(), out=tmp_path)
    assert report.failure is None, report.failure
    assert report.rejected == 0  # it checks its inputs with the engine first


def _regressions() -> list[Path]:
    return sorted(REGRESSIONS.glob("*.yaml"))


@pytest.mark.parametrize("path", _regressions(), ids=lambda p: p.stem)
def test_regression_replays_and_keeps_the_invariants(path: Path) -> None:
    src = load_source(str(path))
    res = run_script(src.setup, src.orders, src.seed or 0, src.dice)
    assert res.rejected is None, res.rejected
    fuzz.check_bounds(res.record.state)
    fuzz.Shadow(res.record)  # the stacking limit at every phase end
    fuzz.check_phase_end(res.record)


@pytest.mark.parametrize("scenario", [s.id for s in list_scenarios()])
def test_every_unit_id_can_be_written_in_an_order(scenario: str) -> None:
    """Found by the fuzzer: prokhorovka had a unit id with a space ("s-3mc-4-1 Gw.tbm"),
    which no order can name; every id must survive the notation round trip."""
    for uid in load_scenario(scenario).units:
        order = o.Move(units=(uid,), path=("0101",))
        assert parse_order(format_order(order), 0) == order, uid


def _position() -> GameRecord:
    rec = GameRecord(load_scenario("korsun-1944"), 0)
    return rec


def test_fog_check_catches_a_view_that_leaks(monkeypatch: pytest.MonkeyPatch) -> None:
    state = _position().state
    hidden, _ = checks.hidden_from(state, "soviet")
    assert hidden  # stacked and off-map German units the Soviet side cannot see
    fuzz.check_fog(state)
    monkeypatch.setattr(fuzz, "view", lambda s, viewer: view(s, "moderator"))
    with pytest.raises(fuzz.InvariantBroken, match="fog of war"):
        fuzz.check_fog(state)


def test_a_rejected_input_that_changes_the_state_is_caught() -> None:
    rec = _position()
    was = fuzz.before(rec.state)
    rejected = rec.submit("soviet", o.Move(units=("nobody",), path=("0101",)))
    fuzz.check_input(rec.state, was, rejected)  # nothing changed: fine
    uid = next(iter(rec.state.units))
    rec.state.units[uid].oos += 1
    with pytest.raises(fuzz.InvariantBroken, match="rejected input changed"):
        fuzz.check_input(rec.state, was, rejected)


def test_a_unit_vanishing_without_an_event_is_caught() -> None:
    rec = _position()
    was = fuzz.before(rec.state)
    done = rec.submit(None, o.Done())
    u = next(u for u in rec.state.units.values() if u.on_map)
    u.hex = None
    with pytest.raises(fuzz.InvariantBroken, match="without an event"):
        fuzz.check_input(rec.state, was, done)


def test_a_reproducer_replays_with_kessel_run(tmp_path: Path) -> None:
    rec = GameRecord(load_scenario("demo-steblev"), 3)
    player = fuzz.RandomPlayer()
    import random

    rng = random.Random(3)
    for _ in range(25):
        side = rng.choice(rec.system.awaited_sides(rec.state))
        rec.submit(side, player.choose(rec.state, side, rng) or o.Done())
    path = fuzz.save_reproducer(rec, "demo-steblev", "an example\nsecond line", tmp_path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# fuzz failure: an example\n# second line\n")
    assert main(["run", str(path), "--json"]) == 0


def test_kessel_fuzz_prints_a_line_per_game_and_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["fuzz", "demo-kursk", "--seeds", "2", "--from", "5", "--max-inputs", "30"]
    assert main([*args, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("demo-kursk seed 5 (random): ")
    assert out[1].startswith("demo-kursk seed 6 ")
    assert out[2].startswith("2 games, ") and "0 failures" in out[2]
    assert out[3].startswith("  demo-kursk: 2 games, turns reached ")
    assert main(["fuzz", "no-such-scenario", "--seeds", "1"]) == 1


@pytest.mark.slow
def test_kessel_bench_quick_writes_valid_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    names = {r["name"] for r in data["rows"]}
    assert {"one full turn, fuzz players", "full-map render + PNG"} <= names
    assert all(r["ms"] >= 0 for r in data["rows"])


def test_3_2_1_k97_korsun_opponents_never_leave_a_phase_that_cannot_end() -> None:
    """Issue #13: the built-in opponents' korsun-1944 game (seed 1) reached a Soviet
    Movement Phase whose `done` could never be accepted. The input that did it is refused
    (K97), and the Soviet side ends its phase by the deadline policy's inputs alone."""
    from engine.core import Applied
    from engine.wb95.defaults import next_default

    src = load_source(str(REGRESSIONS / "korsun-1944-opponents-overstack.yaml"))
    res = run_script(src.setup, src.orders, src.seed or 0, src.dice)
    assert res.rejected is None, res.rejected
    rec = res.record
    r = rec.submit("soviet", parse_order("move s-7-para 5315"))
    assert not isinstance(r, Applied)
    assert r.rule == "3.2.1" and r.ruling == "K97" and "5315" in r.message
    fuzz.check_liveness(rec.state)
    turn, phase = rec.state.turn, rec.state.phase
    for _ in range(100):
        if (rec.state.turn, rec.state.phase) != (turn, phase):
            break
        order = next_default(rec.state, "soviet")
        assert order is not None
        assert isinstance(rec.submit("soviet", order), Applied)
        fuzz.check_liveness(rec.state)
    assert (rec.state.turn, rec.state.phase) != (turn, phase), "the phase did not end"


@pytest.mark.slow
def test_issue_13_the_bench_opponents_play_korsun_1944_past_turn_5(tmp_path: Path) -> None:
    """The game `kessel bench` builds (bot/load.py: the built-in opponents, seed 1, one
    input per service call) no longer stalls at turn 5 (K97)."""
    import asyncio

    from bot.load import long_game_db

    db, gid = asyncio.run(long_game_db("korsun-1944", 6, directory=tmp_path))
    assert db.parent == tmp_path and gid
