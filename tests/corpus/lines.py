"""The corpus of malformed input lines (issue #14): every command word a player or a
moderator types, each followed by every kind of bad argument an outside attack used --
Unicode digits, huge and negative numbers, control characters, over-long words, unknown
ids and hexes, path tricks, markup. Fed to local play, the service and `kessel run` by
tests/test_hardening.py; each must be refused (or harmlessly read) with a sentence."""

from __future__ import annotations

ORDER_VERBS = (
    "move s-180",
    "attack s-180 ->",
    "fire",
    "barrage",
    "fortify",
    "setup s-art-27",
    "strategic",
    "enter",
    "delay",
    "leave",
    "air",
    "air 2 attack",
    "mask",
    "bridge destroy",
    "losses",
    "retreat s-180",
    "pursue",
    "defend",
    "reinforce",
    "repair",
    "withdraw",
    "place-if",
    "pass",
    "done",
    "soviet: move s-180",
    "german: done",
)
LOCAL_WORDS = ("log", "map", "map 0305", "units", "moves", "undo", "export", "status", "legal")
MOD_WORDS = (
    "mod rollback",
    "mod extend",
    "mod deadline",
    "mod set max_extensions",
    "mod set reminders",
    "mod policy",
    "mod place s-180",
    "mod cel s-180",
)
BAD_ARGS = (
    "²",
    "0³05",
    "١٢",
    "１２",
    "9" * 5000,
    "-1",
    "-0",
    "+3",
    "1_000",
    "1e400",
    "nan",
    "inf",
    "0x10",
    str(2**64),
    "\x00",
    "a\x00b",
    "\x1b[31m",
    "\u202e0305",
    "\u200b",
    "x" * 3000,
    "../s-180",
    "s 180",
    "9999",
    "0000",
    "00",
    "12345",
    "->",
    "-> ->",
    ":",
    "::",
    "#",
    "@",
    "%s%s%s",
    "{0}",
    "<@123>",
    "*bold*",
    "`code`",
    "true",
    "Null",
)


def corpus() -> list[str]:
    """Every malformed line, in a fixed order (at least 1,592 of them)."""
    out: list[str] = []
    for word in (*ORDER_VERBS, *LOCAL_WORDS, *MOD_WORDS):
        for bad in BAD_ARGS:
            if bad.startswith("#") and word.endswith(("done", "pass", "undo", "status")):
                continue  # a comment after a whole command: not malformed
            if bad in ("00", "0000") and word.endswith("max_extensions"):
                continue  # 0 extensions is a setting
            out.append(f"{word} {bad}".strip())
    for bad in BAD_ARGS:  # and alone, and as a whole line of garbage
        out.append(bad)
        out.append(bad * 3)
    return out
