"""Issue #20 on Discord: `/league` drives sign-up, pairing, a forfeit and the standings;
the games are created in the season's channel with the players seated."""

from __future__ import annotations

from harness import ALICE, BOB, CAROL, GUILD, MOD, Harness, Person, h, texts

__all__ = ["h"]  # the fixture

DAN = Person(100000000000000004, "Dan")


async def test_20_a_season_on_discord(h: Harness) -> None:
    out = await h.command(ALICE, "league new", name="Cup")
    assert "only the server's moderators" in texts(out)
    out = await h.command(MOD, "league new", name="Korsun Cup")
    assert "League **Korsun Cup**" in texts(out, "channel")
    assert h.ref is not None
    (league,) = await h.ref.store.leagues(str(GUILD))
    out = await h.command(MOD, "league season", league=league.id, name="Winter")
    season = (await h.ref.store.seasons(league.id))[0].id
    assert f"league join {season}" in texts(out)
    for p in (ALICE, BOB, CAROL, DAN):
        out = await h.command(p, "league join", season=season)
        assert "signed up" in texts(out) and all(s.ephemeral for s in out)
    out = await h.command(ALICE, "league start", season=season)
    assert "only the league's organisers" in texts(out)
    out = await h.command(MOD, "league start", season=season)
    announced = texts(out, "channel")
    assert f"Season {season}, round 1:" in announced and announced.count("game ") >= 2
    pairs = [p for p in await h.ref.store.pairings(season) if p.round == 1]
    first, second = pairs
    # a player resigns one game; the organiser rules a forfeit in the other
    loser = first.sides["german"]
    person = next(p for p in (ALICE, BOB, CAROL, DAN) if str(p.id) == loser)
    out = await h.command(person, "game resign", game=first.game)
    assert "resigns" in texts(out, "channel")
    out = await h.command(
        MOD, "league decide", season=season, game=second.key, outcome="forfeit soviet",
        reason="no moves for a week",
    )  # fmt: skip
    said = texts(out, "channel")
    assert "forfeit soviet (no moves for a week), decided by Mo" in said
    assert f"Season {season}, round 2:" in said  # the round was complete: the next opens
    out = await h.command(BOB, "league standings", season=season)
    table = texts(out)
    assert "Standings of season" in table and all(s.ephemeral for s in out)
    assert any(name.endswith("-standings.png") for s in out for name in s.files)
    out = await h.command(BOB, "league player", league=league.id)
    assert "Bob in Korsun Cup: rating" in texts(out)
    assert any(name.endswith("-rating.png") for s in out for name in s.files)
    assert "forfeit" in texts(await h.command(BOB, "league pairings", season=season))
    out = await h.command(MOD, "league export", season=season)
    assert any(name.endswith(".csv") for s in out for name in s.files)


async def test_19_an_organiser_picks_the_league_data_set_by_name(h: Harness) -> None:
    from scenarios import data_sets

    out = await h.command(MOD, "league new", name="Cup")
    assert h.ref is not None
    (league,) = await h.ref.store.leagues(str(GUILD))
    # the names offered: the operator's sets (none declared here), shipped and default;
    # never a directory
    choices = await h.autocomplete(MOD, "league set", "data", league=league.id, data="")
    assert [c["value"] for c in choices] == [data_sets.SHIPPED, data_sets.DEFAULT]
    out = await h.command(MOD, "league set", league=league.id, data="/srv/ostfront-data")
    assert "never a directory: no data set declared; or shipped" in texts(out)
    assert all(s.ephemeral for s in out)
    out = await h.command(ALICE, "league set", league=league.id, data="shipped")
    assert "only the league's organisers" in texts(out)
    out = await h.command(MOD, "league set", league=league.id, data="shipped")
    assert "plays Kessel's own data files (shipped)" in texts(out, "channel")
    assert (await h.ref.store.league(league.id)).settings == {"data": "shipped"}  # type: ignore[union-attr]
