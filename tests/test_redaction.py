"""K98: every field of the event log is redacted by one table (issue #15's redaction audit).

`engine.redaction.EVENTS` classifies every event kind and every field the engine emits;
`engine.view.visible_events` applies it for every viewer but the moderator. These tests
check that nothing escapes the table (the engine's source and fuzzed games), the two
reproductions of issue #15 (`../shared/repro/`, their orders copied here), the enemy's
supply levels, and -- over fuzzed games, for each side and a spectator -- that no event
names a unit the viewer does not see in full (16.1.1, 16.1.3, K96), in a value, a
mapping's key, inside text or in the history text (`describe_event`).
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import play, scenario

import engine
from bot.fuzz import RandomPlayer
from bot.script import RunResult, describe_event, result_json, run_script
from engine import orders as o
from engine.core import Event
from engine.record import GameRecord
from engine.redaction import EVENTS, Sight, unclassified
from engine.view import MODERATOR, SPECTATOR, view, visible_events
from engine.wb95 import flow
from scenarios import load_scenario

# ../shared/repro/fog-demo-kursk-101.txt (kessel run demo-kursk --seed 101 --view german)
REPRO_101 = """\
german: move g-hq-iii 0606
german: done
german: attack g-6pz -> 0705
soviet: pass
soviet: retreat s-81g 0704
german: pursue g-6pz 0705
german: done
german: air g-air2 support-defence 0705
german: air g-air1 support-defence 0705
soviet: air s-air2 attack 0207
german: done
soviet: air s-air1 attack 0207
soviet: done
soviet: move s-67g 0303 0402 0502 0601
soviet: move s-200tb 0703 0803 0904 0905 0906 0907
soviet: move s-52g 0404
soviet: move s-81g 0703 0702
soviet: move s-hq-6ga 0601
soviet: mask 0601 on
soviet: setup s-art-6ga transport
soviet: move s-art-6ga 0504 0404 0304 0305 0306
soviet: setup s-art-6ga combat
soviet: done
soviet: fire s-art-6ga -> 0606
soviet: done
german: done
soviet: air s-air1 attack 0406
soviet: done
german: move g-6pz 0604
german: move g-167 0408
german: setup g-ar-861 transport
german: move g-hq-iii 1004
german: move g-168 0507
german: move g-lah 0902
german: move g-ar-861 0606 0605 0604 0704 0703
german: done
german: air g-air2 attack 0306
german: air g-air1 attack 0306
german: done
soviet: air s-air2 attack 0507
soviet: done
soviet: move s-67g 0502 0402 0303 0202
soviet: move s-200tb 0803
soviet: move s-52g 0306
soviet: move s-81g 0602 0503
soviet: strategic s-hq-6ga
soviet: done
soviet: done
soviet: move s-hq-6ga 0602 0503
soviet: enter s-31tc 0101
soviet: done
german: done
soviet: done
german: move g-lah 0905
german: move g-hq-iii 0805
german: move g-ar-861 0602
german: move g-6pz 0606
german: move g-168 0506 0505 0404 0304 0204
german: move g-167 0407 0507 0506
german: done
german: air g-air2 support-defence 0602
soviet: air s-air1 attack 0506
soviet: air s-air2 attack 0506
soviet: done
german: air g-air1 support-defence 0602
german: done
soviet: move s-31tc 0102 0202 0303 0403 0504 0604 0704
soviet: move s-200tb 0304
soviet: move s-67g 0401
soviet: move s-52g 0206
soviet: done
soviet: attack s-200tb -> 0204 support s-art-6ga
soviet: done
"""
# ../shared/repro/fog-demo-kursk-103.txt (kessel run demo-kursk --seed 103 --view soviet)
REPRO_103 = """\
german: setup g-ar-861 transport
german: move g-hq-iii 0607
german: setup g-ar-861 combat
german: move g-168 0208
german: move g-lah 0508
german: move g-167 0507
german: move g-6pz 0707 0708 0608
german: setup g-ar-861 transport
german: setup g-ar-861 combat
german: done
german: fire g-ar-861 -> 0505
german: done
soviet: air s-air2 attack 0507
soviet: air s-air1 attack 0208
german: air g-air2 attack 0503
soviet: done
german: air g-air1 attack 0503
german: done
soviet: move s-hq-6ga 1004
soviet: move s-81g 0604 0505 0405 0306
soviet: move s-67g 0606
soviet: move s-200tb 0806
soviet: done
soviet: attack s-67g -> 0507
german: pass
soviet: done
german: air g-air1 support-attack 0606
german: air g-air2 attack 0306
german: done
soviet: air s-air1 attack 0208
soviet: air s-air2 attack 0208
soviet: done
german: move g-hq-iii 0708
german: move g-lah 0607
german: setup g-ar-861 transport
german: move g-167 0307
german: move g-6pz 0508 0407 0308 0207 0107
german: done
german: attack g-lah -> 0606
soviet: retreat s-67g 0605 0604 0704
german: pass
german: attack g-167 -> 0306
german: retreat g-167 0407
soviet: pursue s-81g 0307
german: done
soviet: enter s-31tc 0101
soviet: move s-200tb 0805 0804 0704
soviet: move s-67g 0503
soviet: move s-hq-6ga 0502
soviet: move s-81g 0206
soviet: move s-52g 0604 0704 0804 0905
soviet: done
soviet: attack s-81g -> 0107
german: defend stars g-6pz
soviet: retreat s-81g 0205 0204
german: pass
soviet: done
german: air g-air1 attack 0101
soviet: air s-air2 attack 0407
soviet: air s-air1 attack 0107
german: done
soviet: done
german: move g-167 0508 0608
german: setup g-ar-861 combat
german: move g-lah 0606 0605 0705
german: move g-6pz 0206 0307 0407 0508 0608 0708
german: done
german: attack g-lah -> 0704
soviet: retreat s-200tb 0703
german: pursue g-lah 0704
german: done
german: air g-air2 attack 0204
german: done
soviet: move s-67g 0306
soviet: move s-81g 0205 0206 0207 0208
soviet: move s-52g 0904
soviet: move s-31tc 0201
soviet: move s-hq-6ga 0506
soviet: move s-200tb 0502
soviet: mask 0506 on
soviet: done
"""


def _strings(value: Any) -> Iterator[str]:
    """Every string in `value`: values, mapping keys, list items."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)


