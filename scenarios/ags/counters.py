"""The Korsun counter section (`scenarios/tables/ags-korsun-counters.yaml`) -> the
`engine.ags.units.UnitSpec` of every unit, with its steps (AGS 9.6; AGS-K 19.6, 24.1) and
the provenance of each value: fronts printed, backs and Soviet types reconstructed (the
file says how), German steps from the 16.0 ladders where the front is on one."""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from engine.ags.provenance import Provenance
from engine.ags.tec import MoveClass
from engine.ags.units import Size, Step, UnitSpec
from engine.hexgrid import HexIdError, normalize
from scenarios.ags.tables import DataFile, _Strict, organization
from scenarios.errors import ScenarioError, validated
from scenarios.overrides import LEAGUE_SUPPLIED, label, locate, read_data, stamp

COUNTERS_FILE = "ags-korsun-counters.yaml"
SETUP_LETTERS = ("A", "B", "C", "D", "E")
REINFORCEMENT_CODES = ("6F", "6G")

# Unit type -> movement class (TEC footnote: mech = armor, mechanized infantry, cavalry).
TYPES: dict[str, MoveClass] = {
    "rifle-division": "inf",
    "gd-rifle-division": "inf",
    "gd-airborne-division": "inf",
    "gd-airborne-brigade": "inf",
    "gd-motorized-rifle-brigade": "mech",
    "motorized-rifle-corps": "mech",
    "gd-motorized-rifle-corps": "mech",
    "tank-brigade": "mech",
    "gd-tank-brigade": "mech",
    "tank-corps": "mech",
    "gd-tank-corps": "mech",
    "cavalry-division": "mech",
    "gd-cavalry-division": "mech",
    "hq": "hq",
    "infantry-division": "inf",
    "divisionsgruppe": "inf",
    "infantry-regiment": "inf",
    "panzer-regiment": "mech",
    "panzergrenadier-regiment": "mech",
    "stug-regiment": "mech",
    "heavy-tank-regiment": "mech",
    "motorized-brigade": "mech",
}


