"""9.1 HQs outside combat: no ZoC, 1 CEL for stacking, 5 MP into swamps, and 9.1.5's
elimination of a lone HQ by an enemy regular unit entering its hex (K23), recorded for
the CMs of 9.1.6-9.1.7 (R17)."""

from __future__ import annotations

from conftest import play, reject, scenario

from engine.notation import parse_order
from engine.view import view
from engine.wb95.game import legal_moves
from engine.wb95.stacking import stack_cels
from engine.wb95.zoc import zoc_map

HQ = {"type": "hq", "sp": 0, "mp": 10}


def replays(rec) -> bool:  # type: ignore[no-untyped-def]
    return bool(rec.rebuild().snapshot() == rec.state.snapshot())


def test_9_1_5_k23_a_regular_unit_entering_a_lone_hq_eliminates_it() -> None:
    setup = scenario([{"id": "s-a", "hex": "0203"}, {"id": "g-hq", "hex": "0303", **HQ}])
    rec = play(setup)
    assert "0303" in legal_moves(rec.state, "s-a")
    rec = play(setup, "move s-a 0303")
    moved, gone, lost = rec.events[-3:]
    assert moved.kind == "moved" and moved.data["cost"] == "3/2"  # K23: ordinary cost
    assert gone.kind == "unit_eliminated"
    assert gone.data == {
        "unit": "g-hq",
        "side": "german",
        "hex": "0303",
        "cause": "an HQ alone in 0303, entered by the enemy regular unit s-a",
        "rule": "9.1.5",
        "by": "s-a",
    }
    assert lost.kind == "hq_lost" and lost.data["gainer"] == "soviet"
    hq = rec.state.units["g-hq"]
    assert hq.eliminated and hq.hex == "0303" and not hq.on_map  # K23: hex kept
    assert rec.state.hq_losses == [
        {
            "unit": "g-hq",
            "side": "german",
            "gainer": "soviet",
            "hex": "0303",
            "turn": 1,
            "phase": 2,
            "number": 3,
        }
    ]
    assert rec.state.units_at("0303")[0].id == "s-a"
    v = view(rec.state, "german")
    assert any(u.id == "g-hq" and u.eliminated for u in v.units)
    assert replays(rec)


def test_9_1_5_k23_the_unit_may_go_on_and_hqs_fall_together() -> None:
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203", "mp": 6},
            {"id": "g-hq", "hex": "0303", **HQ},
            {"id": "g-hq2", "hex": "0303", **HQ},
        ]
    )
    rec = play(setup, "move s-a 0303 0403 0503")
    assert rec.state.units["s-a"].hex == "0503"
    assert rec.state.units["g-hq"].eliminated and rec.state.units["g-hq2"].eliminated
    assert [x["unit"] for x in rec.state.hq_losses] == ["g-hq", "g-hq2"]
    assert replays(rec)


def test_9_1_5_k23_an_hq_with_other_units_cannot_be_entered() -> None:
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203"},
            {"id": "g-hq", "hex": "0303", **HQ},
            # a towed AT gun is a regular unit (K20); towed artillery would fall (6.1.7)
            {"id": "g-at", "hex": "0303", "type": "at", "sp": 2},
        ]
    )
    rec = play(setup)
    r = reject(rec, "move s-a 0303")
    assert r.rule == "3.1.8" and "holds enemy units" in r.message
    assert "0303" not in legal_moves(rec.state, "s-a")


def test_9_1_5_k20_only_a_regular_unit_overruns_an_hq() -> None:
    setup = scenario(
        [
            {"id": "s-hq", "hex": "0203", **HQ},
            {"id": "s-art", "hex": "0204", "type": "art", "sp": [6, 2], "setup": "transport"},
            {"id": "s-vs", "hex": "0206", "type": "vs"},
            {"id": "g-hq", "hex": "0304", **HQ},
            {"id": "g-hq2", "hex": "0306", **HQ},
        ]
    )
    rec = play(setup)
    for line in ("move s-hq 0304", "move s-art 0304", "move s-vs 0306"):
        r = reject(rec, line)
        assert r.rule == "9.1.5" and "only a regular unit" in r.message
    assert "0304" not in legal_moves(rec.state, "s-hq")
    rec = play(setup, "move s-hq 0404")  # destination only: it goes round the HQ
    assert "0304" not in rec.events[-1].data["path"]
    assert not rec.state.units["g-hq"].eliminated