def _text(events: list[Event]) -> str:
    """What a viewer reads: every string of the events and their history lines."""
    parts = [s for e in events for s in _strings(e.data)]
    parts.extend(describe_event(e) for e in events)
    return "\n".join(parts)


_ID_CHARS = re.compile(r"[A-Za-z0-9_.\-]")


def _named(text: str, uid: str, ids: set[str]) -> bool:
    """Whether `text` contains `uid` other than inside a longer unit id."""
    for m in re.finditer(re.escape(uid), text):
        a, b = m.start(), m.end()
        while a > 0 and _ID_CHARS.match(text[a - 1]):
            a -= 1
        while b < len(text) and _ID_CHARS.match(text[b]):
            b += 1
        word = text[a:b].rstrip(".-")
        if word == uid or word not in ids:
            return True
    return False


def _not_seen(state: Any, viewer: str) -> set[str]:
    """The units `viewer` does not see in full now (the ground truth: its view), but its own."""
    full = {u.id for u in view(state, viewer).units if u.id is not None and u.known == "full"}
    return {uid for uid, u in state.units.items() if uid not in full and u.side != viewer}


def _run(orders: str, seed: int) -> GameRecord:
    res = run_script(load_scenario("demo-kursk"), orders, seed=seed)
    assert res.rejected is None, res.rejected  # the reproduction still replays in full
    return res.record


# --- the table covers everything ------------------------------------------------------------


def engine_files(system: str) -> list[Path]:
    """The engine's source a system's events come from: the core (engine/*.py) and the
    system's own package (engine/<system>/); each system classifies its own kinds."""
    root = Path(engine.__file__).parent
    return sorted([*root.glob("*.py"), *(root / system).rglob("*.py")])


def _emitted(system: str = "wb95") -> dict[str, set[str]]:
    """Every event kind `emit`ted in the core and the system's package of engine/, with
    the fields its calls name (`**{"from": ...}` included); `dice_rolled` also takes the
    keywords of `ctx.roll` calls."""
    out: dict[str, set[str]] = {}
    rolls: set[str] = set()
    for path in engine_files(system):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr == "roll":
                rolls.update(k.arg for k in node.keywords if k.arg)
            if node.func.attr != "emit" or not node.args:
                continue
            first = node.args[0]
            where = f"{path.name}:{node.lineno}"
            assert isinstance(first, ast.Constant) and isinstance(first.value, str), where
            fields = out.setdefault(first.value, set())
            for k in node.keywords:
                if k.arg is not None:
                    fields.add(k.arg)
                elif isinstance(k.value, ast.Dict):
                    fields.update(str(ast.literal_eval(x)) for x in k.value.keys if x)
                else:  # `ctx.roll`'s **info: its keywords, collected above
                    assert first.value == "dice_rolled", f"{where}: fields not named"
    out["dice_rolled"] |= rolls
    return out


