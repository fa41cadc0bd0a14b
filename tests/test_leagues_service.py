"""Leagues through the service (issue #20): a league, a season, sign-up, pairing, games
created with the players seated and a verifiable seed, results from resignations, an
organiser's audited forfeit, rounds opening as the last one ends, standings and exports."""

from __future__ import annotations

import csv
import io
import json

import pytest

from bot.league.glicko2 import Rating
from bot.service import Caller, Referee, Refusal

MOD = Caller("u-mod", "Org", server_mod=True, guild="g", channel="league-room")
PLAYERS = [Caller(f"u-{n}", f"P{n}", guild="g", channel="league-room") for n in range(1, 9)]
OUTSIDER = Caller("u-x", "X", guild="other", channel="c")


async def _season(ref: Referee, n: int, fmt: str = "round-robin", **kw: object) -> str:
    await ref.leagues.create_league(MOD, "Korsun Cup")
    (league,) = await ref.store.leagues("g")
    out = await ref.leagues.create_season(MOD, league.id, "Winter", format=fmt, **kw)  # type: ignore[arg-type]
    season = (await ref.store.seasons(league.id))[0]
    assert "Sign up with `league join" in out[0].text
    for p in PLAYERS[:n]:
        await ref.leagues.join(p, season.id)
    return season.id


async def _resign_round(ref: Referee, season: str, loser_side: str = "german") -> None:
    """Every game of the current round ends: the player of `loser_side` resigns."""
    s = await ref.store.season(season)
    assert s is not None
    for p in await ref.store.pairings(season):
        if p.round == s.settings["round"] and p.game and p.result is None:
            user = p.sides[loser_side]
            await ref.resign(Caller(user, user, guild="g", channel="league-room"), p.game)


async def test_issue_20_a_round_robin_season_runs_to_its_standings(store_url: str) -> None:
    ref = await Referee.open(store_url, opponents=None)  # on both backends (issue #21)
    try:
        with pytest.raises(Refusal, match="only the server's moderators"):
            await ref.leagues.create_league(PLAYERS[0], "Mine")
        season = await _season(ref, 4)
        with pytest.raises(Refusal, match="only the league's organisers"):
            await ref.leagues.start(PLAYERS[0], season)
        with pytest.raises(Refusal, match="no season"):
            await ref.leagues.standings(OUTSIDER, season)  # another server
        out = await ref.leagues.start(MOD, season)
        assert "round 1:" in out[0].text
        pairs = await ref.store.pairings(season)
        assert len(pairs) == 6 and {p.round for p in pairs} == {1, 2, 3}  # 4 players, 3 rounds
        first = [p for p in pairs if p.round == 1]
        assert all(p.game for p in first)
        g = await ref.game(str(first[0].game))
        assert g.status == "active" and g.seed_by == "referee"
        # a rated game's seed is nobody's before the end: no export, no verify
        with pytest.raises(Refusal, match="rated league game"):
            await ref.export(MOD, g.id)
        with pytest.raises(Refusal, match="rated league game"):
            await ref.verify(MOD, g.id)
        assert {s.user_id for s in g.seats if s.role == "player"} == set(first[0].sides.values())
        with pytest.raises(Refusal, match="sign-up is closed"):
            await ref.leagues.join(PLAYERS[5], season)
        for _ in range(3):
            await _resign_round(ref, season)  # the Soviet player wins every game
        s = await ref.store.season(season)
        assert s is not None and s.status == "over"
        rows = await ref.leagues.table(s)
        # each player played 3 games; sides balanced: each played soviet 1 or 2 times
        assert [r.played for r in rows] == [3, 3, 3, 3]
        results = await ref.leagues._results(s)
        for p in PLAYERS[:4]:
            soviet = sum(1 for r in results if r.sides.get("soviet") == p.id)
            assert soviet in (1, 2)
            mine = next(r for r in rows if r.player == p.id)
            assert mine.points == 2 * soviet  # 2 points a win
        text = (await ref.leagues.standings(PLAYERS[0], season))[0].text
        assert "Standings of season" in text and "P1" in text
        exported = await ref.leagues.export(MOD, season, "csv")
        table = list(csv.DictReader(io.StringIO(exported)))
        assert len(table) == 4 and {"rank", "player", "points", "name"} <= set(table[0])
        data = json.loads(await ref.leagues.export(MOD, season, "json"))
        assert data["season"] == season and len(data["standings"]) == 4
        player = (await ref.leagues.player(PLAYERS[0], s.league, PLAYERS[0].id))[0].text
        assert "rating" in player and "games 3" in player
        assert Rating().mu == 1500.0
    finally:
        await ref.close()


