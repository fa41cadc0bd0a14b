"""What each field of the event log tells a player (issue #15, docs/rulings.md K98).

Every event kind the engine emits and every field of its data is classified once, in
`EVENTS` (kind -> field -> class); `redact` applies the table for one viewer, and
`engine.view.visible_events` calls it for every viewer but the moderator, after
`redact_sealed` has hidden other sides' sealed inputs (K27). The classes:

- `PUBLIC`: what happened, seen across the table (a move's path, a combat's hexes, dice,
  results, phases). `TEXT` is public free text (causes, explanations, reasons).
- `UNIT`: names a unit (a value or a list of them). A unit the viewer does not see in
  full now (16.1.1, 16.1.3, `engine.view.view`) is "a Soviet unit" / "a German unit"
  (K96).
- `DERIVED` (`Derived(of)`): a value of the unit named in field `of` of the same record
  -- its MP allowance, strength, setup, supply level, arrival -- shown only where that
  unit is seen in full; otherwise None.
- `ByUnit(value)`: a mapping keyed by unit ids (MPs by unit, a combat's origins,
  abilities): an entry whose unit is not seen in full is left out.
- `OWNER`: only the side named by the event's `side` (a decision's options, a moderator's
  edit of a unit); other viewers get None. `COUNT`: a list of one side's units of which the
  other viewers learn only the length (16.1.1). An event whose `side` is None (a
  moderator's edit of hex control) has no owner: its fields are public.
- `SEALED`: sealed content, already redacted by `redact_sealed` until it is revealed.
- `MODERATOR`: nobody else. A kind or field missing from the table is treated so: it
  is never shown to a player (tests/test_redaction.py fails on it first).
- `Record`, `ListOf`, `ByKey`: nested data, classified field by field the same way.

Whatever the class, a string naming a unit the viewer does not see in full is replaced
wherever it stands -- a value, a list, inside text (word by word) -- and a mapping entry
keyed by one is left out: no field can name a hidden counter. An event that lost a value
to the viewer carries `"private": true`.

Without the state (`Sight(viewer, None)`) the units' sides and what the viewer sees are
unknown: a unit named in an event of another side (its `side`) counts as not seen. Every
output a player reads passes the state (`kessel run --view`, the service, Discord).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeAlias

from engine.core import Event


class Cls(Enum):
    """The classes of a field (see the module docstring)."""

    PUBLIC = "public"
    TEXT = "text"
    UNIT = "unit"
    OWNER = "owner"
    COUNT = "owner-count"
    SEALED = "sealed"
    MODERATOR = "moderator"


@dataclass(frozen=True)
class Derived:
    """A value of the unit named in field `of` of the same record."""

    of: str = "unit"


@dataclass(frozen=True)
class Record:
    """A mapping with known keys, each classified (an unknown key: MODERATOR)."""

    fields: Mapping[str, Spec]


@dataclass(frozen=True)
class ListOf:
    item: Spec


@dataclass(frozen=True)
class ByKey:
    """A mapping keyed by public names (sides, "attacker"/"defender", support kinds)."""

    value: Spec


@dataclass(frozen=True)
class ByUnit:
    """A mapping keyed by unit ids, each value that unit's."""

    value: Spec = Cls.PUBLIC


Spec: TypeAlias = Cls | Derived | Record | ListOf | ByKey | ByUnit

PUBLIC, TEXT, UNIT = Cls.PUBLIC, Cls.TEXT, Cls.UNIT
OWNER, COUNT, SEALED, MODERATOR = Cls.OWNER, Cls.COUNT, Cls.SEALED, Cls.MODERATOR
DERIVED = Derived("unit")

OWNER_FIELD = "side"  # the side an event belongs to (OWNER, COUNT)