def test_k98_every_kind_and_field_the_engine_emits_is_in_the_table() -> None:
    emitted = _emitted("wb95")
    assert len(emitted) >= 70  # the scan found the engine's events
    missing = {
        kind: sorted(fields - set(EVENTS.get(kind, {})))
        for kind, fields in emitted.items()
        if kind not in EVENTS or fields - set(EVENTS[kind])
    }
    assert missing == {}, f"classify these in engine/redaction.py EVENTS: {missing}"


def test_k98_every_ags_kind_and_field_is_in_the_ags_table() -> None:
    """The second system classifies its own events (engine/ags/view.py EVENTS): a kind
    or field missing there would be shown to no player."""
    from engine.ags.view import EVENTS as AGS_EVENTS

    emitted = _emitted("ags")
    table = {**EVENTS, **AGS_EVENTS}  # core kinds (dice) are classified once, in the core
    missing = {
        kind: sorted(fields - set(table.get(kind, {})))
        for kind, fields in emitted.items()
        if kind not in table or fields - set(table[kind])
    }
    assert missing == {}, f"classify these in engine/ags/view.py EVENTS: {missing}"


# Fuzzed games (bounded: ~10 s): random players over several scenarios and seeds.
GAMES = [
    ("demo-steblev", 0, 300),
    ("demo-steblev", 1, 300),
    ("demo-steblev", 2, 300),
    ("demo-kursk", 0, 300),
    ("demo-kursk", 1, 300),
    ("demo-kursk", 2, 300),
    ("prokhorovka", 0, 400),
    ("korsun-1944-short", 0, 300),
]


@pytest.fixture(scope="module")
def fuzzed() -> list[GameRecord]:
    out = []
    for name, seed, inputs in GAMES:
        rec = GameRecord(load_scenario(name), seed)
        rng, player = random.Random(f"k98:{name}:{seed}"), RandomPlayer()
        for _ in range(inputs):
            if rec.state.over:
                break
            side = rng.choice(flow.awaited_sides(rec.state))
            rec.submit(side, player.choose(rec.state, side, rng) or o.Done())
        out.append(rec)
    return out


def test_k98_fuzzed_games_emit_no_kind_or_field_the_table_lacks(
    fuzzed: list[GameRecord],
) -> None:
    kinds = {e.kind for rec in fuzzed for e in rec.events}
    assert {"moved", "combat_stage", "combat_resolved", "oos_changed", "decision_opened"} <= kinds
    bad = sorted({p for rec in fuzzed for e in rec.events for p in unclassified(e)})
    assert bad == [], f"classify these in engine/redaction.py EVENTS: {bad}"


def test_k98_an_unclassified_kind_or_field_is_shown_to_no_player() -> None:
    new = Event(5, "brand_new", {"unit": "s-a", "side": "soviet", "secret": 3})
    more = Event(6, "moved", {"unit": "s-a", "side": "soviet", "path": ["0101"], "extra": 8})
    mixed = Event(7, "combat_stage", {"combat": {"units": {"attacker": []}, "odd": {"x": 1}}})
    for viewer in ("soviet", "german", SPECTATOR):
        a, b, c = visible_events([new, more, mixed], viewer)
        assert a.data == {"unit": None, "side": None, "secret": None, "private": True}
        assert b.data["extra"] is None and b.data["path"] == ["0101"] and b.data["private"]
        assert c.data["combat"]["odd"] is None and c.data["combat"]["units"] == {"attacker": []}
    assert visible_events([new, more, mixed], MODERATOR) == [new, more, mixed]


def test_k98_text_is_redacted_word_by_word() -> None:
    sight = Sight("soviet", {"g-6": "a German unit", "g-x.y": "a German unit"})
    assert sight.text("black star of g-6 (15.1.3)") == "black star of a German unit (15.1.3)"
    assert sight.text("by g-6.") == "by a German unit."
    assert sight.text("g-6pz and g-60 and xg-6") == "g-6pz and g-60 and xg-6"  # other words
    assert sight.text("g-x.y, g-x.yz") == "a German unit, g-x.yz"


# --- issue #15's reproductions -------------------------------------------------------------


