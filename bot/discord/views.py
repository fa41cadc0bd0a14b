"""Buttons that survive a restart: discord.py `DynamicItem`s whose custom_id carries only
ids (game, log position, answer index). The state stays in the service; a click on a
message the game has moved past is refused by the service (`expect`).

    k:d:GAME:AT:I     answer I of the open decision, given at log position AT
    k:dp:GAME:AT:P    show page P of that decision's answers (20 a page; none is dropped)
    k:atk:GAME:AT     confirm the attack written in the preview message
    k:no              cancel a preview
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord

from bot.service import Refusal, Reply

if TYPE_CHECKING:
    from bot.discord.client import KesselBot

PAGE = 20  # answer buttons a message carries (4 rows of 5; the 5th row pages)
MAX_LOSS_LINES = 200  # loss combinations listed; more are written with /orders


def decision_view(r: Reply) -> discord.ui.View | None:
    """Buttons for the answers of a decision reply (the first page), or None when it has
    none to list."""
    at = r.data.get("expect")
    if not r.game or at is None:
        return None
    lines = reply_answers(r)
    if not lines:
        return None
    return page_view(r.game, int(at), lines, 0)


def reply_answers(r: Reply) -> list[str]:
    """The numbered answers of a decision reply: the service's, numbered as its prompt
    (bot/describe.py). None without them: a button sends its answer's number, which the
    service reads off that same list, so buttons numbered any other way would answer
    something else (the reply then asks for `/orders`)."""
    given = r.data.get("answers")
    return [str(x) for x in given] if isinstance(given, list) else []


async def open_answers(bot: KesselBot, caller: Any, game: str) -> list[str]:
    """The answers of the caller's open decision, as the service numbers them now."""
    replies = await bot.ref.decision(caller, game)
    return reply_answers(replies[0]) if replies else []


def pages(lines: list[str]) -> int:
    return max(1, -(-len(lines) // PAGE))


def page_view(game: str, at: int, lines: list[str], page: int) -> discord.ui.View:
    """Page `page` of a decision's answers: up to 20 answer buttons and, when there are
    more, a button for the next page (the last page leads back to the first)."""
    view = discord.ui.View(timeout=None)
    first = page * PAGE
    for i, line in enumerate(lines[first : first + PAGE], start=first):
        view.add_item(AnswerButton(game, at, i, line))
    count = pages(lines)
    if count > 1:
        view.add_item(PageButton(game, at, (page + 1) % count, count))
    return view


def page_text(lines: list[str], page: int) -> str:
    """The answers of one page, numbered (a cut button label is read here in full)."""
    first = page * PAGE
    shown = lines[first : first + PAGE]
    span = f"{first + 1}–{first + len(shown)}"
    head = f"Answers {span} of {len(lines)} (page {page + 1}/{pages(lines)}):"
    return "\n".join([head, *(f"{first + n + 1}. `{x}`" for n, x in enumerate(shown))])


class AnswerButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"k:d:(?P<game>[a-z0-9-]+):(?P<at>[0-9]{1,18}):(?P<i>[0-9]{1,4})",
):
    def __init__(self, game: str, at: int, index: int, label: str = "answer") -> None:
        super().__init__(
            discord.ui.Button(
                label=label[:80],
                style=discord.ButtonStyle.primary,
                custom_id=f"k:d:{game}:{at}:{index}",
            )
        )
        self.game, self.at, self.index, self.label = game, at, index, label[:80]

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> AnswerButton:
        label = getattr(item, "label", None) or "answer"
        return cls(match["game"], int(match["at"]), int(match["i"]), label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.discord.context import guarded

        await guarded(interaction, self._answer(interaction))

    async def _answer(self, interaction: discord.Interaction[Any]) -> None:
        from bot.discord.context import ack, caller_of, key_of

        bot: KesselBot = interaction.client
        await ack(interaction)
        caller = await caller_of(interaction)
        # the answer's number, as a player would type it: the service reads it off the
        # open decision's prompt, and `expect` refuses a click after the game moved on
        replies = await bot.ref.orders(
            caller, self.game, str(self.index + 1), key=key_of(interaction), expect=self.at
        )
        await bot.notifier.deliver(replies, interaction)


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"k:dp:(?P<game>[a-z0-9-]+):(?P<at>[0-9]{1,18}):(?P<p>[0-9]{1,4})",
):
    """Another page of a decision's answers, listed again from the open decision."""

    def __init__(self, game: str, at: int, page: int, count: int = 0) -> None:
        label = f"More answers (page {page + 1}/{count})" if count else "More answers"
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"k:dp:{game}:{at}:{page}",
            )
        )
        self.game, self.at, self.page = game, at, page

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> PageButton:
        return cls(match["game"], int(match["at"]), int(match["p"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.discord.context import guarded

        await guarded(interaction, self._page(interaction))

    async def _page(self, interaction: discord.Interaction[Any]) -> None:
        from bot.discord.context import ack, caller_of
        from bot.discord.notify import send

        bot: KesselBot = interaction.client
        await ack(interaction)
        caller = await caller_of(interaction)
        g = await bot.ref.game(self.game)
        if g.last_event != self.at:
            raise Refusal("the game has moved on since this decision; see `/game status`")
        lines = await open_answers(bot, caller, self.game)
        if not lines:
            raise Refusal("no decision of yours is open")
        page = self.page if self.page < pages(lines) else 0
        view = page_view(self.game, self.at, lines, page)
        await send(interaction, page_text(lines, page), ephemeral=True, view=view)


class ConfirmAttack(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"k:atk:(?P<game>[a-z0-9-]+):(?P<at>[0-9]{1,18})",
):
    """Sends the attack line shown in the preview message as an order."""

    def __init__(self, game: str, at: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Confirm attack",
                style=discord.ButtonStyle.danger,
                custom_id=f"k:atk:{game}:{at}",
            )
        )
        self.game, self.at = game, at

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ConfirmAttack:
        return cls(match["game"], int(match["at"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.discord.context import guarded

        await guarded(interaction, self._confirm(interaction))

    async def _confirm(self, interaction: discord.Interaction[Any]) -> None:
        from bot.discord.context import ack, caller_of, key_of

        bot: KesselBot = interaction.client
        content = interaction.message.content if interaction.message else ""
        found = re.search(r"`(attack [^`]+)`", content)
        if found is None:
            raise Refusal("this preview no longer shows an attack; use `/attack` again")
        await ack(interaction)
        caller = await caller_of(interaction)
        replies = await bot.ref.orders(
            caller, self.game, found.group(1), key=key_of(interaction), expect=self.at
        )
        await bot.notifier.deliver(replies, interaction)


class CancelButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"k:no"):
    def __init__(self) -> None:
        super().__init__(
            discord.ui.Button(label="Cancel", style=discord.ButtonStyle.secondary, custom_id="k:no")
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> CancelButton:
        return cls()

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.edit_message(content="Cancelled: nothing was sent.", view=None)


def confirm_view(game: str, at: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ConfirmAttack(game, at))
    view.add_item(CancelButton())
    return view


DYNAMIC_ITEMS = (AnswerButton, PageButton, ConfirmAttack, CancelButton)
