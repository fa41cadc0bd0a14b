"""Issue #19 (AGS): the German set-up as a step before play (AGS-K 18.21-18.25, K170)."""

from __future__ import annotations

from engine import orders as o
from engine.ags import deploy
from engine.core import Applied, Rejection
from engine.record import GameRecord
from scenarios import load_scenario


def _rec() -> GameRecord:
    return GameRecord(load_scenario("ags-korsun"), 1)


def _refused(rec: GameRecord, side: str, order: o.Order, case: str) -> None:
    r = rec.submit(side, order)
    assert isinstance(r, Rejection) and case in str(r) and "K170" in str(r), r


def test_18_2_k170_the_game_opens_with_the_german_set_up() -> None:
    rec = _rec()
    assert [d.kind for d in rec.state.pending] == [deploy.KIND]
    assert rec.system.awaited_sides(rec.state) == ["german"]
    assert rec.system.phase(rec.state).title == "the German set-up, before Game-Turn 1"
    assert "weather" not in rec.state.ext  # Game-Turn 1 has not begun
    _refused(rec, "soviet", o.Done(), "AGS-K 18.2")
    _refused(rec, "german", o.Attack(units=("g-4-6",), target="0412"), "AGS-K 18.2")
    # the shipped set-up is the deadline default: `done` starts Game-Turn 1
    assert rec.system.next_default(rec.state, "german") == o.Done()
    r = rec.submit("german", o.Done())
    assert isinstance(r, Applied)
    kinds = [e.kind for e in r.events]
    assert kinds.index("setup_done") < kinds.index("turn_started")
    assert rec.system.phase(rec.state).title == "the Soviet Initial Movement Phase, turn 1"


def test_18_21_to_18_25_k170_set_up_moves_within_the_legal_areas() -> None:
    rec = _rec()
    _refused(rec, "german", o.Move(units=("g-82",), path=("1112",)), "AGS-K 18.21")  # printed
    _refused(rec, "german", o.Move(units=("g-wallonien",), path=("2310",)), "AGS-K 18.21")
    _refused(rec, "german", o.Move(units=("g-wallonien",), path=("2104",)), "AGS-K 18.23")
    _refused(rec, "german", o.Move(units=("g-11-6",), path=("0217",)), "AGS-K 18.22")
    _refused(rec, "german", o.Move(units=("g-11-6",), path=("0114",)), "AGS-K 18.23")
    _refused(rec, "german", o.Move(units=("g-11-6", "g-114-6"), path=("0513",)), "AGS-K 18.25")
    r = rec.submit("german", o.Move(units=("g-wallonien",), path=("2307",)))  # within 3 of 2306
    assert isinstance(r, Applied) and r.events[0].kind == "set_up"
    r = rec.submit("german", o.Move(units=("g-11-6",), path=("0215",)))  # area A
    assert isinstance(r, Applied)
    u = rec.state.units["g-11-6"]
    assert u.hex == "0215" and u.mp_spent == 0 and not u.moved  # placing is not moving
    assert isinstance(rec.submit("german", o.Done()), Applied)
    assert rec.state.units["g-wallonien"].hex == "2307"


def test_18_24_k170_done_is_refused_while_a_border_hex_is_uncovered() -> None:
    rec = _rec()
    assert isinstance(rec.submit("german", o.Move(units=("g-417-168",), path=("2107",))), Applied)
    _refused(rec, "german", o.Done(), "AGS-K 18.24")
    assert rec.system.done_refusal(rec.state, "german") is not None
    # the default puts the unit back on its scenario hex, then `done`
    back = rec.system.next_default(rec.state, "german")
    assert back == o.Move(units=("g-417-168",), path=("2206",))
    assert isinstance(rec.submit("german", back), Applied)
    assert isinstance(rec.submit("german", o.Done()), Applied)


def test_k170_the_fuzzer_candidates_keep_18_24() -> None:
    rec = _rec()
    cands = rec.system.candidate_orders(rec.state, "german")
    assert cands[-1] == o.Done() and len(cands) > 1
    for c in cands[:-1]:
        trial = rec.state.clone()
        r = rec.system.apply(trial, "german", c)
        assert isinstance(r, Applied) and not deploy.gaps(r.state)
