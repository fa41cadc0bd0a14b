"""Army Group South -- Korsun through Discord (issue #19): two players play into the
first Game-Turn by slash commands -- the `/game new` reply names the reconstructed data,
the German set-up step (AGS-K 18.2, K170) ends with `/done`, a Soviet attack is
previewed with the engine's odds (AGS 9.4) and confirmed, the German loss-or-retreat
decision (AGS 9.66) is answered with a DM button, and the turn goes on to the German
player-turn."""

from __future__ import annotations

import re

from harness import ALICE, BOB, Harness, Sent, h, texts

__all__ = ["h"]  # the fixture


def dm_buttons(h: Harness, user: int) -> Sent:
    return [s for s in h.sent if s.where == "dm" and s.target == str(user) and s.buttons()][-1]


async def test_a_turn_of_ags_korsun_through_discord(h: Harness) -> None:
    out = await h.command(ALICE, "game new", scenario="ags-korsun", side="soviet", seed=1)
    said = texts(out)
    found = re.search(r"Game \*\*(\w+)\*\*", said)
    assert found, said
    gid = found.group(1)
    assert "created" in said and "reconstructed" in said  # issue #19: provenance said
    choices = await h.autocomplete(ALICE, "game new", "scenario", scenario="ags")
    assert any("[reconstructed data]" in str(c) for c in choices)

    out = await h.command(BOB, "game join", side="german")
    out = await h.command(BOB, "done")  # the German set-up as printed (18.24, K170)
    assert "Soviet Initial Movement Phase" in texts(out)

    out = await h.command(ALICE, "done")  # no moves in the Initial Movement Phase
    assert "Combat Phase" in texts(out)

    preview = await h.command(ALICE, "attack", units="s-gd-cd-1 s-gd-cd-2", target="0513")
    shown = preview[-1]
    assert shown.ephemeral and "Attack preview" in shown.content
    assert "8 against 6 (1-1): column 1-1" in shown.content  # engine/ags/odds.py
    out = await h.click(ALICE, shown, "Confirm attack")
    assert "0513" in texts(out)

    # the German player chooses: a step or a retreat (AGS 9.66, 9.67)
    choice = dm_buttons(h, BOB.id)
    labels = [b["label"] for b in choice.buttons()]
    assert any(x.startswith(("losses", "retreat")) for x in labels), labels
    pick = next(x for x in labels if x.startswith(("retreat", "losses")))
    out = await h.click(BOB, choice, pick)
    assert "g-4-6" in texts(out)
    # the attacker's part of the result, and any advance, by buttons too (AGS 9.8)
    for _ in range(4):
        assert h.bot is not None
        pending = (await h.bot.ref.game(gid)).state.pending
        if not pending:
            break
        who = ALICE if pending[0].side == "soviet" else BOB
        choice = dm_buttons(h, who.id)
        await h.click(who, choice, choice.buttons()[0]["label"])
    for _ in range(2):  # the Combat and Mechanized Movement Phases end
        out = await h.command(ALICE, "done")
    assert "German Initial Movement Phase" in texts(h.sent[-20:])
    status = await h.command(BOB, "game status")
    assert "reconstructed" in texts(status)
