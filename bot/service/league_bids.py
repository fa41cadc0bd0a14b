"""Sides by sealed VP bids (issue #20, K134; bot/league/bids.py)."""

from __future__ import annotations

import hashlib

from bot.league.bids import Bid, resolve_bids
from bot.league.pairing import BYE
from bot.service.league_base import (
    LeagueBase,
    _announce,
)
from bot.service.model import Caller, Refusal, Reply
from bot.store_leagues import PairingRow
from engine import numbers


class BidPlay(LeagueBase):
    """Sides settled by sealed VP bids (K134)."""

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