async def test_issue_20_an_organisers_forfeit_is_audited_and_rescores(store_url: str) -> None:
    ref = await Referee.open(store_url, opponents=None)  # on both backends (issue #21)
    try:
        season = await _season(ref, 2)
        await ref.leagues.start(MOD, season)
        (p,) = [x for x in await ref.store.pairings(season) if x.round == 1]
        with pytest.raises(Refusal, match="forfeit which side"):
            await ref.leagues.decide(MOD, season, p.key, "forfeit nobody", "")
        out = await ref.leagues.decide(MOD, season, p.key, "forfeit soviet", "missed 3 deadlines")
        assert "forfeit soviet (missed 3 deadlines), decided by Org" in out[0].text
        g = await ref.game(str(p.game))
        assert g.status == "over"  # the running game was ended
        (p,) = [x for x in await ref.store.pairings(season) if x.round == 1]
        assert p.result is not None and p.result["how"] == "forfeit"
        assert p.result["score"][p.sides["german"]] == 1.0
        audit = await ref.store.league_audit(season)
        assert [k for _, _, k, _ in audit][-1] == "decision"
        # the forfeit and the organiser's intervention weigh on the reliability figure
        s = await ref.store.season(season)
        assert s is not None
        who = p.sides["soviet"]
        text = (await ref.leagues.player(MOD, s.league, who))[0].text
        assert "reliability" in text and "Forfeited 1 game" in text, text
        assert "Needed a moderator 1 time" in text
        # a correction: the organiser decides a draw instead; the standings follow
        await ref.leagues.decide(MOD, season, p.key, "draw", "appeal upheld")
        s = await ref.store.season(season)
        assert s is not None
        rows = await ref.leagues.table(s)
        assert [r.points for r in rows] == [1, 1]
        assert len(await ref.store.league_audit(season)) >= 3  # the round, two decisions
    finally:
        await ref.close()


async def test_issue_20_a_swiss_pairs_each_round_from_the_results(store_url: str) -> None:
    ref = await Referee.open(store_url, opponents=None)
    try:
        season = await _season(ref, 8, "swiss", rounds=5)
        await ref.leagues.start(MOD, season)
        for _ in range(5):
            await _resign_round(ref, season)
        s = await ref.store.season(season)
        assert s is not None and s.status == "over"
        pairs = await ref.store.pairings(season)
        assert len(pairs) == 20 and {p.round for p in pairs} == {1, 2, 3, 4, 5}
        met = [frozenset(p.sides.values()) for p in pairs]
        assert len(set(met)) == len(met)  # no rematch
        rows = await ref.leagues.table(s)
        assert sum(r.points for r in rows) == 2 * 20  # 2 points a game
    finally:
        await ref.close()


