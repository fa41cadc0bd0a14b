"""Looking: `/map`, `/hex`, `/unit`, `/odds`, `/log`, `/rule`. Everything is drawn from the
caller's own view (the service applies the fog of war)."""

from __future__ import annotations

import io
from typing import Any

import discord
from discord import app_commands

from bot.discord.cogs.orders import attack_targets, attackers, preview
from bot.discord.context import ack, bot_of, caller_of, described, game_choices, game_of, in_game
from bot.discord.notify import send
from bot.discord.ruleindex import lookup
from bot.odds_words import format_odds
from engine.view import UnitView

Interaction = discord.Interaction[Any]


def unit_line(u: UnitView) -> str:
    """A counter as the viewer sees it."""
    if u.known == "hidden" or u.id is None:
        return f"{u.side} counter" + (f" ({u.type})" if u.type else "")
    bits = [f"{u.id}", f"{u.name}" if u.name else "", f"{u.type or ''} {u.size or ''}".strip()]
    if u.sp is not None:
        now = f" (reduced from {u.sp} by lost CELs)" if u.sp_now is not None else ""
        bits.append(f"SP {u.sp if u.sp_now is None else u.sp_now}{now}")
    if u.cel is not None:
        bits.append(f"CEL {u.cel}/{u.max_cel}")
    if u.mp:
        bits.append(f"MP {u.mp}")
    if u.art:
        bits.append(f"art {u.art[0]}-{u.art[1]}")
    for flag, word in ((u.disorganized, "disorganized"), (u.oos, "out of supply")):
        if flag:
            bits.append(word)
    if u.fortification:
        bits.append(u.fortification)
    if u.stars:
        bits.append("★ " + " ".join(u.stars))
    if u.eliminated:
        bits.append("eliminated")
    return " · ".join(b for b in bits if b)


@app_commands.command(name="map", description="The map as you see it (around a hex, or whole)")
@app_commands.describe(
    around="centre hex (default: where your counters are thickest), or 'legend'",
    radius="hexes around it",
    whole="the whole map (large: best on a big screen)",
    legend="the map's full legend: terrain, markers, counters",
    supply="draw where your lines of supply reach and where they are cut (10.1)",
    private="only you see it",
)
@app_commands.autocomplete(game=game_choices)
@described()
async def map_(
    interaction: Interaction,
    around: str | None = None,
    radius: app_commands.Range[int, 1, 12] = 4,
    whole: bool = False,
    legend: bool = False,
    supply: bool = False,
    private: bool = True,
    game: str | None = None,
) -> None:
    # acknowledged privately whatever `private` says: a refusal is never public
    await ack(interaction)
    caller = await caller_of(interaction)
    gid = await game_of(interaction, caller, game)
    ref = bot_of(interaction).ref
    # a public map is the spectator's view, whoever asks
    viewer = None if private else "spectator"
    if legend or (around or "").strip().lower() == "legend":
        png = await ref.legend_png(caller, gid, as_viewer=viewer)
    else:  # phone-sized by default (issue #18): a crop unless the whole map is asked for
        png = await ref.map_png(
            caller,
            gid,
            around=around,
            radius=radius,
            as_viewer=viewer,
            whole=whole,
            supply=supply,
        )
    if len(png) >= interaction.filesize_limit:
        await send(interaction, "The map is too large to upload; ask for a crop (`around`).")
        return
    g = await ref.game(gid)
    file = discord.File(io.BytesIO(png), filename=f"{gid}-map.png")
    if not private:  # the private "thinking" goes; the map comes as a public follow-up
        await interaction.delete_original_response()
        await interaction.followup.send(f"Game {gid}: {g.where()}", file=file, ephemeral=False)
        return
    await send(interaction, f"Game {gid}: {g.where()}", files=[file])


