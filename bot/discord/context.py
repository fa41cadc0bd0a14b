"""From an interaction to the service's terms: the `Caller`, the game meant, and friendly
refusals. Nothing here decides a rule."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.service import Caller, Referee, Refusal, Reply

if TYPE_CHECKING:
    from bot.discord.client import KesselBot

MOD_ROLE_KEY = "mod_role"  # server setting: the id of the moderator role

# What the options shared by several commands mean (shown by Discord under each option);
# a command's own `app_commands.describe` wins over these.
OPTION_HELP: dict[str, str] = {
    "game": "the game's id (default: the game of this channel, or your only game)",
    "side": "a side of the scenario, e.g. soviet or german",
    "name": "a name for the game (optional)",
    "units": "unit ids separated by spaces, e.g. s-31-inf s-32-inf",
    "unit": "a unit id, e.g. s-31-inf",
    "where": "the entry hex first, then the path, e.g. 6422 6322 6222",
    "hex": "a hex as 4 digits, column then row (CCRR), e.g. 5721",
    "target": "the target hex(es), e.g. 5721",
    "state": "on: mask the stack; off: unmask it",
    "extra": "support, HQ and other attack words, e.g. support s-art-1",
    "lines": "how many log lines (1-200)",
    "since_my_turn": "only what happened since your side last acted",
    "mine": "only the games you play or watch",
    "finished": "also the games that have ended",
    "role": "the moderator role (leave empty to clear it)",
    "topic": "a command or subject, e.g. move, orders, decisions",
}


def described(**specific: str) -> Callable[[Any], Any]:
    """`app_commands.describe` for the options of the decorated function found in
    OPTION_HELP (put it right above the `async def`); `specific` adds or overrides."""

    def decorate(func: Any) -> Any:
        import inspect

        names = set(inspect.signature(func).parameters)
        found = {k: v for k, v in (OPTION_HELP | specific).items() if k in names}
        return app_commands.describe(**found)(func) if found else func

    return decorate


def bot_of(interaction: discord.Interaction[Any]) -> KesselBot:
    return interaction.client  # type: ignore[no-any-return]


async def caller_of(interaction: discord.Interaction[Any]) -> Caller:
    """Who is asking, where; `server_mod` when the member has Manage Server or the
    server's moderator role (`/mod role`)."""
    user = interaction.user
    guild = str(interaction.guild_id or "")
    server_mod = False
    if guild and isinstance(user, discord.Member):
        perms = interaction.permissions
        server_mod = perms.manage_guild or perms.administrator
        if not server_mod:
            role = await bot_of(interaction).ref.store.server_setting(guild, MOD_ROLE_KEY)
            server_mod = role is not None and int(role) in set(user._roles)
    channel = interaction.channel
    # a thread (a private one for decisions) belongs to its channel's games
    where = getattr(channel, "parent_id", None) if isinstance(channel, discord.Thread) else None
    return Caller(
        id=str(user.id),
        name=user.display_name,
        server_mod=server_mod,
        guild=guild,
        channel=str(where or interaction.channel_id or ""),
    )


async def game_of(interaction: discord.Interaction[Any], caller: Caller, given: str | None) -> str:
    """The game a command means: the `game` option, else the one running game in this
    channel, else the caller's only game."""
    ref = bot_of(interaction).ref
    if given:  # only a game within the caller's reach (its channel; a DM: one's own)
        return (await ref.reach(caller, given)).id
    here = await ref.games(caller, here=True) if caller.channel else []
    if len(here) == 1:
        return str(here[0]["id"])
    if not here:
        mine = await ref.games(caller, mine=True)
        if len(mine) == 1:
            return str(mine[0]["id"])
    raise Refusal(
        "which game? name it with the `game` option (`/game list` shows the games here)"
        if here
        else "no game runs here; name it with the `game` option or start one with `/game new`"
    )


