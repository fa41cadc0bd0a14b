"""Orders: `/move`, `/attack` (odds preview, then Confirm), `/fire`, `/fortify`,
`/strategic`, `/enter`, `/bridge`, `/air`, `/mask`, `/done`, `/undo`, `/decision` (the open
decision again) and `/orders` (a modal for a block of orders, the PBEM way). Every answer
is private; sealed inputs (air missions, masking, bridge notes) get a receipt and never a
public echo."""

from __future__ import annotations

import secrets
from typing import Any

import discord
from discord import app_commands

from bot.discord.context import (
    ack,
    autocomplete_game,
    bot_of,
    caller_of,
    choices,
    described,
    game_choices,
    game_of,
    in_game,
    key_of,
    legal_of,
    word_choices,
)
from bot.discord.notify import send
from bot.discord.views import confirm_view
from bot.odds_words import format_odds
from bot.service import Refusal, Reply
from engine.notation import NotationError, format_order, parse_orders

Interaction = discord.Interaction[Any]
SEALED_VERBS = frozenset({"air", "mask", "bridge"})  # sealed inputs (K27)


def sealed_lines(text: str) -> list[str]:
    try:
        return [format_order(o) for o in parse_orders(text) if o.verb in SEALED_VERBS]
    except NotationError:
        return []


async def give(interaction: Interaction, line: str, game: str | None) -> None:
    """Send orders to the service (idempotent on the interaction id) and present the
    replies; a sealed input's answer is a receipt, private."""
    await ack(interaction)
    caller = await caller_of(interaction)
    gid = await game_of(interaction, caller, game)
    replies = await bot_of(interaction).ref.orders(caller, gid, line, key=key_of(interaction))
    sealed = sealed_lines(line)
    if sealed:
        receipt = "🔒 Sealed — only your side sees this until it is revealed:\n"
        replies = [
            Reply(**(r.__dict__ | {"text": receipt + r.text})) if r.to == "caller" else r
            for r in replies
        ]
    await bot_of(interaction).notifier.deliver(replies, interaction)


async def _legal(interaction: Interaction) -> dict[str, Any]:
    found = await autocomplete_game(interaction)
    if found is None:
        return {}
    return await legal_of(interaction, *found)


async def movable_units(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Only the caller's own units that may move now (from the service's legal actions)."""
    legal = await _legal(interaction)
    return choices(sorted(legal.get("moves") or {}), current)


async def reachable_hexes(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    found = await autocomplete_game(interaction)
    unit = str(getattr(interaction.namespace, "unit", "") or "")
    if found is None or not unit:
        return []
    try:
        reach = await bot_of(interaction).ref.moves(found[0], found[1], unit)
    except Refusal:
        return []
    labels = {
        r["hex"]: f"{r['hex']} — {r['mp']} MP" + (" (stops: enemy ZoC)" if r["stops"] else "")
        for r in reach
    }
    return choices([r["hex"] for r in reach], current, labels)


async def attackers(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    legal = await _legal(interaction)
    units = sorted({u for a in legal.get("attacks") or [] for u in a["units"]})
    return word_choices(units, current)


async def attack_targets(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    legal = await _legal(interaction)
    chosen = set(str(getattr(interaction.namespace, "units", "") or "").split())
    hexes = sorted(
        {h for a in legal.get("attacks") or [] if chosen & set(a["units"]) for h in a["hexes"]}
        or {h for a in legal.get("attacks") or [] for h in a["hexes"]}
    )
    return word_choices(hexes, current)


async def fire_targets(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    legal = await _legal(interaction)
    fire = legal.get("fire") or {}
    labels = {h: f"{h} — in range: {', '.join(u)}" for h, u in fire.items()}
    return choices(sorted(fire), current, labels)


async def fire_units(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    legal = await _legal(interaction)
    fire = legal.get("fire") or {}
    target = str(getattr(interaction.namespace, "target", "") or "")
    units = fire.get(target) or sorted({u for us in fire.values() for u in us})
    return word_choices(list(units), current)


async def entering_units(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    legal = await _legal(interaction)
    return word_choices(sorted(legal.get("entries") or {}), current)


async def own_units(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The caller's own units on the map, from the caller's view."""
    found = await autocomplete_game(interaction)
    if found is None:
        return []
    caller, gid = found
    v = await bot_of(interaction).ref.view(caller, gid)
    sides = (await bot_of(interaction).ref.game(gid)).sides_of(caller.id)
    mine = sorted({u.id for u in v.units if u.id and u.side in sides and u.hex})
    return word_choices(mine, current)


ORDERS_PREFIX = "k:o:"  # the custom_id of an /orders form: k:o:GAME:NONCE
FORM_SECONDS = 3600.0  # an open form is remembered this long (`submitted_after_restart` after)


