"""`/league list|new|set|season|join|leave|divide|start|bid|challenge|close|pairings|
standings|player|decide|export`
(issue #20): the service's league commands (bot/service/leagues.py) as slash commands.
Leagues belong to their server; organisers are the server's moderators and the league's
creator. Standings and ratings are recomputed from the results on every look."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from bot.discord.context import ack, bot_of, caller_of, described
from bot.discord.notify import send
from bot.service import Caller, Reply
from bot.service.leagues import FORMATS, LeagueDesk

Interaction = discord.Interaction[Any]
Call = Callable[[LeagueDesk, Caller], Awaitable[list[Reply]]]


async def _run(interaction: Interaction, call: Call) -> None:
    """Acknowledge privately, ask the league desk, deliver its replies (the channel's
    announcements publicly, the rest to the caller)."""
    await ack(interaction)
    caller = await caller_of(interaction)
    bot = bot_of(interaction)
    out = await call(bot.ref.leagues, caller)
    await bot.notifier.deliver(out, interaction)


async def _seasons(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    try:
        caller = await caller_of(interaction)
        store = bot_of(interaction).ref.store
        out = []
        for lg in await store.leagues(caller.guild):
            for s in await store.seasons(lg.id):
                label = f"{s.id} — {lg.name}: {s.name} ({s.status})"
                if current.lower() in label.lower():
                    out.append(app_commands.Choice(name=label[:100], value=s.id))
        return out[:25]
    except Exception:  # a suggestion only
        return []


async def _leagues(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    try:
        caller = await caller_of(interaction)
        rows = await bot_of(interaction).ref.store.leagues(caller.guild)
        return [
            app_commands.Choice(name=f"{lg.id} — {lg.name}"[:100], value=lg.id)
            for lg in rows
            if current.lower() in f"{lg.id} {lg.name}".lower()
        ][:25]
    except Exception:
        return []


async def _data_sets(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The names a league may choose: the operator's data sets (never their directories),
    shipped and default (scenarios/data_sets.py)."""
    from scenarios import data_sets

    names = [*sorted(data_sets.declared()), data_sets.SHIPPED, data_sets.DEFAULT]
    return [app_commands.Choice(name=n, value=n) for n in names if current.lower() in n][:25]


FORMAT_CHOICES = [app_commands.Choice(name=f, value=f) for f in FORMATS]


