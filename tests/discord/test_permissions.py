"""Issue #15's permission matrix, through the real bot (tests/discord/harness.py).

Every slash command, subcommand and component the bot registers (enumerated from its
command tree, `DYNAMIC_ITEMS` and its modals: a new one without a row fails
`test_every_command_and_component_has_a_row`), tried by every role from every place:

- roles: the creator who plays soviet (an organiser), the German player, the game's
  co-moderator who plays no side (a referee), a server admin (Manage Server) of the game's
  server who plays no side, a server admin who plays german, an admin of another server,
  a spectator, a stranger in the game's channel;
- places: the game's channel, another channel of the same server, a channel of another
  server, a direct message with the bot.

The positions (korsun-1944, `Base`): "air", the first Air Phase with both sides' air
missions sealed (hidden counters both ways, sealed inputs before their reveal); and
"decision", the Soviet Combat Phase with a Soviet retreat decision open (its options are
the Soviet side's own). Each row says what every role gets from every place (`ROWS`:
allowed, or refused with which words); every cell also checks that nothing hidden from
its reader appears in anything the bot sent (the reply, public messages, DMs, private
threads, button labels): no id of a unit the reader's side does not see in full (ground
truth: `engine.view.view`, `known == "full"`), no enemy sealed air mission before its
reveal, no answer to another side's open decision, no map drawn for another viewer, no
word of the game to someone out of its reach. Autocomplete is checked the same way for
every option of every command (`test_autocomplete_*`).

A cell that changed the game (an allowed order, a join, an edit) is followed by a fresh
copy of the position, so each cell starts from the same one.

`test_no_output_depends_on_hidden_enemy_values` is the property test: random play
through `/orders`, then every look a player has (status, log, hexes, `/unit`
autocomplete, the map PNG) is taken again after the hidden values of the enemy units
that player cannot see are changed in the service's memory (as bot/fuzz.py `check_fog`
changes them), and must be identical.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands
from harness import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    CHANNEL2,
    GUILD,
    GUILD2,
    MOD,
    NEXT_DOOR,
    Harness,
    Person,
    Sent,
    bot_message,
    h,
    texts,
)

from bot.describe import answers
from bot.discord.views import (
    DYNAMIC_ITEMS,
    AnswerButton,
    CancelButton,
    ConfirmAttack,
    PageButton,
)
from bot.service import Caller
from engine.state import GameState
from engine.view import MODERATOR, SPECTATOR, view

__all__ = ["h"]  # the fixture

RITA = Person(100000000000000005, "Rita")  # the game's co-moderator, plays no side
ADA = Person(100000000000000006, "Ada", manage_guild=True)  # server admin, plays german
EVE = Person(100000000000000007, "Eve", admin_of=(GUILD2,))  # admin of another server
DAN = Person(100000000000000008, "Dan")  # in the game's channel, no seat

ROLES: dict[str, Person] = {
    "soviet": ALICE,  # created the game, plays soviet: an organiser
    "german": BOB,  # plays german
    "referee": RITA,  # a moderator of the game who plays no side
    "admin": MOD,  # Manage Server in the game's server, no seat: a referee there
    "admin-player": ADA,  # Manage Server in the game's server, plays german: an organiser
    "other-admin": EVE,  # Manage Server in another server only
    "spectator": CAROL,
    "stranger": DAN,
}
PLACES: dict[str, dict[str, Any]] = {
    "here": {"guild": GUILD, "channel": CHANNEL},  # the game's channel
    "next-door": {"guild": GUILD, "channel": NEXT_DOOR},  # another channel, same server
    "other-server": {"guild": GUILD2, "channel": CHANNEL2},
    "dm": {"dm": True},
}
# the view each person's private messages are written for: their seat's
SEAT_VIEW = {ALICE.id: "soviet", BOB.id: "german", ADA.id: "german", RITA.id: MODERATOR}
SEATED = {ALICE.id, BOB.id, ADA.id, RITA.id, CAROL.id}  # reach the game from a DM

PLACE_IF = (
    "place-if 5517 5721 5927 5315 5316 1323 1325 1520 1615 1618 2302 5215 5519 5620 5723 "
    "5724 5826 6129 6231 6332 0535 0733 0931 1129 1227 1422 1512 3301 5520 5522"
)
SOVIET_AIR: dict[str, Any] = {"flyer": "4", "mission": "support-attack", "target": "5927"}
GERMAN_AIR: dict[str, Any] = {"flyer": "2", "mission": "support-defence", "target": "5721"}
OWN = "s-31-inf"  # a Soviet unit on the map
RETREAT = f"retreat {OWN} 5920"  # an answer to its retreat decision (position "decision")


def reachable(role: str, place: str) -> bool:
    """Whether the game is within reach (docs/service.md, Roles: scoping)."""
    return place == "here" or (place == "dm" and ROLES[role].id in SEATED)


def caller_view(role: str, place: str) -> str:
    """Whose eyes the caller's own replies are for."""
    person = ROLES[role]
    if not reachable(role, place):
        return SPECTATOR  # nothing of the game, in fact; at most what the channel reads
    if place == "here" and role == "admin":
        return MODERATOR
    return SEAT_VIEW.get(person.id, SPECTATOR)


