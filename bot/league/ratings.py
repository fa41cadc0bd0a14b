"""Ratings per rule system, recomputed from the stored results alone.

Nothing is kept between calls: `recompute` replays every result in (finished, game)
order, so a moderator's correction or a rollback re-rates the league deterministically.
By default each game is its own Glicko-2 rating period, as lichess rates each game the
moment it ends: an asynchronous league has no natural period (one game takes weeks, the
next an evening), and a player's rating moves after every game it finishes rather than
at a date nobody remembers. `period="day"` groups the games that finished on the same
UTC day into one period, the paper's batch form.

Which results are rated (K130, docs/rulings.md): see `is_rated`.

Side balance: a scenario's sides are seldom even. Per (system, scenario, side) the
league learns the side's score from results, pulled toward 50% by a prior of
`balance_prior` virtual draws, and turns it into rating points: the advantage A such
that two equal players would score p = 1 / (1 + 10^(-A/400)) on that side, i.e.
A = 400 * log10(p / (1 - p)). Each game's expected score then gives the player on the
favoured side its advantage by lowering its opponent's rating by A (and raising it for
the other side), inside Glicko's g/E terms: winning with the better side earns less, and
losing with the worse side costs less. Each game uses the balance learned from the games
before it only, so the rating of a game never depends on later results.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bot.league.glicko2 import Rating, idle, update
from bot.league.results import GameResult, in_order

DAY = 86400.0
BALANCE_PRIOR = 10.0  # virtual draws per side: ten games before a side is half-trusted
PERIODS = ("game", "day")


def is_rated(r: GameResult) -> bool:
    """K130. A game changes ratings when it is marked rated and a player actually won,
    lost or drew it after both had played: a played, resigned or moderator-decided game,
    and a forfeit once both players had made an input -- a deadline forfeit then counts
    as a loss, as Rally the Troops rates a timeout as a loss. A game forfeited before both
    players had moved is not rated, as lichess does not rate a game aborted before the
    first moves: it says nothing about the players' skill. A double forfeit and a bye
    are never rated (nobody beat anybody)."""
    if not r.rated or r.how == "bye" or r.double_forfeit:
        return False
    return r.started or r.how != "forfeit"


def teaches_balance(r: GameResult) -> bool:
    """Only games decided on the map teach side balance: a forfeit or a moderator's
    decision says nothing about the scenario, and a bid game was evened by its bid."""
    return is_rated(r) and r.how in ("played", "resigned") and r.bid == 0


def balance_points(score: float, games: int, prior: float = BALANCE_PRIOR) -> float:
    """The side's advantage in rating points from its total score in `games` games,
    with `prior` virtual draws (half a point each) added so few games say little."""
    if prior <= 0:
        raise ValueError("the balance prior must be positive, or one game decides a side")
    p = (score + prior / 2.0) / (games + prior)
    return 400.0 * math.log10(p / (1.0 - p))


@dataclass(frozen=True)
class SideRecord:
    """How a side of a scenario has done: games decided on the map and points scored."""

    games: int = 0
    score: float = 0.0


@dataclass
class Ratings:
    """The result of `recompute`: current ratings, their history and side balance."""

    balance_prior: float = BALANCE_PRIOR
    _now: dict[tuple[str, str], Rating] = field(default_factory=dict)
    _history: dict[tuple[str, str], list[tuple[float, Rating]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    _sides: dict[tuple[str, str, str], SideRecord] = field(default_factory=dict)

    def of(self, system: str, player: str) -> Rating:
        """The player's rating in the system; a newcomer's is the default 1500/350."""
        return self._now.get((system, player), Rating())

    def history(self, system: str, player: str) -> list[tuple[float, Rating]]:
        """(finished, rating after it) for each rating period the player played in."""
        return list(self._history.get((system, player), []))

    def games(self, system: str, player: str) -> int:
        return len(self._history.get((system, player), []))

    def systems(self) -> list[str]:
        return sorted({s for s, _ in self._now})

    def players(self, system: str) -> list[str]:
        """The system's rated players, best first (ties by id)."""
        rated = [(p, r) for (s, p), r in self._now.items() if s == system]
        return [p for p, r in sorted(rated, key=lambda pr: (-pr[1].mu, pr[0]))]

    def side_record(self, system: str, scenario: str, side: str) -> SideRecord:
        return self._sides.get((system, scenario, side), SideRecord())

    def side_advantage(self, system: str, scenario: str, side: str) -> float:
        """The side's learned edge in rating points (0 until a game has taught it)."""
        rec = self.side_record(system, scenario, side)
        return balance_points(rec.score, rec.games, self.balance_prior)

    def sides_seen(self) -> list[tuple[str, str, str]]:
        """Every (system, scenario, side) a rated game has taught, sorted."""
        return sorted(self._sides)

    def _offset(self, r: GameResult, player: str) -> float:
        """The player's side advantage over its opponent's side in this game."""
        if r.bid != 0:
            return 0.0  # the bid already evened the sides
        opp = r.opponent(player)
        assert opp is not None
        mine = self.side_advantage(r.system, r.scenario, r.side_of(player))
        theirs = self.side_advantage(r.system, r.scenario, r.side_of(opp))
        return (mine - theirs) / 2.0

    def _learn(self, r: GameResult) -> None:
        for side, player in r.sides.items():
            key = (r.system, r.scenario, side)
            rec = self._sides.get(key, SideRecord())
            self._sides[key] = SideRecord(rec.games + 1, rec.score + r.score[player])