async def game_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    """Autocomplete of a `game` option: the caller's games and the games of this channel."""
    caller = await caller_of(interaction)
    ref = bot_of(interaction).ref
    seen: dict[str, str] = {}
    for g in [*await ref.games(caller, mine=True), *await ref.games(caller, here=True)]:
        seen.setdefault(str(g["id"]), f"{g['id']} — {g['name']} ({g['status']})")
    cur = current.lower()
    return [
        app_commands.Choice(name=label[:100], value=gid)
        for gid, label in seen.items()
        if cur in label.lower()
    ][:25]


def key_of(interaction: discord.Interaction[Any]) -> str:
    """The idempotency key of a writing command: the interaction id."""
    return f"discord:{interaction.id}"


async def ack(interaction: discord.Interaction[Any], *, ephemeral: bool = True) -> None:
    """Acknowledge within Discord's 3 seconds, before any writing or rendering."""
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)


GameCommand = Callable[[Referee, Caller, str], Awaitable[list[Reply]]]


async def in_game(
    interaction: discord.Interaction[Any], game: str | None, call: GameCommand
) -> None:
    """The shape of most commands: acknowledge, find the caller and the game meant, ask
    the service, deliver its replies."""
    await ack(interaction)
    caller = await caller_of(interaction)
    gid = await game_of(interaction, caller, game)
    out = await call(bot_of(interaction).ref, caller, gid)
    await bot_of(interaction).notifier.deliver(out, interaction)


async def refuse(interaction: discord.Interaction[Any], message: str) -> None:
    """A friendly private answer to a refused or failed interaction."""
    from bot.discord.notify import send

    await send(interaction, f"⚠ {message}", ephemeral=True)


async def guarded(interaction: discord.Interaction[Any], work: Coroutine[Any, Any, None]) -> None:
    """Run a component's work; a refusal becomes a private message (components do not go
    through the command tree's error handler)."""
    try:
        await work
    except Refusal as e:
        await refuse(interaction, e.message)
    except Exception as e:  # a component's error boundary
        from bot import incident

        iid = incident.record(e, f"component by {interaction.user.id}")
        await refuse(interaction, incident.sentence(iid) + " Look at `/game status`.")


async def legal_of(
    interaction: discord.Interaction[Any], caller: Caller, gid: str
) -> dict[str, Any]:
    """The caller's side's legal actions (autocomplete), cached per game position: an
    autocomplete cannot be deferred and must answer at once."""
    bot = bot_of(interaction)
    g = await bot.ref.game(gid)
    key = (gid, caller.id, g.last_event, g.status)
    found = bot.legal_cache.get(key)
    if found is None:
        found = await bot.ref.legal(caller, gid)
        if len(bot.legal_cache) > 256:
            bot.legal_cache.clear()
        bot.legal_cache[key] = found
    return found


async def autocomplete_game(interaction: discord.Interaction[Any]) -> tuple[Caller, str] | None:
    """The caller and game for an autocomplete, or None when no game is meant."""
    caller = await caller_of(interaction)
    try:
        gid = await game_of(interaction, caller, getattr(interaction.namespace, "game", None))
        await bot_of(interaction).ref.game(gid)
    except Refusal:
        return None
    return caller, gid


def choices(
    values: list[str], current: str, labels: dict[str, str] | None = None
) -> list[app_commands.Choice[str]]:
    cur = current.strip().lower()
    last = cur.split()[-1] if cur.split() else ""
    out = []
    for v in values:
        if last and last not in v.lower():
            continue
        out.append(app_commands.Choice(name=(labels or {}).get(v, v)[:100], value=v[:100]))
    return out[:25]


def word_choices(
    values: list[str], current: str, labels: dict[str, str] | None = None
) -> list[app_commands.Choice[str]]:
    """Autocomplete of a several-word option (units): completes the last word."""
    words = current.split()
    done = words[:-1] if words and not current.endswith(" ") else words
    last = "" if current.endswith(" ") or not words else words[-1].lower()
    head = " ".join(done)
    out = []
    for v in values:
        if v in done or (last and last not in v.lower()):
            continue
        value = f"{head} {v}".strip()
        out.append(app_commands.Choice(name=(labels or {}).get(v, value)[:100], value=value[:100]))
    return out[:25]