# --- the matrix --------------------------------------------------------------------------
#
# One row per command (and per moderator verb of `/mod act`, and per component), one
# column per role (in the order of ROLES); a single code fills a whole line. Codes:
#   ok        allowed, nothing refused          sealed   allowed: a sealed receipt
#   rule      allowed, then refused by the engine (a rule of the game, with its case)
#   export    the game record as a file         listed / unlisted   the game list names
#   unseen    "You see no unit" (the fog)                              the game or not
#   asks      a late join request sent to the moderators      modal   a form opens
#   gone      "there is no game 'x' here" (out of reach: scoping)
#   mods      only the game's moderators        referee  only a moderator who plays no side
#   player    only a moderator or a player      seat     you hold no seat / play no side
#   spectator spectators cannot give orders     answer   a moderator orders via `answer`
#   undo      only your own last input          one-side one person plays one side
#   taken     the side has a player             watching you already watch
#   running   a player cannot leave a running game        started  has already started
#   nodec     no decision of yours is open (a page of a decision's answers)
#   already   the game is already in this channel (/mod channel)
#   manage    only Manage Server                in-server  a server setting, not in a DM


@dataclass(frozen=True)
class Row:
    command: str  # the qualified name, or "component:Class" / "modal:Class"
    label: str
    here: str
    next_door: str
    other_server: str
    dm: str
    args: dict[str, Any] = field(default_factory=dict)
    position: str = "air"  # the position the cells start from: "air" or "decision"

    def expected(self, place: str) -> list[str]:
        line = {
            "here": self.here,
            "next-door": self.next_door,
            "other-server": self.other_server,
            "dm": self.dm,
        }[place]
        codes = line.split()
        return codes * len(ROLES) if len(codes) == 1 else codes


G = "{gid}"
#                       soviet   german   referee  admin    adm-pl   oth-adm  spect.   stranger
ROWS: list[Row] = [
    Row(
        "game new",
        "",
        "ok",
        "ok",
        "ok",
        "ok",
        {"scenario": "demo-steblev", "seed": 5},
    ),
    Row(
        "game join",
        "german",
        "one-side one-side taken    taken    one-side taken    taken    taken",
        "gone",
        "gone",
        "one-side one-side taken    gone     one-side gone     taken    gone",
        {"side": "german", "game": G},
    ),
    Row(
        "game leave",
        "",
        "running  running  seat     seat     running  seat     ok       seat",
        "gone",
        "gone",
        "running  running  seat     gone     running  gone     ok       gone",
        {"game": G},
    ),
    Row(
        "game opponent",
        "german",
        "referee  referee  taken    taken    referee  player   player   player",
        "gone",
        "gone",
        "referee  referee  taken    gone     referee  gone     player   gone",
        {"side": "german", "game": G},
    ),
    Row(
        "game start",
        "",
        "started  mods     started  started  started  mods     mods     mods",
        "gone",
        "gone",
        "started  mods     started  gone     mods     gone     mods     gone",
        {"game": G},
    ),
    Row("game status", "", "ok", "gone", "gone", "ok ok ok gone ok gone ok gone", {"game": G}),
    Row("game seats", "", "ok", "gone", "gone", "ok ok ok gone ok gone ok gone", {"game": G}),
    Row("game settings", "", "ok", "gone", "gone", "ok ok ok gone ok gone ok gone", {"game": G}),
    Row(
        "game resign",
        "",
        "ok       ok       seat     seat     ok       seat     seat     seat",
        "gone",
        "gone",
        "ok       ok       seat     gone     ok       gone     seat     gone",
        {"game": G},
    ),
    Row(
        "game export",
        "",
        "referee  referee  export   export   referee  referee  referee  referee",
        "gone",
        "gone",
        "referee  referee  export   gone     referee  gone     referee  gone",
        {"game": G},
    ),
    Row(
        "game list",
        "",
        "listed",
        "unlisted",
        "unlisted",
        "listed   listed   listed   unlisted listed   unlisted listed   unlisted",
    ),
    Row(
        "spectate",
        "",
        "ok       ok       ok       ok       ok       ok       watching ok",
        "gone",
        "gone",
        "ok       ok       ok       gone     ok       gone     watching gone",
        {"game": G},
    ),
    Row(
        "map",
        "private",
        "ok",
        "gone",
        "gone",
        "ok ok ok gone ok gone ok gone",
        {"around": "5927", "radius": 2, "game": G},
    ),
    Row(
        "map",
        "public",
        "ok",
        "gone",
        "gone",
        "ok ok ok gone ok gone ok gone",
        {"around": "5721", "radius": 2, "private": False, "game": G},
    ),
    Row(
        "hex",
        "with hidden German units",
        "ok",
        "gone",
        "gone",
        "ok ok ok gone ok gone ok gone",
        {"hex": "{german_hex}", "game": G},
    ),
    Row(
        "hex",
        "with hidden Soviet units",
        "ok",
        "gone",
        "gone",
        "ok ok ok gone ok gone ok gone",
        {"hex": "{soviet_hex}", "game": G},
    ),
    Row(
        "unit",
        "hidden German unit",
        "unseen   ok       ok       ok       ok       unseen   unseen   unseen",
        "gone",
        "gone",
        "unseen   ok       ok       gone     ok       gone     unseen   gone",
        {"unit": "{hidden}", "game": G},
    ),
    Row(
        "odds",
        "",
        "rule     rule     answer   answer   rule     seat     spectator seat",
        "gone",
        "gone",
        "rule     rule     answer   gone     rule     gone     spectator gone",
        {"units": OWN, "target": "5721", "game": G},
    ),
    Row(
        "log", "", "ok", "gone", "gone", "ok ok ok gone ok gone ok gone", {"lines": 200, "game": G}
    ),
    Row("rule", "", "ok", "ok", "ok", "ok", {"case": "5.1.3"}),
]
# the orders: allowed for the players (the engine then judges them), never for others
ORDER_HERE = "{a}      {b}      answer   answer   {b}      seat     spectator seat"
ORDER_DM = "{a}      {b}      answer   gone     {b}      gone     spectator gone"


