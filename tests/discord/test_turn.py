"""Issue #8's scripted segment: two players play a full turn of korsun-1944 through the
in-process harness — the German set-up decision by the `/orders` modal, a sealed air
phase, attacks previewed and confirmed, retreat and pursuit decisions answered with DM
buttons — and the buttons keep working after a restart while stale ones are refused."""

from __future__ import annotations

from harness import ALICE, BOB, Harness, Sent, h, texts

__all__ = ["h"]  # the fixture

PLACE_IF = (
    "place-if 5517 5721 5927 5315 5316 1323 1325 1520 1615 1618 2302 5215 5519 5620 5723 "
    "5724 5826 6129 6231 6332 0535 0733 0931 1129 1227 1422 1512 3301 5520 5522"
)


def public(sent: list[Sent]) -> str:
    return texts(
        [
            s
            for s in sent
            if s.where == "channel" or (s.where in ("response", "followup") and not s.ephemeral)
        ]
    )


def last_with_buttons(h: Harness, user: int) -> Sent:
    return [s for s in h.sent if s.where == "dm" and s.target == str(user) and s.buttons()][-1]


async def orders_modal(h: Harness, person: object, text: str) -> list[Sent]:
    opened = await h.command(person, "orders")  # type: ignore[arg-type]
    assert opened[-1].type == 9  # a modal is the initial response
    return await h.submit_modal(person, opened[-1], [text])  # type: ignore[arg-type]


async def attack(h: Harness, units: str, target: str) -> list[Sent]:
    preview = await h.command(ALICE, "attack", units=units, target=target)
    shown = preview[-1]
    assert shown.ephemeral and "Attack preview" in shown.content
    assert f"`attack {units} -> {target}`" in shown.content
    return await h.click(ALICE, shown, "Confirm attack")


async def test_a_full_turn_of_korsun_through_discord(h: Harness) -> None:
    out = await h.command(ALICE, "game new", scenario="korsun-1944", side="soviet", seed=1)
    assert "created" in texts(out, "channel")
    out = await h.command(BOB, "game join", side="german")
    # the German set-up decision (30 improved fortifications) goes to Bob, with a ping
    dm = [s for s in out if s.where == "dm" and s.target == str(BOB.id)]
    assert dm and "place-if" in dm[-1].content and "/orders" in dm[-1].content
    assert f"<@{BOB.id}>" in texts(out, "channel") and f"<@{ALICE.id}>" not in texts(out, "channel")
    ping = next(s for s in out if s.where == "channel" and f"<@{BOB.id}>" in s.content)
    assert [str(u) for u in ping.body["allowed_mentions"]["users"]] == [str(BOB.id)]

    out = await orders_modal(h, BOB, PLACE_IF)
    assert "✔" in texts(out, "followup") and "place-if 5517" in texts(out, "followup")

    # a sealed air phase: the mission is given privately, a receipt confirms it, and no
    # shared channel hears of it before the reveal
    out = await h.command(ALICE, "air", flyer="4", mission="support-attack", target="5927")
    receipt = [s for s in out if s.where == "followup"]
    assert receipt and all(s.ephemeral for s in receipt)
    assert "Sealed" in receipt[0].content and "5927" in receipt[0].content
    assert "5927" not in public(out) and "support-attack" not in public(out)
    sealed_so_far = len(h.sent)
    out = await h.command(ALICE, "done")
    assert "5927" not in public(h.sent[sealed_so_far:])
    out = await h.command(BOB, "done")  # both done: the missions are revealed
    assert "Movement Phase" in texts(out, "channel")

    out = await h.command(ALICE, "done")  # no moves
    assert "Combat Phase" in texts(out, "channel")

    # an attack: odds preview, Confirm, then a retreat decision by DM buttons
    out = await attack(h, "s-31-inf", "5721")
    choice = last_with_buttons(h, ALICE.id)
    labels = [b["label"] for b in choice.buttons()]
    assert "retreat s-31-inf 5920" in labels
    out = await h.click(ALICE, choice, "retreat s-31-inf 5920")
    assert "retreat s-31-inf 5920" in texts(out, "followup")
    pursuit = last_with_buttons(h, BOB.id)
    assert "pass" in [b["label"] for b in pursuit.buttons()]
    # Alice may not answer Bob's decision
    out = await h.click(ALICE, pursuit, "pass")
    assert "⚠" in texts(out) and all(
        s.ephemeral for s in out if s.where != "response" or s.type != 5
    )
    out = await h.click(BOB, pursuit, "pass")
    assert "✔" in texts(out, "followup") and "pass" in texts(out, "followup")

    out = await attack(h, "s-66-inf", "5927")
    assert "attack s-66-inf -> 5927" in texts(out, "followup")
    out = await orders_modal(h, ALICE, "attack s-7-para -> 5517")
    await h.click(ALICE, last_with_buttons(h, ALICE.id), "retreat s-7-para 5717")
    await h.click(BOB, last_with_buttons(h, BOB.id), "pass")
    await h.command(ALICE, "done")

    await h.command(ALICE, "done")  # the second Air Phase
    await h.command(BOB, "done")
    for _ in ("movement", "combat", "strategic"):
        out = await h.command(BOB, "done")
        assert "⚠" not in texts(out), texts(out)
    status = await h.command(ALICE, "game status")
    assert "turn 2" in texts(status, "followup")
    # nothing hidden was ever said in the game channel: no German unit ids beyond what the
    # spectators may see is checked by the service; here: no sealed text before reveal
    assert h.http.calls  # DMs and channel messages went through the REST stand-in


async def test_buttons_work_after_a_restart_and_stale_clicks_are_refused(h: Harness) -> None:
    await h.command(ALICE, "game new", scenario="korsun-1944", side="soviet", seed=1)
    await h.command(BOB, "game join", side="german")
    await orders_modal(h, BOB, PLACE_IF)
    for who in (ALICE, BOB, ALICE):
        await h.command(who, "done")
    await attack(h, "s-31-inf", "5721")
    choice = last_with_buttons(h, ALICE.id)

    await h.restart()  # a brand-new bot instance over the same database
    out = await h.click(ALICE, choice, "retreat s-31-inf 5920")
    assert "retreat s-31-inf 5920" in texts(out, "followup")
    # the same message clicked again: the game has moved on
    out = await h.click(ALICE, choice, "retreat s-31-inf 5819")
    assert "moved on" in texts(out)
