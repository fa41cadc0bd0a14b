"""What a viewer sees of an AGS game. Army Group South has no hidden information: no
untried units in Korsun (AGS-K 19.63, so 13.0 does not apply), no masked stacks, air
points announced openly (AGS 14.12). Every viewer sees every counter in full, on the map
or due as a reinforcement (the schedule is printed, 26.1, 26.2); a pending decision's
options go to the side it is addressed to."""

from __future__ import annotations

from engine.ags import game, sequence, symbols
from engine.redaction import PUBLIC, UNIT, ListOf, Spec
from engine.state import GameState
from engine.view import MODERATOR, PendingView, UnitView, View

# Every field of every AGS event (engine/redaction.py): all public -- nothing is hidden.
_P = PUBLIC
EVENTS: dict[str, dict[str, Spec]] = {
    "game_started": {"scenario": _P, "seed": _P, "system": _P, "provenance": _P},
    "turn_started": {
        "turn": _P, "date": _P, "weather": _P, "air": _P, "active_hqs": ListOf(UNIT),
        "supported": ListOf(UNIT),
    },
    "set_up": {"side": _P, "unit": UNIT, "hex": _P, "rule": _P},
    "setup_done": {"side": _P, "rule": _P},
    "phase_started": {"turn": _P, "index": _P, "side": _P, "title": _P},
    "supply_checked": {"side": _P, "out_of_supply": ListOf(UNIT), "isolated": ListOf(UNIT)},
    "moved": {
        "side": _P, "unit": UNIT, "path": _P, "cost": _P, "stops": _P, "how": _P,
        "stack": ListOf(UNIT),
    },
    "entered": {
        "side": _P, "unit": UNIT, "hex": _P, "cost": _P, "stops": _P, "area": _P,
        "stack": ListOf(UNIT),
    },
    "attack_declared": {
        "side": _P, "attackers": ListOf(UNIT), "hexes": _P, "defenders": ListOf(UNIT), "air": _P,
        "hq": _P, "led": _P,
    },
    "hqs_activated": {"side": _P, "hqs": ListOf(UNIT), "rule": _P},
    "air_supply": {
        "side": _P, "hex": _P, "units": ListOf(UNIT), "until": _P, "heavy": ListOf(UNIT),
        "rule": _P,
    },
    "heavy_equipment_removed": {"side": _P, "units": ListOf(UNIT), "rule": _P},
    "air_marker_removed": {"side": _P, "hex": _P, "rule": _P},
    "supported_removed": {
        "side": _P, "units": ListOf(UNIT), "options": _P, "by": _P, "rule": _P,
    },
    "air_spent": {"side": _P, "points": _P, "use": _P, "rule": _P},
    "combat_resolved": {
        "side": _P, "attack": _P, "defence": _P, "ratio": _P, "shift": _P, "column": _P,
        "die": _P, "result": _P, "lines": _P, "notes": _P, "crt": _P, "reconstructed": _P,
        "defender_air": _P, "data": _P, "overrun": _P,
    },
    "combat_opened": {
        "side": _P, "attackers": ListOf(UNIT), "defenders": ListOf(UNIT), "hexes": _P,
        "origin": _P, "results": _P, "engaged": _P, "isolated": ListOf(UNIT), "overrun": _P,
    },
    "overrun_declared": {
        "side": _P, "attackers": ListOf(UNIT), "defenders": ListOf(UNIT), "hex": _P, "cost": _P,
        "hq": _P,
    },
    "disrupted": {"side": _P, "units": ListOf(UNIT)},
    "overrun_stopped": {"side": _P, "units": ListOf(UNIT)},
    "decision_opened": {"side": _P, "decision": _P, "options": _P, "rule": _P},
    "decision_closed": {"side": _P, "decision": _P, "answer": _P},
    "retreat_chosen": {"side": _P, "unit": UNIT},
    "retreated": {"side": _P, "unit": UNIT, "path": _P},
    "advanced": {
        "side": _P, "units": ListOf(UNIT), "path": _P, "overrun": _P, "defenders": _P,
    },
    "step_lost": {"side": _P, "unit": UNIT, "hex": _P, "steps_left": _P, "steps": _P},
    "unit_eliminated": {"side": _P, "unit": UNIT, "hex": _P, "rule": _P},
    "vp_awarded": {"side": _P, "points": _P, "why": _P, "rule": _P},
    "combat_closed": {"side": _P},
    "side_done": {"side": _P},
    "game_ended": {"result": _P},
    "dice_rolled": {"faces": _P, "total": _P, "reason": _P, "forced": _P, "seeded": _P, "rule": _P},
}  # fmt: skip


def view(state: GameState, viewer: str) -> View:
    units = []
    stacks: dict[str, int] = {}
    for u in sorted(state.units.values(), key=lambda x: x.id):
        if u.eliminated:
            continue
        sp = game.spec(state, u.id)
        st = game.step(state, u)
        pos = 0
        if u.hex is not None:
            pos = stacks.get(u.hex, 0)
            stacks[u.hex] = pos + 1
        units.append(
            UnitView(
                u.side,
                u.hex,
                "full",
                stack_pos=pos,
                id=u.id,
                name=sp.designation,
                type=sp.type,
                size=sp.size,
                nation=u.side,
                sp=st.attack,
                mp=str(st.movement),
                cel=u.cel,
                max_cel=u.max_cel,
                oos=u.oos,
                arrives=None if u.arrives is None else dict(u.arrives),
                factors=symbols.factors(sp, st),  # issue #19: drawn as printed
                symbol=symbols.symbol(sp),
                face=symbols.face(st),
            )
        )
    p = sequence.current(state)
    date = game.scenario(state).date(state.turn).isoformat()
    pending = tuple(
        PendingView(d.side, d.kind, d.options if viewer in (d.side, MODERATOR) else None, d.rule)
        for d in state.pending
    )
    from engine.ags.orders import awaited

    return View(
        viewer=viewer,
        scenario=state.setup.id,
        turn=state.turn,
        date=date,
        phase=p.kind,
        phase_number=p.number,
        active=(p.side,),
        awaited=tuple(awaited(state)),
        units=tuple(units),
        control={},
        pending=pending,
        vp=dict(game.ext(state, "vp", {"soviet": 0, "german": 0})),
        over=state.over,
        result=state.result,
        stacks=stacks,
    )
