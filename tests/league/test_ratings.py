"""Ratings recomputed from results (bot/league/ratings.py; K130)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.league.glicko2 import Rating, idle, update
from bot.league.ratings import balance_points, is_rated, recompute, teaches_balance
from bot.league.results import GameResult, bye

from .helpers import game


def test_a_result_must_be_consistent() -> None:
    with pytest.raises(ValueError, match="how"):
        game("g", "a", "b", 1.0, how="timeout")
    with pytest.raises(ValueError, match="add up"):
        GameResult("g", "wb95", "s", 0, {"x": "a", "y": "b"}, {"a": 1.0, "b": 1.0}, 0, "played")
    with pytest.raises(ValueError, match="differ"):
        GameResult("g", "wb95", "s", 0, {"x": "a", "y": "b"}, {"a": 1.0, "c": 0.0}, 0, "played")
    with pytest.raises(ValueError, match="add up"):  # only a forfeit makes both lose
        game("g", "a", "b", -1, how="played")
    assert game("g", "a", "b", -1, how="forfeit").double_forfeit
    assert game("g", "a", "b", 0.0, margin=4).signed_margin("a") == -4
    assert game("g", "a", "b", 0.0, margin=4).signed_margin("b") == 4


def test_k130_which_results_are_rated() -> None:
    assert is_rated(game("g", "a", "b", 1.0))
    assert is_rated(game("g", "a", "b", 0.0, how="resigned"))
    assert is_rated(game("g", "a", "b", 0.5, how="moderator"))
    # A deadline forfeit in a game under way is a loss (RTT rates timeouts as losses) ...
    assert is_rated(game("g", "a", "b", 0.0, how="forfeit"))
    # ... one before both players moved is not (lichess does not rate aborted games).
    assert not is_rated(game("g", "a", "b", 0.0, how="forfeit", started=False))
    assert not is_rated(game("g", "a", "b", -1, how="forfeit"))
    assert not is_rated(bye("g", "wb95", "s", 0, "a"))
    unrated = GameResult("g", "wb95", "s", 0, {"x": "a", "y": "b"}, {"a": 1.0, "b": 0.0}, 0,
                         "played", rated=False)  # fmt: skip
    assert not is_rated(unrated)
    # Side balance learns only from games decided on the map, without a bid.
    assert teaches_balance(game("g", "a", "b", 1.0, how="resigned"))
    assert not teaches_balance(game("g", "a", "b", 0.0, how="forfeit"))
    assert not teaches_balance(game("g", "a", "b", 1.0, how="moderator"))
    assert not teaches_balance(game("g", "a", "b", 1.0, bid=2))


def test_one_game_is_one_glicko_period() -> None:
    ratings = recompute([game("g1", "ann", "bob", 1.0, t=10)])
    assert ratings.of("wb95", "ann") == update(Rating(), [(Rating(), 1.0)])
    assert ratings.of("wb95", "bob") == update(Rating(), [(Rating(), 0.0)])
    assert ratings.history("wb95", "ann") == [(10, ratings.of("wb95", "ann"))]
    assert ratings.of("wb95", "nobody") == Rating()
    assert ratings.of("other-system", "ann") == Rating()
    assert ratings.players("wb95") == ["ann", "bob"]


def test_games_replay_in_finished_then_game_order() -> None:
    # Three scenarios, so that no side balance is learned between the games.
    g1 = game("g1", "ann", "bob", 1.0, t=10, scenario="s1")
    g2 = game("g2", "bob", "cid", 1.0, t=10, scenario="s2")  # same second: g1 before g2
    g3 = game("g3", "cid", "ann", 0.5, t=5, scenario="s3")
    ratings = recompute([g1, g2, g3])
    ann = update(Rating(), [(Rating(), 0.5)])  # g3 first
    cid = update(Rating(), [(Rating(), 0.5)])
    bob = update(Rating(), [(ann, 0.0)])
    ann = update(ann, [(Rating(), 1.0)])
    bob = update(bob, [(cid, 1.0)])
    assert ratings.of("wb95", "ann") == ann
    assert ratings.of("wb95", "bob") == bob
    assert [t for t, _ in ratings.history("wb95", "bob")] == [10, 10]


def test_a_day_is_one_rating_period_against_pre_period_ratings() -> None:
    day = [game("g1", "ann", "bob", 1.0, t=100), game("g2", "ann", "cid", 0.0, t=200)]
    ratings = recompute(day, period="day")
    assert ratings.of("wb95", "ann") == update(Rating(), [(Rating(), 1.0), (Rating(), 0.0)])
    assert ratings.games("wb95", "ann") == 1  # one period, one point on the chart
    with pytest.raises(ValueError, match="period"):
        recompute(day, period="week")


def test_side_balance_is_a_regularised_log_odds() -> None:
    # The Germans won 8 of 10 games of the-retreat; with 10 virtual draws
    # p = (8 + 5) / (10 + 10) = 0.65, A = 400 log10(0.65 / 0.35) = 107.54 points.
    games = [game(f"g{i}", f"p{i}", f"q{i}", 1.0 if i < 8 else 0.0, t=i) for i in range(10)]
    ratings = recompute(games)
    assert ratings.side_record("wb95", "the-retreat", "german").games == 10
    assert ratings.side_record("wb95", "the-retreat", "german").score == 8.0
    assert ratings.side_advantage("wb95", "the-retreat", "german") == pytest.approx(107.54, 0.01)
    assert ratings.side_advantage("wb95", "the-retreat", "soviet") == pytest.approx(-107.54, 0.01)
    assert ratings.side_advantage("wb95", "deblockade", "german") == 0.0
    assert balance_points(8, 10, prior=10) == pytest.approx(400 * math.log10(13 / 7))
    with pytest.raises(ValueError):
        balance_points(1, 1, prior=0)


def test_the_side_advantage_shifts_the_opponent_in_the_next_game() -> None:
    history = [game(f"g{i}", f"p{i}", f"q{i}", 1.0 if i < 8 else 0.0, t=i) for i in range(10)]
    after = game("g10", "ann", "bob", 1.0, t=20)
    ratings = recompute([*history, after])
    adv = balance_points(8, 10)
    # Ann won with the favoured side: rated as a win over a player `adv` points weaker.
    assert ratings.of("wb95", "ann") == update(Rating(), [(Rating(1500 - adv), 1.0)])
    assert ratings.of("wb95", "bob") == update(Rating(), [(Rating(1500 + adv), 0.0)])
    assert ratings.of("wb95", "ann").mu < update(Rating(), [(Rating(), 1.0)]).mu
    # The game itself then teaches the balance: 9 of 11.
    assert ratings.side_record("wb95", "the-retreat", "german").score == 9.0
    # A bid game is rated without the side term (the bid evened the sides).
    bid = game("g10", "ann", "bob", 1.0, t=20, bid=3)
    assert recompute([*history, bid]).of("wb95", "ann") == update(Rating(), [(Rating(), 1.0)])


def test_forfeits_rate_as_lichess_and_rtt_do() -> None:
    late = recompute([game("g1", "ann", "bob", 0.0, how="forfeit")])
    assert late.of("wb95", "ann").mu < 1500 < late.of("wb95", "bob").mu
    early = recompute([game("g1", "ann", "bob", 0.0, how="forfeit", started=False)])
    assert early.of("wb95", "ann") == Rating() and early.games("wb95", "ann") == 0


def test_idle_time_grows_the_rd_when_asked() -> None:
    g1 = game("g1", "ann", "bob", 1.0, t=0, scenario="s1")
    g2 = game("g2", "ann", "bob", 1.0, t=30 * 86400, scenario="s2")
    without = recompute([g1, g2])
    with_idle = recompute([g1, g2], idle_period=10 * 86400)
    ann1 = recompute([g1]).of("wb95", "ann")
    bob1 = recompute([g1]).of("wb95", "bob")
    expected = update(idle(ann1, 3.0), [(idle(bob1, 3.0), 1.0)])
    assert with_idle.of("wb95", "ann") == expected
    assert without.of("wb95", "ann") == update(ann1, [(bob1, 1.0)])


def test_ratings_are_kept_per_rule_system() -> None:
    r = recompute([game("g1", "ann", "bob", 1.0), game("g2", "bob", "ann", 1.0, system="x")])
    assert r.systems() == ["wb95", "x"]
    assert r.of("wb95", "ann").mu > 1500 > r.of("x", "ann").mu


results_lists = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c", "d"]),
        st.sampled_from(["a", "b", "c", "d"]),
        st.sampled_from([0.0, 0.5, 1.0]),
        st.integers(0, 5),
    ).filter(lambda x: x[0] != x[1]),
    max_size=12,
)


@settings(max_examples=40, deadline=None)
@given(results_lists, st.randoms(use_true_random=False))
def test_recompute_is_the_same_for_any_input_order(raw: list, rnd: random.Random) -> None:  # type: ignore[type-arg]
    games = [game(f"g{i:02}", a, b, s, t=t) for i, (a, b, s, t) in enumerate(raw)]
    shuffled = games[:]
    rnd.shuffle(shuffled)
    one, two = recompute(games), recompute(shuffled)
    for p in "abcd":
        assert one.of("wb95", p) == two.of("wb95", p)
        assert one.history("wb95", p) == two.history("wb95", p)