# A unit's line in a combat (5.2.1 b): its SPs and why are its own.
_LINE = Record({"unit": UNIT, "hex": PUBLIC, "sp": DERIVED, "why": DERIVED})
# A supporting unit or air mission (6.3, 8.2: `combat.Support.line`); `unit` is None for air.
_SUPPORT = Record(
    {
        "source": UNIT,
        "kind": PUBLIC,
        "unit": UNIT,
        "hex": PUBLIC,
        "sp": DERIVED,
        "why": DERIVED,
        "rule": PUBLIC,
        "takes_effects": PUBLIC,
        "cms": DERIVED,
    }
)
# A firing unit or air mission of a ranged attack (6.4, 8.2.6, `artillery._lines`).
_FIRE = Record({"source": UNIT, "kind": PUBLIC, "unit": UNIT, "sp": DERIVED, "why": DERIVED})
_DECLARED = Record(
    {
        "side": PUBLIC,
        "attackers": UNIT,
        "defenders": UNIT,
        "targets": PUBLIC,
        "attacker_abilities": ByUnit(PUBLIC),  # 15.1: a unit's stars
        "defender_abilities": ByUnit(PUBLIC),
        "attacker_cms": PUBLIC,
        "defender_cms": PUBLIC,
        "support": ByKey(ByKey(UNIT)),  # who -> kind -> artillery units / air missions
        "attacker_hq": PUBLIC,  # 9.2.1 claims (K100): seen in the combat's dice modifier
        "defender_hq": PUBLIC,
    }
)
# A combat in resolution (`results.start_results`, `start_fire_results`, `combat.do_attack`).
_COMBAT = Record(
    {
        "declared": _DECLARED,
        "kind": PUBLIC,
        "star_users": ByKey(UNIT),
        "star_paid": PUBLIC,
        "fixed_position": PUBLIC,
        "sides": PUBLIC,
        "units": ByKey(UNIT),
        "supporters": ByKey(UNIT),
        "origin": ByUnit(PUBLIC),
        "targets": PUBLIC,
        "result": PUBLIC,
        "steps": PUBLIC,
        "retreats": ByUnit(PUBLIC),
    }
)
_REVEALED_ITEM = Record(
    {"submission": PUBLIC, "side": PUBLIC, "kind": PUBLIC, "group": PUBLIC, "item": SEALED}
)
# `redact_sealed`'s note for another side's sealed input before the reveal.
_SEALED_NOTE: dict[str, Spec] = {"side": PUBLIC, "sealed": PUBLIC, "note": PUBLIC}

