"""The describe layer (issue #17, bot/describe.py): every event, decision and sealed receipt
a player reads is a sentence, never a Python repr.

- Fuzzed games (bot/fuzz.py RandomPlayer) over several shipped scenarios and seeds: every
  event as each viewer reads it (engine.view.visible_events) and every decision prompt of
  every kind, as the deciding side reads it, is checked for reprs.
- Every event kind the engine emits (`emit("kind"` in engine/) has an entry in the layer,
  and each one stays readable with every field redacted to None.
- A newcomer's game of the-retreat against the built-in opponent through local play: the
  whole transcript has no reprs, and every decision prompt names its combat.
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

from bot import describe
from bot.fuzz import RandomPlayer
from bot.script import describe_event
from engine import orders as o
from engine.core import Applied, Event
from engine.notation import USAGE, format_order
from engine.record import GameRecord
from engine.redaction import EVENTS
from engine.view import MODERATOR, SPECTATOR, view, visible_events
from engine.wb95 import defaults, flow
from scenarios import load_scenario

ENGINE = Path(__file__).resolve().parents[1] / "engine"

# what a Python repr leaves in text: brackets, None, key=value pairs, snake_case names
_REPR = re.compile(
    r"[{}\[\]]|\bNone\b|\b\w+=\S|(?:^|\s)_\w|\b[a-z]+_[a-z_]+\b|\bTrue\b|\bFalse\b|'\w+':"
)


def reprs(text: str) -> list[str]:
    """What in `text` looks like a Python repr (an order form's `[HEX...]` does not)."""
    for form in sorted(USAGE.values(), key=len, reverse=True):
        text = text.replace(form, "")
    return [m.group() for m in _REPR.finditer(text)]


def emitted_kinds(system: str = "wb95") -> set[str]:
    """Every `emit("kind", ...)` in the engine's core and the system's package."""
    kinds: set[str] = set()
    for path in [*ENGINE.glob("*.py"), *(ENGINE / system).rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "emit"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                kinds.add(node.args[0].value)
    return kinds


def test_every_emitted_event_kind_has_a_describe_entry() -> None:
    kinds = emitted_kinds()
    assert len(kinds) > 60
    missing = kinds - describe.described_kinds()
    assert not missing, f"no describe entry for {sorted(missing)}"
    # bookkeeping kinds say nothing on purpose; every other kind has a sentence
    assert kinds >= describe.SILENT
    assert len(kinds - describe.SILENT) > 60


@pytest.mark.parametrize("kind", sorted(EVENTS))
def test_a_fully_redacted_event_is_still_a_sentence(kind: str) -> None:
    """Every field None (a value of a unit not seen in full, K98): no 'None', no repr."""
    e = Event(1, kind, {f: None for f in EVENTS[kind]} | {"private": True})
    text = describe_event(e)
    assert not reprs(text), (kind, text)


# Kinds a short fuzzed game seldom reaches, with data as their emit sites give it.
RARE = [
    (
        "mask_placed",
        {"side": "german", "hex": "0808", "rule": "16.1.2"},
        "german masks the stack at 0808",
    ),
    (
        "mod_edited",
        {
            "verb": "set",
            "field": "cel",
            "unit": "s2",
            "side": "soviet",
            "hex": "0303",
            "hexes": ["0303"],
            "before": 4,
            "after": 3,
        },
        "moderator edit: s2 cel 4 -> 3 (0303)",
    ),
    (
        "game_ended",
        {
            "reason": "the last turn is over",
            "result": {
                "vp": {"soviet": 3, "german": 1},
                "winner": "soviet",
                "outcome": "soviet victory on VPs",
            },
        },
        "game over: the last turn is over; soviet victory on VPs; victory points: soviet 3, "
        "german 1",
    ),
    (
        "decision_automatic",
        {
            "side": "soviet",
            "decision": "losses",
            "answer": "losses s-1",
            "rule": "5.1.8",
            "why": "the only legal answer (DESIGN §4)",
        },
        "soviet's which units lose CELs is decided automatically: losses s-1",
    ),
    ("hq_claim_set", {"side": "german", "claim": False, "rule": "9.2.1"}, "german declines"),
    (
        "left_map",
        {
            "unit": "g-1",
            "side": "german",
            "hex": "0101",
            "arrives": {"turn": 3, "zone": "B"},
            "rule": "11.2.3",
        },
        "g-1 leaves the map at 0101; it comes back on turn 3 at B (11.2.3)",
    ),
    (
        "air_supply",
        {
            "mission": "air-1",
            "side": "german",
            "hex": "0505",
            "die": 4,
            "success": True,
            "rule": "8.2.12",
        },
        "german air supply to 0505: die 4, it succeeds",
    ),
    (
        "air_river_attack",
        {"unit": "s-1", "hex": "0505", "attacks": 2, "dice": [3, 6], "hits": 1, "rule": "8.2.13"},
        "dice 3+6, 1 hit",
    ),
    (
        "bridge_built",
        {"hexside": "0505/0506", "side": "soviet", "hq": "s-hq", "rule": "14.3.2"},
        "s-hq has built the bridge 0505/0506",
    ),
]


@pytest.mark.parametrize(("kind", "data", "expected"), RARE, ids=[k for k, _, _ in RARE])
def test_rare_events_read_as_sentences(kind: str, data: dict[str, object], expected: str) -> None:
    text = describe_event(Event(9, kind, data))
    assert expected in text and not reprs(text), text


# --- fuzzed games ----------------------------------------------------------------------------

GAMES = [
    ("the-retreat", 1, 400),
    ("korsun-1944", 2, 400),
    ("kursk", 2, 500),
    ("deblockade", 3, 200),
]


def _play(scenario: str, seed: int, inputs: int) -> tuple[GameRecord, list[str]]:
    """A fuzzed game; the decision prompts of every decision opened, as its side reads them."""
    rec = GameRecord(load_scenario(scenario), seed=seed)
    rng = random.Random(f"{scenario}:{seed}")
    player = RandomPlayer()
    prompts: list[str] = []
    seen: set[tuple[int, str]] = set()
    for _ in range(inputs):
        if rec.state.over:
            break
        awaited = flow.awaited_sides(rec.state)
        if not awaited:
            break
        side = rng.choice(awaited)
        order = player.choose(rec.state, side, rng) or defaults.next_default(rec.state, side)
        result = rec.submit(side, order or o.Done())
        if not isinstance(result, Applied):
            fallback = defaults.next_default(rec.state, side)
            if fallback is not None:
                rec.submit(side, fallback)
        for d in rec.state.pending:
            key = (rec.state.seq, d.kind)
            if key in seen:
                continue
            seen.add(key)
            v = view(rec.state, d.side)
            mine = next(p for p in v.pending if p.kind == d.kind and p.side == d.side)
            prompts.append(
                describe.decision(
                    d.kind,
                    d.rule,
                    mine.options,
                    d.info,
                    side=d.side,
                    state=rec.state,
                    viewer=d.side,
                )
            )
            other = rec.setup.enemy_of(d.side)
            prompts.append(describe.decision(d.kind, d.rule, None, side=d.side, viewer=other))
    return rec, prompts


def test_every_event_and_decision_of_fuzzed_games_reads_as_sentences() -> None:
    # fixed input counts, not a time budget: what is covered must not depend on the load
    kinds: set[str] = set()
    decisions: set[str] = set()
    bad: list[tuple[str, str, str]] = []
    texts = 0
    for scenario, seed, inputs in GAMES:
        rec, prompts = _play(scenario, seed, inputs)
        for p in prompts:
            texts += 1
            if reprs(p) or len(p) > describe.MAX_CHARS:
                bad.append((scenario, "decision", p))
        decisions |= {e.data["decision"] for e in rec.events if e.kind == "decision_opened"}
        for viewer in [*rec.setup.sides, SPECTATOR, MODERATOR]:
            for e in visible_events(rec.events, viewer, rec.state):
                kinds.add(e.kind)
                text = describe_event(e)
                texts += 1
                if e.kind not in describe.SILENT and not text:
                    bad.append((scenario, viewer, f"{e.kind}: nothing said"))
                if reprs(text) or ("_" in e.kind and e.kind in text):
                    bad.append((scenario, viewer, f"{e.kind}: {text}"))
            for line in describe.lines(visible_events(rec.events, viewer, rec.state)):
                if reprs(line):
                    bad.append((scenario, viewer, line))
    assert not bad, "\n".join(f"{s} [{v}] {t}" for s, v, t in bad[:20])
    assert texts > 1000
    assert len(kinds) >= 50, sorted(kinds)
    assert {"losses", "retreat", "pursuit", "defence", "place-if", "repair"} <= decisions


def test_decision_prompts_number_their_answers_in_notation() -> None:
    """A retreat prompt lists each path and the hold with its cost; a losses prompt says
    how many CELs and why (the options as the engine gives them)."""
    text = describe.decision(
        "retreat",
        "5.3",
        {"hexes": 1, "paths": {"s-31-inf": [["5819"], ["5920"]]}},
        {"who": "defender", "left": ["s-31-inf"]},
        side="soviet",
    )
    assert "1) retreat s-31-inf 5819" in text
    assert "2) retreat s-31-inf 5920" in text
    assert "3) retreat s-31-inf  (hold: a shortfall of 1 hex paid in CELs, 5.3.7)" in text
    assert "retreat UNIT [HEX...]" in text
    text = describe.decision(
        "losses",
        "5.1.8",
        {"count": 1, "units": {"s-1": 1, "s-2": 2}, "must_include": []},
        {"who": "defender", "cause": "result"},
        side="soviet",
    )
    assert "loses 1 CEL (result)" in text
    assert "1) losses s-1  (eliminates s-1)" in text and "2) losses s-2" in text
    text = describe.decision("place-if", "7.2.1", {"count": 30, "left": 30}, side="german")
    assert "30 of 30 left" in text and "place-if HEX [HEX...]" in text and "{" not in text
    assert "for that side's eyes" in describe.decision("defence", "6.3.3", None, side="soviet")


def test_sealed_receipts_are_words() -> None:
    mask = Event(
        5,
        "sealed_submitted",
        {"side": "german", "sealed_kind": "mask", "item": {"hex": "0508", "on": True}},
    )
    assert describe_event(mask) == "german seals: mask on at 0508 (16.1.2)"
    air = {"mission": "attack", "target": "0733", "sp": 4, "counter": None, "stars": []}
    e = Event(6, "sealed_submitted", {"side": "soviet", "sealed_kind": "air", "item": air})
    assert describe_event(e) == "soviet seals: air mission attack on 0733 with 4 SP (8.1)"


# --- a newcomer's game -----------------------------------------------------------------------


def test_a_newcomer_game_of_the_retreat_reads_as_sentences(tmp_path: Path) -> None:
    """The German player against the built-in opponent (the Soviets), playing as the
    deadline policy would (`defaults.next_default`), looking at `legal` and `status` now and
    then: no Python repr anywhere in the transcript, and every decision prompt about a
    combat names it (the attacking side, the units, the hexes)."""
    pytest.importorskip("bot.systems.wb95.opponent")
    from test_local import Terminal

    from bot.local import LocalPlay

    asked = {"n": 0, "read": 0}
    announced: list[str] = []  # the entry orders the turn notices gave, as typed
    queued: list[str] = []

    def brain(session: LocalPlay) -> str:
        asked["n"] += 1
        fresh = "\n".join(t.out[asked["read"] :]).splitlines()
        asked["read"] = len(t.out)
        for i, line in enumerate(fresh):  # a notice's entries: typed as they stand
            if line.startswith("Reinforcements may enter now"):
                orders = [x.strip() for x in fresh[i + 1 :] if x.startswith("  enter ")]
                announced.extend(orders)
                queued.extend(orders)
        live = session.live
        assert live is not None
        s = live.state
        if s.turn > 2 or asked["n"] > 160:
            return "quit"
        if queued and "german" in flow.awaited_sides(s):
            return queued.pop(0)
        if asked["n"] % 15 == 1:
            return "legal"
        if asked["n"] % 15 == 8:
            return "status"
        side = next((x for x in flow.awaited_sides(s) if x == "german"), None)
        if side is None:
            return "status"
        order = defaults.next_default(s, side)
        return "done" if order is None else format_order(order)

    t = Terminal(brain=brain)
    assert t.run(tmp_path / "kessel.db", "the-retreat", vs="soviet", seed=5) == 0
    text = t.text
    assert asked["n"] > 10
    lines = text.splitlines()
    bad = [line for line in lines if reprs(line) and not line.startswith("[")]
    assert not bad, "\n".join(bad[:20])
    # a decision prompt is a panel: "== [Game ID: ]SIDE must decide: WHAT (RULE). =="
    heads = [i for i, x in enumerate(lines) if x.startswith("== ") and "must decide:" in x]
    assert heads, "no decision came up"
    combat = ("CELs", "retreat", "defence", "pursuit")
    about = 0
    for i in heads:
        if not any(k in lines[i] for k in combat):
            continue
        about += 1
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        assert re.match(r"(In|It is about) the (soviet|german) (attack|fire) by \S", nxt), (
            lines[i],
            nxt,
        )
    assert about, "no combat decision came up"
    # every reinforcement announced came with an order that ran as typed (11.1, issue #17)
    assert announced, "no reinforcement was announced"
    for order in announced:
        assert f"> {order}" in text and f"✔ german: {order}" in text, order


async def test_17_a_decision_is_answered_by_its_number_and_shown_again(store_url: str) -> None:
    """Issue #17: the prompt's numbers are answers ("1", "soviet: 1"); an out-of-range
    number is refused with the range; `decision` shows the prompt again (local play)."""
    from bot.service import Caller, Referee, Refusal

    alice = Caller("u-a", "Alice", guild="g", channel="c")
    bob = Caller("u-b", "Bob", guild="g", channel="c")
    ref = await Referee.open(store_url, opponents=None)
    try:
        gid = (await ref.new_game(alice, "demo-steblev", seed=1, side="soviet"))[0].game
        assert gid is not None
        await ref.join(bob, gid, "german")
        await ref.orders(alice, gid, "move s-180 0307\ndone")
        await ref.orders(alice, gid, "attack s-180 -> 0306")  # seed 1: the attacker retreats
        g = await ref.game(gid)
        (d,) = g.state.pending
        assert (d.side, d.kind) == ("soviet", "retreat")
        lines = describe.answers(d.kind, d.options, d.info, side=d.side, state=g.state)
        assert lines and lines[0].startswith("retreat s-180")
        with pytest.raises(Refusal, match=rf"a number from 1 to {len(lines)}"):
            await ref.orders(alice, gid, str(len(lines) + 1))
        await ref.orders(alice, gid, "soviet: 1")
        assert g.state.units["s-180"].hex == lines[0].split()[-1]
    finally:
        await ref.close()


def test_17_local_play_shows_the_open_decision_again(tmp_path: Path) -> None:
    from test_local import Terminal

    lines = ["move s-180 0307", "done", "attack s-180 -> 0306", "decision", "1", "quit"]
    term = Terminal(lines)
    assert term.run(tmp_path / "k.db", "demo-steblev", seed=1) == 0  # hot seat
    shown = term.text.split("> decision", 1)[1]
    assert "1) retreat s-180" in shown.split("> 1", 1)[0]
    assert "refused" not in shown


async def test_17_the_log_numbers_its_lines_and_rollback_takes_those_numbers(
    store_url: str,
) -> None:
    from bot.service import Caller, Referee

    alice = Caller("u-a", "Alice", guild="g", channel="c")
    bob = Caller("u-b", "Bob", guild="g", channel="c")
    referee = Caller("u-r", "Ref", server_mod=True, guild="g", channel="c")
    ref = await Referee.open(store_url, opponents=None)
    try:
        gid = (await ref.new_game(alice, "demo-steblev", seed=3, side="soviet"))[0].game
        assert gid is not None
        await ref.join(bob, gid, "german")
        await ref.orders(alice, gid, "move s-180 0208")
        log = (await ref.history(alice, gid))[0].text
        moved = next(x for x in log.splitlines() if "s-180" in x and "0208" in x)
        assert moved.startswith("#") and "mod rollback N" in log
        number = int(moved.split()[0][1:])
        await ref.orders(alice, gid, "move s-337 0408")
        await ref.mod(referee, gid, f"rollback {number}")
        g = await ref.game(gid)
        assert g.state.units["s-180"].hex == "0208" and g.state.units["s-337"].hex == "0407"
    finally:
        await ref.close()


def test_every_ags_event_kind_reads_as_words() -> None:
    """Issue #19: the second system's describer (bot/systems/ags) turns the events of a
    game played for 2 turns by the deadline defaults into words: no reprs, no 'None'."""
    from bot.systems.ags.describe import Words
    from engine.record import GameRecord
    from scenarios import load_scenario

    rec = GameRecord(load_scenario("ags-korsun"), 7)
    while not rec.state.over and rec.state.turn <= 2:
        side = rec.system.awaited_sides(rec.state)[0]
        order = rec.system.next_default(rec.state, side)
        assert order is not None
        assert not hasattr(rec.submit(side, order), "message")
    words = Words()
    kinds = {e.kind for e in rec.events}
    assert {"turn_started", "phase_started", "supply_checked"} <= kinds
    for e in rec.events:
        text = words.event(e)
        assert not reprs(text) and "None" not in text, (e.kind, text)
