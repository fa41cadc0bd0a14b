"""IMAP without IDLE (polling), and the passphrase: a player whose mail program cannot
write to a plus-address orders from the plain address with the seat's passphrase."""

from __future__ import annotations

import re
from pathlib import Path

from mail.mailplayers import REFEREE, Kessel, Player, config, text
from mail.mailservers import Dovecot, Sink


async def test_polling_and_the_seat_passphrase(
    dovecot: Dovecot, smtp_sink: tuple[Sink, int], tmp_path: Path
) -> None:
    sink, port = smtp_sink
    k = await Kessel(config(dovecot, port, str(tmp_path / "k.db"), imap_idle=False)).start()
    alice = Player("alice@soviet.test", "Alice", sink, dovecot)
    bob = Player("bob@german.test", "Bob", sink, dovecot)
    try:
        first = await alice.send(alice.message("game new demo-steblev soviet seed 3"))
        made = await alice.next_mail()
        gid = str(made["Subject"]).split()[1]
        phrase = re.search(r"passphrase ([a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4})", text(made))
        assert phrase, text(made)
        await k.handled(first)
        assert "\\Seen" in dovecot.flags(first)  # handled messages are flagged seen
        await bob.send(bob.message(f"join {gid} german"))
        await alice.next_mail(lambda m: "your turn" in text(m))
        head = (await k.ref.game(gid)).head
        # a wrong passphrase, to the plain address: refused, nothing changed
        await alice.send(alice.message(f"game {gid}\npassphrase aaaa-bbbb-cccc\ndone", to=REFEREE))
        refused = await alice.next_mail(lambda m: "Not applied" in text(m))
        assert "passphrase" in text(refused)
        assert (await k.ref.game(gid)).head == head
        # Bob's passphrase is not Alice's: a passphrase is bound to its seat and address
        bob_phrase = re.search(
            r"passphrase ([a-z2-7-]{14})", text(bob.latest(lambda m: "passphrase" in text(m)))
        )
        assert bob_phrase and bob_phrase[1] != phrase[1]
        proof = f"game {gid}\npassphrase {phrase[1]}\n"
        await alice.send(alice.message(proof + "move s-180 0509", to=REFEREE))
        await alice.next_mail(lambda m: "✔ soviet: move s-180 0509" in text(m))
        await alice.send(alice.message(proof + "undo", to=REFEREE))
        await alice.next_mail(lambda m: "Undone: soviet: move s-180 0509" in text(m))
        await alice.send(alice.message(proof + "done", to=REFEREE))
        await alice.next_mail(lambda m: "✔ soviet: done" in text(m))
        assert (await k.ref.game(gid)).head > head
    finally:
        await k.stop()
