"""A campaign chain, The Retreat then Deblockade (bot/league/campaign.py)."""

from __future__ import annotations

import pytest

from bot.league.campaign import Campaign, Stage, StageOutcome, campaign_score

KORSUN = Campaign(
    id="korsun-pocket",
    name="The Korsun Pocket",
    sides=("german", "soviet"),
    stages=(
        Stage("the-retreat", vp_weight=1.0, win_points=5.0, carry_units=("german",)),
        Stage("deblockade", vp_weight=2.0, win_points=10.0),
    ),
)


def test_the_chain_folds_by_hand() -> None:
    retreat = StageOutcome(
        "the-retreat", {"german": 7, "soviet": 11}, "soviet",
        survivors={"german": ["g-75-inf-1", "g-34-inf-2"], "soviet": ["s-1"]},
    )  # fmt: skip
    half = campaign_score(KORSUN, [retreat])
    # The Retreat: german 7, soviet 11 + 5 for the win = 16.
    assert half.points == {"german": 7.0, "soviet": 16.0}
    assert (half.played, half.complete, half.leader) == (1, False, "soviet")
    assert half.next_scenario == "deblockade"
    assert half.carried == {"german": ("g-75-inf-1", "g-34-inf-2")}  # only German survivors
    deblockade = StageOutcome("deblockade", {"german": 9, "soviet": 3}, "german")
    full = campaign_score(KORSUN, [retreat, deblockade])
    # Deblockade counts twice: german 7 + 18 + 10 = 35, soviet 16 + 6 = 22.
    assert full.points == {"german": 35.0, "soviet": 22.0}
    assert full.stages_won == {"german": 1, "soviet": 1}
    assert (full.complete, full.leader, full.next_scenario) == (True, "german", None)
    assert full.lines == [
        "1. the-retreat: german 7 VP x 1 = 7; soviet 11 VP x 1 = 11; soviet +5 for the win.",
        "2. deblockade: german 9 VP x 2 = 18; soviet 3 VP x 2 = 6; german +10 for the win.",
    ]


def test_a_level_campaign_has_no_leader() -> None:
    draw = StageOutcome("the-retreat", {"german": 4, "soviet": 4}, None)
    assert campaign_score(KORSUN, [draw]).leader is None
    assert campaign_score(KORSUN, []).points == {"german": 0.0, "soviet": 0.0}


def test_the_record_round_trips_as_plain_data() -> None:
    assert Campaign.from_dict(KORSUN.to_dict()) == KORSUN
    assert KORSUN.to_dict()["stages"][0] == {
        "scenario": "the-retreat", "vp_weight": 1.0, "win_points": 5.0,
        "carry_units": ["german"],
    }  # fmt: skip


def test_bad_chains() -> None:
    with pytest.raises(ValueError, match="not deblockade"):
        campaign_score(KORSUN, [StageOutcome("deblockade", {}, None)])
    with pytest.raises(ValueError, match="games"):
        campaign_score(KORSUN, [StageOutcome("the-retreat", {}, None)] * 3)
    with pytest.raises(ValueError, match="side"):
        campaign_score(KORSUN, [StageOutcome("the-retreat", {"allied": 1}, None)])
    with pytest.raises(ValueError, match="carry_units"):
        Campaign("c", "c", ("a", "b"), (Stage("s", carry_units=("z",)),))
    with pytest.raises(ValueError, match="no stages"):
        Campaign("c", "c", ("a", "b"), ())
