"""Standings and tie-breaks on small hand-worked tables (bot/league/scoring.py)."""

from __future__ import annotations

import pytest

from bot.league.results import bye
from bot.league.scoring import standings

from .helpers import game

# A four-player round robin, worked by hand:
#   A beat B by 5 VP, A drew C, D beat A by 2, B beat C by 3, B beat D by 1, C drew D.
# Points (2/1/0): A 2+1+0 = 3, B 0+2+2 = 4, C 1+0+1 = 2, D 2+0+1 = 3.
# Sonneborn-Berger: A = B's 4 + half of C's 2 = 5; B = C's 2 + D's 3 = 5;
#                   C = half of A's 3 + half of D's 3 = 3; D = A's 3 + half of C's 2 = 4.
# Buchholz: A = 4+2+3 = 9, B = 3+2+3 = 8, C = 3+4+3 = 10, D = 3+4+2 = 9.
# Median Buchholz (best and worst dropped): 3 for everyone.
# VP margin: A +5-2 = +3, B -5+3+1 = -1, C -3, D +2-1 = +1.
TABLE = [
    game("1", "A", "B", 1.0, margin=5),
    game("2", "A", "C", 0.5),
    game("3", "D", "A", 1.0, margin=2),
    game("4", "B", "C", 1.0, margin=3),
    game("5", "B", "D", 1.0, margin=1),
    game("6", "C", "D", 0.5),
]


def test_hand_worked_round_robin_table() -> None:
    rows = standings(["A", "B", "C", "D"], TABLE, "round-robin")
    got = [(r.rank, r.player, r.points, r.sb, r.buchholz, r.median_buchholz, r.margin)
           for r in rows]  # fmt: skip
    assert got == [
        (1, "B", 4, 5.0, 8.0, 3.0, -1.0),
        (2, "A", 3, 5.0, 9.0, 3.0, 3.0),  # SB 5 beats D's 4, though D beat A
        (3, "D", 3, 4.0, 9.0, 3.0, 1.0),
        (4, "C", 2, 3.0, 10.0, 3.0, -3.0),
    ]
    a = rows[1]
    assert (a.played, a.won, a.drawn, a.lost) == (3, 1, 1, 1)


def test_swiss_breaks_on_buchholz_first() -> None:
    # A and D tie on points, Buchholz (9) and median Buchholz (3); SB decides.
    rows = standings(["A", "B", "C", "D"], TABLE, "swiss")
    assert [r.player for r in rows] == ["B", "A", "D", "C"]


def test_head_to_head_then_margin_then_rating() -> None:
    # A circle: each 2 points and 2 head-to-head; VP margin C +4, B 0, A -4.
    circle = [
        game("1", "A", "B", 1.0, margin=1),
        game("2", "C", "A", 1.0, margin=5),
        game("3", "B", "C", 1.0, margin=1),
    ]
    rows = standings(["A", "B", "C"], circle, "ladder")
    assert [(r.rank, r.player) for r in rows] == [(1, "C"), (2, "B"), (3, "A")]
    # Head-to-head counts only games among the players still tied: A beat B by 1,
    # B beat C by 10, D beat A by 1. A, B and D have 2 points; among them A and D scored
    # 2, B 0, so B is third though its margin (+9) is the best; D's +1 beats A's 0.
    three = [
        game("1", "A", "B", 1.0, margin=1),
        game("2", "B", "C", 1.0, margin=10),
        game("3", "D", "A", 1.0, margin=1),
    ]
    rows = standings(["A", "B", "C", "D"], three, "ladder")
    assert [(r.rank, r.player, r.margin) for r in rows] == [
        (1, "D", 1.0),
        (2, "A", 0.0),
        (3, "B", 9.0),
        (4, "C", -10.0),
    ]


def test_full_ties_share_a_rank() -> None:
    pairs = [game("1", "A", "B", 1.0), game("2", "C", "D", 1.0)]
    rows = standings(["A", "B", "C", "D"], pairs, "round-robin")
    assert [(r.rank, r.player) for r in rows] == [(1, "A"), (1, "C"), (3, "B"), (3, "D")]
    rated = standings(["A", "B", "C", "D"], pairs, "round-robin", ratings={"C": 1600})
    assert [(r.rank, r.player) for r in rated][:2] == [(1, "C"), (2, "A")]


def test_forfeits_and_byes() -> None:
    results = [
        game("1", "A", "B", 0.0, how="forfeit"),  # A forfeits: B 2, A 0
        game("2", "C", "D", -1, how="forfeit"),  # both forfeit: 0 each
        bye("3", "wb95", "the-retreat", 0, "E"),
    ]
    rows = {r.player: r for r in standings([], results, "swiss")}
    assert (rows["B"].points, rows["A"].points, rows["A"].forfeits) == (2, 0, 1)
    assert (rows["C"].points, rows["D"].points, rows["C"].lost) == (0, 0, 1)
    assert (rows["E"].points, rows["E"].won, rows["E"].byes) == (2, 1, 1)
    # A bye's "opponent" has the player's own points (FIDE's dummy opponent).
    assert rows["E"].buchholz == 2.0 and rows["E"].sb == 2.0
    with pytest.raises(ValueError, match="format"):
        standings([], results, "knockout")


def test_players_without_games_are_listed_last() -> None:
    rows = standings(["Z", "A", "B"], [game("1", "A", "B", 0.5)], "round-robin")
    assert [(r.rank, r.player, r.played) for r in rows] == [(1, "A", 1), (1, "B", 1), (3, "Z", 0)]