def test_9_1_5_k23_the_overrunning_unit_stops_only_for_zoc() -> None:
    setup = scenario(
        [
            {"id": "s-a", "hex": "0203", "mp": 6},
            {"id": "g-hq", "hex": "0303", **HQ},
            {"id": "g-inf", "hex": "0403"},
        ]
    )
    rec = play(setup, "move s-a 0303")  # in g-inf's ZoC: it stops there (4.2.1)
    assert rec.state.units["g-hq"].eliminated
    r = reject(play(setup), "move s-a 0303 0304")
    assert r.rule == "4.2.1"


def test_9_1_1_9_1_4_hq_has_no_zoc_and_counts_one_cel() -> None:
    setup = scenario(
        [
            {"id": "g-hq", "hex": "0303", **HQ},
            {"id": "g-inf", "hex": "0303", "cel": 2},
        ]
    )
    rec = play(setup)
    assert not any("g-hq" in ids for ids in zoc_map(rec.state, "german").values())
    assert stack_cels(rec.state, "german") == {"0303": 3}


def test_9_1_3_hq_enters_swamps_for_five_mp() -> None:
    setup = scenario([{"id": "s-hq", "hex": "0203", **HQ}], terrain={"0303": "swamp"})
    rec = play(setup, "move s-hq 0303")
    assert rec.state.units["s-hq"].mp_spent == 5


# --- 9.2.1: the HQ dice modifier is the player's to use (K100) ------------------------------

GERMAN_COMBAT = {"turn": 1, "phase": "combat", "active": "german"}
SOVIET_MOVEMENT = {"turn": 1, "phase": "movement", "active": "soviet"}


def _hq_duel(start: dict[str, object] = GERMAN_COMBAT):  # type: ignore[no-untyped-def]
    units = [
        {"id": "g-a", "hex": "0604", "sp": 8},
        {"id": "g-hq", "hex": "0704", **HQ},
        {"id": "s-a", "hex": "0505", "sp": 4},
        {"id": "s-hq", "hex": "0405", **HQ},
    ]
    return scenario(units, start=start)


def _combat(rec):  # type: ignore[no-untyped-def]
    return next(e.data for e in reversed(rec.events) if e.kind == "combat_resolved")


def _notes(rec) -> str:  # type: ignore[no-untyped-def]
    c = _combat(rec)
    return "\n".join(str(x) for x in (*c.get("notes", []), *c.get("explanation", [])))


def test_9_2_1_k100_both_hqs_claim_by_default() -> None:
    rec = play(_hq_duel(), "attack g-a -> 0505", dice=(3, 3))
    text = _notes(rec)
    assert "german HQ in range: -1 (9.2.1)" in text and "soviet HQ in range: +1" in text


def test_9_2_1_k100_the_attacker_may_decline_its_modifier_for_one_attack() -> None:
    rec = play(_hq_duel(), "attack g-a -> 0505 nohq", dice=(3, 3))
    text = _notes(rec)
    assert "german HQ in range, modifier declined (9.2.1, K100)" in text
    assert "soviet HQ in range: +1" in text
    assert "german: attack g-a -> 0505 nohq" in [e.line for e in rec.entries]


def test_9_2_1_k100_a_standing_decline_holds_until_claimed_again() -> None:
    setup = _hq_duel(SOVIET_MOVEMENT)
    rec = play(setup, "soviet: hq decline")
    assert rec.state.hq_claims == {"soviet": False}
    assert reject(rec, "soviet: hq decline").ruling == "K100"
    assert replays(rec)
    rec2 = play(setup, "soviet: hq decline", "soviet: hq claim")
    assert rec2.state.hq_claims == {} and replays(rec2)


def test_9_2_1_k100_a_declined_defence_modifier_is_not_added() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "sp": 8},
        {"id": "s-a", "hex": "0505", "sp": 4},
        {"id": "s-hq", "hex": "0405", **HQ},
    ]
    setup = scenario(units, start=GERMAN_COMBAT, initiative="soviet")
    rec = play(setup, "attack g-a -> 0505", dice=(3, 3))
    assert "soviet HQ in range: +1" in _notes(rec)
    # the same combat after the Soviet side declined its modifier in its own turn
    rec = play(setup, dice=(3, 3))
    rec.state.hq_claims["soviet"] = False  # as `hq decline` sets it (test above)
    r = rec.submit("german", parse_order("attack g-a -> 0505"))  # type: ignore[arg-type]
    assert not hasattr(r, "message"), r
    assert "soviet HQ in range, modifier declined (9.2.1, K100)" in _notes(rec)
