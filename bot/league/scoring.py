"""Standings: 2/1/0 points and the tie-breaks of the format.

Points are Rally the Troops's: a win 2, a draw 1, a loss 0. A forfeit counts as the
result it gives (the winner 2, the forfeiter 0; a double forfeit 0 each); a bye counts
as a win (2 points).

Tie-breaks, in the order of the format (`TIE_BREAKS`):
- Sonneborn-Berger (RTT's round robins): the points of each opponent beaten, plus half
  the points of each opponent drawn. It rewards scoring against the strong.
- Buchholz (Swiss): the sum of the opponents' points: the strength of the field met.
- Median Buchholz: Buchholz without the best and the worst opponent (with three or more
  games), so one bad pairing weighs less.
- Head-to-head: the points each scored in the games among the players still tied.
- VP margin: the sum of the player's VP margins, + won and - lost.
- Rating: the higher rating (from the caller, e.g. the current Glicko-2 mu).
Players equal on every criterion share a rank (listed by id).

A bye has no opponent; for Buchholz and Sonneborn-Berger it counts as a game against an
opponent with the player's own points (FIDE's "dummy opponent"), so sitting out a round
neither helps nor hurts the tie-breaks much.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bot.league.results import GameResult

POINTS = {1.0: 2, 0.5: 1, 0.0: 0}  # a score -> standings points

TIE_BREAKS: dict[str, tuple[str, ...]] = {
    "round-robin": ("sb", "head_to_head", "margin", "rating"),
    "double-round-robin": ("sb", "head_to_head", "margin", "rating"),
    "two-game-set": ("sb", "head_to_head", "margin", "rating"),
    "swiss": ("buchholz", "median_buchholz", "sb", "head_to_head", "margin", "rating"),
    "ladder": ("head_to_head", "margin", "rating"),
}


@dataclass(frozen=True)
class StandingRow:
    rank: int
    player: str
    points: int
    played: int
    won: int
    drawn: int
    lost: int
    sb: float
    buchholz: float
    median_buchholz: float
    margin: float
    rating: float
    byes: int
    forfeits: int  # games this player lost by forfeit


@dataclass
class _Tally:
    points: int = 0
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    margin: float = 0.0
    byes: int = 0
    forfeits: int = 0


def _tally(players: Sequence[str], results: Sequence[GameResult]) -> dict[str, _Tally]:
    out = {p: _Tally() for p in players}
    for r in results:
        for p in r.players:
            t = out.setdefault(p, _Tally())
            s = r.score[p]
            t.points += POINTS[s]
            t.played += 1
            t.won += s == 1.0
            t.drawn += s == 0.5
            t.lost += s == 0.0
            t.margin += r.signed_margin(p)
            t.byes += r.how == "bye"
            t.forfeits += r.how == "forfeit" and s == 0.0
    return out


def _opponent_points(
    results: Sequence[GameResult], tally: Mapping[str, _Tally]
) -> dict[str, list[tuple[float, int]]]:
    """For each player, (its score, the opponent's points) per game; a bye's opponent is
    the player itself (FIDE's dummy opponent with the player's own points)."""
    out: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for r in results:
        for p in r.players:
            opp = r.opponent(p) or p
            out[p].append((r.score[p], tally[opp].points))
    return out


def _median(values: list[int]) -> float:
    vs = sorted(values)
    return float(sum(vs[1:-1]) if len(vs) >= 3 else sum(vs))


def standings(
    players: Sequence[str],
    results: Sequence[GameResult],
    format: str = "round-robin",
    *,
    ratings: Mapping[str, float] | None = None,
) -> list[StandingRow]:
    """The table of `players` (and anyone else in `results`), best first."""
    if format not in TIE_BREAKS:
        raise ValueError(f"format is {format!r}, not one of {sorted(TIE_BREAKS)}")
    tally = _tally(players, results)
    games = _opponent_points(results, tally)
    rating = dict(ratings or {})
    sb = {p: sum(s * pts for s, pts in games[p]) for p in tally}
    buchholz = {p: float(sum(pts for _, pts in games[p])) for p in tally}
    median = {p: _median([pts for _, pts in games[p]]) for p in tally}

    def head_to_head(group: Sequence[str]) -> dict[str, float]:
        inside = set(group)
        pts = {p: 0.0 for p in group}
        for r in results:
            if len(r.players) == 2 and set(r.players) <= inside:
                for p in r.players:
                    pts[p] += POINTS[r.score[p]]
        return pts

    criteria: dict[str, Callable[[Sequence[str]], Mapping[str, float]]] = {
        "sb": lambda g: sb,
        "buchholz": lambda g: buchholz,
        "median_buchholz": lambda g: median,
        "head_to_head": head_to_head,
        "margin": lambda g: {p: tally[p].margin for p in g},
        "rating": lambda g: {p: rating.get(p, 0.0) for p in g},
    }

    def split(group: list[str], rest: tuple[str, ...]) -> list[list[str]]:
        # Ties are broken one criterion at a time, each applied to the players still
        # tied (head-to-head counts only the games among them).
        if len(group) <= 1 or not rest:
            return [sorted(group)]
        value = criteria[rest[0]](group)
        out: list[list[str]] = []
        for v in sorted({value[p] for p in group}, reverse=True):
            out += split([p for p in group if value[p] == v], rest[1:])
        return out

    by_points: dict[int, list[str]] = defaultdict(list)
    for p, t in tally.items():
        by_points[t.points].append(p)
    rows: list[StandingRow] = []
    for pts in sorted(by_points, reverse=True):
        for tied in split(by_points[pts], TIE_BREAKS[format]):
            rank = len(rows) + 1
            for p in tied:
                t = tally[p]
                rows.append(
                    StandingRow(
                        rank=rank,
                        player=p,
                        points=t.points,
                        played=t.played,
                        won=t.won,
                        drawn=t.drawn,
                        lost=t.lost,
                        sb=sb[p],
                        buchholz=buchholz[p],
                        median_buchholz=median[p],
                        margin=t.margin,
                        rating=rating.get(p, 0.0),
                        byes=t.byes,
                        forfeits=t.forfeits,
                    )
                )
    return rows
