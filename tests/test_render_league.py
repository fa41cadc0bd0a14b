"""render/league.py (issue #20): the standings table and rating-history pictures.
Structural checks on the pixels, no golden images."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from PIL import Image

from bot.league.scoring import StandingRow
from render import rating_chart, standings_image, to_png
from render.league import (
    LEADER_BG,
    MAX_WIDTH,
    PALETTE,
    PROVISIONAL_MARK,
    ZEBRA,
    _cells,
    band_colour,
    player_colour,
    time_ticks,
    value_ticks,
)

DAY = 86400.0
T0 = dt.datetime(2024, 3, 1, 18, 30, tzinfo=dt.UTC).timestamp()


def row(rank: int, player: str, points: int = 0, played: int = 4, **kw: float) -> StandingRow:
    base = dict(won=2, drawn=0, lost=2, sb=5.5, buchholz=12.0, median_buchholz=10.0, margin=-3.0)
    base.update(kw)
    return StandingRow(
        rank=rank,
        player=player,
        points=points,
        played=played,
        won=int(base["won"]),
        drawn=int(base["drawn"]),
        lost=int(base["lost"]),
        sb=base["sb"],
        buchholz=base["buchholz"],
        median_buchholz=base["median_buchholz"],
        margin=base["margin"],
        rating=kw.get("rating", 1500.0),
        byes=0,
        forfeits=0,
    )


def twenty() -> tuple[list[StandingRow], dict[str, str]]:
    rows = [row(i + 1, f"p{i}", 40 - i, rating=1700 - 10 * i) for i in range(20)]
    names = {f"p{i}": f"Player number {i}" for i in range(20)}
    names["p7"] = "Generaloberst Hermann Hoth, commanding the 4th Panzer Army at Kotelnikovo"
    return rows, names


def colours(img: Image.Image) -> dict[tuple[int, int, int], int]:
    got = img.getcolors(img.width * img.height)
    assert got is not None
    return {c: n for n, c in got}  # type: ignore[misc]


def series(players: int, points: int) -> dict[str, list[tuple[float, float, float]]]:
    return {
        f"Player {k}": [
            (T0 + j * 2 * DAY + k * 600, 1500 + (k - players / 2) * 8 * j**0.5, 350 / (1 + 0.4 * j))
            for j in range(points)
        ]
        for k in range(players)
    }


# ---------------------------------------------------------------------------- standings


def test_standings_twenty_rows_fit_a_phone_and_long_names_are_cut() -> None:
    rows, names = twenty()
    img = standings_image("Winter Storm league, season 3: division A", rows, names)
    assert img.width <= MAX_WIDTH
    assert 20 * 25 < img.height < 1000
    names["p7"] = "x" * 400  # a name that long is ellipsised, the table stays as wide
    assert standings_image("t", rows, names).width <= MAX_WIDTH
    assert len(to_png(img)) < 300_000


def test_leader_row_is_highlighted_and_rows_are_zebra() -> None:
    rows, names = twenty()
    img = standings_image("League", rows, names)
    got = colours(img)
    # the leader's band: a full row of the highlight (minus its text)
    assert got.get(LEADER_BG, 0) > img.width * 15
    assert got.get(ZEBRA[0], 0) > img.width * 15 * 5
    assert got.get(ZEBRA[1], 0) > img.width * 15 * 5
    # the band is on the first row under the header: the left edge of the table
    col = [img.getpixel((2, y)) for y in range(img.height)]
    first = col.index(LEADER_BG)
    assert ZEBRA[1] in col[first:]  # then the other rows below it
    assert all(c != LEADER_BG for c in col[first + 60 :])


def test_no_leader_before_anyone_played() -> None:
    rows = [row(1, "a", played=0), row(1, "b", played=0)]
    img = standings_image("League", rows, {})
    assert LEADER_BG not in colours(img)


def test_shared_leaders_are_both_highlighted() -> None:
    rows = [row(1, "a", 6), row(1, "b", 6), row(3, "c", 2)]
    img = standings_image("League", rows, {"a": "Ann", "b": "Bob", "c": "Cy"})
    col = [img.getpixel((2, y)) for y in range(img.height)]
    assert col.count(LEADER_BG) > 2 * 25  # two rows' worth of the highlight


def test_shared_ranks_are_shown_with_equals() -> None:
    rows = [row(1, "a", 6), row(2, "b", 4), row(2, "c", 4), row(4, "d", 1)]
    cells = _cells(rows, {"a": "Ann"}, {"d"})
    assert [c["rank"] for c in cells] == ["1", "=2", "=2", "4"]
    assert cells[0]["name"] == "Ann" and cells[1]["name"] == "b"  # the id when unnamed
    assert cells[3]["rating"] == "1500?" and cells[0]["rating"] == "1500"
    assert cells[0]["margin"] == "-3" and cells[0]["sb"] == "5.5"


def test_provisional_rating_is_marked() -> None:
    rows, names = twenty()
    plain = standings_image("League", rows, names)
    marked = standings_image("League", rows, names, provisional={"p3", "p12"})
    assert PROVISIONAL_MARK not in colours(plain)
    assert colours(marked).get(PROVISIONAL_MARK, 0) > 10
    # the mark is in the rating column, the right-hand end of the table
    xs = [
        x
        for x in range(marked.width)
        for y in range(0, marked.height, 2)
        if marked.getpixel((x, y)) == PROVISIONAL_MARK
    ]
    assert min(xs) > marked.width * 0.8


def test_standings_empty_and_deterministic() -> None:
    assert standings_image("Nobody yet", [], {}).width <= MAX_WIDTH
    rows, names = twenty()
    a = standings_image("League", rows, names, provisional={"p1"})
    b = standings_image("League", rows, names, provisional={"p1"})
    out: list[Image.Image] = []
    t = threading.Thread(
        target=lambda: out.append(standings_image("League", rows, names, provisional={"p1"}))
    )
    t.start()
    t.join()
    assert a.tobytes() == b.tobytes() == out[0].tobytes()


# ---------------------------------------------------------------------------- the chart


def test_every_players_colour_is_in_the_chart() -> None:
    s = series(12, 15)
    img = rating_chart("Rating history", s)
    assert img.width <= MAX_WIDTH and img.height < 900
    got = colours(img)
    for i in range(12):
        assert got.get(player_colour(i), 0) > 50, i
    assert len(set(PALETTE)) == 12
    assert len(to_png(img)) < 300_000


def test_band_is_drawn_around_the_line() -> None:
    s = {"Ann": [(T0, 1500.0, 100.0), (T0 + 10 * DAY, 1600.0, 100.0)]}
    img = rating_chart("Ann", s)
    line, band = player_colour(0), band_colour(player_colour(0))
    # the middle of the line across the picture
    px = img.load()
    assert px is not None
    xs = sorted({x for x in range(img.width) for y in range(60, 450) if px[x, y] == line})
    x = xs[len(xs) // 2]
    col = [img.getpixel((x, y)) for y in range(img.height)]
    on_line = [y for y, c in enumerate(col) if c == line]
    top, bottom = min(on_line), max(on_line)
    above = [y for y in range(top) if col[y] == band]
    below = [y for y in range(bottom + 1, len(col)) if col[y] == band]
    # ±2·RD = ±200 rating points on a 500-point axis of 400 px: about 160 px either side
    assert 120 < len(above) < 180 and 120 < len(below) < 180
    assert abs(len(above) - len(below)) <= 3
    assert above[-1] == top - 1 and below[0] == bottom + 1  # the band starts at the line
    assert col[above[0] - 1] != band and col[below[-1] + 1] != band  # and has an edge
    # ... and the band is light: nearer white than its line
    assert sum(band) > sum(line) + 200


def test_one_point_equal_times_and_no_points() -> None:
    one = rating_chart("One game", {"Ann": [(T0, 1520.0, 300.0)]})
    got = colours(one)
    assert got.get(player_colour(0), 0) > 10 and got.get(band_colour(player_colour(0)), 0) > 500
    same = {"Ann": [(T0, 1500.0, 350.0), (T0, 1550.0, 300.0)], "Bob": [(T0, 1450.0, 300.0)]}
    got = colours(rating_chart("Same moment", same))
    assert got.get(player_colour(0), 0) > 10 and got.get(player_colour(1), 0) > 10
    assert rating_chart("Nothing", {}).width == MAX_WIDTH
    assert rating_chart("Not yet", {"Ann": []}).width == MAX_WIDTH


def test_more_than_twelve_players_reuse_the_palette() -> None:
    img = rating_chart("Crowd", series(14, 3))
    assert player_colour(12) == player_colour(0)
    assert img.width == MAX_WIDTH


def test_chart_is_deterministic() -> None:
    s = series(5, 20)
    a, b = rating_chart("History", s), rating_chart("History", s)
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize(
    ("days", "most"), [(0.0, 6), (1.0, 6), (10.0, 6), (45.0, 6), (400.0, 6), (4000.0, 6)]
)
def test_date_ticks_are_utc_midnights_and_few(days: float, most: int) -> None:
    t0 = T0
    t1 = T0 + days * DAY
    if days < 1:
        t0, t1 = T0 - DAY / 2, T0 + DAY / 2  # what the chart does with one moment
    ticks = time_ticks(t0, t1, most)
    assert 1 <= len(ticks) <= most
    assert all(t0 <= t <= t1 and t % DAY == 0 for t in ticks)
    assert ticks == sorted(ticks)
    if days >= 400:  # months or years: their first days
        assert all(dt.datetime.fromtimestamp(t, dt.UTC).day == 1 for t in ticks)


def test_rating_ticks_are_round() -> None:
    step, ticks = value_ticks(1250, 1800)
    assert step == 100 and ticks[0] == 1300 and ticks[-1] == 1800
    step, ticks = value_ticks(800, 2200)
    assert step in (200, 250) and all(t % step == 0 for t in ticks)
