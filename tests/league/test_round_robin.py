"""Round robins: Berger tables and balanced sides (bot/league/round_robin.py)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.league.pairing import BYE, berger_table, round_robin, two_game_sets

SIDES = ("german", "soviet")

# FIDE Handbook C.05 Annex 1, the Berger table for 7 or 8 players.
FIDE_8 = """1-8 2-7 3-6 4-5
8-5 6-4 7-3 1-2
2-8 3-1 4-7 5-6
8-6 7-5 1-4 2-3
3-8 4-2 5-1 6-7
8-7 1-6 2-5 3-4
4-8 5-3 6-2 7-1"""


def test_berger_rounds_for_8_players_are_fide_s_table() -> None:
    got = "\n".join(" ".join(f"{a + 1}-{b + 1}" for a, b in r) for r in berger_table(8))
    assert got == FIDE_8


def test_four_player_round_robin_side_balance_by_hand() -> None:
    # Berger for 4: round 1 1-4 2-3, round 2 4-3 1-2, round 3 2-4 3-1 (first seed German).
    got = [(p.round, p.sides["german"], p.sides["soviet"]) for p in round_robin("ABCD", SIDES)]
    assert got == [(1, "A", "D"), (1, "B", "C"), (2, "D", "C"), (2, "A", "B"),
                   (3, "B", "D"), (3, "C", "A")]  # fmt: skip
    german = Counter(p.sides["german"] for p in round_robin("ABCD", SIDES))
    assert german == {"A": 2, "B": 2, "C": 1, "D": 1}  # 3 games each: 2-1 or 1-2


def test_an_odd_field_sits_one_out_each_round_and_balances_exactly() -> None:
    pairings = round_robin("ABCDE", SIDES)
    byes = [p for p in pairings if p.is_bye]
    assert sorted(p.sides[BYE] for p in byes) == list("ABCDE")
    assert sorted(p.round for p in byes) == [1, 2, 3, 4, 5]
    german = Counter(p.sides["german"] for p in pairings if not p.is_bye)
    assert german == {p: 2 for p in "ABCDE"}
    assert [p.game_key for p in pairings if p.round == 1] == ["r1.bye", "r1.1", "r1.2"]


@given(st.integers(2, 13), st.booleans())
def test_round_robin_properties(n: int, double: bool) -> None:
    players = [f"p{i:02}" for i in range(n)]
    pairings = round_robin(players, SIDES, double=double)
    games = [p for p in pairings if not p.is_bye]
    # Each pair meets once (twice in a double round robin, once on each side).
    met = Counter(tuple(sorted(p.players)) for p in games)
    assert set(met) == set(combinations(players, 2))
    assert set(met.values()) == {2 if double else 1}
    if double:
        assert len({(p.sides["german"], p.sides["soviet"]) for p in games}) == len(games)
    # In each round everybody plays once (or sits out), so never one side twice at once.
    for rnd in {p.round for p in pairings}:
        seen = [x for p in pairings if p.round == rnd for x in p.players]
        assert sorted(seen) == players
    # Everyone plays each side equally often, give or take one game.
    for x in players:
        first = sum(p.sides["german"] == x for p in games)
        second = sum(p.sides["soviet"] == x for p in games)
        assert abs(first - second) <= 1
        if double or n % 2:
            assert first == second


def test_two_game_sets_play_each_side_once_per_round() -> None:
    sets = two_game_sets(round_robin("ABCD", SIDES))
    assert [p.game_key for p in sets if p.round == 1] == ["r1.1a", "r1.1b", "r1.2a", "r1.2b"]
    for rnd in (1, 2, 3):
        for side in SIDES:
            on_side = [p.sides[side] for p in sets if p.round == rnd]
            assert sorted(on_side) == list("ABCD")  # each player once on each side
    a, b = sets[0], sets[1]
    assert a.sides == {"german": "A", "soviet": "D"} and b.sides == {"german": "D", "soviet": "A"}


def test_bad_fields() -> None:
    with pytest.raises(ValueError):
        round_robin(["A"], SIDES)
    with pytest.raises(ValueError):
        round_robin(["A", "A"], SIDES)