def _periods(results: Sequence[GameResult], period: str) -> Iterable[list[GameResult]]:
    if period == "game":
        yield from ([r] for r in results)
        return
    batch: list[GameResult] = []
    for r in results:
        if batch and math.floor(r.finished / DAY) != math.floor(batch[0].finished / DAY):
            yield batch
            batch = []
        batch.append(r)
    if batch:
        yield batch


def recompute(
    results: Sequence[GameResult],
    *,
    tau: float = 0.5,
    period: str = "game",
    balance_prior: float = BALANCE_PRIOR,
    idle_period: float | None = None,
) -> Ratings:
    """Ratings from `results` alone (any order in; replayed in (finished, game) order).

    `idle_period` (seconds), when given, lets a player's RD grow between its games by
    one no-game period per `idle_period` elapsed (fractions count), as lichess grows RD
    with the time since a player's last game; without it RD only grows through the
    volatility step of each game, so an idle player keeps its rating's certainty."""
    if period not in PERIODS:
        raise ValueError(f"period is {period!r}, not one of {PERIODS}")
    out = Ratings(balance_prior=balance_prior)
    last_played: dict[tuple[str, str], float] = {}
    for batch in _periods(in_order(r for r in results if is_rated(r)), period):
        start = batch[0].finished
        # Ratings as they stood at the period's start (idle growth included): the paper
        # rates every game of a period against the opponents' pre-period ratings.
        before: dict[tuple[str, str], Rating] = {}
        for r in batch:
            for p in r.players:
                key = (r.system, p)
                if key not in before:
                    before[key] = out.of(*key)
                    if idle_period and key in last_played:
                        before[key] = idle(before[key], (start - last_played[key]) / idle_period)
        games: dict[tuple[str, str], list[tuple[Rating, float]]] = defaultdict(list)
        when: dict[tuple[str, str], float] = {}
        for r in batch:
            for p in r.players:
                opp = r.opponent(p)
                assert opp is not None
                o = before[(r.system, opp)]
                shifted = Rating(o.mu - out._offset(r, p), o.rd, o.vol)
                games[(r.system, p)].append((shifted, r.score[p]))
                when[(r.system, p)] = r.finished
        for key, played in games.items():
            new = update(before[key], played, tau)
            out._now[key] = new
            out._history[key].append((when[key], new))
            last_played[key] = when[key]
        for r in batch:
            if teaches_balance(r):
                out._learn(r)
    out._history = dict(out._history)
    return out
