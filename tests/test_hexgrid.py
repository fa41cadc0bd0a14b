"""DESIGN §3: hex numbering, neighbours, distance, hexsides, ranges and lines."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.hexgrid import Grid, HexIdError, hex_id, hexside, normalize, parse_hex

EVEN = Grid("even-q", (1, 64), (0, 35))
ODD = Grid("odd-q", (1, 64), (0, 35))

hexes = st.builds(hex_id, st.integers(1, 64), st.integers(0, 35))
grids = st.sampled_from([EVEN, ODD])


def test_ids_accept_three_digits_and_print_four() -> None:
    assert normalize("535") == "0535"
    assert normalize("0535") == "0535"
    assert normalize("6430") == "6430"
    assert normalize("2400") == "2400"
    assert parse_hex("130") == (1, 30)


@pytest.mark.parametrize("bad", ["", "12", "12345", "ab12", "05-35", "200(1)"])
def test_bad_ids_are_rejected_with_a_message(bad: str) -> None:
    with pytest.raises(HexIdError, match="not a hex number"):
        parse_hex(bad)


def test_even_q_neighbours_match_design() -> None:
    # odd column (c, r): (c, r-1), (c, r+1), (c-1, r-1), (c-1, r), (c+1, r-1), (c+1, r)
    assert sorted(EVEN.neighbours("0505")) == sorted(
        ["0504", "0506", "0404", "0405", "0604", "0605"]
    )
    # even column: (c, r-1), (c, r+1), (c-1, r), (c-1, r+1), (c+1, r), (c+1, r+1)
    assert sorted(EVEN.neighbours("0405")) == sorted(
        ["0404", "0406", "0305", "0306", "0505", "0506"]
    )


def test_odd_q_is_the_opposite_parity() -> None:
    assert sorted(ODD.neighbours("0405")) == sorted(
        ["0404", "0406", "0304", "0305", "0504", "0505"]
    )


def test_neighbours_stay_on_the_map() -> None:
    assert sorted(EVEN.neighbours("0100")) == ["0101", "0200"]
    assert sorted(EVEN.neighbours("0200")) == ["0100", "0101", "0201", "0300", "0301"]


@given(grids, hexes)
def test_neighbour_symmetry(g: Grid, h: str) -> None:
    for n in g.neighbours(h):
        assert h in g.neighbours(n)
        assert g.distance(h, n) == 1


@given(grids, hexes, hexes, hexes)
def test_distance_is_a_metric(g: Grid, a: str, b: str, c: str) -> None:
    assert g.distance(a, a) == 0
    assert g.distance(a, b) == g.distance(b, a)
    assert (g.distance(a, b) == 0) == (a == b)
    assert g.distance(a, c) <= g.distance(a, b) + g.distance(b, c)


@given(hexes)
def test_id_round_trip(h: str) -> None:
    assert hex_id(*parse_hex(h)) == h
    if not h.startswith("0"):
        return
    assert normalize(h[1:]) == h  # "535" -> "0535"


@given(grids, hexes, hexes)
def test_cube_round_trip(g: Grid, a: str, _b: str) -> None:
    q, r, s = g.to_cube(a)
    assert q + r + s == 0
    assert hex_id(*g.from_cube(q, r)) == a


def test_hexsides_are_unordered_pairs() -> None:
    assert hexside("0405", "0404") == hexside("0404", "0405") == ("0404", "0405")


@given(grids, hexes, st.integers(0, 4))
def test_within_is_every_hex_at_most_n_away(g: Grid, h: str, n: int) -> None:
    ring = set(g.within(h, n))
    expected = {x for x in g.all_hexes() if g.distance(h, x) <= n}
    assert ring == expected


@given(grids, hexes, hexes)
def test_lines_are_continuous_and_shortest(g: Grid, a: str, b: str) -> None:
    line = g.line(a, b)
    assert line[0] == a and line[-1] == b
    assert len(line) == g.distance(a, b) + 1
    for x, y in itertools.pairwise(line):
        assert g.distance(x, y) == 1