# the built-in opponents' games take ~12 s: on PostgreSQL only in the slow run
@pytest.mark.parametrize(
    "store_url", ["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)], indirect=True
)
async def test_issue_20_a_season_played_by_the_built_in_opponents(store_url: str) -> None:
    """The 'done when' season: 8 players (the built-in opponent under 8 names) play a round
    robin and a Swiss of 5 rounds through the service, every game to its end; standings
    and ratings come out of the results alone (recomputed twice: the same)."""
    from bot.league.ratings import recompute

    ref = await Referee.open(store_url)  # the built-in opponents play
    try:
        await ref.leagues.create_league(MOD, "Bots")
        (league,) = await ref.store.leagues("g")
        for fmt, rounds in (("round-robin", None), ("swiss", 5)):
            await ref.leagues.create_season(
                MOD, league.id, fmt, format=fmt, rounds=rounds, scenario="demo-steblev"
            )
        for s in await ref.store.seasons(league.id):
            for n in range(1, 9):
                await ref.leagues.join(Caller(f"ai:bot{n}", f"Bot {n}", guild="g"), s.id)
            await ref.leagues.start(MOD, s.id)
        for s in await ref.store.seasons(league.id):
            s2 = await ref.store.season(s.id)
            assert s2 is not None and s2.status == "over", s2
            pairs = await ref.store.pairings(s.id)
            assert all(p.result is not None for p in pairs)
            assert len(pairs) == (28 if s.format == "round-robin" else 20)
            rows = await ref.leagues.table(s2)
            assert sum(r.played for r in rows) == 2 * len(pairs)
        results = await ref.leagues._league_results(league)
        a, b = recompute(results), recompute(list(reversed(results)))
        assert all(a.of("wb95", p) == b.of("wb95", p) for p in a.players("wb95"))
    finally:
        await ref.close()


def test_issue_20_kessel_league_runs_a_season_from_the_command_line(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same league commands from the command line, on a database: the built-in
    opponent signed up under four names plays every game."""
    from bot.cli import main

    db = store_url  # a file or a postgresql:// URL
    assert main(["league", "new", "Local", "Cup", "--db", db]) == 0
    league = capsys.readouterr().out.split("(")[1].split(",")[0]
    assert main(["league", "season", league, "Spring", "round-robin", "--db", db]) == 0
    season = capsys.readouterr().out.split("(")[1].split(")")[0]
    for n in range(4):
        assert main(["league", "join", season, f"ai:Bot{n}", "--db", db]) == 0
    assert main(["league", "join", season, "--as", "Alice", "--db", db]) == 0
    assert "Alice signed up" in capsys.readouterr().out
    assert main(["league", "leave", season, "--as", "Alice", "--db", db]) == 0
    assert main(["league", "start", season, "--db", db]) == 0
    assert "round 1:" in capsys.readouterr().out
    assert main(["league", "standings", season, "--db", db]) == 0
    out = capsys.readouterr().out
    assert "Standings of season" in out and "Bot0" in out
    assert main(["league", "export", season, "json", "--db", db]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sum(r["played"] for r in data["standings"]) == 12  # 6 games, all played
    assert main(["league", "bogus", "--db", db]) == 2
    assert "is not a league command" in capsys.readouterr().err
    assert main(["league", "join", season, "--db", db]) == 2  # closed


async def test_issue_20_missed_deadlines_forfeit_a_league_game(
    store_url: str, another_store_url: str
) -> None:
    """A season with deadlines and `forfeit 2`: the first missed deadline plays the absent
    side's default input, the second forfeits its game; the result is audited as the
    deadline's and the standings count it."""
    clock = [1_000_000.0]
    ref = await Referee.open(store_url, opponents=None, clock=lambda: clock[0])
    try:
        with pytest.raises(Refusal, match="needs deadlines"):
            await _season(ref, 2, forfeit_after=2)
    finally:
        await ref.close()
    ref = await Referee.open(another_store_url, opponents=None, clock=lambda: clock[0])
    try:
        season = await _season(ref, 2, deadline_hours=24, forfeit_after=2)
        await ref.leagues.start(MOD, season)
        (p,) = await ref.store.pairings(season)
        g = await ref.game(str(p.game))
        assert g.settings["deadline_hours"] == 24 and g.settings["policy"] == "default"
        awaited = g.awaited()
        clock[0] += 25 * 3600
        first = await ref.tick()
        assert any("Deadline passed" in r.text for r in first), [r.text for r in first]
        assert g.status == "active"
        while g.status == "active" and clock[0] < 1_000_000 + 40 * 24 * 3600:
            clock[0] += 25 * 3600
            await ref.tick()
        assert g.status == "over"
        (p,) = await ref.store.pairings(season)
        assert p.result is not None and p.result["how"] == "forfeit"
        loser = [u for u, sc in p.result["score"].items() if sc == 0.0]
        assert len(loser) == 1
        audit = await ref.store.league_audit(season)
        assert (audit[-1][1], audit[-1][2]) == ("deadline", "decision")
        assert awaited  # somebody was awaited when the first deadline passed
    finally:
        await ref.close()


async def test_issue_20_a_ladder_moves_with_challenges(store_url: str) -> None:
    """The ladder format: players challenge up to 3 places up; a winner from below takes
    the loser's place; a newcomer joins at the bottom of the running ladder; the
    organiser closes it."""
    ref = await Referee.open(store_url, opponents=None)
    try:
        season = await _season(ref, 5, "ladder")
        out = await ref.leagues.start(MOD, season)
        assert "a ladder" in out[0].text and "challenge up to 3 places up" in out[0].text
        s = await ref.store.season(season)
        assert s is not None
        ladder = list(s.settings["ladder"])
        assert ladder == [p.id for p in PLAYERS[:5]]  # no ratings yet: sign-up order
        last = PLAYERS[4]
        with pytest.raises(Refusal, match="up to 3 places above you"):
            await ref.leagues.challenge(last, season, PLAYERS[0].id)
        out = await ref.leagues.challenge(last, season, "P2")  # by name
        assert "challenges P2" in out[0].text
        with pytest.raises(Refusal, match="one ladder game at a time"):
            await ref.leagues.challenge(last, season, "P3")
        (p,) = await ref.store.pairings(season)
        # the challenger wins: P2 resigns
        await ref.resign(Caller(PLAYERS[1].id, "P2", guild="g", channel="league-room"), str(p.game))
        s = await ref.store.season(season)
        assert s is not None
        assert s.settings["ladder"] == [PLAYERS[0].id, last.id, PLAYERS[1].id, PLAYERS[2].id,
                                        PLAYERS[3].id]  # fmt: skip
        await ref.leagues.join(PLAYERS[5], season)  # a newcomer while it runs
        s = await ref.store.season(season)
        assert s is not None and s.settings["ladder"][-1] == PLAYERS[5].id
        text = (await ref.leagues.standings(PLAYERS[0], season))[0].text
        assert text.splitlines()[2] == "  2. P5"
        out = await ref.leagues.close(MOD, season)
        assert "closed by Org" in out[0].text
        s = await ref.store.season(season)
        assert s is not None and s.status == "over"
    finally:
        await ref.close()


async def test_issue_20_k134_sides_by_sealed_vp_bids(store_url: str) -> None:
    """A bids season: no game until both players bid; a bid is sealed (the other player
    learns nothing); when both want the same side the higher bid takes it and its VPs are
    taken off that side's total for every victory test (K134)."""
    ref = await Referee.open(store_url, opponents=None)
    try:
        season = await _season(ref, 2, bids=True)
        out = await ref.leagues.start(MOD, season)
        assert "sides by sealed bids" in out[0].text
        (p,) = await ref.store.pairings(season)
        assert p.game is None
        a, b = PLAYERS[0], PLAYERS[1]
        out = await ref.leagues.bid(a, season, p.key, "german", "3")
        assert out[0].to == "caller" and "sealed" in out[0].text
        with pytest.raises(Refusal, match="one of the sides"):
            await ref.leagues.bid(b, season, p.key, "finnish", "1")
        out = await ref.leagues.bid(b, season, p.key, "german", "5")
        said = out[0].text
        assert "P2: german 5 VP" in said and "P1: german 3 VP" in said
        (p,) = await ref.store.pairings(season)
        assert p.sides == {"german": b.id, "soviet": a.id} and p.game is not None
        g = await ref.game(p.game)
        assert g.setup.victory_rules["handicap"] == {"german": 5}
        standing = g.system.victory_standing(g.state)
        plain = (await ref.game(p.game)).setup  # the same scenario without a handicap:
        from engine.wb95.victory import victory_standing
        from scenarios import load_scenario

        base = victory_standing(
            type(g.state)(**{**g.state.__dict__, "setup": load_scenario("demo-steblev")})
        )
        assert standing["vp"]["german"] == base["vp"]["german"] - 5
        assert plain.victory_rules["handicap"] == {"german": 5}
        with pytest.raises(Refusal, match="are settled"):
            await ref.leagues.bid(a, season, p.key, "soviet", "0")
    finally:
        await ref.close()


async def test_issue_20_divisions_play_apart_and_stand_apart(store_url: str) -> None:
    """`league divide`: 8 players in 2 divisions (by rating, snaked); each division plays
    its own round robin and has its own table."""
    ref = await Referee.open(store_url, opponents=None)
    try:
        season = await _season(ref, 8)
        with pytest.raises(Refusal, match="need at least 10 players"):
            await ref.leagues.divide(MOD, season, "5")
        out = await ref.leagues.divide(MOD, season, "2")
        assert "division A:" in out[0].text and "division B:" in out[0].text
        entrants = await ref.store.entrants(season)
        a = [e.user_id for e in entrants if e.division == "A"]
        b = [e.user_id for e in entrants if e.division == "B"]
        assert len(a) == len(b) == 4
        await ref.leagues.start(MOD, season)
        pairs = await ref.store.pairings(season)
        assert len(pairs) == 12  # two round robins of 4: 6 games each
        for p in pairs:
            group = a if p.key.startswith("A.") else b
            assert set(p.sides.values()) <= set(group), p
        for _ in range(3):
            await _resign_round(ref, season)
        s = await ref.store.season(season)
        assert s is not None and s.status == "over"
        text = (await ref.leagues.standings(PLAYERS[0], season))[0].text
        assert "Division A" in text and "Division B" in text
        assert len(await ref.leagues.table(s, "A")) == 4
    finally:
        await ref.close()


async def test_issue_20_a_campaign_season_chains_its_scenarios(
    store_url: str, another_store_url: str
) -> None:
    """A season playing the campaign the-retreat -> deblockade: when the first game ends,
    the second is created from deblockade with what carried over (announced line by
    line); after the last, the pairing's result is the campaign score's."""
    ref = await Referee.open(store_url, opponents=None)
    try:
        with pytest.raises(Refusal, match="no shipped campaign"):
            await _season(ref, 2, campaign="nope")
    finally:
        await ref.close()
    ref = await Referee.open(another_store_url, opponents=None)
    try:
        season = await _season(ref, 2, campaign="the-retreat-deblockade")
        await ref.leagues.start(MOD, season)
        (p,) = await ref.store.pairings(season)
        first = await ref.game(str(p.game))
        assert first.setup.id == "the-retreat"
        out = await ref.mod(MOD, first.id, "end german agreed")
        said = "\n".join(r.text for r in out)
        assert "game 2 of the campaign, deblockade" in said and "carried over:" in said
        (p,) = await ref.store.pairings(season)
        second = await ref.game(str(p.game))
        assert second.id != first.id and second.setup.id == "deblockade"
        assert second.row.scenario == "inline" and p.result is None
        out = await ref.mod(MOD, second.id, "end german agreed")
        said = "\n".join(r.text for r in out)
        assert "the campaign is over" in said
        (p,) = await ref.store.pairings(season)
        assert p.result is not None and p.result["score"][p.sides["german"]] == 1.0
    finally:
        await ref.close()


async def test_issue_20_a_rollback_reopens_a_finished_game_and_takes_its_result_back(
    store_url: str,
) -> None:
    """A moderator's rollback of a league game the engine had finished puts it back into
    play and takes its result out of the standings (audited); it is scored again when it
    ends again."""
    ref = await Referee.open(store_url)  # the built-in opponents play
    try:
        await ref.leagues.create_league(MOD, "Cup")
        (league,) = await ref.store.leagues("g")
        await ref.leagues.create_season(MOD, league.id, "S")
        (season,) = await ref.store.seasons(league.id)
        await ref.leagues.join(MOD, season.id, "ai:One")
        await ref.leagues.join(PLAYERS[0], season.id)
        await ref.leagues.join(PLAYERS[1], season.id)
        await ref.leagues.join(MOD, season.id, "ai:Two")
        await ref.leagues.start(MOD, season.id)
        bots = next(
            p for p in await ref.store.pairings(season.id)
            if p.round == 1 and all(u.startswith("ai:") for u in p.sides.values())
        )  # fmt: skip
        assert bots.result is not None and bots.result["how"] == "played"
        g = await ref.game(str(bots.game))
        assert g.status == "over"
        await ref.mod(MOD, g.id, "rollback 5")
        assert g.status == "active" and not g.state.over
        (again,) = [p for p in await ref.store.pairings(season.id) if p.key == bots.key]
        assert again.result is None
        audit = await ref.store.league_audit(season.id)
        assert audit[-1][2] == "reopened"
    finally:
        await ref.close()


async def test_issue_20_a_league_may_allow_only_some_scenarios(store_url: str) -> None:
    ref = await Referee.open(store_url, opponents=None)
    try:
        with pytest.raises(Refusal, match="not wb95 scenarios: nope"):
            await ref.leagues.create_league(MOD, "Cup", scenarios=["nope"])
        out = await ref.leagues.create_league(
            MOD, "Steblev Cup", scenarios=["demo-steblev", "the-retreat"]
        )
        assert "scenarios: demo-steblev, the-retreat" in out[0].text
        (league,) = await ref.store.leagues("g")
        with pytest.raises(Refusal, match="the league plays demo-steblev, the-retreat"):
            await ref.leagues.create_season(MOD, league.id, "S", scenario="deblockade")
        await ref.leagues.create_season(MOD, league.id, "S", scenario="the-retreat")
    finally:
        await ref.close()
