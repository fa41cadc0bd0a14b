"""CSV and JSON exports (bot/league/export.py)."""

from __future__ import annotations

import json

from bot.league.export import (
    ratings_csv,
    ratings_json,
    side_balance_csv,
    standings_csv,
    standings_rows,
)
from bot.league.ratings import recompute
from bot.league.scoring import standings

from .helpers import game

RESULTS = [game("g1", "ann", "bob", 1.0, t=10, margin=3), game("g2", "bob", "ann", 0.5, t=20)]


def test_standings_csv() -> None:
    rows = standings(["ann", "bob"], RESULTS, "round-robin")
    text = standings_csv(rows)
    assert text.splitlines() == [
        "rank,player,points,played,won,drawn,lost,sb,buchholz,median_buchholz,margin,"
        "rating,byes,forfeits",
        "1,ann,3,2,1,1,0,1.5,2.0,2.0,3.0,0.0,0,0",  # SB: 1 x 1 + 0.5 x 1
        "2,bob,1,2,0,1,1,1.5,6.0,6.0,-3.0,0.0,0,0",  # Buchholz: 3 + 3
    ]
    assert standings_rows(rows)[0]["player"] == "ann"


def test_ratings_csv_and_json() -> None:
    ratings = recompute(RESULTS)
    lines = ratings_csv(ratings, "wb95").splitlines()
    assert lines[0] == "system,rank,player,rating,rd,volatility,provisional,games"
    assert lines[1].startswith("wb95,1,ann,") and lines[1].endswith(",True,2")
    data = ratings_json(ratings)
    assert json.loads(json.dumps(data)) == data  # plain JSON all the way down
    assert [row["player"] for row in data["wb95"]["players"]] == ["ann", "bob"]
    assert [p["finished"] for p in data["wb95"]["history"]["ann"]] == [10, 20]
    sides = side_balance_csv(ratings).splitlines()
    # One German win and one draw: German 1.5 of 2 with 10 virtual draws = 6.5 / 12.
    assert sides[1].startswith("wb95,the-retreat,german,2,1.5,0.75,")
    assert sides[2].startswith("wb95,the-retreat,soviet,2,0.5,0.25,")
