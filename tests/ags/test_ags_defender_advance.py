"""Issue #19 (AGS): the victorious defender's advance (AGS 9.81, 9.82, 9.83, A10, K171)."""

from __future__ import annotations

from agsstart import start

from engine import orders as o
from engine.core import Applied, Rejection
from engine.record import GameRecord
from scenarios import load_scenario


def _attacked(die: int) -> GameRecord:
    """1-1 against 0513 (g-4-6, g-64-16): die 6 is 2/- (AGS 9.5)."""
    rec = start(load_scenario("ags-korsun"), 1, dice=(die,))
    assert isinstance(rec.submit("soviet", o.Done()), Applied)
    r = rec.submit("soviet", o.Attack(units=("s-gd-cd-1", "s-gd-cd-2"), target="0513"))
    assert isinstance(r, Applied)
    return rec


def _retreat_both(rec: GameRecord) -> Applied:
    assert isinstance(
        rec.submit("soviet", o.Retreat(unit="s-gd-cd-1", path=("0312", "0311"))), Applied
    )
    r = rec.submit("soviet", o.Retreat(unit="s-gd-cd-2", path=("0511", "0510")))
    assert isinstance(r, Applied)
    return r


def test_9_81_k171_the_victorious_defender_advances_along_the_path_of_retreat() -> None:
    rec = _attacked(6)
    r = _retreat_both(rec)
    opened = [e for e in r.events if e.kind == "decision_opened"]
    assert opened and opened[-1].data["side"] == "german"
    d = rec.state.pending[0]
    assert d.kind == "advance" and d.options["role"] == "defender"
    assert set(d.options["units"]) == {"g-4-6", "g-64-16"}
    assert d.options["hexes"] == {"0412": 2, "0512": 2}
    assert rec.system.awaited_sides(rec.state) == ["german"]
    # 9.81: along the path of retreat only
    bad = rec.submit("german", o.Pursue(unit="g-4-6", path=("0512", "0412")))
    assert isinstance(bad, Rejection) and "9.8" in str(bad)
    bad = rec.submit("german", o.Pursue(unit="g-4-6", path=("0413",)))
    assert isinstance(bad, Rejection) and "vacated hex" in str(bad)
    r = rec.submit("german", o.Pursue(unit="g-4-6", path=("0512", "0511")))
    assert isinstance(r, Applied), r
    adv = next(e for e in r.events if e.kind == "advanced")
    assert adv.data["defenders"] is True and rec.state.units["g-4-6"].hex == "0511"
    # the rest may still advance (into 0412), or pass; then the Soviet phase goes on
    assert rec.state.pending and rec.state.pending[0].options["units"] == ["g-64-16"]
    assert isinstance(rec.submit("german", o.Pass()), Applied)
    assert not rec.state.pending and rec.system.awaited_sides(rec.state) == ["soviet"]
    # 9.83: a defender that advanced may not be attacked again this Combat Phase
    assert "g-4-6" in rec.state.ext["advanced_defenders"]


def test_a10_no_defender_advance_when_the_attacker_took_losses_instead() -> None:
    rec = _attacked(6)
    r = rec.submit("soviet", o.Losses(units=("s-gd-cd-1", "s-gd-cd-2")))
    assert isinstance(r, Applied)
    assert not rec.state.pending  # the hexes were not vacated (9.81)


def test_a10_the_defender_never_advances_after_a_split_result() -> None:
    rec = _attacked(3)  # 1-1 die 3: 1/1
    d = rec.state.pending[0]
    assert d.options["role"] == "defender"
    assert isinstance(rec.submit("german", o.Losses(units=("g-4-6",))), Applied)
    _ = [
        rec.submit("soviet", o.Retreat(unit=u, path=p))
        for u, p in (("s-gd-cd-1", ("0312",)), ("s-gd-cd-2", ("0511",)))
    ]
    assert all(x.kind != "advance" or x.side != "german" for x in rec.state.pending)


def test_k171_the_deadline_default_declines_the_defender_advance() -> None:
    rec = _attacked(6)
    _retreat_both(rec)
    assert rec.system.next_default(rec.state, "german") == o.Pass()
    assert o.Pass() in rec.system.candidate_orders(rec.state, "german")