EVENTS: dict[str, dict[str, Spec]] = {
    # --- the sequence of play (2.0) and the game ------------------------------------------
    "game_started": {
        "scenario": PUBLIC,
        # the dice are counter-based on the seed: a player who knew it would know every
        # roll to come (DESIGN §2 "rolled in the open" means after the fact, not before)
        "seed": MODERATOR,
        "turn": PUBLIC,
        "date": PUBLIC,
        "initiative": PUBLIC,
    },
    "turn_started": {"turn": PUBLIC, "date": PUBLIC},
    "phase_started": {
        "index": PUBLIC,
        "number": PUBLIC,
        "phase": PUBLIC,
        "turn": PUBLIC,
        "active": PUBLIC,
    },
    "phase_skipped": {"number": PUBLIC, "phase": PUBLIC, "reason": TEXT},
    "side_done": {"side": PUBLIC, "phase": PUBLIC},
    "game_ended": {"reason": TEXT, "result": PUBLIC},
    # --- decisions (DESIGN §2): who is awaited for what is public, the options its own ----
    "decision_opened": {
        "side": PUBLIC,
        "decision": PUBLIC,
        "options": OWNER,
        "rule": PUBLIC,
        "info": OWNER,
    },
    "decision_updated": {"side": PUBLIC, "decision": PUBLIC, "info": OWNER},
    "decision_closed": {"side": PUBLIC, "decision": PUBLIC},
    # 9.2.1 (K100): a side's standing HQ-modifier choice, as open as its use in combat
    "hq_claim_set": {"side": PUBLIC, "claim": PUBLIC, "rule": PUBLIC},
    "decision_automatic": {
        "side": PUBLIC,
        "decision": PUBLIC,
        "answer": OWNER,  # its effects are logged by their own events
        "rule": PUBLIC,
        "why": TEXT,
    },
    # --- sealed inputs (DESIGN §2, K27: engine.wb95.sealed) ----------------------------------
    "sealed_submitted": {
        **_SEALED_NOTE,
        "sealed_kind": SEALED,
        "group": SEALED,
        "item": SEALED,
        "must": SEALED,
        "reveal": SEALED,
    },
    "sealed_amended": {**_SEALED_NOTE, "submission": SEALED, "item": SEALED},
    "sealed_completed": {**_SEALED_NOTE, "group": SEALED},
    "revealed": {"group": PUBLIC, "reason": TEXT, "items": ListOf(_REVEALED_ITEM)},
    "mask_placed": {"side": PUBLIC, "hex": PUBLIC, "rule": PUBLIC},
    "mask_removed": {"side": PUBLIC, "hex": PUBLIC, "reason": TEXT, "rule": PUBLIC},
    # --- dice (1.8): every die is rolled in the open ---------------------------------------
    "dice_rolled": {
        "faces": PUBLIC,
        "total": PUBLIC,
        "reason": TEXT,
        "forced": PUBLIC,
        "seeded": PUBLIC,
        "unit": UNIT,
        "side": PUBLIC,
        "front": PUBLIC,
    },
    # --- movement (3.0), strategic movement (12.0), reinforcements (11.0) ------------------
    "moved": {
        "unit": UNIT,
        "side": PUBLIC,
        "from": PUBLIC,
        "to": PUBLIC,
        "path": PUBLIC,
        "cost": DERIVED,  # what the path costs depends on the unit (3.1, terrain table)
        "mp": DERIVED,  # its MP allowance (the "2 of 8 MP")
        "bonus": DERIVED,
    },
    "strategic_marked": {"side": PUBLIC, "units": UNIT, "mp": ByUnit(PUBLIC), "rule": PUBLIC},
    "strategic_unmarked": {"side": PUBLIC, "units": UNIT, "reason": TEXT, "rule": PUBLIC},
    "reinforcement_entered": {
        "unit": UNIT,
        "side": PUBLIC,
        "zone": PUBLIC,
        "hex": PUBLIC,
        "half": PUBLIC,
        "stack": PUBLIC,
        "entry_cost": DERIVED,
        "mp": DERIVED,
        "path": PUBLIC,
        "to": PUBLIC,
        "cost": DERIVED,
        "bonus": DERIVED,
        "rule": PUBLIC,
    },
    "reinforcement_delayed": {
        "unit": UNIT,
        "side": PUBLIC,
        "before": DERIVED,
        "arrives": DERIVED,
        "rule": PUBLIC,
    },
    "left_map": {"unit": UNIT, "side": PUBLIC, "hex": PUBLIC, "arrives": DERIVED, "rule": PUBLIC},
    "withdrawn": {"side": PUBLIC, "unit": UNIT, "hex": PUBLIC, "reason": TEXT, "rule": PUBLIC},
    "river_crossed": {"side": PUBLIC, "river": PUBLIC, "unit": UNIT, "vp": PUBLIC},
    "control_changed": {"side": PUBLIC, "changes": PUBLIC},  # hex control is public (4.3)
    # --- combat (5.0), results, special units (15.0), HQs (9.0) ----------------------------
    "combat_stage": {"combat": _COMBAT},
    "combat_resolved": {
        "attacker": PUBLIC,
        "defender": PUBLIC,
        "attackers": ListOf(_LINE),
        "defenders": ListOf(_LINE),
        "support": ByKey(ListOf(_SUPPORT)),
        "hexes": PUBLIC,
        "attack_sp": PUBLIC,  # the totals, odds and dice are the combat's result
        "defence_sp": PUBLIC,
        "initial": PUBLIC,
        "column": PUBLIC,
        "explanation": TEXT,
        "dice": PUBLIC,
        "modifier": PUBLIC,
        "roll": PUBLIC,
        "result": PUBLIC,
    },
    "combat_ended": {"hexes": PUBLIC},
    "cel_lost": {
        "unit": UNIT,
        "hex": PUBLIC,
        "cause": TEXT,
        "rule": PUBLIC,
        "eliminated": PUBLIC,
    },
    "retreated": {"unit": UNIT, "side": PUBLIC, "path": PUBLIC, "to": PUBLIC, "hexes": PUBLIC},
    "retreat_held": {"unit": UNIT, "hexes": PUBLIC, "reason": TEXT, "rule": PUBLIC},
    "pursued": {"unit": UNIT, "side": PUBLIC, "path": PUBLIC, "to": PUBLIC},
    "disorganized": {"unit": UNIT, "cause": TEXT, "rule": PUBLIC},
    "recovered": {"unit": UNIT, "hex": PUBLIC, "rule": PUBLIC, "ruling": PUBLIC},
    "unit_eliminated": {
        "unit": UNIT,
        "side": PUBLIC,
        "hex": PUBLIC,
        "cause": TEXT,
        "rule": PUBLIC,
        "by": UNIT,
    },
    "hq_lost": {
        "unit": UNIT,
        "side": PUBLIC,
        "gainer": PUBLIC,
        "hex": PUBLIC,
        "turn": PUBLIC,
        "phase": PUBLIC,
        "number": PUBLIC,
        "rule": PUBLIC,
    },
    "hq_cms_spent": {
        "side": PUBLIC,
        "loss": PUBLIC,
        "cms": PUBLIC,
        "rule": PUBLIC,
        "ruling": PUBLIC,
    },
    "reinforced": {  # Volkssturm (15.3.3)
        "unit": UNIT,
        "source": UNIT,
        "hex": PUBLIC,
        "source_eliminated": PUBLIC,
        "rule": PUBLIC,
    },
    # --- artillery (6.0) and air (8.0) -----------------------------------------------------
    "setup_changed": {
        "unit": UNIT,
        "side": PUBLIC,
        "hex": PUBLIC,
        "from": DERIVED,  # a counter's setup shows only on a counter seen in full
        "to": DERIVED,
        "cost": DERIVED,
        "rule": PUBLIC,
    },
    "fire_resolved": {
        "side": PUBLIC,
        "mode": PUBLIC,
        "target": PUBLIC,
        "sources": ListOf(_FIRE),
        "sp": PUBLIC,
        "terrain_cms": PUBLIC,
        "used": PUBLIC,
        "table": PUBLIC,
        "dice": PUBLIC,
        "roll": PUBLIC,
        "result": PUBLIC,
        "immune": PUBLIC,
        "explanation": TEXT,
        "rule": PUBLIC,
    },
    # air missions are public once revealed (8.0, View.air); air counters are not units
    "air_missions_flown": {"turn": PUBLIC, "missions": PUBLIC, "rule": PUBLIC},
    "air_mission_flown": {
        "missions": PUBLIC,
        "side": PUBLIC,
        "mission": PUBLIC,
        "target": PUBLIC,
    },
    "air_mission_void": {"missions": PUBLIC, "reason": TEXT},
    "air_missions_ended": {"missions": PUBLIC},
    "air_battle": {
        "hexes": PUBLIC,
        "sp": PUBLIC,
        "rolls": PUBLIC,
        "totals": PUBLIC,
        "winner": PUBLIC,
        "loser": PUBLIC,
        "aborted": PUBLIC,
        "rule": PUBLIC,
    },
    "air_supply": {
        "mission": PUBLIC,
        "side": PUBLIC,
        "hex": PUBLIC,
        "die": PUBLIC,
        "success": PUBLIC,
        "rule": PUBLIC,
    },
    "air_harassed": {
        "unit": UNIT,
        "hex": PUBLIC,
        "start": PUBLIC,
        "sp": PUBLIC,  # the air SPs over the hex (8.2.14)
        "roll": PUBLIC,
        "hit": PUBLIC,
        "rule": PUBLIC,
    },
    "air_river_attack": {
        "unit": UNIT,
        "hex": PUBLIC,
        "attacks": PUBLIC,
        "dice": PUBLIC,
        "hits": PUBLIC,
        "rule": PUBLIC,
    },
    # --- fortifications (7.0) ----------------------------------------------------------------
    "fortified": {
        "side": PUBLIC,
        "hex": PUBLIC,
        "fortification": PUBLIC,
        "units": UNIT,
        "mp": ByUnit(PUBLIC),
        "turn": PUBLIC,
        "rule": PUBLIC,
    },
    "fortification_joined": {
        "unit": UNIT,
        "hex": PUBLIC,
        "fortification": PUBLIC,
        "rule": PUBLIC,
    },
    "fortification_left": {"unit": UNIT, "hex": PUBLIC, "fortification": PUBLIC, "rule": PUBLIC},
    "fortification_synced": {
        "unit": UNIT,
        "hex": PUBLIC,
        "fortification": PUBLIC,
        "rule": PUBLIC,
    },
    "fortification_removed": {
        "hex": PUBLIC,
        "side": PUBLIC,
        "fortification": PUBLIC,
        "reason": TEXT,
        "rule": PUBLIC,
    },
    "improved_fortification_placed": {"side": PUBLIC, "hex": PUBLIC, "rule": PUBLIC},
    "if_placement_done": {"side": PUBLIC, "placed": PUBLIC, "left": PUBLIC, "rule": PUBLIC},
    # --- supply (10.0): per-unit levels only where the unit is seen in full -------------------
    "supply_traced": {
        "side": PUBLIC,
        "supplied": COUNT,
        "out_of_supply": COUNT,
        "fixed_position": COUNT,
        "rule": PUBLIC,
    },
    "supply_steps": {"side": PUBLIC, "left": PUBLIC, "supplied": COUNT},
    "oos_changed": {
        "unit": UNIT,
        "side": PUBLIC,
        "old": DERIVED,
        "new": DERIVED,
        "reason": DERIVED,  # "still out of supply", "traces supply again": the level's story
        "rule": DERIVED,
        "ruling": DERIVED,
    },
    "oos_paid": {
        "unit": UNIT,
        "side": PUBLIC,
        "use": DERIVED,
        "old": DERIVED,
        "new": DERIVED,
        "rule": PUBLIC,
    },
    "surrender_test": {
        "unit": UNIT,
        "side": PUBLIC,
        "level": DERIVED,
        "roll": PUBLIC,  # its dice are rolled in the open (a `dice_rolled` event)
        "surrendered": PUBLIC,
        "note": DERIVED,  # "at OoS level 2 ..."
        "rule": PUBLIC,
    },
    # --- bridges (14.0) ------------------------------------------------------------------------
    "bridge_control_changed": {"changes": PUBLIC, "rule": PUBLIC},
    "bridge_destroyed": {
        "hexside": PUBLIC,
        "side": PUBLIC,
        "unit": UNIT,
        "cost": DERIVED,
        "cause": TEXT,
        "rule": PUBLIC,
    },
    "bridge_rebuilt": {
        "hexside": PUBLIC,
        "side": PUBLIC,
        "unit": UNIT,
        "cost": DERIVED,
        "rule": PUBLIC,
    },
    "bridge_building_declared": {
        "side": PUBLIC,
        "hq": UNIT,
        "hex": PUBLIC,
        "turn": PUBLIC,
        "note": PUBLIC,  # the sealed note's number; its hexside is sealed (K31)
        "mp": Derived("hq"),
        "rule": PUBLIC,
    },
    "bridge_built": {"hexside": PUBLIC, "side": PUBLIC, "hq": UNIT, "rule": PUBLIC},
    "bridge_building_failed": {
        "hexside": PUBLIC,
        "side": PUBLIC,
        "hq": UNIT,
        "reason": TEXT,
        "rule": PUBLIC,
    },
    "bridge_work_updated": {"hq": UNIT, "stage": PUBLIC, "rule": PUBLIC},
    "bridge_work_ended": {"hq": UNIT},
    # --- Kursk (17.0 repair, 18.0 mines, 22.0 breakdowns) ----------------------------------
    "unit_activity": {
        "side": PUBLIC,
        "moved": COUNT,
        "attacked": COUNT,
        "fortified_line": COUNT,
    },
    "activity_cleared": {"side": PUBLIC},
    "mines": {
        "side": PUBLIC,
        "front": PUBLIC,
        "faces": PUBLIC,
        "hits": PUBLIC,
        "units": UNIT,
        "note": TEXT,
        "rule": PUBLIC,
    },
    "breakdown_roll": {
        "side": PUBLIC,
        "unit": UNIT,
        "face": PUBLIC,
        "lost": PUBLIC,
        "rule": PUBLIC,
    },
    "repair_placed": {
        "side": PUBLIC,
        "unit": UNIT,
        "front": PUBLIC,
        "hex": PUBLIC,
        "turn": PUBLIC,
        "phase": PUBLIC,
        "rule": PUBLIC,
    },
    "repair_spoiled": {
        "side": PUBLIC,
        "unit": UNIT,
        "front": PUBLIC,
        "reason": TEXT,
        "rule": PUBLIC,
        "ruling": PUBLIC,
    },
    "repaired": {
        "side": PUBLIC,
        "unit": UNIT,
        "front": PUBLIC,
        "hex": PUBLIC,
        "cels": DERIVED,
        "rule": PUBLIC,
    },
    # --- a moderator's edit (engine.wb95.moderation): the other side learns only that an
    # edit happened and at which hexes (stack positions are public, 16.1.1); an edit of
    # hex control (`side` None) is public (4.3)
    "mod_edited": {
        "verb": OWNER,
        "field": OWNER,
        "unit": OWNER,
        "side": PUBLIC,
        "hex": PUBLIC,
        "hexes": PUBLIC,
        "before": OWNER,
        "after": OWNER,
        "also": OWNER,
        "also_before": OWNER,
    },
}