def order_row(command: str, args: dict[str, Any], a: str = "rule", b: str = "rule") -> Row:
    return Row(
        command,
        "",
        ORDER_HERE.format(a=a, b=b),
        "gone",
        "gone",
        ORDER_DM.format(a=a, b=b),
        args | {"game": G},
    )


ROWS += [
    order_row("move", {"unit": OWN, "to": "5920"}),
    order_row("attack", {"units": OWN, "target": "5721"}),
    order_row("fire", {"target": "5721", "units": OWN}),
    order_row("fortify", {"units": OWN}),
    order_row("strategic", {"units": OWN}),
    order_row("enter", {"units": OWN, "where": "5920"}),
    order_row("bridge", {"action": "destroy", "hexside": "5516/5517"}),
    order_row("air", dict(SOVIET_AIR), a="sealed"),
    order_row("mask", {"hex": "5927", "state": "on"}),
    order_row("done", {}, a="ok", b="ok"),
    order_row("undo", {}, a="undo", b="ok"),  # the last input is Bob's air mission
    Row("orders", "opens the form", "modal", "modal", "modal", "modal", {"game": G}),
    order_row("modal:Orders", {"text": "done"}, a="ok", b="ok"),
    Row(
        "mod act",
        "pause (scheduling)",
        "ok       mods     ok       ok       ok       mods     mods     mods",
        "gone",
        "gone",
        "ok       mods     ok       gone     mods     gone     mods     gone",
        {"text": "pause", "game": G},
    ),
    Row(
        "mod act",
        "cel of a hidden unit (position edit)",
        "referee  mods     ok       ok       referee  mods     mods     mods",
        "gone",
        "gone",
        "referee  mods     ok       gone     mods     gone     mods     gone",
        {"text": "cel {hidden} 1", "game": G},
    ),
    Row(
        "mod act",
        "moderator (seats)",
        "referee  mods     ok       ok       referee  mods     mods     mods",
        "gone",
        "gone",
        "referee  mods     ok       gone     mods     gone     mods     gone",
        {"text": f"moderator <@{DAN.id}>", "game": G},
    ),
    Row(
        "mod role",
        "unset",
        "manage   manage   manage   ok       ok       manage   manage   manage",
        "manage   manage   manage   ok       ok       manage   manage   manage",
        "manage   manage   manage   manage   manage   ok       manage   manage",
        "in-server",
    ),
    Row("mod help", "", "ok", "ok", "ok", "ok"),
    Row(
        "mod channel",
        "move the game to the channel used",
        "referee  referee  already  already  referee  referee  referee  referee",
        "referee  referee  ok       ok       referee  referee  referee  referee",
        "referee",
        "in-server",
        {"game": G},
    ),
    Row("help", "", "ok", "ok", "ok", "ok"),
    Row("help", "a command", "ok", "ok", "ok", "ok", {"topic": "move"}),
    # leagues (issue #20) belong to a server, not to a game's channel
    Row("league list", "", "ok", "ok", "ok", "ok"),
    Row(
        "league new",
        "server moderators only, in their own server",
        "srvmod   srvmod   srvmod   ok       ok       srvmod   srvmod   srvmod",
        "srvmod   srvmod   srvmod   ok       ok       srvmod   srvmod   srvmod",
        "srvmod   srvmod   srvmod   srvmod   srvmod   ok       srvmod   srvmod",
        "srvmod",
        {"name": "Cup"},
    ),
    *[
        Row(
            f"league {verb}",
            "a season of no server",
            "noseason",
            "noseason",
            "noseason",
            "noseason",
            {"season": "snone", **extra},
        )
        for verb, extra in (
            ("standings", {}),
            ("pairings", {}),
            ("join", {}),
            ("leave", {}),
            ("start", {}),
            ("close", {}),
            ("export", {}),
            ("decide", {"game": "r1.1", "outcome": "draw", "reason": "x"}),
        )
    ],
    Row(
        "league divide",
        "a season of no server",
        "noseason",
        "noseason",
        "noseason",
        "noseason",
        {"season": "snone", "divisions": 2},
    ),
    Row(
        "league bid",
        "a season of no server",
        "noseason",
        "noseason",
        "noseason",
        "noseason",
        {"season": "snone", "pairing": "r1.1", "side": "soviet", "vp": 3},
    ),
    Row(
        "league challenge",
        "a season of no server",
        "noseason",
        "noseason",
        "noseason",
        "noseason",
        {"season": "snone", "player": "Bob"},
    ),
    Row(
        "league season",
        "a league of no server",
        "noleague",
        "noleague",
        "noleague",
        "noleague",
        {"league": "lnone", "name": "Winter"},
    ),
    Row(
        "league set",
        "a league of no server",
        "noleague",
        "noleague",
        "noleague",
        "noleague",
        {"league": "lnone", "data": "shipped"},
    ),
    Row(
        "league player",
        "a league of no server",
        "noleague",
        "noleague",
        "noleague",
        "noleague",
        {"league": "lnone"},
    ),
    Row(
        "game verify",
        "before the end: the seed is secret",
        "notover  notover  ok       ok       notover  notover  notover  notover",
        "gone",
        "gone",
        "notover  notover  ok       gone     notover  gone     notover  gone",
        {"game": G},
    ),
    Row(
        "decision",
        "no decision open",
        "nodec    nodec    nodec    nodec    nodec    nodec    nodec    nodec",
        "gone",
        "gone",
        "nodec    nodec    nodec    gone     nodec    gone     nodec    gone",
        {"game": G},
    ),
    # an answer's number with no decision open (issue #17: buttons send the number)
    order_row("component:AnswerButton", {"label": "pass"}, a="nodec", b="nodec"),
    order_row("component:ConfirmAttack", {"attack": f"attack {OWN} -> 5721"}),
    Row("component:CancelButton", "", "ok", "ok", "ok", "ok"),
]
# The second position: the Soviet attacked in the Combat Phase and must decide a retreat
# (its options are the Soviet side's own); the air missions have flown.
LOOK = ("ok", "gone", "gone", "ok ok ok gone ok gone ok gone")
ROWS += [
    replace(Row("game status", "", *LOOK, {"game": G}), position="decision"),
    replace(Row("log", "", *LOOK, {"lines": 200, "game": G}), position="decision"),
    replace(
        Row("map", "private", *LOOK, {"around": "5721", "radius": 2, "game": G}),
        position="decision",
    ),
    replace(order_row("done", {}), position="decision"),
    replace(order_row("modal:Orders", {"text": RETREAT}, a="ok"), position="decision"),
    replace(
        order_row("component:AnswerButton", {"label": RETREAT}, a="ok", b="nodec"),
        position="decision",
    ),
    Row(
        "decision",
        "the open decision again",
        "ok       nodec    nodec    nodec    nodec    nodec    nodec    nodec",
        "gone",
        "gone",
        "ok       nodec    nodec    gone     nodec    gone     nodec    gone",
        {"game": G},
        position="decision",
    ),
    Row(
        "component:PageButton",
        "more answers of the decision",
        "ok       nodec    nodec    nodec    nodec    nodec    nodec    nodec",
        "gone",
        "gone",
        "ok       nodec    nodec    gone     nodec    gone     nodec    gone",
        {"game": G},
        position="decision",
    ),
    Row(
        "mod act",
        "answer for a side",
        "referee  mods     ok       ok       referee  mods     mods     mods",
        "gone",
        "gone",
        "referee  mods     ok       gone     mods     gone     mods     gone",
        {"text": f"answer soviet {RETREAT}", "game": G},
        position="decision",
    ),
]

