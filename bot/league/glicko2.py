"""Glicko-2, as in Glickman's "Example of the Glicko-2 system" (glicko.net/glicko/glicko2.pdf).

The functions follow the paper's numbered steps so each line can be checked against it.
Ratings are kept on the familiar Glicko scale (1500 / 350); the paper's internal scale
(mu, phi) is used only inside `update`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178  # Step 2: the paper's conversion factor between the two scales.
DEFAULT_MU = 1500.0
MAX_RD = 350.0  # a new player's RD; an idle player's RD never grows past it (as Glicko-1)
EPSILON = 0.000001  # Step 5: the convergence tolerance the paper uses.
PROVISIONAL_RD = 110.0  # lichess shows a rating as provisional ("1500?") at RD >= 110.


@dataclass(frozen=True)
class Rating:
    mu: float = DEFAULT_MU
    rd: float = MAX_RD
    vol: float = 0.06


def is_provisional(r: Rating) -> bool:
    """lichess's rule (lila `Glicko.provisional`: deviation >= 110): until the RD falls
    under 110 the rating says little, and a standings table marks it."""
    return r.rd >= PROVISIONAL_RD


def _g(phi: float) -> float:
    # Step 3: g(phi) damps the impact of an opponent whose rating is uncertain.
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    # Step 3: the expected score against opponent j.
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(r: Rating, opponent: Rating) -> float:
    """The chance `r` scores against `opponent` (a draw counting half), as Step 3's E."""
    return _e((r.mu - DEFAULT_MU) / SCALE, (opponent.mu - DEFAULT_MU) / SCALE, opponent.rd / SCALE)


def _new_volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5: solve f(x) = 0 for x = ln(sigma'^2) by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex)) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a  # 5.2: initial values of the bracket
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:  # 5.4: iterate until the bracket is small
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)  # 5.5


def idle(r: Rating, periods: float = 1.0) -> Rating:
    """A player who played no game for `periods` rating periods: only the RD grows
    (the paper's "if the player does not compete" case, Step 6), at most to MAX_RD.
    A fraction of a period grows it proportionally, as lichess does between games."""
    phi = r.rd / SCALE
    phi_star = math.sqrt(phi * phi + periods * r.vol * r.vol)
    return Rating(r.mu, min(phi_star * SCALE, MAX_RD), r.vol)


def update(r: Rating, games: Sequence[tuple[Rating, float]], tau: float = 0.5) -> Rating:
    """The rating after one rating period in which `r` played `games`: pairs of the
    opponent's rating (as it stood at the period's start) and the score (1, 0.5, 0).
    `tau` bounds how fast the volatility may change (the paper suggests 0.3 to 1.2)."""
    if not games:
        return idle(r)
    # Step 2: to the Glicko-2 scale.
    mu = (r.mu - DEFAULT_MU) / SCALE
    phi = r.rd / SCALE
    sigma = r.vol
    opponents = [((o.mu - DEFAULT_MU) / SCALE, o.rd / SCALE, s) for o, s in games]
    # Step 3: the estimated variance of the rating from game outcomes alone.
    v_inv = 0.0
    for mu_j, phi_j, _ in opponents:
        e = _e(mu, mu_j, phi_j)
        v_inv += _g(phi_j) ** 2 * e * (1.0 - e)
    v = 1.0 / v_inv
    # Step 4: the estimated improvement.
    outcome_sum = sum(_g(phi_j) * (s - _e(mu, mu_j, phi_j)) for mu_j, phi_j, s in opponents)
    delta = v * outcome_sum
    # Step 5: the new volatility.
    sigma_new = _new_volatility(delta, phi, v, sigma, tau)
    # Step 6: the pre-rating-period value of the RD.
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    # Step 7: the new RD and rating.
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * outcome_sum
    # Step 8: back to the Glicko scale.
    return Rating(SCALE * mu_new + DEFAULT_MU, SCALE * phi_new, sigma_new)
