"""Glicko-2 against Glickman's worked example (glicko.net/glicko/glicko2.pdf)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.league import glicko2
from bot.league.glicko2 import PROVISIONAL_RD, Rating, expected_score, is_provisional, update

PLAYER = Rating(1500.0, 200.0, 0.06)
OPPONENTS = [
    (Rating(1400.0, 30.0), 1.0),
    (Rating(1550.0, 100.0), 0.0),
    (Rating(1700.0, 300.0), 0.0),
]


def test_paper_worked_example_steps_1_to_8() -> None:
    # Step 1/2: the player 1500/200/0.06 is (0, 1.1513) on the Glicko-2 scale; tau 0.5.
    phi = 200.0 / glicko2.SCALE
    assert phi == pytest.approx(1.1513, abs=1e-4)
    # Step 3: g(phi_j) and E for the three opponents, as tabulated in the paper.
    for (opp, _), g, e in zip(
        OPPONENTS, (0.9955, 0.9531, 0.7242), (0.639, 0.432, 0.303), strict=True
    ):
        assert glicko2._g(opp.rd / glicko2.SCALE) == pytest.approx(g, abs=1e-4)
        assert expected_score(PLAYER, opp) == pytest.approx(e, abs=1e-3)
    # Steps 3-8 together: the paper's result 1464.06 / 151.52 / 0.05999.
    new = update(PLAYER, OPPONENTS, tau=0.5)
    # Step 7 prints mu' = -0.2069 and phi' = 0.8722; Step 8 converts the *rounded* mu'
    # (173.7178 * -0.2069 + 1500 = 1464.06). Unrounded, mu' is -0.20694, i.e. 1464.05.
    mu_step_7 = round((new.mu - 1500.0) / glicko2.SCALE, 4)
    assert mu_step_7 == -0.2069
    assert round(new.rd / glicko2.SCALE, 4) == 0.8722
    assert round(glicko2.SCALE * mu_step_7 + 1500.0, 2) == 1464.06
    assert new.mu == pytest.approx(1464.06, abs=0.01)
    assert round(new.rd, 2) == 151.52
    # The paper prints sigma' = 0.05999, cut (not rounded) at five places: 0.0599960.
    assert math.floor(new.vol * 1e5) / 1e5 == 0.05999


def test_paper_step_5_new_volatility() -> None:
    # Step 3 gives v = 1.7785, Step 4 delta = -0.4834; Step 5 finds sigma' = 0.05999.
    sigma = glicko2._new_volatility(-0.4834, 1.1513, 1.7785, 0.06, 0.5)
    assert math.floor(sigma * 1e5) / 1e5 == 0.05999
    # Step 6: phi* = sqrt(phi^2 + sigma'^2) = 1.152862
    assert math.sqrt(1.1513**2 + sigma**2) == pytest.approx(1.152862, abs=1e-5)


def test_no_games_only_the_rd_grows() -> None:
    # The paper: "If the player does not compete during the rating period ... phi' = phi*".
    new = update(PLAYER, [])
    assert new.mu == PLAYER.mu and new.vol == PLAYER.vol
    assert new.rd == pytest.approx(glicko2.SCALE * math.sqrt((200 / glicko2.SCALE) ** 2 + 0.06**2))


def test_idle_rd_never_grows_past_a_newcomers() -> None:
    assert glicko2.idle(Rating(1600, 340, 0.06), periods=1000).rd == glicko2.MAX_RD


def test_provisional_is_lichess_rule() -> None:
    assert PROVISIONAL_RD == 110.0
    assert is_provisional(Rating())
    assert is_provisional(Rating(rd=110.0))
    assert not is_provisional(Rating(rd=109.9))


scores = st.sampled_from([0.0, 0.5, 1.0])
ratings = st.builds(
    Rating,
    mu=st.floats(800, 2400),
    rd=st.floats(30, 350),
    vol=st.floats(0.03, 0.1),
)


@given(ratings, ratings, scores)
def test_a_win_never_lowers_and_a_loss_never_raises(r: Rating, opp: Rating, s: float) -> None:
    new = update(r, [(opp, s)])
    if s == 1.0:
        assert new.mu >= r.mu
    if s == 0.0:
        assert new.mu <= r.mu
    assert 0 < new.rd <= math.sqrt(r.rd**2 + (glicko2.SCALE * 0.2) ** 2)
    assert new.vol > 0


@given(ratings, ratings)
def test_expected_scores_are_a_probability(r: Rating, opp: Rating) -> None:
    assert 0.0 < expected_score(r, opp) < 1.0
    if r.mu > opp.mu:
        assert expected_score(r, opp) > 0.5