# --- what the viewer sees ------------------------------------------------------------------

# A word of text that may be a unit id (K89: ASCII letters, digits, '-', '_', '.'); a
# trailing '.' or '-' ends a sentence, not the id.
_WORD = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_])?")


@dataclass
class Sight:
    """What `viewer` (a side or "spectator") knows of the units: `hidden` maps the id of
    every unit it does not see in full now to what it reads instead ("a Soviet unit").
    None: no state was given (a unit of another side's event counts as not seen)."""

    viewer: str
    hidden: Mapping[str, str] | None
    _cache: dict[str, str] = field(default_factory=dict, repr=False)
    _odd: re.Pattern[str] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        odd = sorted((i for i in self.hidden or () if not _WORD.fullmatch(i)), key=len)
        if odd:  # ids the word pattern does not cover: matched whole, between non-id chars
            alts = "|".join(re.escape(i) for i in reversed(odd))
            self._odd = re.compile(rf"(?<![\w.\-])(?:{alts})(?![\w\-])")

    def text(self, s: str) -> str:
        """`s` with every hidden unit id in it replaced, word by word."""
        hidden = self.hidden
        if not hidden:
            return s
        out = self._cache.get(s)
        if out is None:
            out = hidden.get(s)
            head, colon, _ = s.partition(": ")
            if out is None and colon and head in hidden:
                # an explanation line about one unit ("s-x: 8 (4 SP x 2 CELs ...)"): its
                # figures tell the unit's strength, so only that it took part is left
                out = f"{hidden[head]}: not seen"
            if out is None:
                out = _WORD.sub(lambda m: hidden.get(m.group(), m.group()), s)
                if self._odd is not None:
                    out = self._odd.sub(lambda m: hidden[m.group()], out)
            self._cache[s] = out
        return out


