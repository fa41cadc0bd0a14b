"""`/game new|join|leave|opponent|start|status|seats|settings|resign|export|list` and
`/spectate`."""

from __future__ import annotations

import io
from typing import Any

import discord
from discord import app_commands

from bot.discord.context import ack, bot_of, caller_of, described, game_choices, game_of, in_game
from bot.discord.notify import listing, send
from bot.service import Reply
from scenarios import list_scenarios
from scenarios.provenance import data_note, data_tag

Interaction = discord.Interaction[Any]


async def scenario_choices(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    cur = current.lower()
    return [
        app_commands.Choice(name=_choice_name(s.id, s.name, s.path), value=s.id)
        for s in list_scenarios()
        if cur in s.id or cur in s.name.lower()
    ][:25]


def _choice_name(sid: str, name: str, path: Any) -> str:
    """ "ags-korsun — Korsun … [reconstructed data]" within Discord's 100 characters: the
    mark of data not printed in the rules (issue #19) is kept whole."""
    try:
        tag = data_tag(path)
    except Exception:  # a listing must not fail on one scenario; `status` says it fully
        tag = ""
    mark = f" [{tag}]" if tag else ""
    head = f"{sid} — {name}"
    room = 100 - len(mark)
    if len(head) > room:
        head = head[: room - 1] + "…"
    return head + mark


async def side_choices(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The sides of the game meant (or the usual two), and spectator."""
    sides = ["soviet", "german"]
    try:
        caller = await caller_of(interaction)
        gid = await game_of(interaction, caller, getattr(interaction.namespace, "game", None))
        sides = list((await bot_of(interaction).ref.game(gid)).setup.sides)
    except Exception:  # autocomplete is a suggestion: fall back to the usual sides
        pass
    names = (
        [*sides, "spectator"]
        if interaction.command and interaction.command.name == "join"
        else sides
    )
    return [app_commands.Choice(name=s, value=s) for s in names if current.lower() in s]


def _provenance_note(scenario: str) -> str:
    """The sentence naming the scenario's data not printed in the rules (as `status` and
    `kessel scenarios` say it), for the `/game new` reply; empty for WB-95."""
    found = {s.id: s.path for s in list_scenarios()}.get(scenario)
    if found is None:
        return ""
    try:
        return data_note(found)
    except Exception:  # the game was created; the note is a courtesy
        return ""


class GameGroup(app_commands.Group):
    def __init__(self) -> None:
        super().__init__(name="game", description="Kessel games: create, join, look, resign")

    @app_commands.command(name="new", description="Create a game in this channel")
    @app_commands.describe(
        scenario="a shipped scenario", side="take a side at once", seed="dice seed (optional)"
    )
    @app_commands.autocomplete(scenario=scenario_choices, side=side_choices)
    @described()
    async def new(
        self,
        interaction: Interaction,
        scenario: str,
        name: str | None = None,
        side: str | None = None,
        seed: int | None = None,
    ) -> None:
        await ack(interaction)
        caller = await caller_of(interaction)
        out = await bot_of(interaction).ref.new_game(
            caller, scenario, name=name, seed=seed, side=side
        )
        gid = next((r.game for r in out if r.game), None)
        note = _provenance_note(scenario)
        if gid is not None and note:  # issue #19: reconstructed data are said
            out = [*out, Reply("channel", note, game=gid)]
        await bot_of(interaction).notifier.deliver(out, interaction)

    @app_commands.command(name="join", description="Take a side (or spectator) in a game")
    @app_commands.autocomplete(game=game_choices, side=side_choices)
    @described()
    async def join(self, interaction: Interaction, side: str, game: str | None = None) -> None:
        await in_game(interaction, game, lambda ref, c, g: ref.join(c, g, side))

    @app_commands.command(name="leave", description="Give up your seat before the game starts")
    @app_commands.autocomplete(game=game_choices)
    @described()
    async def leave(self, interaction: Interaction, game: str | None = None) -> None:
        await in_game(interaction, game, lambda ref, c, g: ref.leave(c, g))

    @app_commands.command(name="opponent", description="Seat Kessel's built-in opponent")
    @app_commands.autocomplete(game=game_choices, side=side_choices)
    @described()
    async def opponent(self, interaction: Interaction, side: str, game: str | None = None) -> None:
        await in_game(interaction, game, lambda ref, c, g: ref.seat_ai(c, g, side))

    @app_commands.command(name="start", description="Start the game (moderator)")
    @app_commands.autocomplete(game=game_choices)
    @described()
    async def start(self, interaction: Interaction, game: str | None = None) -> None:
        await in_game(interaction, game, lambda ref, c, g: ref.start(c, g))

    @app_commands.command(name="status", description="Where the game is and who must act")
    @app_commands.autocomplete(game=game_choices)
    @described()
    async def status(self, interaction: Interaction, game: str | None = None) -> None:
        await in_game(interaction, game, lambda ref, c, g: ref.status(c, g))

    @app_commands.command(name="seats", description="Who plays, watches and moderates")
    @app_commands.autocomplete(game=game_choices)
    @described()
    async def seats(self, interaction: Interaction, game: str | None = None) -> None:
        caller = await caller_of(interaction)
        gid = await game_of(interaction, caller, game)
        g = await bot_of(interaction).ref.game(gid)
        lines = [f"Game {g.id} seats:"]
        for s in g.setup.sides:
            lines.append(f"{s}: " + (listing([p.display for p in g.players(s)]) or "(empty)"))
        for role in ("moderator", "spectator"):
            names = [p.display for p in g.seats if p.role == role]
            if names:
                lines.append(f"{role}s: " + listing(names))
        await send(interaction, "\n".join(lines))

    @app_commands.command(name="settings", description="The game's settings")
    @app_commands.autocomplete(game=game_choices)
    @described()
    async def settings(self, interaction: Interaction, game: str | None = None) -> None:
        caller = await caller_of(interaction)
        gid = await game_of(interaction, caller, game)
        g = await bot_of(interaction).ref.game(gid)
        lines = [f"Game {g.id} settings (moderators change them with `/mod set KEY VALUE`):"]
        lines += [f"{k}: {v}" for k, v in sorted(g.settings.items()) if k != "result"]
        await send(interaction, "\n".join(lines))

    @app_commands.command(name="resign", description="Resign: your side loses the game")
    @app_commands.autocomplete(game=game_choices)
    @described()
    async def resign(self, interaction: Interaction, game: str | None = None) -> None:
        await in_game(interaction, game, lambda ref, c, g: ref.resign(c, g))

    @app_commands.command(
        name="verify", description="Check the dice: the seed's commitment and every roll"
    )
    @app_commands.autocomplete(game=game_choices)
    @described()
    async def verify(self, interaction: Interaction, game: str | None = None) -> None:
        await in_game(interaction, game, lambda ref, c, g: ref.verify(c, g))

    @app_commands.command(name="export", description="The game record (`kessel run` replays it)")
    @app_commands.autocomplete(game=game_choices)
    @described()
    async def export(self, interaction: Interaction, game: str | None = None) -> None:
        await ack(interaction)
        caller = await caller_of(interaction)
        gid = await game_of(interaction, caller, game)
        text = await bot_of(interaction).ref.export(caller, gid)
        file = discord.File(io.BytesIO(text.encode()), filename=f"kessel-{gid}.yaml")
        await send(interaction, f"Game {gid}: `kessel run kessel-{gid}.yaml`", files=[file])

    @app_commands.command(name="list", description="Games in this channel, or yours")
    @described()
    async def list_(
        self, interaction: Interaction, mine: bool = False, finished: bool = False
    ) -> None:
        caller = await caller_of(interaction)
        games = await bot_of(interaction).ref.games(caller, mine=mine, finished=finished)
        if not games:
            await send(interaction, "No games. Start one with `/game new`.")
            return
        lines = []
        for g in games:
            seats = "; ".join(f"{s}: {', '.join(p) or '-'}" for s, p in g["seats"].items())
            lines.append(f"**{g['id']}** {g['name']} — {g['status']}, {g['where']} ({seats})")
        await send(interaction, "\n".join(lines))


@app_commands.command(name="spectate", description="Watch a game (spectator's view)")
@app_commands.autocomplete(game=game_choices)
@described()
async def spectate(interaction: Interaction, game: str | None = None) -> None:
    await in_game(interaction, game, lambda ref, c, g: ref.join(c, g, "spectator"))


COMMANDS: list[Any] = [GameGroup(), spectate]
