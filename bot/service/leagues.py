"""Leagues on the referee (issue #20): league -> season -> pairings -> games.

A league belongs to a server and one rule system; its organisers (the server's moderators
and the league's creator) create seasons in a format, players sign up, the organiser
starts the season and Kessel pairs each round (bot/league/pairing.py), creates its games
in the season's channel with the players seated and a referee-chosen seed (verifiable,
engine/dice.py), and records each result as the game ends: the engine's result, a
resignation, a moderator's end, or an organiser's audited decision (a forfeit, a result
set by hand). Standings and ratings are never stored: they are recomputed from the
results (bot/league), so a correction re-scores the same way every time.

The desk is assembled from parts: league_base.py (what all share), league_ladder.py,
league_bids.py, league_campaign.py and league_reading.py; this module has the seasons'
life: creating, sign-up, divisions, rounds, results and decisions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bot.league.carry_over import CampaignError, load_campaign
from bot.league.ladder import join as ladder_join
from bot.league.pairing import BYE, Pairing, round_robin, swiss_round, two_game_sets
from bot.league.results import bye
from bot.service.game import AI_PREFIX
from bot.service.league_base import (
    FORMATS,
    MIN_PLAYERS,
    SCORING_FORMAT,
    _announce,
    _result_json,
    _system_of,
)
from bot.service.league_bids import BidPlay
from bot.service.league_campaign import CampaignPlay
from bot.service.league_ladder import LadderPlay
from bot.service.league_reading import LeagueReading
from bot.service.league_settings import LeagueSettings
from bot.service.model import Caller, Refusal, Reply
from bot.store_leagues import EntrantRow, LeagueRow, PairingRow, SeasonRow
from engine import numbers
from engine.digest import setup_digest
from engine.systems import of as system_of
from scenarios import data_sets, list_scenarios, load_scenario, overrides
from scenarios.overrides import LEAGUE_SUPPLIED as LEAGUE

if TYPE_CHECKING:
    from bot.service.game import LiveGame

__all__ = ["FORMATS", "SCORING_FORMAT", "LeagueDesk"]


class LeagueDesk(LadderPlay, BidPlay, CampaignPlay, LeagueReading, LeagueSettings):
    """The league commands of the service; `ref` is the Referee whose store and game
    machinery it uses."""

    # --- organising ------------------------------------------------------------------
    async def create_league(
        self,
        caller: Caller,
        name: str,
        *,
        system: str = "wb95",
        scenarios: Sequence[str] = (),
    ) -> list[Reply]:
        """A league of one rule system; `scenarios`, when given, are the only ones its
        seasons may play."""
        if not caller.server_mod:
            raise Refusal("only the server's moderators create leagues")
        if not caller.guild:
            raise Refusal("a league belongs to a server: use this in a server")
        name = " ".join(name.split())[:80]
        if not name:
            raise Refusal("give the league a name, e.g. `league new Korsun Cup`")
        systems = {_system_of(s) for s in list_scenarios()}
        if system not in systems:
            raise Refusal(
                f"there is no rule system '{numbers.shown(system)}': {', '.join(sorted(systems))}"
            )
        known = {s.id for s in list_scenarios() if _system_of(s) == system}
        allowed = sorted({x.strip().lower() for x in scenarios if x.strip()})
        wrong = [x for x in allowed if x not in known]
        if wrong:
            raise Refusal(
                f"not {system} scenarios: {', '.join(wrong)}; the {system} scenarios are "
                + ", ".join(sorted(known))
            )
        settings: dict[str, Any] = {"scenarios": allowed} if allowed else {}
        row = LeagueRow(
            await self._new_id("l"), caller.guild, name, system, settings, caller.id,
            self.ref.clock(),
        )  # fmt: skip
        await self.store.create_league(row)
        plays = f"; scenarios: {', '.join(allowed)}" if allowed else ""
        text = (
            f"League **{row.name}** ({row.id}, {system}{plays}) created; "
            f"`league season {row.id} NAME` opens a season."
        )
        return [Reply("caller", text, kind="result"), _announce(text, caller.channel)]

    async def create_season(
        self,
        caller: Caller,
        league_id: str,
        name: str,
        *,
        format: str = "round-robin",
        scenario: str = "demo-steblev",
        rounds: int | None = None,
        rated: bool = True,
        deadline_hours: float | None = None,
        forfeit_after: int = 0,
        bids: bool = False,
        campaign: str | None = None,
    ) -> list[Reply]:
        league = await self._league(caller, league_id)
        self._organiser(league, caller)
        # the league's data set (scenarios/data_sets.py): the season records it, and loads,
        # digests and plays its scenario with it (issue #19)
        named = league.settings.get("data")
        try:
            directory = data_sets.directory(named)
        except data_sets.Undeclared as e:
            raise Refusal(
                f"league {league.id}: {e}, or an organiser chooses another "
                f"(`league set {league.id} data NAME`)"
            ) from None
        with overrides.scoped(directory):
            return await self._open_season(
                caller, league, name, format=format, scenario=scenario, rounds=rounds,
                rated=rated, deadline_hours=deadline_hours, forfeit_after=forfeit_after,
                bids=bids, campaign=campaign, named=named,
            )  # fmt: skip

    async def _open_season(
        self,
        caller: Caller,
        league: LeagueRow,
        name: str,
        *,
        format: str,
        scenario: str,
        rounds: int | None,
        rated: bool,
        deadline_hours: float | None,
        forfeit_after: int,
        bids: bool,
        campaign: str | None,
        named: str | None,
    ) -> list[Reply]:
        if campaign:  # a chain of scenarios (bot/league/campaign.py): the first is played first
            try:
                chain = load_campaign(campaign).campaign
            except CampaignError as e:
                raise Refusal(str(e)) from None
            scenario = chain.stages[0].scenario
        if format not in FORMATS:
            raise Refusal(f"the formats are {', '.join(FORMATS)}; not '{numbers.shown(format)}'")
        known = {s.id: s for s in list_scenarios()}
        allowed = list(league.settings.get("scenarios") or []) or sorted(
            i for i, s in known.items() if _system_of(s) == league.system
        )
        if scenario not in allowed or scenario not in known:
            raise Refusal(f"the league plays {', '.join(allowed)}; not '{numbers.shown(scenario)}'")
        if format == "swiss" and not (rounds and 1 <= rounds <= 20):
            raise Refusal("a Swiss needs its number of rounds, 1 to 20 (e.g. rounds 5)")
        settings: dict[str, Any] = {"scenario": scenario, "rated": rated, "round": 0}
        if named is not None:
            settings["data"] = named
        setup = load_scenario(scenario)
        if rated:  # the data its rated games must play (engine/digest.py, issue #19)
            settings["data_digest"] = setup_digest(setup)
        # the parts of a league's own data directory (scenarios/overrides.py), said
        own = [p for p, v in system_of(setup).data_provenance(setup).items() if LEAGUE in v]
        if campaign:
            settings["campaign"] = campaign
        if rounds:
            settings["rounds"] = rounds
        if deadline_hours:
            settings["deadline_hours"] = deadline_hours
        if bids:
            if format == "two-game-sets":
                raise Refusal("a two-game set plays each side once: no sides to bid for")
            settings["bids"] = True
        if forfeit_after:
            if not deadline_hours:
                raise Refusal("a forfeit after missed deadlines needs deadlines (deadline HOURS)")
            settings["forfeit_after"] = forfeit_after
        row = SeasonRow(
            await self._new_id("s"), league.id, " ".join(name.split())[:80] or "Season",
            format, "signup", caller.channel, settings, self.ref.clock(),
        )  # fmt: skip
        await self.store.create_season(row)
        text = (
            f"Season **{row.name}** ({row.id}) of {league.name}: {format}, {scenario}"
            + (f", {rounds} rounds" if rounds else "")
            + (", rated" if rated else ", unrated")
            + (", sides by VP bids" if bids else "")
            + (f", the campaign {campaign}" if campaign else "")
            + (f"; data set {named}" if named is not None else "")
            + (f"; data {settings['data_digest'][:19]}..." if rated else "")
            + (f"; the league's own data: {', '.join(own)}" if own else "")
            + f". Sign up with `league join {row.id}`."
        )
        return [Reply("caller", text, kind="result"), _announce(text, row.channel)]

    async def join(self, caller: Caller, season_id: str, player: str | None = None) -> list[Reply]:
        """Sign up; an organiser may sign up someone else by name (a play-by-mail player,
        or the built-in opponent as `ai:NAME`, who then plays its games itself)."""
        league, season = await self._season(caller, season_id)
        ladder = season.format == "ladder" and season.status == "running"
        if season.status != "signup" and not ladder:
            raise Refusal(f"season {season.id} has started: sign-up is closed")
        user, display = caller.id, caller.display
        if player is not None:
            self._organiser(league, caller)
            name = " ".join(player.split())[:40]
            if not name:
                raise Refusal("sign up whom? e.g. `league join SEASON ai:Manstein`")
            user = name if name.startswith(AI_PREFIX) else f"local:{name}"
            display = name.removeprefix(AI_PREFIX) + (
                " (Kessel)" if user != f"local:{name}" else ""
            )
        if any(e.user_id == user for e in await self.store.entrants(season.id)):
            raise Refusal(f"{display} is already signed up for season {season.id}")
        await self.store.enter(EntrantRow(season.id, user, display, self.ref.clock()))
        if ladder:  # a newcomer starts at the bottom of a running ladder
            rungs = ladder_join(list(season.settings.get("ladder") or []), user)
            await self.store.set_season(
                season.id, status="running", settings=season.settings | {"ladder": rungs}
            )
        return [Reply("caller", f"{display} signed up for season {season.id}.", kind="result")]

    async def leave(self, caller: Caller, season_id: str) -> list[Reply]:
        _, season = await self._season(caller, season_id)
        if season.status != "signup":
            raise Refusal(
                f"season {season.id} has started: ask an organiser (a forfeit of your games)"
            )
        await self.store.withdraw(season.id, caller.id)
        return [Reply("caller", f"you left season {season.id}.", kind="result")]

    async def start(self, caller: Caller, season_id: str) -> list[Reply]:
        league, season = await self._season(caller, season_id)
        self._organiser(league, caller)
        if season.status != "signup":
            raise Refusal(f"season {season.id} has already started")
        players = [e.user_id for e in await self.store.entrants(season.id)]
        if len(players) < MIN_PLAYERS:
            raise Refusal(f"a season needs at least {MIN_PLAYERS} players signed up")
        if season.format == "ladder":
            return await self._start_ladder(league, season, caller, players)
        return await self._pair_next(league, season, caller, players)

    async def close(self, caller: Caller, season_id: str) -> list[Reply]:
        """An organiser ends a season (a ladder has no last round); games still running
        go on but no longer count."""
        league, season = await self._season(caller, season_id)
        self._organiser(league, caller)
        if season.status == "over":
            raise Refusal(f"season {season.id} is already over")
        await self.store.set_season(season.id, status="over", settings=season.settings)
        over = SeasonRow(**{**season.__dict__, "status": "over"})
        final = await self.standings_text(over)
        return [
            _announce(f"Season {season.id} is closed by {caller.display}.\n{final}", season.channel)
        ]

    async def _pair_next(
        self, league: LeagueRow, season: SeasonRow, caller: Caller, players: Sequence[str]
    ) -> list[Reply]:
        """Pair the season's next round (all rounds of a round robin are fixed at its
        start, from the sign-up order) and create its games; the season is over when no
        round is left."""
        existing = await self.store.pairings(season.id)
        done_round = int(season.settings.get("round", 0))
        nxt = done_round + 1
        sides = await self._sides(season)
        fresh: list[Pairing] = []
        groups = await self._divisions(season, players)
        for division, members in groups.items():  # each division plays on its own
            paired: list[Pairing] = []
            if not existing and season.format != "swiss":
                double = season.format == "double-round-robin"
                paired = round_robin(list(members), sides, double=double)
                if season.format == "two-game-sets":
                    paired = two_game_sets(paired)
            elif season.format == "swiss" and nxt <= int(season.settings.get("rounds", 0)):
                results = [r for r in await self._results(season) if set(r.players) <= set(members)]
                ratings = self._ratings_of(league, await self._league_results(league))
                paired = swiss_round(nxt, list(members), results, sides=sides, ratings=ratings)
            prefix = f"{division}." if division else ""
            fresh += [Pairing(x.round, prefix + x.game_key, x.sides) for x in paired]
        settings = dict(season.settings)
        scen = str(settings["scenario"])
        rows = [
            PairingRow(season.id, p.game_key, p.round, dict(p.sides), scen, None, None)
            for p in fresh
        ]
        later = [p for p in existing if p.round >= nxt]
        if not rows and not later:
            settings["round"] = done_round
            over = SeasonRow(**{**season.__dict__, "status": "over", "settings": settings})
            await self.store.set_season(season.id, status="over", settings=settings)
            final = await self.standings_text(over)
            return [_announce(f"Season {season.id} is over.\n{final}", season.channel)]
        settings["round"] = nxt
        running = SeasonRow(**{**season.__dict__, "status": "running", "settings": settings})
        audit = (
            season.id,
            self.ref.clock(),
            caller.id,
            "round",
            {"round": nxt, "pairings": len(rows)},
        )
        await self.store.add_pairings(rows, season=running, audit=audit)
        return await self._open_round(league, running, caller, nxt)

    async def _divisions(self, season: SeasonRow, players: Sequence[str]) -> dict[str, list[str]]:
        """The season's players by division, in sign-up order ("" when it has none)."""
        by = {e.user_id: e.division for e in await self.store.entrants(season.id)}
        out: dict[str, list[str]] = {}
        for p in players:
            out.setdefault(by.get(p, ""), []).append(p)
        return dict(sorted(out.items()))

    async def divide(self, caller: Caller, season_id: str, count: str) -> list[Reply]:
        """Split the signed-up players into N divisions (A, B, ...) before the start, by
        the league's ratings snaked across them (1st to A, 2nd to B, ..., then back), so
        every division is as strong as the others; `1` removes the divisions."""
        league, season = await self._season(caller, season_id)
        self._organiser(league, caller)
        if season.status != "signup":
            raise Refusal(f"season {season.id} has started: its divisions are fixed")
        if season.format == "ladder":
            raise Refusal("a ladder is one ladder: it has no divisions")
        try:
            n = numbers.whole(count, "the number of divisions", 1, 26)
        except numbers.NumberError as e:
            raise Refusal(str(e)) from None
        entrants = await self.store.entrants(season.id)
        if n > 1 and len(entrants) < 2 * n:
            raise Refusal(
                f"{n} divisions need at least {2 * n} players ({len(entrants)} signed up)"
            )
        ratings = self._ratings_of(league, await self._league_results(league))
        ranked = sorted(entrants, key=lambda e: (-ratings.get(e.user_id, 1500.0), e.joined_at))
        names = [chr(ord("A") + i) for i in range(n)] if n > 1 else [""]
        snake = names + names[::-1]
        assign = {e.user_id: snake[i % len(snake)] for i, e in enumerate(ranked)}
        await self.store.set_divisions(season.id, assign)
        if n == 1:
            return [Reply("caller", f"season {season.id} has no divisions now.", kind="result")]
        lines = [f"Season {season.id} in {n} divisions (by rating, snaked):"]
        for d in names:
            who = [e.display for e in ranked if assign[e.user_id] == d]
            lines.append(f"  division {d}: {', '.join(who)}")
        return [_announce("\n".join(lines), season.channel)]

    async def _open_round(
        self, league: LeagueRow, season: SeasonRow, caller: Caller, rnd: int
    ) -> list[Reply]:
        """Create the games of round `rnd` (a bye is scored at once)."""
        out: list[Reply] = []
        lines = [f"Season {season.id}, round {rnd}:"]
        names = {e.user_id: e.display for e in await self.store.entrants(season.id)}
        for p in await self.store.pairings(season.id):
            if p.round != rnd or p.game is not None or p.result is not None:
                continue
            if BYE in p.sides:
                player = p.sides[BYE]
                r = bye(f"{season.id}.{p.key}", league.system, p.scenario, self.ref.clock(), player)
                await self.store.set_pairing(season.id, p.key, game=None, result=_result_json(r))
                lines.append(f"  {names.get(player, player)}: a bye (a win, unrated)")
                continue
            if season.settings.get("bids"):
                who = " vs ".join(names.get(u, u) for u in p.sides.values())
                bid = f"`league bid {season.id} {p.key} SIDE VP`"
                lines.append(f"  {p.key}: {who} — sides by sealed bids: {bid}")
                continue
            try:
                gid, replies = await self._create_game(league, season, p, caller, names)
            except Refusal as e:  # the season's data changed: said, the pairing waits
                lines.append(f"  {p.key}: not created: {e}")
                continue
            out += replies
            who = ", ".join(f"{s}: {names.get(u, u)}" for s, u in p.sides.items())
            lines.append(f"  game {gid} — {who}")
        return [_announce("\n".join(lines), season.channel), *out]

    async def reopen_refusal(self, g: LiveGame) -> str | None:
        """Why a finished league game may not be rolled back into play: a later round
        was paired from its result (a Swiss), or its season is over."""
        p = await self.store.pairing_of_game(g.id)
        season = None if p is None else await self.store.season(p.season)
        if p is None or season is None:
            return None
        if season.status == "over":
            return f"season {season.id} is over: its results stand (`league decide` corrects one)"
        later = [x for x in await self.store.pairings(season.id) if x.round > p.round and x.game]
        if season.format == "swiss" and later:
            return (
                f"round {p.round + 1} of season {season.id} was paired from this result: "
                "an organiser's `league decide` corrects it instead"
            )
        return None

    async def reopened(self, g: LiveGame, caller: Caller) -> None:
        """A rolled-back league game plays on: its result is taken back (audited)."""
        p = await self.store.pairing_of_game(g.id)
        if p is None or p.result is None:
            return
        said = {"pairing": p.key, "outcome": "rolled back into play", "was": p.result}
        audit = (p.season, self.ref.clock(), caller.id, "reopened", said)
        await self.store.set_pairing(p.season, p.key, game=g.id, result=None, audit=audit)

    async def rated(self, game_id: str) -> bool:
        """Whether a game is a rated league game (its seed is then nobody's to see before
        the end, issue #20)."""
        p = await self.store.pairing_of_game(game_id)
        season = None if p is None else await self.store.season(p.season)
        return season is not None and bool(season.settings.get("rated", True))

    async def forfeit_due(self, g: LiveGame, late: Sequence[str]) -> str | None:
        """The side of a league game that forfeits as this deadline passes: the season's
        `forfeit_after` deadlines missed in the game (this one included); None if none."""
        p = await self.store.pairing_of_game(g.id)
        season = None if p is None else await self.store.season(p.season)
        limit = 0 if season is None else int(season.settings.get("forfeit_after", 0))
        if not limit:
            return None
        log = await self.store.log(g.id)
        for side in late:
            missed = {r.ts for r in log if r.actor == "deadline" and r.body.get("side") == side}
            if len(missed) + 1 >= limit:
                return side
        return None

    async def record_forfeit(self, g: LiveGame, side: str) -> list[Reply]:
        """A deadline forfeit's result (audited as the deadline's), then the round."""
        p = await self.store.pairing_of_game(g.id)
        season = None if p is None else await self.store.season(p.season)
        league = None if season is None else await self.store.league(season.league)
        if p is None or season is None or league is None:
            return []
        winner = next(s for s in p.sides if s != side)
        r = await self._result(league, season, p, g, winner, "forfeit")
        said = {"pairing": p.key, "outcome": f"forfeit {side}", "reason": "deadlines missed"}
        audit = (season.id, self.ref.clock(), "deadline", "decision", said)
        await self.store.set_pairing(
            season.id, p.key, game=g.id, result=_result_json(r), audit=audit
        )
        text = f"Season {season.id}, {p.key}: {side} forfeits game {g.id} (deadlines missed)."
        return [_announce(text, season.channel), *await self._round_complete(league, season)]

    # --- results ---------------------------------------------------------------------
    async def game_over(self, g: LiveGame, how: str) -> list[Reply]:
        """A league game ended (the engine, a resignation, a moderator's end): record
        its result, then open the next round when this one is complete."""
        p = await self.store.pairing_of_game(g.id)
        if p is None or p.result is not None:
            return []
        season = await self.store.season(p.season)
        league = None if season is None else await self.store.league(season.league)
        if season is None or league is None:
            return []
        result = g.settings.get("result") or g.state.result or {}
        if season.settings.get("campaign"):
            return await self._campaign_stage_over(league, season, p, g, result.get("winner"), how)
        r = await self._result(league, season, p, g, result.get("winner"), how)
        await self.store.set_pairing(season.id, p.key, game=g.id, result=_result_json(r))
        return await self._round_complete(league, season)

    async def _round_complete(self, league: LeagueRow, season: SeasonRow) -> list[Reply]:
        if season.format == "ladder":
            return await self._ladder_moves(season)
        rnd = int(season.settings.get("round", 0))
        pairs = await self.store.pairings(season.id)
        if any(p.round == rnd and p.result is None for p in pairs):
            return []
        caller = Caller(league.created_by, "league", guild=league.guild, channel=season.channel)
        players = [e.user_id for e in await self.store.entrants(season.id)]
        if any(p.round > rnd for p in pairs):  # a round robin's next round
            settings = dict(season.settings) | {"round": rnd + 1}
            running = SeasonRow(**{**season.__dict__, "settings": settings})
            await self.store.set_season(season.id, status="running", settings=settings)
            return await self._open_round(league, running, caller, rnd + 1)
        return await self._pair_next(league, season, caller, players)

    async def decide(
        self, caller: Caller, season_id: str, key: str, outcome: str, reason: str
    ) -> list[Reply]:
        """An organiser's decision on a pairing: `SIDE` wins, `draw`, `forfeit SIDE` (that
        side loses by forfeit) or `forfeit both`; audited, and the standings re-scored.
        A game still running is ended (the seed is then revealed)."""
        league, season = await self._season(caller, season_id)
        self._organiser(league, caller)
        p = next(
            (x for x in await self.store.pairings(season.id) if x.key == key or x.game == key), None
        )
        if p is None or BYE in p.sides:
            raise Refusal(f"season {season.id} has no game '{numbers.shown(key)}'")
        words = outcome.lower().split()
        how, winner = "moderator", None
        if words[:1] == ["forfeit"] and len(words) == 2:
            how = "forfeit"
            if words[1] == "both":
                how = "forfeit-both"
            elif words[1] in p.sides:
                winner = next(s for s in p.sides if s != words[1])
            else:
                raise Refusal(f"forfeit which side: {' or '.join(p.sides)} (or both)")
        elif words == ["draw"]:
            winner = None
        elif len(words) == 1 and words[0] in p.sides:
            winner = words[0]
        else:
            raise Refusal(
                f"a decision is one of: {', '.join(p.sides)}, draw, forfeit SIDE, forfeit both"
            )
        g = None
        if p.game is not None:
            g = await self.ref.game(p.game)
            if g.status != "over":
                side = "draw" if winner is None else winner
                await self.ref._end_for_league(
                    g, caller, side, reason or f"league decision: {outcome}"
                )
        r = await self._result(league, season, p, g, winner, how)
        said = {"pairing": p.key, "outcome": outcome, "reason": reason, "was": p.result}
        audit = (season.id, self.ref.clock(), caller.id, "decision", said)
        await self.store.set_pairing(
            season.id, p.key, game=p.game, result=_result_json(r), audit=audit
        )
        why = reason or "no reason given"
        text = f"Season {season.id}, {p.key}: {outcome} ({why}), decided by {caller.display}."
        season = await self.store.season(season.id)
        assert season is not None
        return [_announce(text, season.channel), *await self._round_complete(league, season)]