@app_commands.command(name="hex", description="What you see in a hex")
@app_commands.autocomplete(game=game_choices)
@described()
async def hex_(interaction: Interaction, hex: str, game: str | None = None) -> None:
    caller = await caller_of(interaction)
    gid = await game_of(interaction, caller, game)
    ref = bot_of(interaction).ref
    g = await ref.game(gid)
    h = hex.strip()
    m = g.setup.map
    try:
        on_map = m.grid.contains(h)
    except (ValueError, KeyError, TypeError):
        on_map = False
    if not on_map:
        await send(interaction, f"'{h}' is not a hex of this map (write it as 4 digits, CCRR).")
        return
    v = await ref.view(caller, gid)
    lines = [f"Hex {h}: {m.terrain_of(h)}" + (f" ({m.names[h]})" if h in m.names else "")]
    if h in v.control:
        lines.append(f"controlled by {v.control[h]}")
    if h in v.masked:
        lines.append("a masked stack")
    units = [u for u in v.units if u.hex == h and not u.eliminated]
    lines += [f"· {unit_line(u)}" for u in sorted(units, key=lambda u: u.stack_pos)]
    if not units:
        lines.append("no counters seen")
    await send(interaction, "\n".join(lines))


@app_commands.command(name="unit", description="A unit as you see it")
@app_commands.autocomplete(game=game_choices)
@described()
async def unit(interaction: Interaction, unit: str, game: str | None = None) -> None:
    caller = await caller_of(interaction)
    gid = await game_of(interaction, caller, game)
    v = await bot_of(interaction).ref.view(caller, gid)
    want = unit.strip().lower()
    found = [u for u in v.units if u.id and u.id.lower() == want]
    if not found:  # the same words whether it is hidden or does not exist (16.1)
        await send(interaction, f"You see no unit '{unit.strip()}'.")
        return
    u = found[0]
    where = f"at {u.hex}" if u.hex else ("off the map" if not u.eliminated else "")
    await send(interaction, f"{unit_line(u)} {where}".strip())


@unit.autocomplete("unit")
async def unit_names(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Units the caller sees in full: their own and the enemy counters they have seen."""
    from bot.discord.context import autocomplete_game, choices

    found = await autocomplete_game(interaction)
    if found is None:
        return []
    v = await bot_of(interaction).ref.view(*found)
    return choices(sorted({u.id for u in v.units if u.id and u.known == "full"}), current)


@app_commands.command(name="odds", description="What-if: the odds of a proposed attack")
@app_commands.autocomplete(game=game_choices, units=attackers, target=attack_targets)
@described()
async def odds(
    interaction: Interaction,
    units: str,
    target: str,
    extra: str | None = None,
    game: str | None = None,
) -> None:
    _, line, result = await preview(interaction, units, target, extra, game)
    await send(interaction, f"`{line}`\n{format_odds(result, limit=None)}")


@app_commands.command(
    name="log", description="The recent turn log, or what happened since your turn"
)
@app_commands.autocomplete(game=game_choices)
@described()
async def log(
    interaction: Interaction,
    since_my_turn: bool = False,
    lines: app_commands.Range[int, 1, 200] = 40,
    game: str | None = None,
) -> None:
    await in_game(
        interaction,
        game,
        lambda ref, c, g: ref.history(c, g, since_last=since_my_turn, limit=lines),
    )


@app_commands.command(name="rule", description="A rule case from the WB-95 rulebook")
@app_commands.describe(case="e.g. 5.3.4 or 5.3", book="which rulebook")
@app_commands.choices(
    book=[
        app_commands.Choice(name="Korsun 1944", value="wb95-korsun"),
        app_commands.Choice(name="Kursk 1943", value="wb95-kursk"),
    ]
)
@described()
async def rule(
    interaction: Interaction, case: str, book: app_commands.Choice[str] | None = None
) -> None:
    text = lookup(case, book.value if book else "wb95-korsun")
    await send(interaction, text or f"No rule case {case.strip()} in that rulebook.")


COMMANDS: list[Any] = [map_, hex_, unit, odds, log, rule]
