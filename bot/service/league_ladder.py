"""Ladder seasons (issue #20): challenges up the ladder, the ladder replayed from the
results (bot/league/ladder.py)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.league.ladder import REACH, can_challenge, challengeable, ladder_after_result
from bot.league.ladder import challenge as ladder_challenge
from bot.service.league_base import (
    LeagueBase,
    _announce,
)
from bot.service.model import Caller, Refusal, Reply
from bot.store_leagues import LeagueRow, PairingRow, SeasonRow


class LadderPlay(LeagueBase):
    """The ladder format: its first order, challenges, the ladder after each result."""

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