class CounterIn(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    des: str
    size: Size
    printed_size: Size | None = None
    type: str
    front: str | None = None
    back: str | None = None
    rpl: str | None = None
    rpl_back: str | None = None
    leadership: int | None = Field(default=None, ge=1)
    movement: int | None = Field(default=None, ge=1)
    formation: str | None = None
    setup: str | None = None
    ladder: str | None = None
    provenance: Provenance | None = None  # overrides the file's for this unit's values


class MarkersIn(_Strict):
    soviet: dict[str, int]
    german: dict[str, int]


class CountersIn(DataFile):
    reconstruction: dict[str, str]
    soviet: list[CounterIn]
    german: list[CounterIn]
    markers: MarkersIn


def _values(text: str, file: str, key: str) -> tuple[int, int, int]:
    parts = text.split("-")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ScenarioError(file, key, f"{text!r} is not attack-defence-movement (e.g. 4-5-5)")
    a, d, m = (int(p) for p in parts)
    return a, d, m


def _step(text: str, prov: Provenance, counter: str, file: str, key: str) -> Step:
    a, d, m = _values(text, file, key)
    return Step(a, d, m, prov, counter)


def _setup_code(code: str | None, file: str, key: str) -> str | None:
    if code is None or code in SETUP_LETTERS or code in REINFORCEMENT_CODES:
        return code
    try:
        return normalize(code)
    except HexIdError:
        raise ScenarioError(
            file, key, f"{code!r} is not a set-up area (A-E), a hex or 6F/6G (AGS-K 18.2)"
        ) from None


def _unit(c: CounterIn, side: Literal["soviet", "german"], d: CountersIn, file: str) -> UnitSpec:
    key = f"{side}[{c.id}]"
    if c.type not in TYPES:
        raise ScenarioError(file, f"{key}.type", f"unknown unit type {c.type!r}")
    printed: Provenance = c.provenance or d.provenance
    # a league's file is the league's throughout, backs included
    rebuilt: Provenance = c.provenance or (
        LEAGUE_SUPPLIED if d.provenance == LEAGUE_SUPPLIED else "reconstructed"
    )
    if c.type == "hq":
        if c.leadership is None or c.movement is None:
            raise ScenarioError(file, key, "an HQ needs leadership and movement (AGS 11.1)")
        steps: tuple[Step, ...] = (
            Step(0, c.leadership // 2, c.movement, printed),  # AGS 11.35, A7
        )
    else:
        if c.front is None:
            raise ScenarioError(file, f"{key}.front", "missing")
        front = _step(c.front, printed, "front", file, f"{key}.front")
        if side == "german" and c.ladder is not None:
            steps = _ladder_steps(c, front, file, key)
        else:
            steps = (front,)
            if c.back is not None:
                steps += (_step(c.back, rebuilt, "back", file, f"{key}.back"),)
        if c.size == "XXX" and side == "soviet":
            if c.back is None or c.rpl is None or c.rpl_back is None:
                raise ScenarioError(file, key, "a corps has four steps (AGS-K 19.61)")
            steps += (
                _step(c.rpl, printed, "rpl-front", file, f"{key}.rpl"),
                _step(c.rpl_back, rebuilt, "rpl-back", file, f"{key}.rpl_back"),
            )
        elif side == "soviet" and len(steps) != 2:
            raise ScenarioError(file, key, "a Soviet unit has two steps (AGS-K 19.6, A3)")
        for i, (hi, lo) in enumerate(itertools.pairwise(steps)):
            if (lo.attack, lo.defence) > (hi.attack, hi.defence) or lo == hi:
                raise ScenarioError(file, f"{key}.steps[{i + 1}]", "is not weaker than before")
    return UnitSpec(
        id=c.id,
        side=side,
        designation=c.des,
        size=c.size,
        type=c.type,
        move_class=TYPES[c.type],
        steps=steps,
        type_provenance=printed if side == "german" or c.type == "hq" else rebuilt,
        formation=c.formation,
        guards=c.type.startswith("gd-") or " Gd" in f" {c.des}",
        leadership=c.leadership,
        setup=_setup_code(c.setup, file, f"{key}.setup"),
        notes=f"printed size {c.printed_size} (K121)" if c.printed_size else "",
    )


def _ladder_steps(c: CounterIn, front: Step, file: str, key: str) -> tuple[Step, ...]:
    """A German unit's steps: the 16.0 levels of its type from its printed front down
    (AGS 9.61, 9.64; AGS-K 18.2 'highest printed strength')."""
    ladders, given = organization()
    if c.ladder not in ladders:
        raise ScenarioError(file, f"{key}.ladder", f"no 16.0 ladder {c.ladder!r}")
    levels = ladders[c.ladder]
    at = (front.attack, front.defence)
    if at not in levels:
        raise ScenarioError(
            file, f"{key}.front", f"{c.front} is not a level of the 16.0 ladder {c.ladder}"
        )
    below = levels[levels.index(at) + 1 :]
    return (front, *(Step(a, d, front.movement, given, "back") for a, d in below))


def counters_from(data: Any, file: str) -> dict[str, UnitSpec]:
    d = validated(CountersIn, data, file)
    out: dict[str, UnitSpec] = {}
    for side, items in (("soviet", d.soviet), ("german", d.german)):
        for c in items:
            if c.id in out:
                raise ScenarioError(file, f"{side}[{c.id}]", "the id is used twice")
            out[c.id] = _unit(c, side, d, file)  # type: ignore[arg-type]
    return out


def load_counters(path: Path | None = None) -> dict[str, UnitSpec]:
    p = path or locate(f"tables/{COUNTERS_FILE}")
    return _counters(p, stamp(p), stamp(locate("tables/ags-organization.yaml")))


@cache
def _counters(p: Path, _stamp: object, _ladders: object) -> dict[str, UnitSpec]:
    return counters_from(read_data(p), label(p))


def counter_pieces(path: Path | None = None) -> dict[str, int]:
    """Pieces of the section per side (units, corps' rpl counters, markers): the text's
    section has 200 (Counter Section Nr. 1: 200 pieces)."""
    p = path or locate(f"tables/{COUNTERS_FILE}")
    d = validated(CountersIn, read_data(p), label(p))
    units = load_counters(p)
    out = {}
    for side, markers in (("soviet", d.markers.soviet), ("german", d.markers.german)):
        mine = [u for u in units.values() if u.side == side]
        out[side] = len(mine) + sum(1 for u in mine if u.is_corps) + sum(markers.values())
    return out
