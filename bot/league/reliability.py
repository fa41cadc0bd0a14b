"""A reliability figure per player, kept apart from its rating (as AREA kept a player's
reliability apart from its skill): does this opponent finish its games, on time?

The score starts at 100 and loses points for what an opponent suffers from, each in
proportion to how often it happens (a rate of one a game costs the full weight, and a
deduction never exceeds its weight):
- forfeits, the games the player lost by forfeit: `forfeit` (60) at one a game;
- timeouts, deadlines it missed that the referee's deadline policy played for it:
  `timeout` (30);
- moderator interventions it caused: `intervention` (20);
- slow play: `slow` points per day of median time to move beyond `slow_after` hours,
  at most `slow_cap`.
Every deduction comes with a sentence, so a player sees why. Fewer than `new_games`
games make the label "new": the figure says little yet (as a provisional rating).
"""

from __future__ import annotations

from dataclasses import dataclass

LABELS = ((90, "excellent"), (75, "good"), (50, "fair"), (0, "poor"))


@dataclass(frozen=True)
class PlayerStats:
    player: str
    finished: int  # games finished (any result, forfeits included)
    forfeits: int = 0  # of those, lost by forfeit (deadline, abandonment)
    timeouts: int = 0  # deadlines missed in games (whether or not they ended them)
    interventions: int = 0  # moderator interventions the player caused
    median_move_hours: float | None = None  # median time from its turn to its input


@dataclass(frozen=True)
class Weights:
    forfeit: float = 60.0
    timeout: float = 30.0
    intervention: float = 20.0
    slow_after: float = 24.0  # hours
    slow: float = 5.0  # per day beyond slow_after
    slow_cap: float = 20.0
    new_games: int = 3


@dataclass(frozen=True)
class Reliability:
    score: int  # 0-100
    label: str
    reasons: list[str]


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def reliability(stats: PlayerStats, weights: Weights = Weights()) -> Reliability:
    """The player's reliability from its counts, with the reason for each deduction."""
    w, games = weights, max(stats.finished, 1)
    reasons: list[str] = []
    score = 100.0

    def deduct(weight: float, count: int, why: str) -> None:
        nonlocal score
        points = min(weight * count / games, weight)
        if points > 0:
            score -= points
            reasons.append(f"{why} in {_count(games, 'game')} (-{round(points)}).")

    deduct(w.forfeit, stats.forfeits, f"Forfeited {_count(stats.forfeits, 'game')}")
    deduct(w.timeout, stats.timeouts, f"Missed {_count(stats.timeouts, 'deadline')}")
    deduct(
        w.intervention,
        stats.interventions,
        f"Needed a moderator {_count(stats.interventions, 'time')}",
    )
    hours = stats.median_move_hours
    if hours is not None and hours > w.slow_after:
        slow = min(w.slow * (hours - w.slow_after) / 24.0, w.slow_cap)
        score -= slow
        reasons.append(
            f"Takes {hours:g} hours to move (median), more than {w.slow_after:g} (-{round(slow)})."
        )
    final = max(0, min(100, round(score)))
    if stats.finished < w.new_games:
        label = "new"
        reasons.append(f"Only {_count(stats.finished, 'game')} so far.")
    else:
        label = next(name for floor, name in LABELS if final >= floor)
    return Reliability(final, label, reasons)