REFUSALS: list[tuple[str, str]] = [
    ("gone", r"there is no game '.*' here"),
    ("nodec", r"no decision of yours is open"),
    ("mods", r"only the game's moderator"),
    ("player", r"only a moderator or a player"),
    ("referee", r"moderator who plays no side"),
    ("seat", r"you hold no seat|you play no side"),
    ("spectator", r"spectators cannot give orders"),
    ("answer", r"gives orders for a side with `answer"),
    ("undo", r"you may undo only your own"),
    ("manage", r"only members with Manage Server"),
    ("in-server", r"use this in a server"),
    ("already", r"is already in this channel"),
    ("one-side", r"one person plays one side|you already play"),
    ("taken", r"has started and \w+ has a player|already has a player"),
    ("watching", r"you already watch"),
    ("running", r"cannot leave a running game"),
    ("started", r"has already started"),
    ("notover", r"is not over: its dice seed"),
    ("srvmod", r"only the server's moderators"),
    ("noseason", r"there is no season '.*' in this server"),
    ("noleague", r"there is no league '.*' in this server"),
    # the engine's refusal: the order line, then why, with the rule case where there is one
    ("rule", r"(?m)⚠ [^\n]* — |\(\d+(\.\d+)+[a-z]?\)\.?$"),
]


# --- ground truth: what each viewer may not read ----------------------------------------


def hidden_ids(state: GameState, viewer: str) -> set[str]:
    """Units the viewer does not see in full now."""
    if viewer == MODERATOR:
        return set()
    seen = {u.id for u in view(state, viewer).units if u.id and u.known == "full"}
    return set(state.units) - seen


def sealed_marks(state: GameState, viewer: str) -> set[str]:
    """Regexes of the enemy's sealed air missions not yet revealed."""
    out = set()
    for x in view(state, MODERATOR).sealed:
        item = x.get("item") or {}
        if viewer == MODERATOR or x["side"] == viewer or x["kind"] != "air":
            continue
        out.add(
            rf"{re.escape(str(item['mission']))}\W+(?:target=)?{re.escape(str(item['target']))}"
        )
    return out


def decision_marks(state: GameState, viewer: str) -> set[str]:
    """The answers another side has to its open decision (its options are its own)."""
    out = set()
    for d in state.pending:
        if viewer in (MODERATOR, d.side):
            continue
        for line in answers(d.kind, d.options, side=d.side, state=state):
            if len(line.split()) > 2:  # a path or a choice, not the bare unit
                out.add(r"(?<![\w-])" + re.escape(line) + r"(?![\w-])")
    return out


@dataclass
class Secrets:
    ids: set[str]
    marks: set[str]

    def found(self, text: str) -> list[str]:
        hits = [m for m in self.marks if re.search(m, text)]
        if self.ids:
            pattern = r"(?<![\w-])(" + "|".join(map(re.escape, self.ids)) + r")(?![\w-])"
            hits += sorted(set(re.findall(pattern, text)))
        return hits


def secrets(before: GameState, after: GameState, viewer: str) -> Secrets:
    """What `viewer` may not read in what a cell sent: the units hidden from it before
    and after (one revealed in between may be named), the enemy's sealed inputs and open
    decisions after it."""
    return Secrets(
        hidden_ids(before, viewer) & hidden_ids(after, viewer),
        # sealed inputs and decisions still open after the cell (new ones included)
        sealed_marks(after, viewer) | decision_marks(after, viewer),
    )


