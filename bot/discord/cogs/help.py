"""`/help` (every command, one line each) and `/help topic` (one command with its options,
or a subject: orders, decisions, deadlines). Built from the command tree itself, so it
cannot fall behind the commands."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.discord.context import bot_of, described
from bot.discord.notify import send

Interaction = discord.Interaction[Any]

SUBJECTS: dict[str, str] = {
    "orders": (
        "Orders are written in Kessel's notation, one per line: `move s-31-inf 5920`, "
        "`attack s-31-inf s-32-inf -> 5721`, `done`. The commands `/move`, `/attack` ... "
        "write one order each; `/orders` takes a whole block (all or nothing)."
    ),
    "decisions": (
        "When your side must decide (a retreat, losses, a pursuit, a defence), Kessel sends "
        "you a private message with one button per answer; **More answers** shows the "
        "others when there are more than 20. `/decision` shows it again. Any answer can "
        "also be written with `/orders`, in full or by its number (`/orders 2`)."
    ),
    "deadlines": (
        "A game may give each phase a deadline (`/game settings`); `/game status` shows "
        "when it runs out, and Kessel reminds the side that must act."
    ),
}


def leaves(tree: app_commands.CommandTree[Any]) -> list[app_commands.Command[Any, ..., Any]]:
    return sorted(
        (c for c in tree.walk_commands() if isinstance(c, app_commands.Command)),
        key=lambda c: c.qualified_name,
    )


def overview(tree: app_commands.CommandTree[Any]) -> str:
    lines = ["**Kessel commands** (`/help topic` for one of them):"]
    lines += [f"`/{c.qualified_name}` — {c.description}" for c in leaves(tree)]
    lines.append("Subjects: " + ", ".join(f"`{s}`" for s in SUBJECTS))
    return "\n".join(lines)


def about(tree: app_commands.CommandTree[Any], topic: str) -> str | None:
    want = topic.strip().lower().lstrip("/")
    if want in SUBJECTS:
        return SUBJECTS[want]
    for c in leaves(tree):
        if c.qualified_name == want or c.name == want:
            lines = [f"`/{c.qualified_name}` — {c.description}"]
            for p in c.parameters:
                need = "" if p.required else " (optional)"
                lines.append(f"· `{p.name}`{need}: {p.description}")
            return "\n".join(lines)
    return None


@app_commands.command(name="help", description="Kessel's commands, one line each")
@described()
async def help_(interaction: Interaction, topic: str | None = None) -> None:
    tree = bot_of(interaction).tree
    if not topic:
        await send(interaction, overview(tree))
        return
    text = about(tree, topic)
    if text is None:
        await send(interaction, f"⚠ No help on '{topic.strip()}'. " + overview(tree))
        return
    await send(interaction, text)


@help_.autocomplete("topic")
async def topics(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    names = [*SUBJECTS, *(c.qualified_name for c in leaves(bot_of(interaction).tree))]
    cur = current.strip().lower()
    return [app_commands.Choice(name=n, value=n) for n in names if cur in n][:25]


COMMANDS: list[Any] = [help_]
