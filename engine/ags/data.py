"""Where the data of an AGS game come from (issue #19; docs/ags.md "Files and
provenance"): each part of the scenario with its provenance, for `status`, the scenario
list and the game record (`RuleSystem.data_provenance`)."""

from __future__ import annotations

from engine.ags.scenario import Scenario
from engine.state import GameState, UnitState

PART_NAMES = {
    "map": "the map",
    "start_line": "the start line and set-up areas",
    "german_setup": "the German set-up",
    "soviet_setup": "the Soviet set-up",
    "entry_areas": "the entry areas",
}


# a league's file (issue #19, scenarios/overrides.py) -> the parts it gives
FILE_PARTS = {
    "crt": ("the CRT",),
    "tec": ("the Terrain Effects Chart",),
    "turns": ("the turn track",),
    "victory": ("the victory table",),
    "counters": ("the counters",),
    "map": ("the map",),
    "scenario": tuple(n for k, n in PART_NAMES.items() if k != "map"),
}


def provenance(sc: Scenario) -> dict[str, str]:
    out: dict[str, str] = {
        "the CRT": sc.crt.provenance,
        "the Terrain Effects Chart": sc.tec.provenance,
        "the turn track": sc.track.provenance,
        "the victory table": sc.victory.provenance,
    }
    out["the counters"] = _counters(sc)
    for key, name in PART_NAMES.items():
        if key in sc.provenance:
            out[name] = sc.provenance[key]
    for file, who in sc.supplied_by.items():  # who supplied a league's file, said with it
        for name in FILE_PARTS.get(file, ()):
            said = out.get(name, "")
            if said == "league-supplied":
                out[name] = f"league-supplied by {who}"
            elif "league-supplied" in said:
                out[name] = f"{said}; supplied by {who}"
    return out


def _counters(sc: Scenario) -> str:
    """The counters' values by provenance: printed fronts, reconstructed backs and Soviet
    unit types (K121) as shipped; a league's counter file makes them its own (German
    steps below the front stay those of the 16.0 ladders' file)."""
    units = sc.units.values()
    fronts = {u.steps[0].provenance for u in units}
    backs = sorted({s.provenance for u in units for s in u.steps[1:]} - fronts)
    types = sorted({u.type_provenance for u in units} - fronts)
    said = [f"fronts {', '.join(sorted(fronts))}"]
    if backs == types and backs:
        said.append(f"backs and Soviet unit types {', '.join(backs)}")
    else:
        said += [f"backs partly {', '.join(backs)}"] if backs else []
        said += [f"Soviet unit types {', '.join(types)}"] if types else []
    if len(said) == 1:
        return ", ".join(sorted(fronts))
    return "; ".join(said)


def used_in_combat(
    state: GameState, attackers: list[UnitState], defenders: list[UnitState]
) -> list[str]:
    """The values not printed in the rules that a combat used (issue #19): units' steps
    from a reconstructed back, the terrain and river hexsides of a reconstructed map where
    they changed a defence, the CRT unless printed."""
    from engine.ags import game

    sc = game.scenario(state)
    out: list[str] = []
    for u in (*attackers, *defenders):
        p = game.step(state, u).provenance
        if p != "printed":
            out.append(f"{u.id}'s strengths ({p})")
    board = sc.board
    if board.provenance != "printed":
        for h in sorted({d.hex for d in defenders if d.hex is not None}):
            terrain = board.terrain_at(h)
            if (sc.tec.row(terrain).defence or 1) > 1:
                out.append(f"the {terrain} of {h} ({board.provenance} map)")
            sides = [board.feature(a.hex, h) for a in attackers if a.hex is not None]
            if sides and all(f is not None for f in sides):
                out.append(f"the river hexsides of {h} ({board.provenance} map)")
    if sc.crt.provenance != "printed":
        who = sc.supplied_by.get("crt")
        out.append(f"the CRT ({sc.crt.provenance}{f' by {who}' if who else ''})")
    return out
