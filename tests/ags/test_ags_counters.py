"""The Korsun counter section: every unit's front as printed, its steps (AGS 9.6,
AGS-K 19.6, 24.1, 16.0) and the provenance of what is reconstructed; the unit counts the
text implies (AGS-K 18.16, 18.26, 26.1, 26.2)."""

from __future__ import annotations

from collections import Counter

from engine.ags.units import UnitSpec
from scenarios.ags.counters import counter_pieces, load_counters


def units(side: str) -> list[UnitSpec]:
    return [u for u in load_counters().values() if u.side == side]


def test_the_section_has_200_pieces() -> None:
    assert counter_pieces() == {"soviet": 100, "german": 100}


def test_soviet_counts_55_combat_units_and_8_hqs() -> None:
    sov = units("soviet")
    assert sum(u.is_hq for u in sov) == 8
    assert sum(not u.is_hq for u in sov) == 55  # 40 set up (18.16) + 15 reinforcements (26.1)
    assert sum(u.is_corps for u in sov) == 12
    assert sorted(u.leadership or 0 for u in sov if u.is_hq) == [4] * 5 + [6] * 3


def test_german_counts_58_set_up_and_10_reinforcements_18_26() -> None:
    ger = units("german")
    codes = Counter(
        u.setup if u.setup in ("A", "B", "C", "D", "E", "6F", "6G") else "hex" for u in ger
    )
    assert codes == {"A": 9, "B": 9, "C": 5, "D": 5, "E": 12, "hex": 18, "6F": 7, "6G": 3}


def test_soviet_units_two_steps_corps_four_hq_one_19_6_a3() -> None:
    for u in units("soviet"):
        n = 1 if u.is_hq else 4 if u.is_corps else 2
        assert len(u.steps) == n, u.id
        assert u.steps[0].provenance == "printed"
    corps = load_counters()["s-gd-tc-5"]
    assert [str(s) for s in corps.steps] == ["18-13-8", "13-9-8", "8-6-8", "4-3-8"]
    assert [s.counter for s in corps.steps] == ["front", "back", "rpl-front", "rpl-back"]
    assert [s.provenance for s in corps.steps] == [
        "printed",
        "reconstructed",
        "printed",
        "reconstructed",
    ]


def test_soviet_backs_follow_the_stated_reconstruction() -> None:
    """File's `reconstruction.soviet_backs`: attack halved down, defence halved up."""
    for u in units("soviet"):
        if u.is_hq:
            continue
        pairs = [(u.steps[2], u.steps[3])] if u.is_corps else [(u.steps[0], u.steps[1])]
        for hi, lo in pairs:
            assert (lo.attack, lo.defence) == (max(1, hi.attack // 2), -(-hi.defence // 2)), u.id
            assert lo.movement == hi.movement and lo.provenance == "reconstructed"
        if u.is_corps:  # back = midway between front and rpl
            f, b, r = u.steps[0], u.steps[1], u.steps[2]
            mid = ((f.attack + r.attack) // 2, (f.defence + r.defence) // 2)
            assert (b.attack, b.defence) == mid


def test_soviet_types_are_reconstructed_and_hqs_printed() -> None:
    c = load_counters()
    assert c["s-rd-6"].type_provenance == "reconstructed"
    assert c["s-hq-5gdtk"].type_provenance == "printed"
    assert c["s-hq-5gdtk"].steps[0].attack == 0  # AGS 11.35
    assert c["s-hq-5gdtk"].steps[0].defence == 3  # half its rating (AGS 11.38, A7)
    assert c["s-cd-63"].size == "XX" and "K121" in c["s-cd-63"].notes
    assert c["s-tc-18"].mechanized and not c["s-gd-abn-1"].mechanized  # AGS-K 19.4


def test_german_ladders_from_16_0() -> None:
    c = load_counters()
    assert [str(s) for s in c["g-72"].steps] == ["4-5-5", "2-3-5"]  # 16.1 late 1943
    assert all(s.provenance == "printed" for s in c["g-72"].steps)
    assert [str(s) for s in c["g-11-6"].steps] == ["5-2-8", "3-1-8"]  # 16.2
    assert [str(s) for s in c["g-3-3-pz"].steps] == ["3-1-8"]  # already at its last level
    assert [str(s) for s in c["g-9-ssw"].steps] == ["3-3-8", "2-2-8"]
    assert [s.provenance for s in c["g-805"].steps] == ["printed", "reconstructed"]
    assert len(c["g-253-34"].steps) == 1  # 1-1: no lower 1943 level


def test_stacking_values_7_0_24_12_19_3() -> None:
    c = load_counters()
    assert c["s-mrc-5"].stacking == 3  # AGS-K 24.12
    assert c["s-hq-27"].stacking == 0  # AGS 11.22
    assert c["g-bake"].stacking == 0  # AGS-K 19.3
    assert c["g-72"].stacking == 1
