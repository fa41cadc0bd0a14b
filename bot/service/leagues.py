"""Leagues on the referee (issue #20): league -> season -> pairings -> games.

A league belongs to a server and one rule system; its organisers (the server's moderators
and the league's creator) create seasons in a format, players sign up, the organiser
starts the season and Kessel pairs each round (bot/league/pairing.py), creates its games
in the season's channel with the players seated and a referee-chosen seed (verifiable,
engine/dice.py), and records each result as the game ends: the engine's result, a
resignation, a moderator's end, or an organiser's audited decision (a forfeit, a result
set by hand). Standings and ratings are never stored: they are recomputed from the
results (bot/league), so a correction re-scores the same way every time.
"""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import hashlib
import io
import json
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bot.league.bids import Bid, resolve_bids
from bot.league.campaign import StageOutcome, campaign_score
from bot.league.carry_over import CampaignError, load_campaign, stage_scenario
from bot.league.glicko2 import PROVISIONAL_RD
from bot.league.ladder import REACH, can_challenge, challengeable, ladder_after_result
from bot.league.ladder import challenge as ladder_challenge
from bot.league.ladder import join as ladder_join
from bot.league.pairing import BYE, Pairing, round_robin, swiss_round, two_game_sets
from bot.league.ratings import Ratings, recompute
from bot.league.reliability import PlayerStats, reliability
from bot.league.results import GameResult, bye
from bot.league.scoring import StandingRow, standings
from bot.service.game import AI_PREFIX
from bot.service.model import Caller, Refusal, Reply
from bot.store_leagues import EntrantRow, LeagueRow, PairingRow, SeasonRow
from engine import numbers
from scenarios import list_scenarios
from scenarios.loader import scenario_data

if TYPE_CHECKING:
    from bot.service.game import LiveGame
    from bot.service.referee import Referee

FORMATS = ("round-robin", "double-round-robin", "two-game-sets", "swiss", "ladder")
SCORING_FORMAT = {  # the tie-break order each format uses (bot/league/scoring.py)
    "round-robin": "round-robin",
    "double-round-robin": "round-robin",
    "two-game-sets": "round-robin",
    "swiss": "swiss",
    "ladder": "round-robin",  # its table is the ladder; points are shown beside it
}
MIN_PLAYERS = 2