def reader_of(s: Sent, role: str, place: str) -> str:
    """The viewer whose eyes a message reaches."""
    if s.where in ("response", "followup", "edit"):
        if place == "dm" or s.ephemeral or not s.content:
            return caller_view(role, place)
        return SPECTATOR  # a public answer in a channel
    if s.where == "dm":
        return SEAT_VIEW.get(int(s.target), SPECTATOR)
    if s.where == "thread":
        found = re.match(r"<@(\d+)>", s.content)
        return SEAT_VIEW.get(int(found.group(1)), SPECTATOR) if found else SPECTATOR
    return SPECTATOR  # the game's channel


def readable(s: Sent) -> str:
    labels = [str(b.get("label") or "") + " " + str(b.get("custom_id") or "") for b in s.buttons()]
    return "\n".join([s.content, *labels])


# --- running a cell ----------------------------------------------------------------------


@dataclass
class Base:
    db: dict[str, Path]  # the position's database, by POSITIONS name
    gid: str
    hidden: str  # a German unit on the map the Soviet side does not see in full
    german_hex: str  # where it is
    soviet_hex: str  # a hex with a Soviet unit the German side does not see in full


def _caller(p: Person) -> Caller:
    return Caller(str(p.id), p.name, guild=str(GUILD), channel=str(CHANNEL))


def _ok(out: list[Sent]) -> None:
    assert "⚠" not in "\n".join(s.content for s in out), [s.content for s in out]


async def _build(path: Path) -> Base:
    h = Harness(str(path))
    await h.start()
    try:
        assert h.ref is not None
        _ok(await h.command(ALICE, "game new", scenario="korsun-1944", side="soviet", seed=1))
        gid = str((await h.ref.games(_caller(ALICE)))[0]["id"])
        _ok(await h.command(BOB, "game join", side="german", game=gid))
        _ok(await h.command(MOD, "mod act", text=f"moderator <@{RITA.id}> Rita", game=gid))
        _ok(await h.command(RITA, "mod act", text=f"seat german <@{ADA.id}> Ada", game=gid))
        _ok(await h.command(CAROL, "spectate", game=gid))
        await h.ref.orders(_caller(BOB), gid, PLACE_IF)
        g = await h.ref.game(gid)
        while "Air Phase" not in g.where():
            for side in g.awaited():
                await h.ref.orders(_caller(ALICE if side == "soviet" else BOB), gid, "done")
        _ok(await h.command(ALICE, "air", game=gid, **SOVIET_AIR))
        _ok(await h.command(BOB, "air", game=gid, **GERMAN_AIR))
        assert len(g.state.sealed) == 2 and g.status == "active"
        hidden = {s: sorted(hidden_ids(g.state, s)) for s in ("soviet", "german")}
        unit = next(u for u in hidden["soviet"] if g.state.units[u].hex)
        soviet = next(u for u in hidden["german"] if g.state.units[u].hex)
        german_hex, soviet_hex = g.state.units[unit].hex, g.state.units[soviet].hex
        assert german_hex and soviet_hex
        await h.stop()
        air = path.with_name("air.db")
        shutil.copyfile(path, air)
        await h.start()
        assert h.ref is not None
        # on to the Soviet Combat Phase: an attack leaves the Soviet a retreat decision
        for who in (ALICE, BOB, ALICE):
            _ok(await h.command(who, "done", game=gid))
        _ok(await h.command(ALICE, "orders", game=gid))  # (the form; answered directly)
        await h.ref.orders(_caller(ALICE), gid, f"attack {OWN} -> 5721")
        g = await h.ref.game(gid)
        assert [(d.side, d.kind) for d in g.state.pending] == [("soviet", "retreat")]
        d = g.state.pending[0]
        assert RETREAT in answers(d.kind, d.options, side=d.side, state=g.state)
        await h.stop()
        decision = path.with_name("decision.db")
        shutil.copyfile(path, decision)
        return Base({"air": air, "decision": decision}, gid, unit, german_hex, soviet_hex)
    finally:
        if h.ref is not None:
            await h.stop()
        h.close()


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Base:
    import asyncio

    return asyncio.run(_build(tmp_path_factory.mktemp("matrix") / "base.db"))


class Matrix:
    """A bot over a copy of the base position; `fresh()` again after a cell changed it."""

    def __init__(self, base: Base, where: Path) -> None:
        self.base = base
        self.path = where / "game.db"
        self.h = Harness(str(self.path))
        self.changes = -1
        self.resets = 0
        self.position = ""

    async def fresh(self, position: str = "air") -> Harness:
        await self.h.stop()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(self.base.db[position], self.path)
        self.position = position
        await self.h.start()
        self.changes = self._changes()
        self.resets += 1
        return self.h

    def _changes(self) -> int:
        if self.h.ref is None:
            return -1
        return int(self.h.ref.store._db.total_changes)

    async def harness(self, position: str = "air") -> Harness:
        if self.h.ref is None or self._changes() != self.changes or position != self.position:
            return await self.fresh(position)
        return self.h

    async def close(self) -> None:
        await self.h.stop()
        self.h.close()

    def fill(self, value: Any) -> Any:
        if isinstance(value, str):
            for key, fill in (
                ("{gid}", self.base.gid),
                ("{hidden}", self.base.hidden),
                ("{german_hex}", self.base.german_hex),
                ("{soviet_hex}", self.base.soviet_hex),
            ):
                value = value.replace(key, fill)
        return value


@pytest.fixture
async def m(base: Base, tmp_path: Path) -> AsyncIterator[Matrix]:
    mx = Matrix(base, tmp_path)
    yield mx
    await mx.close()


Act = Callable[[Harness, Person, dict[str, Any]], Awaitable[list[Sent]]]