def test_16_1_1_k96_k98_repro_101_a_hidden_hq_is_named_nowhere_nor_its_mps() -> None:
    """`strategic_marked` carried `"mp": {"s-hq-6ga": "6"}` for a Soviet HQ under another
    counter, and `moved` told its MP allowance ("a Soviet unit moves 0602 0601 for 2 of
    8 MP") to the German player."""
    rec = _run(REPRO_101, 101)
    assert "s-hq-6ga" in _not_seen(rec.state, "german")
    for viewer in ("german", SPECTATOR):
        seen = visible_events(rec.events, viewer, rec.state)
        assert not _named(_text(seen), "s-hq-6ga", set(rec.state.units))
        as_json = repr(result_json(RunResult(rec), viewer))
        assert "s-hq-6ga" not in as_json  # `kessel run --view --json`
        (marked,) = [e for e in seen if e.kind == "strategic_marked"]
        assert marked.data["units"] == ["a Soviet unit"] and marked.data["mp"] == {}
        moves = [e for e in seen if e.kind == "moved" and e.data["unit"] == "a Soviet unit"]
        assert moves and all(e.data["mp"] is None and e.data["cost"] is None for e in moves)
        assert [e.data["path"] for e in moves] == [["0602", "0601"], ["0601", "0602", "0503"]]
        assert describe_event(moves[0]) == "a Soviet unit moves 0602 0601"
    # its owner reads it all
    mine = visible_events(rec.events, "soviet", rec.state)
    (marked,) = [e for e in mine if e.kind == "strategic_marked"]
    assert marked.data["mp"] == {"s-hq-6ga": "6"}
    assert "for 2 of 8 MP" in describe_event(next(e for e in mine if e.seq == 74))


def test_16_1_3_k96_k98_repro_103_a_hidden_defender_is_named_nowhere() -> None:
    """A German counter that defended with its black star (16.1.3: seen during that
    Combat Phase) and then slipped under another: `combat_stage.origin`,
    `defender_abilities`, `decision_opened.options.abilities` (keys) and the combat's
    explanation ("black star of g-6pz") named it to the Soviet player."""
    rec = _run(REPRO_103, 103)
    assert "g-6pz" in _not_seen(rec.state, "soviet")
    for viewer in ("soviet", SPECTATOR):
        seen = visible_events(rec.events, viewer, rec.state)
        assert not _named(_text(seen), "g-6pz", set(rec.state.units))
        stages = [e.data["combat"] for e in seen if e.kind == "combat_stage"]
        assert all("g-6pz" not in c.get("origin", {}) for c in stages)
        assert any(c.get("origin") for c in stages)  # the seen units' origins stay
        (resolved,) = [e for e in seen if e.kind == "combat_resolved" and e.seq == 224]
        assert "defender +1: black star of a German unit (15.1.3)" in resolved.data["explanation"]
        assert resolved.data["defenders"] == [
            {"unit": "a German unit", "hex": "0107", "sp": None, "why": None}
        ]
        # what happened stays: the hexes, the totals, the dice and the result (K96)
        full = next(e for e in rec.events if e.seq == 224).data
        for k in ("hexes", "attack_sp", "defence_sp", "column", "dice", "roll", "result"):
            assert resolved.data[k] == full[k]
        defence = [e for e in seen if e.kind == "decision_opened" and e.data["side"] == "german"]
        assert defence and all(e.data["options"] is None for e in defence)
    # the German side reads its own defence in full
    mine = visible_events(rec.events, "german", rec.state)
    (d,) = [e for e in mine if e.seq == 220]
    assert d.data["options"]["abilities"] == {"g-6pz": ["black"]}