class LeagueDesk:
    """The league commands of the service; `ref` is the Referee whose store and game
    machinery it uses."""

    def __init__(self, ref: Referee) -> None:
        self.ref = ref

    @property
    def store(self) -> Any:
        return self.ref.store

    # --- finding ---------------------------------------------------------------------
    async def _league(self, caller: Caller, league_id: str) -> LeagueRow:
        row: LeagueRow | None = await self.store.league(league_id.strip().lower())
        if row is None or row.guild != caller.guild:
            raise Refusal(
                f"there is no league '{numbers.shown(league_id)}' in this server: "
                "`league list` shows them"
            )
        return row

    async def _season(self, caller: Caller, season_id: str) -> tuple[LeagueRow, SeasonRow]:
        row = await self.store.season(season_id.strip().lower())
        league = None if row is None else await self.store.league(row.league)
        if row is None or league is None or league.guild != caller.guild:
            raise Refusal(
                f"there is no season '{numbers.shown(season_id)}' in this server: "
                "`league seasons LEAGUE` lists them"
            )
        return league, row

    @staticmethod
    def _organiser(league: LeagueRow, caller: Caller) -> None:
        if not (caller.server_mod or caller.id == league.created_by):
            raise Refusal(
                f"only the league's organisers (its creator, {league.created_by}, and the "
                "server's moderators) may do that"
            )

    async def _new_id(self, prefix: str) -> str:
        rng = random.Random(f"{prefix}:{self.ref.clock()}")
        for _ in range(1000):
            candidate = prefix + "".join(
                rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(4)
            )
            if (
                await self.store.league(candidate) is None
                and await self.store.season(candidate) is None
            ):
                return candidate
        raise Refusal("no free id: try again")  # pragma: no cover

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
        if campaign:  # a chain of scenarios (bot/league/campaign.py): the first is played first
            try:
                chain = load_campaign(campaign).campaign
            except CampaignError as e:
                raise Refusal(str(e)) from None
            scenario = chain.stages[0].scenario
        self._organiser(league, caller)
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

    # --- VP bids ---------------------------------------------------------------------
    async def bid(
        self, caller: Caller, season_id: str, key: str, side: str, vp: str
    ) -> list[Reply]:
        """A sealed bid for the sides of a pairing (bot/league/bids.py): the side the
        player wants and the VPs it would give its opponent for it. When both players
        have bid, the sides are settled (a tie by a coin seeded from the pairing, so
        anyone can check it), the bids are shown, and the game is created with the paid
        bid as a victory handicap (K134)."""
        league, season = await self._season(caller, season_id)
        if not season.settings.get("bids"):
            raise Refusal(f"season {season.id} settles sides without bids")
        p = next((x for x in await self.store.pairings(season.id) if x.key == key), None)
        if p is None or BYE in p.sides or caller.id not in p.sides.values():
            raise Refusal(f"you have no pairing '{numbers.shown(key)}' in season {season.id}")
        if p.game is not None or p.result is not None:
            raise Refusal(f"the sides of {p.key} are settled")
        sides = await self._sides(season)
        want = side.strip().lower()
        if want not in sides:
            raise Refusal(f"bid for one of the sides: {', '.join(sides)}")
        try:
            amount = numbers.whole(vp, "a bid (VPs)", 0, 100)
        except numbers.NumberError as e:
            raise Refusal(str(e)) from None
        sealed = dict(season.settings.get("sealed_bids") or {})
        mine = dict(sealed.get(p.key) or {})
        mine[caller.id] = {"side": want, "vp": amount}
        sealed[p.key] = mine
        settings = season.settings | {"sealed_bids": sealed}
        if len(mine) < 2:
            await self.store.set_season(season.id, status=season.status, settings=settings)
            said = f"your bid for {p.key} is sealed: {want}, {amount} VP."
            return [Reply("caller", said, kind="result")]
        got = [Bid(u, str(b["side"]), float(b["vp"])) for u, b in sorted(mine.items())]
        digest = hashlib.sha256(f"{season.id}:{p.key}".encode()).digest()
        outcome = resolve_bids(got, sides=sides, seed=int.from_bytes(digest[:8], "big"))
        handicaps = dict(settings.get("handicaps") or {})
        if outcome.payer is not None and outcome.bid:
            paid = next(s for s, u in outcome.sides.items() if u == outcome.payer)
            handicaps[p.key] = {paid: int(outcome.bid)}
        settings = settings | {"handicaps": handicaps}
        await self.store.set_season(season.id, status=season.status, settings=settings)
        await self.store.set_pairing_sides(season.id, p.key, dict(outcome.sides))
        fresh = await self.store.season(season.id)
        assert fresh is not None
        names = {e.user_id: e.display for e in await self.store.entrants(season.id)}
        row = PairingRow(season.id, p.key, p.round, dict(outcome.sides), p.scenario, None, None)
        organiser = Caller(league.created_by, "league", guild=league.guild, channel=season.channel)
        gid, replies = await self._create_game(league, fresh, row, organiser, names)
        shown = "; ".join(
            f"{names.get(u, u)}: {b['side']} {b['vp']} VP" for u, b in sorted(mine.items())
        )
        reason = outcome.reason
        for u, n in names.items():
            reason = reason.replace(u, n)
        text = f"Season {season.id}, {p.key}: bids {shown} — {reason}. Game {gid}."
        return [_announce(text, season.channel), *replies]

    # --- ladders ---------------------------------------------------------------------
    async def _start_ladder(
        self, league: LeagueRow, season: SeasonRow, caller: Caller, players: Sequence[str]
    ) -> list[Reply]:
        """The ladder's first order: by the league's ratings, then sign-up order."""
        ratings = self._ratings_of(league, await self._league_results(league))
        order = sorted(players, key=lambda p: (-ratings.get(p, 1500.0), players.index(p)))
        settings = season.settings | {"ladder": order, "round": 0}
        await self.store.set_season(season.id, status="running", settings=settings)
        audit = (season.id, self.ref.clock(), caller.id, "ladder", {"ladder": order})
        await self.store.add_pairings([], audit=audit)
        names = {e.user_id: e.display for e in await self.store.entrants(season.id)}
        lines = [f"Season {season.id} (a ladder) starts; challenge up to {REACH} places up:"]
        lines += [f"  {i}. {names.get(p, p)}" for i, p in enumerate(order, start=1)]
        return [_announce("\n".join(lines), season.channel)]

    async def challenge(self, caller: Caller, season_id: str, target: str) -> list[Reply]:
        """A ladder challenge: a game with a player up to REACH places above; the
        challenger plays the side it has played less on this ladder (the first side on
        a tie), so sides even out."""
        league, season = await self._season(caller, season_id)
        if season.format != "ladder" or season.status != "running":
            raise Refusal(f"season {season.id} is not a running ladder")
        ladder = list(season.settings.get("ladder") or [])
        names = {e.user_id: e.display for e in await self.store.entrants(season.id)}
        who = next((u for u, n in names.items() if target in (u, n)), target)
        if caller.id not in ladder:
            raise Refusal(f"you are not on the ladder of season {season.id}: `league join` first")
        if not can_challenge(ladder, caller.id, who):
            up = ", ".join(names.get(p, p) for p in challengeable(ladder, caller.id)) or "nobody"
            raise Refusal(f"you may challenge players up to {REACH} places above you: {up}")
        pairs = await self.store.pairings(season.id)
        busy = {u for p in pairs if p.result is None for u in p.sides.values()}
        if caller.id in busy or who in busy:
            raise Refusal("one ladder game at a time each: a game of yours or theirs is running")
        sides = await self._sides(season)
        played = [p.sides for p in pairs if caller.id in p.sides.values()]
        counts = {s: sum(1 for x in played if x.get(s) == caller.id) for s in sides}
        mine = min(sides, key=lambda s: (counts[s], sides.index(s)))
        n = len(pairs) + 1
        pairing = ladder_challenge(
            ladder, caller.id, who, sides=sides, challenger_side=mine, round=n, game_key=f"c{n}"
        )
        row = PairingRow(
            season.id, pairing.game_key, n, dict(pairing.sides), str(season.settings["scenario"]),
            None, None,
        )  # fmt: skip
        audit = (
            season.id,
            self.ref.clock(),
            caller.id,
            "challenge",
            {"target": who, "key": row.key},
        )
        await self.store.add_pairings([row], audit=audit)
        gid, replies = await self._create_game(league, season, row, caller, names)
        me, them = names.get(caller.id, caller.id), names.get(who, who)
        text = f"Season {season.id}: {me} ({mine}) challenges {them} — game {gid}."
        return [_announce(text, season.channel), *replies]

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

    # --- rounds ----------------------------------------------------------------------
    async def _sides(self, season: SeasonRow) -> tuple[str, str]:
        from scenarios import load_scenario

        setup = load_scenario(str(season.settings["scenario"]))
        first, second = list(setup.sides)[:2]
        return (first, second)

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
            gid, replies = await self._create_game(league, season, p, caller, names)
            out += replies
            who = ", ".join(f"{s}: {names.get(u, u)}" for s, u in p.sides.items())
            lines.append(f"  game {gid} — {who}")
        return [_announce("\n".join(lines), season.channel), *out]

    async def _create_game(
        self,
        league: LeagueRow,
        season: SeasonRow,
        p: PairingRow,
        caller: Caller,
        names: dict[str, str],
        *,
        stage_data: dict[str, Any] | None = None,
        stage_name: str = "",
    ) -> tuple[str, list[Reply]]:
        from bot.store import Store

        ref = self.ref
        organiser = Caller(league.created_by, "league", guild=league.guild, channel=season.channel)
        settings: dict[str, Any] = {}
        if season.settings.get("deadline_hours"):
            settings["deadline_hours"] = season.settings["deadline_hours"]
            # a missed deadline plays the absent side's default input (docs/deadlines.md);
            # `forfeit_after` of them forfeit the game
            settings["policy"] = "default"
        # the seed: 63 secure random bits, never a moderator's (seed=None, engine/dice.py)
        handicap = (season.settings.get("handicaps") or {}).get(p.key)
        data = None
        if stage_data is not None:  # a campaign's next game, with what carried over
            data = stage_data
        elif handicap:  # a VP bid paid: the scenario with its victory handicap (K134)
            data = scenario_data(p.scenario)
        if handicap and data is not None:
            data.setdefault("victory", {})["handicap"] = dict(handicap)
        scen = p.scenario if data is None else "inline"
        title = f"{season.name} {p.key}" + (f" ({stage_name})" if stage_name else "")
        row = await ref._new_row(organiser, scen, title, None, settings, data)
        seats = [Store.seat_join(row.id, league.created_by, "league", "moderator", "", 0)]
        for side, user in p.sides.items():
            seats.append(Store.seat_join(row.id, user, names.get(user, user), "player", side, 0))
        made = ref._created_record(organiser, row, None)
        g = await ref._create(row, [made], seats)
        await self.store.set_pairing(season.id, p.key, game=g.id, result=None)
        return g.id, await ref._maybe_start(g, organiser)

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
        r = self._result(league, season, p, g, winner, "forfeit")
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
        r = self._result(league, season, p, g, result.get("winner"), how)
        await self.store.set_pairing(season.id, p.key, game=g.id, result=_result_json(r))
        return await self._round_complete(league, season)

    async def _campaign_stage_over(
        self,
        league: LeagueRow,
        season: SeasonRow,
        p: PairingRow,
        g: LiveGame,
        winner: str | None,
        how: str,
    ) -> list[Reply]:
        """A campaign game ended: its outcome is kept, then the next game of the chain is
        created with what carries over (said line by line), or, after the last, the
        pairing's result is the campaign's (its leader wins; the margin is in campaign
        points). A resignation or a forfeit ends the whole campaign for that pairing, lost;
        a moderator's end of a game (a draw agreed, say) lets the chain go on."""
        chain = load_campaign(str(season.settings["campaign"])).campaign
        games = dict(season.settings.get("campaign_games") or {})
        done = [*games.get(p.key, []), g.id]
        games[p.key] = done
        settings = season.settings | {"campaign_games": games}
        await self.store.set_season(season.id, status=season.status, settings=settings)
        season = SeasonRow(**{**season.__dict__, "settings": settings})
        outcomes = []
        for gid in done:
            played = await self.ref.game(gid)
            res = played.settings.get("result") or played.state.result or {}
            vp = played.system.victory_points(played.state) or {}
            outcomes.append(
                StageOutcome(
                    played.state.setup.id, {k: float(v) for k, v in vp.items()}, res.get("winner")
                )
            )
        names = {e.user_id: e.display for e in await self.store.entrants(season.id)}
        going_on = how in ("played", "moderator")  # a resignation or forfeit ends it all
        if len(done) < len(chain.stages) and going_on:
            try:
                data, said = stage_scenario(chain, len(done) + 1, g.state)
            except CampaignError as e:  # the carried set-up does not load: said, and ended
                return [
                    _announce(
                        f"Season {season.id}, {p.key}: the campaign cannot go on: {e}",
                        season.channel,
                    )
                ]
            nxt = chain.stages[len(done)].scenario
            row = PairingRow(season.id, p.key, p.round, dict(p.sides), nxt, None, None)
            organiser = Caller(
                league.created_by, "league", guild=league.guild, channel=season.channel
            )
            gid, replies = await self._create_game(
                league, season, row, organiser, names, stage_data=data,
                stage_name=f"game {len(done) + 1}: {nxt}",
            )  # fmt: skip
            head = f"Season {season.id}, {p.key}: game {len(done) + 1} of the campaign"
            lines = [f"{head}, {nxt}, is game {gid}; carried over:"]
            lines += [f"  {x}" for x in said] or ["  nothing"]
            return [_announce("\n".join(lines), season.channel), *replies]
        score = campaign_score(chain, outcomes)
        lead = score.leader if going_on else winner
        r = self._result(league, season, p, g, lead, how)
        pts = sorted(score.points.values(), reverse=True)
        if going_on and len(pts) == 2:
            r = dataclasses.replace(r, margin=float(pts[0] - pts[1]))
        await self.store.set_pairing(season.id, p.key, game=g.id, result=_result_json(r))
        text = "\n".join([f"Season {season.id}, {p.key}: the campaign is over.", *score.lines])
        return [_announce(text, season.channel), *await self._round_complete(league, season)]

    def _result(
        self,
        league: LeagueRow,
        season: SeasonRow,
        p: PairingRow,
        g: LiveGame | None,
        winner: str | None,
        how: str,
    ) -> GameResult:
        loser = None if winner is None else next(s for s in p.sides if s != winner)
        score = {
            u: (0.5 if winner is None else 1.0 if s == winner else 0.0) for s, u in p.sides.items()
        }
        if how == "forfeit-both":
            score = dict.fromkeys(p.sides.values(), 0.0)
            how = "forfeit"
        margin = 0.0
        started = True
        if g is not None:
            vp = g.system.victory_points(g.state) or {}
            if winner is not None and loser is not None:
                margin = max(0.0, float(vp.get(winner, 0)) - float(vp.get(loser, 0)))
            started = len({e.side for e in g.record.entries}) >= 2
        return GameResult(
            game=g.id if g is not None else f"{season.id}.{p.key}",
            system=league.system,
            scenario=p.scenario,
            finished=self.ref.clock(),
            sides=dict(p.sides),
            score=score,
            margin=margin,
            how=how,
            rated=bool(season.settings.get("rated", True)),
            started=started,
            round=p.round,
        )

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

    async def _ladder_moves(self, season: SeasonRow) -> list[Reply]:
        """The ladder as its results leave it, replayed from its first order (so a
        correction re-orders it the same way)."""
        fresh = await self.store.season(season.id)
        assert fresh is not None
        audit = await self.store.league_audit(season.id)
        first: list[str] = next((list(b["ladder"]) for _, _, k, b in audit if k == "ladder"), [])
        joined = [e.user_id for e in await self.store.entrants(season.id)]
        ladder = list(first) + [u for u in joined if u not in first]
        for r in sorted(await self._results(fresh), key=lambda x: (x.finished, x.game)):
            ladder = ladder_after_result(ladder, r)
        if ladder == list(fresh.settings.get("ladder") or []):
            return []
        await self.store.set_season(
            fresh.id, status=fresh.status, settings=fresh.settings | {"ladder": ladder}
        )
        names = {e.user_id: e.display for e in await self.store.entrants(season.id)}
        lines = [f"Season {season.id}, the ladder now:"]
        lines += [f"  {i}. {names.get(p, p)}" for i, p in enumerate(ladder, start=1)]
        return [_announce("\n".join(lines), season.channel)]

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
        r = self._result(league, season, p, g, winner, how)
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

    # --- reading ---------------------------------------------------------------------
    async def _results(self, season: SeasonRow) -> list[GameResult]:
        return [_result_from(p.result) for p in await self.store.pairings(season.id) if p.result]

    async def _league_results(self, league: LeagueRow) -> list[GameResult]:
        out: list[GameResult] = []
        for s in await self.store.seasons(league.id):
            out += await self._results(s)
        return out

    @staticmethod
    def _ratings_of(league: LeagueRow, results: Sequence[GameResult]) -> dict[str, float]:
        rated = recompute(results)
        return {p: rated.of(league.system, p).mu for p in rated.players(league.system)}

    async def table(self, season: SeasonRow, division: str | None = None) -> list[StandingRow]:
        """The standings of the season (or of one of its divisions)."""
        league = await self.store.league(season.league)
        assert league is not None
        players = [
            e.user_id
            for e in await self.store.entrants(season.id)
            if division is None or e.division == division
        ]
        ratings = self._ratings_of(league, await self._league_results(league))
        results = [r for r in await self._results(season) if set(r.players) <= set(players)]
        return standings(players, results, SCORING_FORMAT[season.format], ratings=ratings)

    async def standings_text(self, season: SeasonRow) -> str:
        entrants = await self.store.entrants(season.id)
        names = {e.user_id: e.display for e in entrants}
        if season.format == "ladder":
            rungs = season.settings.get("ladder") or []
            ladder = [f"Ladder of season {season.id}:"]
            ladder += [f"  {i}. {names.get(p, p)}" for i, p in enumerate(rungs, start=1)]
            return "\n".join(ladder)
        rnd = season.settings.get("round", 0)
        lines = [f"Standings of season {season.id} ({season.format}, round {rnd}):"]
        divisions = sorted({e.division for e in entrants})
        for d in divisions:
            if d:
                lines.append(f"Division {d}")
            lines.append("  #  player               pts  P  W  D  L   SB   Buch  margin")
            for r in await self.table(season, d):
                lines.append(
                    f"{r.rank:>3}  {names.get(r.player, r.player)[:20]:20} {r.points:>4} "
                    f"{r.played:>2} {r.won:>2} {r.drawn:>2} {r.lost:>2} {r.sb:>4g} "
                    f"{r.buchholz:>6g} {r.margin:>6g}"
                )
        return "\n".join(lines)

    async def standings(self, caller: Caller, season_id: str) -> list[Reply]:
        _, season = await self._season(caller, season_id)
        return [Reply("caller", await self.standings_text(season), kind="result")]

    async def standings_png(self, caller: Caller, season_id: str) -> bytes:
        """The standings as a picture (render/league.py), drawn off the event loop."""
        from render import standings_image, to_png

        league, season = await self._season(caller, season_id)
        rows = await self.table(season)
        names = {e.user_id: e.display for e in await self.store.entrants(season.id)}
        rated = recompute(await self._league_results(league))
        provisional = [
            r.player for r in rows if rated.of(league.system, r.player).rd >= PROVISIONAL_RD
        ]
        title = f"{league.name} — {season.name} ({season.format})"
        return await asyncio.to_thread(
            lambda: to_png(standings_image(title, rows, names, provisional=provisional))
        )

    async def rating_png(self, caller: Caller, league_id: str, players: Sequence[str]) -> bytes:
        """The rating history of `players` (all the league's, best first, when empty)."""
        from render import rating_chart, to_png

        league = await self._league(caller, league_id)
        rated = recompute(await self._league_results(league))
        who = (
            list(players)
            or sorted(rated.players(league.system), key=lambda p: -rated.of(league.system, p).mu)[
                :12
            ]
        )
        names = await self._names(league)
        series = {
            names.get(p, p): [(t, r.mu, r.rd) for t, r in rated.history(league.system, p)]
            for p in who
        }
        title = f"{league.name}: ratings ({league.system}, Glicko-2)"
        return await asyncio.to_thread(lambda: to_png(rating_chart(title, series)))

    async def _names(self, league: LeagueRow) -> dict[str, str]:
        out: dict[str, str] = {}
        for s in await self.store.seasons(league.id):
            out.update({e.user_id: e.display for e in await self.store.entrants(s.id)})
        return out

    async def pairings(self, caller: Caller, season_id: str) -> list[Reply]:
        _, season = await self._season(caller, season_id)
        names = {e.user_id: e.display for e in await self.store.entrants(season.id)}
        lines = [f"Pairings of season {season.id}:"]
        for p in await self.store.pairings(season.id):
            who = " vs ".join(f"{names.get(u, u)} ({s})" for s, u in p.sides.items())
            state = (
                "to come"
                if p.game is None and p.result is None
                else f"game {p.game}"
                if p.game
                else ""
            )
            if p.result is not None:
                r = _result_from(p.result)
                won = [names.get(u, u) for u, s in r.score.items() if s == 1.0]
                end = f"{won[0]} won" if won else "draw" if sum(r.score.values()) else "both lost"
                state += f" — {end} ({r.how})"
            lines.append(f"  round {p.round} {p.key}: {who}: {state}".rstrip(": "))
        return [Reply("caller", "\n".join(lines), kind="result")]

    async def player(self, caller: Caller, league_id: str, user: str) -> list[Reply]:
        league = await self._league(caller, league_id)
        results = await self._league_results(league)
        rated: Ratings = recompute(results)
        r = rated.of(league.system, user)
        games = [x for x in results if user in x.players]
        won = sum(1 for x in games if x.score.get(user) == 1.0)
        name = (await self._names(league)).get(user, user)
        trust = reliability(await self._stats(league, user, games))
        lines = [
            f"{name} in {league.name}: rating {r.mu:.0f} ± {2 * r.rd:.0f}"
            + (" (provisional)" if r.rd >= PROVISIONAL_RD else ""),
            f"games {len(games)}, won {won}",
            f"reliability {trust.score}/100 ({trust.label})"
            + (": " + " ".join(trust.reasons) if trust.reasons else ""),
        ]
        return [Reply("caller", "\n".join(lines), kind="result")]

    async def _stats(
        self, league: LeagueRow, user: str, results: Sequence[GameResult]
    ) -> PlayerStats:
        """What the reliability figure reads (bot/league/reliability.py), from the stored
        logs: deadlines the player's side missed (inputs the deadline policy gave for it),
        organisers' decisions on its games, and the median time from the previous entry
        of a game's log to the player's own input."""
        forfeits = sum(1 for x in results if x.how == "forfeit" and x.score.get(user) == 0.0)
        timeouts = interventions = 0
        waits: list[float] = []
        for s in await self.store.seasons(league.id):
            decided = {
                body.get("pairing")
                for _, _, k, body in await self.store.league_audit(s.id)
                if k == "decision"
            }
            for p in await self.store.pairings(s.id):
                if user not in p.sides.values() or p.game is None:
                    continue
                side = next(k for k, v in p.sides.items() if v == user)
                interventions += p.key in decided
                last = None
                for rec in await self.store.log(p.game):
                    if rec.kind == "input" and rec.body.get("side") == side:
                        if rec.actor == "deadline":
                            timeouts += 1
                        elif rec.actor == user and last is not None:
                            waits.append((rec.ts - last) / 3600)
                    last = rec.ts
        waits.sort()
        median = waits[len(waits) // 2] if waits else None
        return PlayerStats(user, len(results), forfeits, timeouts, interventions, median)

    async def export(self, caller: Caller, season_id: str, fmt: str = "csv") -> str:
        _, season = await self._season(caller, season_id)
        rows = [dataclasses.asdict(r) for r in await self.table(season)]
        names = {e.user_id: e.display for e in await self.store.entrants(season.id)}
        for r in rows:
            r["name"] = names.get(str(r["player"]), str(r["player"]))
        if fmt == "json":
            data = {"season": season.id, "format": season.format, "standings": rows}
            return json.dumps(data, indent=1, sort_keys=True)
        buf = io.StringIO()
        fields = list(rows[0]) if rows else ["rank", "player", "name", "points"]
        w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        return buf.getvalue()

    async def list(self, caller: Caller) -> list[Reply]:
        leagues = await self.store.leagues(caller.guild)
        if not leagues:
            return [
                Reply("caller", "no leagues in this server yet (`league new NAME`)", kind="result")
            ]
        lines = []
        for lg in leagues:
            lines.append(f"{lg.id}: {lg.name} ({lg.system})")
            for s in await self.store.seasons(lg.id):
                lines.append(f"  season {s.id}: {s.name}, {s.format}, {s.status}")
        return [Reply("caller", "\n".join(lines), kind="result")]


def _announce(text: str, channel: str) -> Reply:
    """A league announcement in `channel` (a league's reply belongs to no one game)."""
    return Reply("channel", text, kind="announcement", data={"channel": channel})


def _system_of(info: Any) -> str:
    """A shipped scenario's rule system: the folder it ships in (scenarios/<system>/)."""
    return str(info.path.parent.name)


def _result_json(r: GameResult) -> dict[str, Any]:
    return {
        "game": r.game, "system": r.system, "scenario": r.scenario, "finished": r.finished,
        "sides": dict(r.sides), "score": dict(r.score), "margin": r.margin, "how": r.how,
        "bid": r.bid, "rated": r.rated, "started": r.started, "round": r.round,
    }  # fmt: skip


def _result_from(d: dict[str, Any]) -> GameResult:
    return GameResult(
        game=str(d["game"]), system=str(d["system"]), scenario=str(d["scenario"]),
        finished=float(d["finished"]), sides=dict(d["sides"]),
        score={str(k): float(v) for k, v in d["score"].items()}, margin=float(d["margin"]),
        how=str(d["how"]), bid=float(d.get("bid", 0)), rated=bool(d.get("rated", True)),
        started=bool(d.get("started", True)), round=int(d.get("round", 0)),
    )  # fmt: skip
