"""The Kursk joint game (WB-95 Kursk 1943, "Join Scenarios": "Both 'Kursk' and
'Prokhorovka' scenarios can be played together after both maps are connected. Such game
allows STAWKA reinforcements to enter the game on either map").

`python -m scenarios.joint` writes `scenarios/wb95/kursk-joint.yaml` from the two shipped
scenarios, on the joint map `kursk-joint` (scenarios/geography/kursk-joint.yaml: the
Prokhorovka sheet's hex CCRR is (CC-26)(RR+36) there, docs/maps.md). Each side's setup,
reinforcements and special rules are both scenarios', the southern ones renumbered; the
victory conditions are both scenarios' added up (docs/rulings.md K92).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import yaml

from engine.hexgrid import hex_id, parse_hex
from scenarios.yamlio import read_yaml_file

HERE = Path(__file__).parent
SHIFT = (-26, 36)  # the Prokhorovka sheet on the joint map (kursk-joint geography)
NORTH_ROWS = (0, 35)
SOUTH_ROWS = (36, 71)


def south_hex(h: object) -> str:
    """A Prokhorovka-sheet hex number on the joint map."""
    c, r = parse_hex(str(h))
    return hex_id(c + SHIFT[0], r + SHIFT[1])


def _south_unit(u: dict[str, Any]) -> dict[str, Any]:
    u = copy.deepcopy(u)
    if "hex" in u:
        u["hex"] = south_hex(u["hex"])
    if isinstance(u.get("arrives"), dict) and "hex" in u["arrives"]:
        u["arrives"]["hex"] = south_hex(u["arrives"]["hex"])
    return u


def _merge_units(north: list[dict[str, Any]], south: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Both setups; a unit both schedule (XVIII ARM: a Kursk STAWKA reserve and part of 5
    Guards Armoured Army at Prokhorovka) arrives by the earlier schedule (K92)."""
    out = {u["id"]: copy.deepcopy(u) for u in north}
    for raw in south:
        u = _south_unit(raw)
        old = out.get(u["id"])
        if old is None:
            out[u["id"]] = u
        elif "arrives" in old and "arrives" in u:
            if int(u["arrives"]["turn"]) < int(old["arrives"]["turn"]):
                out[u["id"]] = u
        elif "hex" in u:
            out[u["id"]] = u
    return list(out.values())


def _levels(north: list[dict[str, Any]], south: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Both scenarios' automatic victories; the German VP scales added up (Kursk 11/19/26
    + Prokhorovka 16/24/32 = 27/43/58)."""
    auto = [copy.deepcopy(lv) for lv in [*north, *south] if lv.get("at_any_moment")]
    scale: dict[str, int] = {}
    for lv in [*north, *south]:
        if lv.get("at_end") and lv.get("vp") is not None:
            scale[lv["result"]] = scale.get(lv["result"], 0) + int(lv["vp"])
    ends = [
        {"side": "german", "at_end": True, "vp": vp, "result": result}
        for result, vp in sorted(scale.items(), key=lambda kv: -kv[1])
    ]
    return auto + ends


def _south_area(area: dict[str, Any]) -> dict[str, Any]:
    """A southern sheet's box of rows/cols on the joint map (all its rows when none)."""
    out = dict(area)
    rows = area.get("rows")
    out["rows"] = list(SOUTH_ROWS) if rows is None else [int(r) + SHIFT[1] for r in rows]
    if "cols" in area:
        out["cols"] = [int(c) + SHIFT[0] for c in area["cols"]]
    return out


def joint_scenario() -> dict[str, Any]:
    k = read_yaml_file(HERE / "wb95" / "kursk.yaml")
    p = read_yaml_file(HERE / "wb95" / "prokhorovka.yaml")
    ks, ps = k["special"], p["special"]
    no_crossing = []
    for nc in ps.get("no_crossing", []):
        nc = copy.deepcopy(nc)
        nc["area"] = _south_area(nc.get("area") or {})
        if "hexsides" in nc:
            nc["hexsides"] = [[south_hex(a), south_hex(b)] for a, b in nc["hexsides"]]
        no_crossing.append(nc)
    air = {}
    for side in ("german", "soviet"):
        a = copy.deepcopy(k["air"][side])
        a["fly"] = int(k["air"][side]["fly"]) + int(p["air"][side]["fly"])
        air[side] = a
    kv, pv = k["victory"], p["victory"]
    victory = {
        "rivers": [*kv.get("rivers", []), *pv.get("rivers", [])],
        "hexes": [
            *kv.get("hexes", []),
            *({**h, "hex": south_hex(h["hex"])} for h in pv.get("hexes", [])),
        ],
        "unit_vp": int(kv.get("unit_vp", 0)),
        "entered": [*kv.get("entered", []), *pv.get("entered", [])],
        "conditions": _levels(kv.get("conditions", []), pv.get("conditions", [])),
        "otherwise": kv.get("otherwise", "soviet victory"),
    }
    return {
        "id": "kursk-joint",
        "name": "Kursk and Prokhorovka, the joint game (5-23 July 1943)",
        "system": "wb95",
        "game": "kursk",
        "initiative": k["initiative"],
        "turns": max(int(k["turns"]), int(p["turns"])),
        "start": k["start"],
        "calendar": k["calendar"],
        "options": {},
        "barrage": False,
        "map": "kursk-joint",
        "countersheet": "kursk",
        "sides": {
            "german": {"nation": "german", "supply": [{"edge": "N"}, {"edge": "S"}]},
            "soviet": {
                "nation": "soviet",
                "supply": [{"edge": "E"}, {"name": "Kursk"}, {"name": "Obojań"}],
            },
        },
        "air": air,
        "special": {
            "fronts": {"north": {"rows": list(NORTH_ROWS)}, "south": {"rows": list(SOUTH_ROWS)}},
            "surrounded": [*ks.get("surrounded", []), *ps.get("surrounded", [])],
            "cut_off": [*ks.get("cut_off", []), *ps.get("cut_off", [])],
            "activation": [*ks.get("activation", []), *ps.get("activation", [])],
            "half_mp": [*ks.get("half_mp", []), *ps.get("half_mp", [])],
            "no_crossing": no_crossing,
            "withdraw": [*ks.get("withdraw", []), *ps.get("withdraw", [])],
            "banks": [
                *ks.get("banks", []),
                *({**b, "area": _south_area(b.get("area") or {})} for b in ps.get("banks", [])),
            ],
            "destroyed_bridges": [
                *ks.get("destroyed_bridges", []),
                *([south_hex(a), south_hex(b)] for a, b in ps.get("destroyed_bridges", [])),
            ],
        },
        "victory": victory,
        "units": _merge_units(k["units"], p["units"]),
    }


HEADER = (
    "# Kursk joint game: GENERATED by `python -m scenarios.joint` from kursk.yaml and\n"
    "# prokhorovka.yaml (do not edit by hand; edit those and regenerate). Southern hexes are\n"
    "# renumbered (CC-26)(RR+36): docs/maps.md; rulings K92.\n"
)


def joint_text() -> str:
    return HEADER + yaml.safe_dump(joint_scenario(), sort_keys=False, allow_unicode=True, width=100)


def main(argv: list[str] | None = None) -> int:
    path = HERE / "wb95" / "kursk-joint.yaml"
    args = sys.argv[1:] if argv is None else argv
    if "--check" in args:
        if not path.is_file() or path.read_text(encoding="utf-8") != joint_text():
            print(f"{path}: out of date (python -m scenarios.joint)", file=sys.stderr)
            return 1
        return 0
    path.write_text(joint_text(), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