def test_10_2_16_1_1_k98_enemy_supply_levels_of_a_hidden_unit_are_not_shown() -> None:
    """`None OoS level 1 -> 2`: the old and new levels of an enemy unit the viewer cannot
    identify, its surrender test's level and note, are not shown; those of the top
    counter are, as the view shows its OoS level."""
    units: list[dict[str, Any]] = [
        {"id": "s-top", "hex": "0307", "oos": 1},
        {"id": "s-low", "hex": "0307", "oos": 1},
        {"id": "g-far", "hex": "0101"},
    ]
    start = {"turn": 1, "phase": "supply", "active": "soviet"}
    rec = play(scenario(units, start=start))
    full = {e.data["unit"]: e.data for e in rec.events if e.kind == "oos_changed"}
    assert (full["s-low"]["old"], full["s-low"]["new"]) == (1, 2)  # R8
    assert _not_seen(rec.state, "german") >= {"s-low"} and "s-top" not in _not_seen(
        rec.state, "german"
    )
    for viewer in ("german", SPECTATOR):
        seen = visible_events(rec.events, viewer, rec.state)
        changed = [e.data for e in seen if e.kind == "oos_changed"]
        top = next(x for x in changed if x["unit"] == "s-top")
        assert (top["old"], top["new"]) == (1, 2)
        (low,) = [x for x in changed if x["unit"] == "a Soviet unit"]
        assert [low[k] for k in ("old", "new", "reason", "rule", "ruling")] == [None] * 5
        tests = [e for e in seen if e.kind == "surrender_test" and e.data["unit"] != "s-top"]
        assert [(e.data["level"], e.data["note"]) for e in tests] == [(None, None)]
        (traced,) = [e.data for e in seen if e.kind == "supply_traced"]
        assert traced["out_of_supply"] == 2  # a count (16.1.1)
        lines = [describe_event(e) for e in seen if e.data.get("unit") == "a Soviet unit"]
        assert lines and not any(re.search(r"\d+ -> \d+|level \d", t) for t in lines)
    mine = visible_events(rec.events, "soviet", rec.state)
    low_own = next(e.data for e in mine if e.kind == "oos_changed" and e.data["unit"] == "s-low")
    assert (low_own["old"], low_own["new"]) == (1, 2)


# --- the property ---------------------------------------------------------------------------


def test_16_1_1_16_1_3_k96_k98_no_event_names_a_unit_the_viewer_does_not_see(
    fuzzed: list[GameRecord],
) -> None:
    """For each side and a spectator, at the end of each fuzzed game: no string of the
    redacted log -- a value, a mapping's key, a word of text, a history line -- names a
    unit that viewer does not see in full (its view), but its own."""
    masked = 0
    for rec in fuzzed:
        ids = set(rec.state.units)
        for viewer in (*rec.state.setup.sides, SPECTATOR):
            hidden = _not_seen(rec.state, viewer)
            seen = visible_events(rec.events, viewer, rec.state)
            text = _text(seen)
            leaks = sorted(uid for uid in hidden if _named(text, uid, ids))
            assert leaks == [], f"{rec.state.setup.id} seed {rec.seed}, {viewer}: {leaks}"
            masked += text.count(" unit")
    assert masked > 0  # hidden counters were there to hide


def test_k96_k98_a_side_reads_its_own_units_events_in_full(fuzzed: list[GameRecord]) -> None:
    """Its own moves, supply and activity reports are not redacted for the side."""
    own = ("moved", "oos_changed", "surrender_test", "supply_traced", "strategic_marked")
    checked = 0
    for rec in fuzzed:
        for side in rec.state.setup.sides:
            seen = {e.seq: e for e in visible_events(rec.events, side, rec.state)}
            for e in rec.events:
                if e.kind in own and e.data.get("side") == side:
                    assert seen[e.seq].data == e.data
                    checked += 1
    assert checked > 100


def test_dice_the_seed_is_the_moderators_alone() -> None:
    """The dice are counter-based on the game's seed: a player who read it could compute
    every roll to come. `game_started.seed` is moderator-only (K98)."""
    from engine.record import GameRecord
    from engine.view import visible_events
    from scenarios import load_scenario

    rec = GameRecord(load_scenario("demo-steblev"), 424242)
    for viewer in ("soviet", "german", "spectator"):
        (e,) = [
            x for x in visible_events(rec.events, viewer, rec.state) if x.kind == "game_started"
        ]
        assert e.data["seed"] is None and "424242" not in str(e.data)
    (e,) = [
        x for x in visible_events(rec.events, "moderator", rec.state) if x.kind == "game_started"
    ]
    assert e.data["seed"] == 424242


def test_16_1_1_k98_an_explanation_line_about_a_hidden_unit_keeps_no_figures() -> None:
    """A fire or combat explanation line "UNIT: SP (why)" about a unit the viewer does not
    see in full keeps only that a unit took part (its SPs and CELs would tell its state)."""
    from engine.redaction import Sight

    sight = Sight("german", {"s-art-27": "a Soviet unit"})
    assert sight.text("s-art-27: 8 (4 SP x 2 CELs)") == "a Soviet unit: not seen"
    assert sight.text("black star of s-art-27") == "black star of a Soviet unit"
    assert sight.text("g-a: 8 (4 SP x 2 CELs)") == "g-a: 8 (4 SP x 2 CELs)"
