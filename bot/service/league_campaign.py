"""Campaign seasons (issue #20): the chain of scenarios each pairing plays, with what
carries over (bot/league/campaign.py, carry_over.py)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from bot.league.campaign import StageOutcome, campaign_score
from bot.league.carry_over import CampaignError, load_campaign, stage_scenario
from bot.service.league_base import (
    LeagueBase,
    _announce,
    _data_dir,
    _result_json,
)
from bot.service.model import Caller, Refusal, Reply
from bot.store_leagues import LeagueRow, PairingRow, SeasonRow
from scenarios import overrides

if TYPE_CHECKING:
    from bot.service.game import LiveGame


class CampaignPlay(LeagueBase):
    """Campaign seasons: each pairing plays the campaign's chain of scenarios."""

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
                with overrides.scoped(_data_dir(season)):  # the season's data set
                    data, said = stage_scenario(chain, len(done) + 1, g.state)
            except (CampaignError, Refusal) as e:  # the carried set-up does not load: said
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
        r = await self._result(league, season, p, g, lead, how)
        pts = sorted(score.points.values(), reverse=True)
        if going_on and len(pts) == 2:
            r = dataclasses.replace(r, margin=float(pts[0] - pts[1]))
        await self.store.set_pairing(season.id, p.key, game=g.id, result=_result_json(r))
        text = "\n".join([f"Season {season.id}, {p.key}: the campaign is over.", *score.lines])
        return [_announce(text, season.channel), *await self._round_complete(league, season)]
