"""Reading a league (issue #20): standings as text and picture, pairings, a player's
rating, record and reliability, exports, the list of leagues."""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import json
from collections.abc import Sequence

from bot.league.glicko2 import PROVISIONAL_RD
from bot.league.ratings import Ratings, recompute
from bot.league.reliability import PlayerStats, reliability
from bot.league.results import GameResult
from bot.league.scoring import StandingRow, standings
from bot.service.league_base import (
    SCORING_FORMAT,
    LeagueBase,
    _result_from,
)
from bot.service.model import Caller, Reply
from bot.store_leagues import LeagueRow, SeasonRow


class LeagueReading(LeagueBase):
    """Looking at a league: standings (text and picture), pairings, a player's rating,
    record and reliability, exports and the list of leagues."""

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
            data = lg.settings.get("data")  # its data set (scenarios/data_sets.py)
            lines.append(
                f"{lg.id}: {lg.name} ({lg.system}" + (f", data set {data})" if data else ")")
            )
            for s in await self.store.seasons(lg.id):
                lines.append(f"  season {s.id}: {s.name}, {s.format}, {s.status}")
        return [Reply("caller", "\n".join(lines), kind="result")]