class LeagueGroup(app_commands.Group):
    def __init__(self) -> None:
        super().__init__(name="league", description="Leagues: seasons, pairings, standings")

    @app_commands.command(name="list", description="The leagues of this server and their seasons")
    @described()
    async def list_(self, interaction: Interaction) -> None:
        await _run(interaction, lambda d, c: d.list(c))

    @app_commands.command(name="new", description="Create a league (server moderators)")
    @app_commands.describe(
        name="the league's name",
        system="its rule system",
        scenarios="the only scenarios its seasons may play, comma-separated (default: all)",
    )
    @described()
    async def new(
        self, interaction: Interaction, name: str, system: str = "wb95", scenarios: str = ""
    ) -> None:
        allowed = scenarios.split(",")
        await _run(
            interaction, lambda d, c: d.create_league(c, name, system=system, scenarios=allowed)
        )

    @app_commands.command(name="set", description="Change a league's data set (organisers)")
    @app_commands.describe(
        league="the league",
        data="a data set the referee's operator declared, shipped, or default",
    )
    @app_commands.autocomplete(league=_leagues, data=_data_sets)
    @described()
    async def set_(self, interaction: Interaction, league: str, data: str) -> None:
        await _run(interaction, lambda d, c: d.set_league(c, league, "data", data))

    @app_commands.command(name="season", description="Open a season of a league (organisers)")
    @app_commands.describe(
        league="the league",
        name="the season's name",
        format="how players are paired",
        scenario="the scenario every game plays",
        rounds="rounds of a Swiss",
        rated="rated games (Glicko-2)",
        deadline_hours="hours for each step of play (none: no deadlines)",
        forfeit_after="deadlines missed in one game before its side forfeits (0: never)",
        bids="players settle each game's sides by sealed VP bids",
        campaign="a campaign: each pairing plays its chain of scenarios",
    )
    @app_commands.choices(format=FORMAT_CHOICES)
    @app_commands.autocomplete(league=_leagues)
    @described()
    async def season(
        self,
        interaction: Interaction,
        league: str,
        name: str,
        format: str = "round-robin",
        scenario: str = "demo-steblev",
        rounds: app_commands.Range[int, 1, 20] | None = None,
        rated: bool = True,
        deadline_hours: app_commands.Range[int, 1, 720] | None = None,
        forfeit_after: app_commands.Range[int, 0, 20] = 0,
        bids: bool = False,
        campaign: str | None = None,
    ) -> None:
        hours = float(deadline_hours) if deadline_hours else None
        await _run(
            interaction,
            lambda d, c: d.create_season(
                c, league, name, format=format, scenario=scenario, rounds=rounds, rated=rated,
                deadline_hours=hours, forfeit_after=forfeit_after, bids=bids,
                campaign=campaign,
            ),
        )  # fmt: skip

    @app_commands.command(name="join", description="Sign up for a season")
    @app_commands.describe(season="the season")
    @app_commands.autocomplete(season=_seasons)
    @described()
    async def join(self, interaction: Interaction, season: str) -> None:
        await _run(interaction, lambda d, c: d.join(c, season))

    @app_commands.command(name="leave", description="Withdraw before the season starts")
    @app_commands.describe(season="the season")
    @app_commands.autocomplete(season=_seasons)
    @described()
    async def leave(self, interaction: Interaction, season: str) -> None:
        await _run(interaction, lambda d, c: d.leave(c, season))

    @app_commands.command(name="start", description="Pair the first round and create its games")
    @app_commands.describe(season="the season")
    @app_commands.autocomplete(season=_seasons)
    @described()
    async def start(self, interaction: Interaction, season: str) -> None:
        await _run(interaction, lambda d, c: d.start(c, season))

    @app_commands.command(name="divide", description="Split a season into divisions by rating")
    @app_commands.describe(season="the season", divisions="how many (1: none)")
    @app_commands.autocomplete(season=_seasons)
    @described()
    async def divide(
        self, interaction: Interaction, season: str, divisions: app_commands.Range[int, 1, 26]
    ) -> None:
        await _run(interaction, lambda d, c: d.divide(c, season, str(divisions)))

    @app_commands.command(name="bid", description="A sealed VP bid for a game's sides")
    @app_commands.describe(
        season="the season",
        pairing="the pairing (e.g. r1.2)",
        side="the side you want",
        vp="the VPs you would give your opponent for it",
    )
    @app_commands.autocomplete(season=_seasons)
    @described()
    async def bid(
        self,
        interaction: Interaction,
        season: str,
        pairing: str,
        side: str,
        vp: app_commands.Range[int, 0, 100],
    ) -> None:
        await _run(interaction, lambda d, c: d.bid(c, season, pairing, side, str(vp)))

    @app_commands.command(name="challenge", description="Challenge a player up the ladder")
    @app_commands.describe(
        season="the ladder season",
        player="whom: a name as signed up, or an @mention (up to 3 places above you)",
    )
    @app_commands.autocomplete(season=_seasons)
    @described()
    async def challenge(self, interaction: Interaction, season: str, player: str) -> None:
        who = player.strip().removeprefix("<@").removeprefix("!").removesuffix(">")
        await _run(interaction, lambda d, c: d.challenge(c, season, who))

    @app_commands.command(name="close", description="End a season (organisers)")
    @app_commands.describe(season="the season")
    @app_commands.autocomplete(season=_seasons)
    @described()
    async def close(self, interaction: Interaction, season: str) -> None:
        await _run(interaction, lambda d, c: d.close(c, season))

    @app_commands.command(name="pairings", description="Every pairing, its game and result")
    @app_commands.describe(season="the season")
    @app_commands.autocomplete(season=_seasons)
    @described()
    async def pairings(self, interaction: Interaction, season: str) -> None:
        await _run(interaction, lambda d, c: d.pairings(c, season))

    @app_commands.command(name="standings", description="The season's table, with tie-breaks")
    @app_commands.describe(season="the season")
    @app_commands.autocomplete(season=_seasons)
    @described()
    async def standings(self, interaction: Interaction, season: str) -> None:
        await ack(interaction)
        caller = await caller_of(interaction)
        desk = bot_of(interaction).ref.leagues
        text = (await desk.standings(caller, season))[0].text
        png = await desk.standings_png(caller, season)  # the table as a picture too
        file = discord.File(io.BytesIO(png), filename=f"kessel-{season}-standings.png")
        await send(interaction, text, files=[file])

    @app_commands.command(name="player", description="A player's rating and record")
    @app_commands.describe(league="the league", member="whom (default: you)")
    @app_commands.autocomplete(league=_leagues)
    @described()
    async def player(
        self, interaction: Interaction, league: str, member: discord.User | None = None
    ) -> None:
        who = str(member.id) if member is not None else str(interaction.user.id)
        await ack(interaction)
        caller = await caller_of(interaction)
        desk = bot_of(interaction).ref.leagues
        text = (await desk.player(caller, league, who))[0].text
        png = await desk.rating_png(caller, league, [who])  # the rating's history
        file = discord.File(io.BytesIO(png), filename=f"kessel-{league}-rating.png")
        await send(interaction, text, files=[file])

    @app_commands.command(name="decide", description="An organiser's decision on a game")
    @app_commands.describe(
        season="the season",
        game="the pairing (e.g. r2.1) or its game id",
        outcome="SIDE (wins), draw, forfeit SIDE, forfeit both",
        reason="why (kept in the league's audit)",
    )
    @app_commands.autocomplete(season=_seasons)
    @described()
    async def decide(
        self, interaction: Interaction, season: str, game: str, outcome: str, reason: str
    ) -> None:
        await _run(interaction, lambda d, c: d.decide(c, season, game, outcome, reason))

    @app_commands.command(name="export", description="The standings as a CSV or JSON file")
    @app_commands.describe(season="the season", as_json="JSON instead of CSV")
    @app_commands.autocomplete(season=_seasons)
    @described()
    async def export(self, interaction: Interaction, season: str, as_json: bool = False) -> None:
        await ack(interaction)
        caller = await caller_of(interaction)
        fmt = "json" if as_json else "csv"
        text = await bot_of(interaction).ref.leagues.export(caller, season, fmt)
        file = discord.File(io.BytesIO(text.encode()), filename=f"kessel-{season}.{fmt}")
        await send(interaction, f"Season {season}: standings ({fmt})", files=[file])


COMMANDS: list[Any] = [LeagueGroup()]
