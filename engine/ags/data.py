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


def provenance(sc: Scenario) -> dict[str, str]:
    out: dict[str, str] = {
        "the CRT": sc.crt.provenance,
        "the Terrain Effects Chart": sc.tec.provenance,
        "the turn track": sc.track.provenance,
        "the victory table": sc.victory.provenance,
    }
    steps = {s.provenance for u in sc.units.values() for s in u.steps}
    types = {u.type_provenance for u in sc.units.values()}
    mixed = sorted((steps | types) - {"printed"})
    out["the counters"] = (
        f"fronts printed; backs and Soviet unit types {', '.join(mixed)}" if mixed else "printed"
    )
    for key, name in PART_NAMES.items():
        if key in sc.provenance:
            out[name] = sc.provenance[key]
    return out


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
        out.append(f"the CRT ({sc.crt.provenance})")
    return out