async def act(
    mx: Matrix, h: Harness, row: Row, person: Person, where: dict[str, Any]
) -> list[Sent]:
    """The row's interaction, by `person` from `where`."""
    args = {k: mx.fill(v) for k, v in row.args.items()}
    gid = mx.base.gid
    if row.command == "modal:Orders":
        opened = await h.command(person, "orders", game=gid, **where)
        assert opened[-1].type == 9, opened  # the form
        return await h.submit_modal(person, opened[-1], [args["text"]], **where)
    if row.command.startswith("component:"):
        assert h.ref is not None
        at = (await h.ref.game(gid)).last_event
        if row.command == "component:AnswerButton":
            item: discord.ui.DynamicItem[Any] = AnswerButton(gid, at, 0, args["label"])
            content = f"Game {gid}: a decision"
        elif row.command == "component:PageButton":
            item = PageButton(gid, at, 0, 1)
            content = f"Game {gid}: a decision"
        elif row.command == "component:ConfirmAttack":
            item = ConfirmAttack(gid, at)
            content = f"Attack preview\n`{args['attack']}`"
        else:
            item = CancelButton()
            content = "Attack preview"
        button = item.item.to_component_dict()
        msg = bot_message(content, [button])
        return await h.click(person, msg, str(button["label"]), **where)
    return await h.command(person, row.command, **where, **args)


def outcome(row: Row, out: list[Sent], gid: str) -> str:
    mine = [s for s in out if s.where in ("response", "followup", "edit")]
    text = "\n".join(s.content for s in mine)
    if any(s.type == 9 for s in mine):
        return "modal"
    if any(name.endswith(".yaml") for s in mine for name in s.files):
        return "export"
    if "⚠" in text:
        for code, pattern in REFUSALS:
            if re.search(pattern, text):
                return code
        return "?" + text.strip()[:80]
    if row.command == "game list":
        return "listed" if gid in text else "unlisted"
    if "request to play" in text and "moderators" in text:
        return "asks"
    if "You see no unit" in text:
        return "unseen"
    if "🔒 Sealed" in text:
        return "sealed"
    return "ok"


async def map_bytes(h: Harness, gid: str, viewer: str, around: str | None, radius: int) -> bytes:
    assert h.ref is not None
    g = await h.ref.game(gid)
    return await h.ref._draw(g, viewer, around, radius, True)


async def cell(mx: Matrix, row: Row, role: str, place: str) -> tuple[str, list[str]]:
    """Run one cell: its outcome, and every leak found in what the bot sent."""
    h = await mx.harness(row.position)
    assert h.ref is not None
    gid = mx.base.gid
    before = (await h.ref.game(gid)).state.clone()
    out = await act(mx, h, row, ROLES[role], PLACES[place])
    after = (await h.ref.game(gid)).state
    leaks: list[str] = []
    echoes = [f"'{mx.fill(v)}'" for v in row.args.values() if isinstance(v, str)]
    # a refused /orders form gives its text back to copy (issue #17: nothing typed is lost)
    echoes += [f"```\n{mx.fill(v)}\n```" for v in row.args.values() if isinstance(v, str)]
    for s in out:
        reader = reader_of(s, role, place)
        text = readable(s)
        if s.where in ("response", "followup", "edit"):
            for echo in echoes:  # the caller's own words, quoted back
                text = text.replace(echo, "")
            # a refused order line is the caller's own, echoed before the reason
            text = re.sub(r"(?m)^⚠ [^\n]*? — ", "⚠ ", text)
        found = secrets(before, after, reader).found(text)
        if found:
            leaks.append(f"{s.where} to {reader}: {found} in {s.content[:120]!r}")
        moved = row.command == "mod channel"  # the game is then reached from here
        if not reachable(role, place) and not moved and re.search(rf"\b{gid}\b", text):
            leaks.append(f"{s.where}: a message about a game out of reach: {s.content[:80]!r}")
        for name, data in zip(s.files, s.data, strict=True):
            if not name.endswith(".png"):
                continue
            if row.command == "map":
                around, radius = str(row.args["around"]), int(row.args["radius"])
                if row.args.get("private") is False:  # a public map: the spectator's view
                    reader = SPECTATOR
                drawn = [await map_bytes(h, gid, reader, around, radius)]
            else:  # a notice's crop (issue #17): around a hex it names, or the reader's focus
                from engine.view import view
                from render import focus_hex

                g = await h.ref.game(gid)
                named = set(re.findall(r"\b\d{4}\b", text)) & set(g.setup.map.grid.all_hexes())
                focus = focus_hex(g.setup.map, view(g.state, reader), 4)
                drawn = [
                    await map_bytes(h, gid, reader, x, 4) for x in (None, focus, *sorted(named))
                ]
            if data not in drawn:
                leaks.append(f"{s.where}: a map {name} not drawn for {reader}")
    return outcome(row, out, gid), leaks


def row_id(row: Row) -> str:
    return f"{row.position}:{row.command} {row.label}".strip().replace(" ", "_")


@pytest.mark.parametrize("row", ROWS, ids=row_id)
async def test_permission_matrix(m: Matrix, row: Row) -> None:
    got: dict[str, list[str]] = {}
    wrong: list[str] = []
    leaks: list[str] = []
    for place in PLACES:
        want = row.expected(place)
        assert len(want) == len(ROLES), (row, place)
        got[place] = []
        for role, expected in zip(ROLES, want, strict=True):
            code, found = await cell(m, row, role, place)
            got[place].append(code)
            if code != expected:
                wrong.append(f"{role}@{place}: expected {expected}, got {code}")
            leaks += [f"{role}@{place}: {x}" for x in found]
    if os.environ.get("PERMISSION_MATRIX_DUMP"):
        print(f"\n{row_id(row)}", file=sys.__stderr__)
        for place, codes in got.items():
            print(f"  {place:13}" + " ".join(f"{c:8}" for c in codes), file=sys.__stderr__)
    assert not leaks, "\n".join(leaks)
    assert not wrong, "\n".join(wrong)


