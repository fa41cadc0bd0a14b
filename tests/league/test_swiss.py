"""Swiss pairing, the simplified Dutch system (bot/league/swiss.py)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.league.pairing import BYE, Pairing, swiss_round
from bot.league.results import GameResult, bye

from .helpers import SIDES, game

EIGHT = [f"p{i}" for i in range(1, 9)]
RATING = {p: 2000.0 - 50 * i for i, p in enumerate(EIGHT)}  # p1 best ... p8 worst


def _play(pairings: list[Pairing], winner: dict[str, float] | None = None,
          rnd: random.Random | None = None) -> list[GameResult]:  # fmt: skip
    """Results for a round: the higher rated player wins, or `rnd` decides."""
    out: list[GameResult] = []
    for p in pairings:
        if p.is_bye:
            out.append(bye(p.game_key, "wb95", "s", p.round, p.sides[BYE]))
            continue
        g, s = p.sides["german"], p.sides["soviet"]
        if rnd is not None:
            score = rnd.choice([0.0, 0.5, 1.0])
        else:
            score = 1.0 if (winner or RATING).get(g, 0) > (winner or RATING).get(s, 0) else 0.0
        out.append(game(p.game_key, g, s, score, t=p.round, rnd=p.round))
    return out


def _season(players: list[str], rounds: int, rnd: random.Random | None = None,
            ratings: dict[str, float] | None = None) -> list[list[Pairing]]:  # fmt: skip
    results: list[GameResult] = []
    season = []
    for r in range(1, rounds + 1):
        pairings = swiss_round(r, players, results, sides=SIDES, ratings=ratings or RATING)
        season.append(pairings)
        results += _play(pairings, rnd=rnd)
    return season


def test_round_1_is_top_half_against_bottom_half_sides_alternating() -> None:
    r1 = swiss_round(1, EIGHT, [], sides=SIDES, ratings=RATING)
    assert [(p.game_key, p.sides["german"], p.sides["soviet"]) for p in r1] == [
        ("r1.1", "p1", "p5"),
        ("r1.2", "p6", "p2"),
        ("r1.3", "p3", "p7"),
        ("r1.4", "p8", "p4"),
    ]
    r1_soviet = swiss_round(1, EIGHT, [], sides=SIDES, ratings=RATING, initial_side="soviet")
    assert r1_soviet[0].sides == {"german": "p5", "soviet": "p1"}


def test_round_2_by_hand_sides_decide_between_equal_halves() -> None:
    # After round 1 (the higher rated always wins) p1-p4 have 2 points. S1 = p1 p2,
    # S2 = p3 p4; but p1 and p3 both played German and both must now play Soviet, so
    # the Dutch pairing p1-p3 is passed over for p1-p4, p2-p3. Likewise p5-p8, p6-p7.
    r1 = swiss_round(1, EIGHT, [], sides=SIDES, ratings=RATING)
    r2 = swiss_round(2, EIGHT, _play(r1), sides=SIDES, ratings=RATING)
    assert [(p.sides["german"], p.sides["soviet"]) for p in r2] == [
        ("p4", "p1"),
        ("p2", "p3"),
        ("p5", "p8"),  # p5 played Soviet in round 1, p8 German
        ("p7", "p6"),
    ]


def _check(season: list[list[Pairing]], players: list[str], balanced: bool) -> None:
    met: Counter[frozenset[str]] = Counter()
    sides: Counter[str] = Counter()
    byes: Counter[str] = Counter()
    for pairings in season:
        seen = [x for p in pairings for x in p.players]
        assert sorted(seen) == sorted(players)  # everyone once a round
        for p in pairings:
            if p.is_bye:
                byes[p.sides[BYE]] += 1
                continue
            met[frozenset(p.players)] += 1
            sides[p.sides["german"]] += 1
            sides[p.sides["soviet"]] -= 1
    assert set(met.values()) <= {1}, "a rematch"
    assert set(byes.values()) <= {1}, "a second bye"
    if balanced:
        assert all(abs(sides[p]) <= 1 for p in players), sides


def test_five_rounds_of_eight_no_rematch_and_balanced_sides() -> None:
    season = _season(EIGHT, 5)
    _check(season, EIGHT, balanced=True)
    # Worked by hand (the higher rated always wins): round 3 p1-p2 p3-p5 p6-p4 p8-p7;
    # in round 4 p1 (6 points) floats down: p3 and p6 must play Soviet as p1 must, p4,
    # p5 and p2 it has met, so p7; then p2-p3 is a rematch and p2-p4, p2-p5 both want
    # German, so p2-p8, p3-p4, p5-p6. Round 5: p1-p3, p2-p4, p5-p7, p6-p8.
    assert [(p.sides["german"], p.sides["soviet"]) for p in season[3]] == [
        ("p7", "p1"), ("p2", "p8"), ("p4", "p3"), ("p5", "p6")]  # fmt: skip
    assert [(p.sides["german"], p.sides["soviet"]) for p in season[4]] == [
        ("p1", "p3"), ("p4", "p2"), ("p7", "p5"), ("p6", "p8")]  # fmt: skip


def test_five_rounds_with_random_results_stay_balanced() -> None:
    for seed in range(20):
        _check(_season(EIGHT, 5, random.Random(seed)), EIGHT, balanced=True)


def test_an_odd_field_gives_the_lowest_player_the_bye_once() -> None:
    seven = EIGHT[:7]
    season = _season(seven, 5)
    _check(season, seven, balanced=False)
    # Each round the lowest ranked player without a bye sits out (by hand: after round
    # 3, p1 6, p2-p4 4, p5-p7 2, and p5-p7 have had theirs, so p4).
    byes = [p.sides[BYE] for r in season for p in r if p.is_bye]
    assert byes == ["p7", "p6", "p5", "p4", "p3"]


def test_a_bye_is_a_win_without_an_opponent() -> None:
    r1 = swiss_round(1, EIGHT[:3], [], sides=SIDES, ratings=RATING)
    assert r1[-1].sides == {BYE: "p3"}
    r2 = swiss_round(2, EIGHT[:3], _play(r1), sides=SIDES, ratings=RATING)
    # p1 beat p2; p1 and p3 lead with 2 points and meet; p2 sits out.
    assert r2[-1].sides == {BYE: "p2"}
    assert set(r2[0].players) == {"p1", "p3"}


def test_no_pairing_without_a_rematch_is_an_error() -> None:
    results = [game("g1", "a", "b", 1.0, rnd=1)]
    with pytest.raises(ValueError, match="rematch"):
        swiss_round(2, ["a", "b"], results, sides=SIDES)


@settings(max_examples=30, deadline=None)
@given(st.integers(4, 10), st.integers(0, 10**6))
def test_swiss_never_pairs_a_rematch(n: int, seed: int) -> None:
    players = [f"q{i}" for i in range(n)]
    # Up to n/2 rounds a pairing without rematches always exists (each player still has
    # n/2 opponents it has not met: Dirac's theorem); later ones may dead-end.
    rounds = min(5, n // 2)
    season = _season(players, rounds, random.Random(seed), ratings={})
    _check(season, players, balanced=False)