def redact_sealed(events: Iterable[Event], viewer: str) -> list[Event]:
    """The events as `viewer` may read them as far as sealed inputs go (DESIGN §2, K27):
    another side's sealed submissions (and amendments and completions) show only who made
    them, until the `revealed` event that opens them. `viewer` is a side, "spectator" or
    "moderator" (who reads everything)."""
    evs = list(events)
    if viewer == "moderator":
        return evs
    opened = {int(x["submission"]) for e in evs if e.kind == "revealed" for x in e.data["items"]}
    out: list[Event] = []
    for e in evs:
        if e.kind in SEALED_EVENTS and e.data.get("side") != viewer:
            owner = str(e.data.get("side"))
            target = e.seq if e.kind == "sealed_submitted" else e.data.get("submission")
            if e.kind == "sealed_completed" or target not in opened:
                note = _SEALED_NOTES[e.kind].format(side=owner)
                out.append(Event(e.seq, e.kind, {"side": owner, "sealed": True, "note": note}))
                continue
        out.append(e)
    return out


SEALED_EVENTS = frozenset({"sealed_submitted", "sealed_amended", "sealed_completed"})
_SEALED_NOTES = {
    "sealed_submitted": "{side} submitted a sealed input",
    "sealed_amended": "{side}'s sealed input was brought up to date",
    "sealed_completed": "{side} has completed its sealed input",
}