# --- every command and component has a row ------------------------------------------------


def leaf_commands() -> dict[str, app_commands.Command[Any, ..., Any]]:
    """The commands `register` puts on the bot's tree (cogs' COMMANDS), by qualified name."""
    from bot.discord.cogs import game, help, league, looking, mod, orders

    out: dict[str, app_commands.Command[Any, ..., Any]] = {}
    for module in (game, orders, looking, mod, league, help):
        for c in module.COMMANDS:
            if isinstance(c, app_commands.Group):
                out.update(
                    {
                        x.qualified_name: x
                        for x in c.walk_commands()
                        if isinstance(x, app_commands.Command)
                    }
                )
            else:
                out[c.qualified_name] = c
    return out


def modal_classes() -> list[type[discord.ui.Modal]]:
    import bot.discord.cogs  # noqa: F401  (the modals are defined with their commands)

    return [c for c in discord.ui.Modal.__subclasses__() if c.__module__.startswith("bot.discord")]


async def test_every_command_and_component_has_a_row(m: Matrix) -> None:
    h = await m.harness()
    assert h.bot is not None
    tree = {
        c.qualified_name for c in h.bot.tree.walk_commands() if isinstance(c, app_commands.Command)
    }
    assert tree == set(leaf_commands())  # the bot registers exactly the cogs' commands
    components = {f"component:{c.__name__}" for c in DYNAMIC_ITEMS}
    components |= {f"modal:{c.__name__}" for c in modal_classes()}
    assert {r.command for r in ROWS} == tree | components
    assert len(PLACES) * len(ROLES) * len(ROWS) >= 1000  # cells in the matrix


# --- autocomplete -------------------------------------------------------------------------

# what else an option's autocomplete reads from the interaction's other options
CONTEXT: dict[str, dict[str, str]] = {
    "to": {"unit": OWN},
    "target": {"units": OWN, "mission": "support-attack"},
    "units": {"target": "5721"},
}


def autocompleted() -> list[tuple[str, str]]:
    return [
        (name, p.name)
        for name, c in sorted(leaf_commands().items())
        for p in c.parameters
        if p.autocomplete
    ]


@pytest.mark.parametrize(
    "command", sorted({c for c, _ in autocompleted()}), ids=lambda c: c.replace(" ", "_")
)
async def test_autocomplete_shows_nothing_hidden_and_no_game_out_of_reach(
    m: Matrix, command: str
) -> None:
    h = await m.harness()
    assert h.ref is not None
    gid = m.base.gid
    state = (await h.ref.game(gid)).state
    options = [p for c, p in autocompleted() if c == command]
    leaks: list[str] = []
    for place, where in PLACES.items():
        for role, person in ROLES.items():
            known = secrets(state, state, caller_view(role, place))
            for option in options:
                if option == "game":
                    tries: list[dict[str, Any]] = [{"game": ""}]
                else:
                    extra = {k: v for k, v in CONTEXT.get(option, {}).items() if k != option}
                    tries = [
                        {option: typed} | extra | named
                        for typed in (("", "g-", "s-") if "unit" in option else ("",))
                        for named in ({"game": gid}, {})
                    ]
                for given in tries:
                    got = await h.autocomplete(person, command, option, **where, **given)
                    said = "\n".join(f"{c['name']} {c['value']}" for c in got)
                    found = known.found(said)
                    if found:
                        leaks.append(f"{role}@{place} /{command} {option}={given}: {found}")
                    if option == "game" and (gid in said) != reachable(role, place):
                        leaks.append(f"{role}@{place} /{command} game: {said!r}")
                    if (
                        option != "game"
                        and not reachable(role, place)
                        and re.search(rf"\b{gid}\b", said)
                    ):
                        leaks.append(f"{role}@{place} /{command} {option}: names the game")
    assert await m.harness() is h  # looking changed nothing
    assert not leaks, "\n".join(leaks)


# --- the property: nothing a player receives depends on hidden enemy values ---------------

PROPERTY_SECONDS = 9.0  # per scenario


def perturbed(state: GameState, viewer: str) -> tuple[GameState, list[str]]:
    """`state` with the hidden values of the enemy units `viewer` cannot see changed, as
    bot/fuzz.py `check_fog` changes them (the same function)."""
    from bot.fuzz import perturbed as changed

    return changed(state, viewer)


async def looks(h: Harness, person: Person, gid: str, hexes: list[str], enemy: str) -> list[Any]:
    """Everything a player can look at: status, log, hexes, the /unit autocomplete, the
    map (text and PNG bytes)."""
    out: list[Any] = []
    asks: list[tuple[str, dict[str, Any]]] = [
        ("game status", {}),
        ("log", {"lines": 200}),
        *[("hex", {"hex": x}) for x in hexes],
        ("map", {}),
    ]
    for path, opts in asks:
        sent = await h.command(person, path, game=gid, **opts)
        out.append(
            [(s.where, s.target if s.where == "dm" else "", s.content, s.data) for s in sent]
        )
    for typed in ("", enemy):
        out.append(await h.autocomplete(person, "unit", "unit", unit=typed, game=gid))
    return out


