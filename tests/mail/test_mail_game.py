"""Issue #22's acceptance test: a full turn of demo-steblev played by two mail players
through real servers (Kessel reads its mailbox from Dovecot by IMAP and sends by SMTP to
aiosmtpd): the game made and joined by mail, moves, a combat with its decisions answered
by number, a sealed air phase, a forged sender refused, a duplicated message applied
once, an auto-reply ignored, a stale `expect` refused, and Kessel restarted in the middle
with a message waiting for it."""

from __future__ import annotations

import re
from pathlib import Path

from mail.mailplayers import REFEREE, Kessel, Player, config, pngs, text
from mail.mailservers import Dovecot, Sink

ALICE, BOB, MALLORY, CAROL = (
    "alice@soviet.test",
    "bob@german.test",
    "mallory@evil.test",
    "carol@watch.test",
)


def _subject(m: object) -> str:
    return str(m["Subject"])  # type: ignore[index]


async def _inputs(k: Kessel, gid: str) -> list[str]:
    return [r.body["line"] for r in await k.ref.store.log(gid) if r.kind == "input"]


async def test_a_full_turn_of_demo_steblev_by_mail(
    dovecot: Dovecot, smtp_sink: tuple[Sink, int], tmp_path: Path
) -> None:
    sink, port = smtp_sink
    k = await Kessel(config(dovecot, port, str(tmp_path / "kessel.db"))).start()
    alice = Player(ALICE, "Alice", sink, dovecot)
    bob = Player(BOB, "Bob", sink, dovecot)
    mallory = Player(MALLORY, "Mallory", sink, dovecot)
    carol = Player(CAROL, "Carol", sink, dovecot)
    try:
        # --- a game made and joined by mail ------------------------------------------
        await alice.send(alice.message("game new demo-steblev soviet seed 7", subject="new game"))
        made = await alice.next_mail()
        found = re.search(r"Game (\w{4}) created", text(made))
        assert found, text(made)
        gid = found[1]
        assert _subject(made).startswith(f"Kessel {gid} · ")
        assert str(made["Reply-To"]).startswith(f"kessel+{gid}.soviet.")
        assert "passphrase" in text(made)  # the seat's passphrase, to its holder only
        assert made["Auto-Submitted"] == "auto-replied"
        await bob.send(bob.message(f"join {gid} german"))
        await carol.send(carol.message(f"join {gid} spectator"))
        joined = await bob.next_mail(lambda m: "You play german" in text(m))
        assert str(joined["Reply-To"]).startswith(f"kessel+{gid}.german.")
        # the game starts: Alice's turn notice, with the map of her view attached
        notice = await alice.next_mail(lambda m: "your turn" in text(m))
        subject = _subject(notice)
        assert "turn 1" in subject and "Movement Phase" in subject and "no deadline" in subject
        assert pngs(notice) and pngs(notice)[0].startswith(b"\x89PNG")
        assert notice["In-Reply-To"] == made["Message-ID"]  # the game's thread

        # --- the Soviet Movement Phase, replying to the notice --------------------------
        await alice.reply(notice, "move s-337 0406\nmove s-20tb 0307\ndone")
        moved = await alice.next_mail(lambda m: "✔ soviet: move s-337 0406" in text(m))
        assert "Combat Phase" in _subject(moved)
        g = await k.ref.game(gid)
        head = g.head

        # --- forged senders are refused; nothing changes -------------------------------
        # a From: of Alice's to the plain address (no seat address, no passphrase)
        forged = mallory.message("attack s-337 s-20tb -> 0306", sender=ALICE)
        await mallory.send(forged)
        refusal = await alice.next_mail(lambda m: "Not applied" in text(m))
        assert "seat address" in text(refusal) and "Nothing was changed" in text(refusal)
        # Mallory's own From to Alice's seat address: the token is not Mallory's
        uid = await mallory.send(
            mallory.message("attack s-337 s-20tb -> 0306", to=str(notice["Reply-To"]))
        )
        await k.handled(uid)
        # a forged From the receiving server caught (a trusted Authentication-Results)
        uid = await mallory.send(
            mallory.message(
                "attack s-337 s-20tb -> 0306",
                to=str(notice["Reply-To"]),
                sender=ALICE,
                headers={
                    "Authentication-Results": "mx.referee.test; spf=fail smtp.mailfrom=evil.test; "
                    "dkim=none; dmarc=fail header.from=soviet.test"
                },
            )
        )
        await k.handled(uid)
        assert (await k.ref.game(gid)).head == head
        assert not [m for m in alice.inbox()[alice.read :]]  # the caught forgery: no answer
        assert all(
            "0306" not in text(m) or "Not applied" in text(m) or "no seat" in text(m)
            for m in mallory.inbox()
        )

        # --- the Soviet Combat Phase: an attack, the German retreat, the pursuit ------
        await alice.reply(moved, "attack s-337 s-20tb -> 0306")
        prompt = await bob.next_mail(lambda m: "german must decide" in text(m))
        assert "retreat" in text(prompt) and pngs(prompt)
        assert "1." in text(prompt) or "1 " in text(prompt)
        await bob.reply(prompt, "1")  # answered by its number, the prompt quoted below
        pursuit = await alice.next_mail(lambda m: "soviet must decide" in text(m))
        assert "pursu" in text(pursuit)

        # --- a restart, with Alice's answer waiting in the mailbox ---------------------
        await k.stop()
        waiting = await alice.reply(pursuit, "pass")
        await k.start()
        await k.handled(waiting)
        assert "pass" in await _inputs(k, gid)
        after = await alice.next_mail(lambda m: "✔ soviet: pass" in text(m))
        await alice.reply(after, "done")
        air = await alice.next_mail(lambda m: "Air Phase" in _subject(m))
        bob_air = await bob.next_mail(lambda m: "Air Phase" in _subject(m))

        # --- the sealed Air Phase -------------------------------------------------------
        await alice.reply(air, "air 2 attack 0305\ndone")
        await alice.next_mail(lambda m: "✔ soviet: air 2 attack 0305" in text(m))
        # Bob hears that the Soviets are done, never what they flew (8.1.7)
        told = await bob.next_mail(lambda m: "your turn" in text(m))
        assert "0305" not in text(told) and "air 2" not in text(told)
        seen_by_bob = len(bob.inbox())
        # Bob's orders, delivered twice (one Message-ID): applied once, answered once
        twice = bob.message(
            "air 1 attack 0307\ndone", to=str(bob_air["Reply-To"]), reply_to=bob_air
        )
        await bob.send(twice)
        second = await bob.send(twice)
        await k.handled(second)
        assert (await _inputs(k, gid)).count("air 1 attack 0307") == 1
        answered = [m for m in bob.inbox() if "✔ german: air 1 attack 0307" in text(m)]
        assert len(answered) == 1
        # until the reveal, nothing Bob got named Alice's sealed target
        before_reveal = bob.inbox()[:seen_by_bob]
        assert all("0305" not in text(m) for m in before_reveal[bob.read :])
        # after it, each reads the other's missions in their own view
        await bob.next_mail(lambda m: "0305" in text(m))
        await alice.next_mail(lambda m: "0307" in text(m))

        # --- an auto-reply is ignored; a stale `expect` is refused -------------------
        g = await k.ref.game(gid)
        head = g.head
        uid = await bob.send(
            bob.message("I am away until Monday.", headers={"Auto-Submitted": "auto-replied"})
        )
        await k.handled(uid)
        assert (await k.ref.game(gid)).head == head
        german = bob.latest(lambda m: "your turn" in text(m) and "Movement" in _subject(m))
        await bob.reply(german, "expect 3\ndone")
        stale = await bob.next_mail(lambda m: "Not applied" in text(m))
        assert "moved on" in text(stale)
        expect = re.search(r"expect (\d+)", text(german))
        assert expect
        await bob.reply(german, f"expect {expect[1]}\ndone")
        await bob.next_mail(lambda m: "✔ german: done" in text(m))
        g = await k.ref.game(gid)
        assert g.state.turn == 2

        # --- a look: the map around a hex, in the reader's own view ------------------
        await bob.reply(german, "map 0305 2\nstatus\nlog 5")
        look = await bob.next_mail(lambda m: "map of game" in text(m))
        assert pngs(look) and "Awaiting" in text(look) and "recent log" in text(look)
        # the spectator read public results only, never a seat's own lines
        watched = "\n".join(text(m) for m in carol.inbox())
        assert gid in watched and "✔" not in watched
        assert all(str(m["Reply-To"]) == REFEREE for m in carol.inbox())
        # nobody read a Python error, and every mail names its game in the subject
        everyone = [m for p in (alice, bob, carol, mallory) for m in p.inbox()]
        assert all("Traceback" not in text(m) for m in everyone)
        assert all(
            str(m["Subject"]).startswith(f"Kessel {gid}") for m in everyone if m["X-Kessel-Game"]
        )
    finally:
        if k.mail is not None:
            await k.stop()