def redact(
    events: Iterable[Event], sight: Sight, table: Mapping[str, Mapping[str, Spec]] | None = None
) -> list[Event]:
    """The events as `sight.viewer` may read them (see the module docstring), by `table`
    (a rule system's own event kinds; default `EVENTS`)."""
    kinds = EVENTS if table is None else table
    out: list[Event] = []
    for e in events:
        fields = kinds.get(e.kind)
        owner = e.data.get(OWNER_FIELD)
        p = _Pass(sight, owner if isinstance(owner, str) else None)
        data: dict[str, Any]
        if fields is None:  # an unknown kind: moderator-only, every field
            data = {k: p.withhold() for k in e.data}
        else:
            data = p.record(fields, e.data)
        if p.withheld:
            data["private"] = True
        out.append(e if data == e.data else Event(e.seq, e.kind, data))
    return out


class _Pass:
    """One event through the table."""

    def __init__(self, sight: Sight, owner: str | None) -> None:
        self.sight = sight
        self.owner = owner
        self.withheld = False

    def withhold(self) -> Any:
        """A value the viewer may not read: None (and the event is marked private)."""
        self.withheld = True
        return None

    def owns(self) -> bool:
        return self.owner is None or self.owner == self.sight.viewer

    def hides(self, uid: Any) -> bool:
        """Whether the unit `uid` names is not seen in full by the viewer."""
        if not isinstance(uid, str):
            return False
        if self.sight.hidden is None:
            return not self.owns()
        return uid in self.sight.hidden

    def record(self, fields: Mapping[str, Spec], data: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in data.items():
            spec = fields.get(k)
            out[k] = self.withhold() if spec is None else self.apply(spec, v, data)
        return out

    def apply(self, spec: Spec, value: Any, rec: Mapping[str, Any]) -> Any:
        if isinstance(spec, Cls):
            if spec in (PUBLIC, TEXT, SEALED):
                return self.scrub(value)
            if spec is UNIT:
                return self.unit(value)
            if spec is OWNER:
                return self.scrub(value) if self.owns() else self.withhold()
            if spec is COUNT:
                if self.owns():
                    return self.scrub(value)
                self.withheld = True
                return len(value) if isinstance(value, list) else None
            return self.withhold()  # MODERATOR
        if isinstance(spec, Derived):
            return self.withhold() if self.hides(rec.get(spec.of)) else self.scrub(value)
        if value is None:
            return None
        if isinstance(spec, Record):
            return self.record(spec.fields, value) if isinstance(value, dict) else self.withhold()
        if isinstance(spec, ListOf):
            if not isinstance(value, list):
                return self.withhold()
            return [self.apply(spec.item, v, rec) for v in value]
        if not isinstance(value, dict):
            return self.withhold()
        out: dict[str, Any] = {}
        for k, v in value.items():
            if isinstance(spec, ByUnit) and self.hides(k):
                self.withheld = True
                continue
            if self.sight.hidden and k in self.sight.hidden:
                self.withheld = True
                continue
            out[self.sight.text(k) if isinstance(k, str) else k] = self.apply(spec.value, v, rec)
        return out

    def unit(self, value: Any) -> Any:
        if self.sight.hidden is not None:
            return self.scrub(value)
        if self.owns():
            return value
        name = f"a {self.owner.capitalize()} unit" if self.owner else "a unit"
        if isinstance(value, str):
            return name
        if isinstance(value, list):
            return [name if isinstance(v, str) else v for v in value]
        return value

    def scrub(self, value: Any) -> Any:
        """`value` with every hidden unit id replaced (strings, words of text) and every
        mapping entry keyed by one left out."""
        if not self.sight.hidden:
            return value
        if isinstance(value, str):
            return self.sight.text(value)
        if isinstance(value, list):
            return [self.scrub(v) for v in value]
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            for k, v in value.items():
                if isinstance(k, str):
                    if k in self.sight.hidden:
                        self.withheld = True
                        continue
                    k = self.sight.text(k)
                out[k] = self.scrub(v)
            return out
        return value


def unclassified(e: Event) -> list[str]:
    """The fields of `e` (as dotted paths) the table does not classify: what a test fails
    on, and what `redact` hides from every player."""
    fields = EVENTS.get(e.kind)
    if fields is None:
        return [e.kind]
    out: list[str] = []
    _walk(Record(fields), e.data, e.kind, out)
    return out


def _walk(spec: Spec, value: Any, path: str, out: list[str]) -> None:
    if isinstance(spec, Record) and isinstance(value, dict):
        for k, v in value.items():
            sub = spec.fields.get(k)
            if sub is None:
                out.append(f"{path}.{k}")
            else:
                _walk(sub, v, f"{path}.{k}", out)
    elif isinstance(spec, ListOf) and isinstance(value, list):
        for v in value:
            _walk(spec.item, v, f"{path}[]", out)
    elif isinstance(spec, ByKey | ByUnit) and isinstance(value, dict):
        for v in value.values():
            _walk(spec.value, v, f"{path}.*", out)