class Orders(discord.ui.Modal, title="Orders"):
    """A block of orders, one per line (all or nothing). Its custom_id names the game, so
    a form submitted after a restart, or after it timed out here (unknown to the process),
    is still carried out (`submitted_after_restart`)."""

    text: discord.ui.TextInput[Any] = discord.ui.TextInput(
        label="Orders, one per line",
        style=discord.TextStyle.paragraph,
        placeholder="move s-232 0434\nattack s-232 -> 0535\ndone",
        max_length=4000,
        custom_id="k:o:text",
    )

    def __init__(self, game: str | None, forms: set[str] | None = None) -> None:
        game = (game or "").strip()[:40] or None  # a custom_id holds 100 characters
        nonce = secrets.token_hex(8)
        super().__init__(timeout=FORM_SECONDS, custom_id=f"{ORDERS_PREFIX}{game or ''}:{nonce}")
        self.game = game
        self.forms = forms  # the process's open forms: this one leaves it when it times out

    async def on_timeout(self) -> None:
        # Forgotten by discord.py and by the bot (forms closed unsent would pile up for
        # ever); a late submission is carried out like one after a restart.
        if self.forms is not None:
            self.forms.discard(self.custom_id)

    async def on_submit(self, interaction: Interaction) -> None:
        await give(interaction, str(self.text.value), self.game)

    async def on_error(  # type: ignore[override]
        self, interaction: Interaction, error: Exception, /, text: str | None = None
    ) -> None:
        from bot import incident
        from bot.discord.context import refuse

        typed = str(self.text.value or "") if text is None else text
        echo = f"\nYour orders, to copy:\n```\n{typed[:1800]}\n```" if typed.strip() else ""
        if isinstance(error, Refusal):
            await refuse(interaction, error.message + echo)
            return
        iid = incident.record(error, f"/orders form by {interaction.user.id}")
        sentence = incident.sentence(iid, changed="your orders were not sent")
        await refuse(interaction, sentence + echo)


@app_commands.command(name="move", description="Move one of your units")
@app_commands.describe(
    unit="your unit",
    to="destination hex (cost shown); or give `path`",
    path="or the hexes to move through, in order, e.g. 5820 5920",
)
@app_commands.autocomplete(game=game_choices, unit=movable_units, to=reachable_hexes)
@described()
async def move(
    interaction: Interaction,
    unit: str,
    to: str | None = None,
    path: str | None = None,
    game: str | None = None,
) -> None:
    if not (path or to):
        raise Refusal("say where: `to` (the destination hex) or `path` (the hexes in order)")
    await give(interaction, f"move {unit} {path or to}", game)


@app_commands.command(name="attack", description="Declare an attack: odds first, then Confirm")
@app_commands.describe(units="attacking units", target="defending hex(es)", extra="support ...")
@app_commands.autocomplete(game=game_choices, units=attackers, target=attack_targets)
@described()
async def attack(
    interaction: Interaction,
    units: str,
    target: str,
    extra: str | None = None,
    game: str | None = None,
) -> None:
    gid, line, odds = await preview(interaction, units, target, extra, game)
    if odds.get("planning"):  # the Movement Phase (K181): odds to plan by, nothing to confirm
        text = (
            f"Attack preview: {format_odds(odds)}\n`{line}`\nAttacks are declared in the "
            "Combat Phase (2.1.2): give it then."
        )
        await send(interaction, text)
        return
    g = await bot_of(interaction).ref.game(gid)
    text = f"Attack preview: {format_odds(odds)}\n`{line}`\nConfirm to send it as an order."
    await send(interaction, text, view=confirm_view(gid, g.last_event))


async def preview(
    interaction: Interaction, units: str, target: str, extra: str | None, game: str | None
) -> tuple[str, str, dict[str, Any]]:
    """The attack line the options make and the service's odds for it (/attack, /odds)."""
    await ack(interaction)
    caller = await caller_of(interaction)
    gid = await game_of(interaction, caller, game)
    line = f"attack {units} -> {target}" + (f" {extra}" if extra else "")
    return gid, line, await bot_of(interaction).ref.odds(caller, gid, line)


@app_commands.command(name="fire", description="Artillery fire at a hex")
@app_commands.autocomplete(game=game_choices, target=fire_targets, units=fire_units)
@described()
async def fire(interaction: Interaction, target: str, units: str, game: str | None = None) -> None:
    await give(interaction, f"fire {units} -> {target}", game)


@app_commands.command(name="fortify", description="Build field fortifications")
@app_commands.autocomplete(game=game_choices, units=own_units)
@described()
async def fortify(interaction: Interaction, units: str, game: str | None = None) -> None:
    await give(interaction, f"fortify {units}", game)


@app_commands.command(name="strategic", description="Put units in strategic movement")
@app_commands.autocomplete(game=game_choices, units=own_units)
@described()
async def strategic(interaction: Interaction, units: str, game: str | None = None) -> None:
    await give(interaction, f"strategic {units}", game)


@app_commands.command(name="enter", description="Bring reinforcements onto the map")
@app_commands.autocomplete(game=game_choices, units=entering_units)
@described()
async def enter(interaction: Interaction, units: str, where: str, game: str | None = None) -> None:
    await give(interaction, f"enter {units} {where}", game)