async def play_and_compare(
    h: Harness, scenario: str, seed: int, until: float
) -> tuple[int, int, int]:
    """Random play of one game through `/orders`; at every change of phase (and every 8
    inputs), each player's looks with and without the hidden enemy values changed.
    Returns (inputs, inputs refused, comparisons)."""
    from bot.fuzz import RandomPlayer
    from engine.notation import format_order

    assert h.ref is not None
    out = await h.command(ALICE, "game new", scenario=scenario, side="soviet", seed=seed)
    gid = next(s.content.split("**")[1] for s in out if s.where == "channel")
    await h.command(BOB, "game join", side="german", game=gid)
    g = await h.ref.game(gid)
    people = {"soviet": ALICE, "german": BOB}
    rng = random.Random(seed)
    player = RandomPlayer()
    inputs = refused = compared = 0
    last_phase = None
    while time.monotonic() < until and g.status == "active" and not g.state.over:
        phase = (g.state.turn, g.state.phase)
        if phase != last_phase or inputs % 8 == 0:
            last_phase = phase
            for side, person in people.items():
                original = g.record.state
                other, changed = perturbed(original, side)
                if not changed:
                    continue
                enemy = next(u.id for u in original.units.values() if u.side != side)[:2]
                hexes = sorted({x for u in changed if (x := original.units[u].hex)})[:3]
                seen = await looks(h, person, gid, hexes, enemy)
                g.record.state = other
                try:
                    again = await looks(h, person, gid, hexes, enemy)
                finally:
                    g.record.state = original
                for a, b in zip(seen, again, strict=True):
                    assert a == b, f"{scenario} seed {seed}, {side}: {a!r:.300} != {b!r:.300}"
                compared += 1
        side = rng.choice(g.awaited())
        order = player.choose(g.state, side, rng)
        line = format_order(order) if order is not None else "done"
        opened = await h.command(people[side], "orders", game=gid)
        sent = await h.submit_modal(people[side], opened[-1], [line])
        inputs += 1
        refused += "⚠" in texts(sent)
    return inputs, refused, compared


@pytest.mark.parametrize("scenario", ["demo-steblev", "demo-kursk"])
async def test_no_output_depends_on_hidden_enemy_values(h: Harness, scenario: str) -> None:
    """Games one after another (seeded) until the time is up."""
    until = time.monotonic() + PROPERTY_SECONDS
    seeds = random.Random(scenario)
    games = inputs = refused = compared = 0
    while time.monotonic() < until:
        got = await play_and_compare(h, scenario, seeds.randrange(1, 10**6), until)
        games += 1
        inputs, refused, compared = inputs + got[0], refused + got[1], compared + got[2]
    assert inputs >= 20 and compared >= 4 and refused < inputs, (games, inputs, compared)
    if os.environ.get("PERMISSION_MATRIX_DUMP"):
        print(scenario, games, inputs, refused, compared, file=sys.__stderr__)


# --- findings -----------------------------------------------------------------------------


async def test_moderator_messages_reach_only_moderators_who_play_no_side(h: Harness) -> None:
    """A reply for the game's moderators may name hidden counters (a stuck opponent's
    refused order, a deadline policy that could not go on): the creator who plays a side
    (an organiser) does not get it; the co-moderator who plays no side does. A request to
    join, which hides nothing, goes to both."""
    from bot.service import Reply

    assert h.ref is not None and h.bot is not None
    out = await h.command(ALICE, "game new", scenario="demo-steblev", side="soviet", seed=3)
    gid = next(s.content.split("**")[1] for s in out if s.where == "channel")
    await h.command(BOB, "game join", side="german", game=gid)
    await h.command(MOD, "mod act", text=f"moderator <@{RITA.id}> Rita", game=gid)
    before = len(h.sent)
    secret = "german: losses g-secret was refused"
    await h.bot.notifier.deliver([Reply("moderators", f"Game {gid} paused: {secret}", game=gid)])
    dms = {s.target for s in h.sent[before:] if s.where == "dm" and secret in s.content}
    assert dms == {str(RITA.id)}
    await h.command(RITA, "mod act", text=f"unseat <@{BOB.id}>", game=gid)  # german is empty
    before = len(h.sent)
    out = await h.command(DAN, "game join", side="german", game=gid)
    assert "went to its moderators" in texts(out)
    dms = {s.target for s in h.sent[before:] if s.where == "dm" and "asks to play" in s.content}
    assert dms == {str(RITA.id), str(ALICE.id)}


async def test_a_started_games_empty_side_is_filled_through_its_referee(tmp_path: Path) -> None:
    """A player may not put the built-in opponent on the other side once the game runs
    (it substitutes the opponent without the moderators); a referee may."""
    from bot.service import Referee, Refusal

    ref = await Referee.open(tmp_path / "k.db")  # with the shipped opponent
    try:
        alice, bob, rita = _caller(ALICE), _caller(BOB), _caller(RITA)
        gid = (await ref.new_game(alice, "demo-steblev", seed=3, side="soviet"))[0].game
        assert gid is not None
        await ref.join(bob, gid, "german")
        admin = Caller(str(MOD.id), "Mo", server_mod=True, guild=str(GUILD), channel=str(CHANNEL))
        await ref.mod(admin, gid, f"moderator {RITA.id} Rita")
        await ref.mod(rita, gid, f"unseat {BOB.id}")  # german is empty: paused
        with pytest.raises(Refusal, match=r"has started: a moderator who plays no side"):
            await ref.seat_ai(alice, gid, "german")  # the other player, an organiser too
        with pytest.raises(Refusal, match=r"only a moderator or a player"):
            await ref.seat_ai(bob, gid, "german")  # no seat now
        out = await ref.seat_ai(rita, gid, "german")
        assert "built-in opponent plays german" in out[0].text
    finally:
        await ref.close()
