"""Standings and ratings as JSON-able dicts and CSV text (strings only; the caller
writes them where it wants). CSV columns are the dicts' keys, in the same order."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from bot.league.glicko2 import is_provisional
from bot.league.ratings import Ratings
from bot.league.scoring import StandingRow


def _csv(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return out.getvalue()


STANDINGS_COLUMNS = tuple(StandingRow.__dataclass_fields__)


def standings_rows(rows: Sequence[StandingRow]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]


def standings_csv(rows: Sequence[StandingRow]) -> str:
    return _csv(standings_rows(rows), STANDINGS_COLUMNS)


RATING_COLUMNS = ("system", "rank", "player", "rating", "rd", "volatility", "provisional", "games")


def rating_rows(ratings: Ratings, system: str) -> list[dict[str, Any]]:
    """The system's players best first; rating and RD to 2 places, volatility to 6 (the
    precision of Glickman's paper)."""
    out = []
    for rank, player in enumerate(ratings.players(system), start=1):
        r = ratings.of(system, player)
        out.append(
            {
                "system": system,
                "rank": rank,
                "player": player,
                "rating": round(r.mu, 2),
                "rd": round(r.rd, 2),
                "volatility": round(r.vol, 6),
                "provisional": is_provisional(r),
                "games": ratings.games(system, player),
            }
        )
    return out


def ratings_csv(ratings: Ratings, system: str) -> str:
    return _csv(rating_rows(ratings, system), RATING_COLUMNS)


def history_rows(ratings: Ratings, system: str, player: str) -> list[dict[str, Any]]:
    """The points of a player's rating chart: when, rating, RD."""
    return [
        {"finished": t, "rating": round(r.mu, 2), "rd": round(r.rd, 2)}
        for t, r in ratings.history(system, player)
    ]


SIDE_COLUMNS = ("system", "scenario", "side", "games", "score", "win_rate", "advantage")


def side_balance_rows(ratings: Ratings) -> list[dict[str, Any]]:
    """Per scenario and side (as ROAR tracks them): games, points scored, the raw win
    rate and the learned advantage in rating points."""
    out = []
    for system, scenario, side in ratings.sides_seen():
        rec = ratings.side_record(system, scenario, side)
        out.append(
            {
                "system": system,
                "scenario": scenario,
                "side": side,
                "games": rec.games,
                "score": rec.score,
                "win_rate": round(rec.score / rec.games, 4) if rec.games else None,
                "advantage": round(ratings.side_advantage(system, scenario, side), 2),
            }
        )
    return out


def side_balance_csv(ratings: Ratings) -> str:
    return _csv(side_balance_rows(ratings), SIDE_COLUMNS)


def ratings_json(ratings: Ratings) -> dict[str, Any]:
    """Everything `recompute` produced, per system, as one JSON-able dict."""
    return {
        system: {
            "players": rating_rows(ratings, system),
            "history": {p: history_rows(ratings, system, p) for p in ratings.players(system)},
            "sides": [row for row in side_balance_rows(ratings) if row["system"] == system],
        }
        for system in ratings.systems()
    }
