"""The reliability figure (bot/league/reliability.py), by hand."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.league.reliability import PlayerStats, Weights, reliability


def test_a_clean_record_is_excellent() -> None:
    r = reliability(PlayerStats("ann", finished=12, median_move_hours=6))
    assert (r.score, r.label, r.reasons) == (100, "excellent", [])


def test_each_deduction_is_explained() -> None:
    # 10 games: 1 forfeit 60*1/10 = 6, 2 timeouts 30*2/10 = 6, 1 intervention 20/10 = 2,
    # median 72 hours: 5 * (72 - 24) / 24 = 10.  100 - 24 = 76: "good".
    stats = PlayerStats("bob", 10, forfeits=1, timeouts=2, interventions=1, median_move_hours=72)
    r = reliability(stats)
    assert (r.score, r.label) == (76, "good")
    assert r.reasons == [
        "Forfeited 1 game in 10 games (-6).",
        "Missed 2 deadlines in 10 games (-6).",
        "Needed a moderator 1 time in 10 games (-2).",
        "Takes 72 hours to move (median), more than 24 (-10).",
    ]


def test_deductions_are_capped_at_their_weight() -> None:
    r = reliability(PlayerStats("cid", 4, forfeits=4, timeouts=20, median_move_hours=2400))
    assert r.score == 0 and r.label == "poor"  # 60 + 30 + 20 = 110, floored at 0
    r = reliability(PlayerStats("cid", 4, timeouts=20))
    assert r.score == 70 and r.label == "fair"


def test_a_new_player_is_labelled_new() -> None:
    r = reliability(PlayerStats("dan", 1))
    assert (r.score, r.label, r.reasons) == (100, "new", ["Only 1 game so far."])
    assert reliability(PlayerStats("dan", 0)).reasons == ["Only 0 games so far."]
    assert reliability(PlayerStats("dan", 1), Weights(new_games=1)).label == "excellent"


@given(
    st.integers(0, 50),
    st.integers(0, 50),
    st.integers(0, 50),
    st.integers(0, 50),
    st.none() | st.floats(0, 1000),
)
def test_the_score_is_0_to_100_and_more_trouble_never_helps(
    n: int, f: int, t: int, i: int, h: float | None
) -> None:
    r = reliability(PlayerStats("x", n, f, t, i, h))
    assert 0 <= r.score <= 100
    worse = reliability(PlayerStats("x", n, f + 1, t + 1, i + 1, h))
    assert worse.score <= r.score