@app_commands.command(name="bridge", description="Bridge note (sealed): destroy or build")
@app_commands.describe(
    action="destroy or build", hexside="e.g. 1203/1204", unit="the unit (by / builder)"
)
@app_commands.choices(
    action=[
        app_commands.Choice(name="destroy", value="destroy"),
        app_commands.Choice(name="build", value="build"),
    ]
)
@app_commands.autocomplete(game=game_choices, unit=own_units)
@described()
async def bridge(
    interaction: Interaction,
    action: app_commands.Choice[str],
    hexside: str,
    unit: str | None = None,
    game: str | None = None,
) -> None:
    if action.value == "build":
        if not unit:
            raise Refusal("building a bridge needs the HQ that builds it (`unit`)")
        line = f"bridge build {unit} {hexside}"
    else:
        line = f"bridge destroy {hexside}" + (f" by {unit}" if unit else "")
    await give(interaction, line, game)


@app_commands.command(name="air", description="An air mission (sealed until revealed)")
@app_commands.describe(flyer="air counter or SPs", mission="mission", target="hex or A/B bridge")
@app_commands.autocomplete(game=game_choices)
@described()
async def air(
    interaction: Interaction, flyer: str, mission: str, target: str, game: str | None = None
) -> None:
    await give(interaction, f"air {flyer} {mission} {target}", game)


@air.autocomplete("mission")
async def air_missions(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    legal = await _legal(interaction)
    return choices(list((legal.get("air") or {}).get("missions") or []), current)


@air.autocomplete("target")
async def air_targets(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    legal = await _legal(interaction)
    mission = str(getattr(interaction.namespace, "mission", "") or "")
    targets = (legal.get("air") or {}).get("targets") or {}
    return choices(list(targets.get(mission) or []), current)


@app_commands.command(name="mask", description="Mask or unmask a stack (sealed)")
@app_commands.choices(
    state=[app_commands.Choice(name="on", value="on"), app_commands.Choice(name="off", value="off")]
)
@app_commands.autocomplete(game=game_choices)
@described()
async def mask(
    interaction: Interaction, hex: str, state: app_commands.Choice[str], game: str | None = None
) -> None:
    await give(interaction, f"mask {hex} {state.value}", game)


@app_commands.command(name="done", description="End your part of the phase")
@app_commands.autocomplete(game=game_choices)
@described()
async def done(interaction: Interaction, game: str | None = None) -> None:
    await give(interaction, "done", game)


@app_commands.command(name="undo", description="Take back your last input (not past a die roll)")
@app_commands.autocomplete(game=game_choices)
@described()
async def undo(interaction: Interaction, game: str | None = None) -> None:
    await in_game(interaction, game, lambda ref, c, g: ref.undo(c, g))


@app_commands.command(
    name="decision", description="Your open decision again: what it is about, its answers"
)
@app_commands.autocomplete(game=game_choices)
@described()
async def decision(interaction: Interaction, game: str | None = None) -> None:
    """Issue #17: the prompt with its numbered answers and their buttons (paged past 20),
    privately; answer by a button or with `/orders` and the answer's number."""
    await in_game(interaction, game, lambda ref, c, g: ref.decision(c, g))


@app_commands.command(name="orders", description="Give a block of orders (PBEM style)")
@app_commands.autocomplete(game=game_choices)
@described()
async def orders(interaction: Interaction, game: str | None = None) -> None:
    forms = bot_of(interaction).open_forms
    form = Orders(game, forms)
    forms.add(form.custom_id)
    await interaction.response.send_modal(form)


def _form_values(components: list[dict[str, Any]]) -> list[str]:
    """The texts typed in a submitted form (its rows, or labels, of text inputs)."""
    out: list[str] = []
    for c in components:
        if c.get("type") == 4:
            out.append(str(c.get("value") or ""))
        out += _form_values(list(c.get("components") or []))
        if isinstance(c.get("component"), dict):
            out += _form_values([c["component"]])
    return out


async def submitted_after_restart(interaction: Interaction) -> bool:
    """An /orders form this process did not open (the bot restarted while it was open):
    its orders are given all the same. False when it is not such a form."""
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = str(data.get("custom_id") or "")
    if not custom_id.startswith(ORDERS_PREFIX) or custom_id in bot_of(interaction).open_forms:
        return False
    game = custom_id.removeprefix(ORDERS_PREFIX).rpartition(":")[0] or None
    text = "\n".join(x for x in _form_values(list(data.get("components") or [])) if x)
    form = Orders(game)
    try:
        await give(interaction, text, game)
    except Exception as e:  # the form's own error boundary, the text echoed back
        await form.on_error(interaction, e, text=text)
    return True


COMMANDS: list[Any] = [
    move,
    attack,
    fire,
    fortify,
    strategic,
    enter,
    bridge,
    air,
    mask,
    done,
    undo,
    decision,
    orders,
]
