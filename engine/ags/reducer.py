"""The AGS reducer: the only place an AGS game's state changes, one event at a time
(engine/core.py). The system's own values are kept in `GameState.ext`:

- `weather` ("snow"/"mud"), `air` ({side: points left this Game-Turn}), `active_hqs`,
  `supported` (corps with a Supported marker), `vp` ({side: points}); `operations`
  ({HQ: offensive operations this Game-Turn}, AGS-K 23.2); `led` (HQs that added their
  leadership this phase, AGS 11.36, 11.37); `air_markers` (towns with an Air marker),
  `air_supplied` ({unit: last Game-Turn in supply}), `heavy` ({unit: Heavy Equipment
  state 1, 2 or 3 = under}), `heavy_given` (AGS-K 25.2, 25.3);
- `out_of_supply`, `isolated`: the phasing side's units as judged at the start of the
  movement phase (A11); `fresh`: reinforcements in their first player-turn (AGS 15.0);
- `stopped`: units that entered an enemy zone of control this phase (5.23, A24);
  `last_moved`: the units the latest move, entry or overrun moved, whose moves may go on
  (AGS 5.1, K177);
  `defended`: hexes attacked this phase (9.14);
- `combat`: the combat whose results are being applied (plain data, `results`)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from engine.ags import marks
from engine.core import Event
from engine.state import Decision, GameState

Handler = Callable[[GameState, dict[str, Any]], None]


def _turn_started(s: GameState, d: dict[str, Any]) -> None:
    s.turn = int(d["turn"])
    s.ext.update(
        weather=d["weather"],
        air=dict(d["air"]),
        active_hqs=list(d["active_hqs"]),
        supported=list(d["supported"]),
    )
    s.ext.setdefault("vp", {"soviet": 0, "german": 0})
    s.ext["operations"] = {}  # AGS-K 23.2: offensive operations per HQ this Game-Turn
    s.ext.pop("supported_options", None)


def _phase_started(s: GameState, d: dict[str, Any]) -> None:
    s.turn, s.phase, s.done = int(d["turn"]), int(d["index"]), []
    for u in s.units.values():
        u.moved, u.fought, u.mp_spent = False, False, Fraction(0)
    s.ext["stopped"], s.ext["defended"] = [], []
    s.ext["led"] = []  # HQs that added their leadership this phase (AGS 11.36, 11.37)
    if s.phase in (0, 3):  # a new player-turn
        s.ext["fresh"] = []
    if s.phase == 5 and s.ext.get("air_markers"):  # AGS-K 25.27
        s.ext["air_markers"] = []


def _supply_checked(s: GameState, d: dict[str, Any]) -> None:
    s.ext["out_of_supply"] = list(d["out_of_supply"])
    s.ext["isolated"] = list(d["isolated"])
    for u in s.units.values():
        if u.side == d["side"]:
            u.oos = 1 if u.id in d["out_of_supply"] else 0


def _moved(s: GameState, d: dict[str, Any]) -> None:
    u = s.units[d["unit"]]
    u.hex, u.moved = d["path"][-1], True
    u.mp_spent += Fraction(d["cost"])
    heavy = s.ext.get("heavy", {})
    if 0 < int(heavy.get(u.id, 0)) < 3:  # AGS-K 25.34: the marker flips, then goes under
        heavy[u.id] = int(heavy[u.id]) + 1
    if d.get("stops"):
        s.ext.setdefault("stopped", []).append(u.id)
    s.ext["last_moved"] = list(d.get("stack") or [u.id])  # AGS 5.1, K177


def _entered(s: GameState, d: dict[str, Any]) -> None:
    u = s.units[d["unit"]]
    u.hex, u.arrives, u.moved = d["hex"], None, True
    u.mp_spent = Fraction(d["cost"])
    s.ext.setdefault("fresh", []).append(u.id)
    if d.get("stops"):
        s.ext.setdefault("stopped", []).append(u.id)
    s.ext["last_moved"] = list(d.get("stack") or [u.id])  # AGS 5.1, K177


def _attack_declared(s: GameState, d: dict[str, Any]) -> None:
    for uid in (*d["attackers"], *d["defenders"]):
        s.units[uid].fought = True
    s.ext.setdefault("defended", []).extend(d["hexes"])
    if d["air"]:
        s.ext["air"][d["side"]] -= int(d["air"])
    s.ext["declared"] = dict(d)  # until it is resolved (AGS 14.12: the defender's air)
    hq = d.get("hq")
    if hq:  # AGS-K 23.2, A40
        ops = s.ext.setdefault("operations", {})
        ops[hq] = int(ops.get(hq, 0)) + 1
        if d.get("led"):
            s.ext.setdefault("led", []).append(hq)
            s.units[hq].fought = True


def _combat_resolved(s: GameState, d: dict[str, Any]) -> None:
    s.ext.pop("declared", None)


def _air_spent(s: GameState, d: dict[str, Any]) -> None:
    s.ext["air"][d["side"]] -= int(d["points"])


def _air_supply(s: GameState, d: dict[str, Any]) -> None:
    """AGS-K 25.22-25.28: the Air marker, the air point, the units supplied until the end
    of the next Game-Turn, a Heavy Equipment marker (side 1) the first time."""
    s.ext["air"][d["side"]] -= 1
    s.ext.setdefault("air_markers", []).append(d["hex"])
    supplied = s.ext.setdefault("air_supplied", {})
    for uid in d["units"]:
        supplied[uid] = int(d["until"])
    heavy = s.ext.setdefault("heavy", {})
    given = s.ext.setdefault("heavy_given", [])
    for uid in d["heavy"]:
        heavy[uid] = 1
        given.append(uid)


def _air_marker_removed(s: GameState, d: dict[str, Any]) -> None:
    s.ext["air_markers"] = [h for h in s.ext.get("air_markers", []) if h != d["hex"]]


def _heavy_equipment_removed(s: GameState, d: dict[str, Any]) -> None:
    for uid in d["units"]:
        s.ext.get("heavy", {}).pop(uid, None)


def _hqs_activated(s: GameState, d: dict[str, Any]) -> None:
    s.ext["active_hqs"] = list(d["hqs"])


def _supported_removed(s: GameState, d: dict[str, Any]) -> None:
    opts = d["options"]
    s.ext["supported"] = [u for u in opts["supported"] if u not in d["units"]]
    s.ext["supported_options"] = dict(opts)  # the player may still choose (K161)


def _combat_opened(s: GameState, d: dict[str, Any]) -> None:
    s.ext["combat"] = {**d, "retreats": {}}


def _decision_opened(s: GameState, d: dict[str, Any]) -> None:
    s.pending.append(Decision(d["side"], d["decision"], d["options"], d.get("rule", "")))


def _decision_closed(s: GameState, d: dict[str, Any]) -> None:
    s.pending = [x for x in s.pending if not (x.side == d["side"] and x.kind == d["decision"])]


def _retreat_chosen(s: GameState, d: dict[str, Any]) -> None:
    for x in s.pending:
        if x.side == d["side"] and x.kind == "losses_or_retreat":
            x.options = {
                **x.options,
                "mode": "retreat",
                "retreated": [*x.options.get("retreated", []), d["unit"]],
            }


def _retreated(s: GameState, d: dict[str, Any]) -> None:
    u = s.units[d["unit"]]
    u.hex = d["path"][-1]
    if s.ext.get("combat") is not None:
        s.ext["combat"]["retreats"][u.id] = list(d["path"])


def _advanced(s: GameState, d: dict[str, Any]) -> None:
    for uid in d["units"]:
        s.units[uid].hex = d["path"][-1]


def _set_up(s: GameState, d: dict[str, Any]) -> None:
    s.units[d["unit"]].hex = d["hex"]  # AGS-K 18.2, K170


def _step_lost(s: GameState, d: dict[str, Any]) -> None:
    s.units[d["unit"]].cel = int(d["steps_left"])


def _unit_eliminated(s: GameState, d: dict[str, Any]) -> None:
    s.units[d["unit"]].eliminated = True
    s.ext.get("heavy", {}).pop(d["unit"], None)  # AGS-K 25.35 (2)


def _vp_awarded(s: GameState, d: dict[str, Any]) -> None:
    vp = s.ext.setdefault("vp", {"soviet": 0, "german": 0})
    vp[d["side"]] += int(d["points"])


def _combat_closed(s: GameState, d: dict[str, Any]) -> None:
    s.ext.pop("combat", None)


def _side_done(s: GameState, d: dict[str, Any]) -> None:
    s.done.append(d["side"])


def _game_ended(s: GameState, d: dict[str, Any]) -> None:
    s.over, s.result = True, dict(d["result"])


def _dice_rolled(s: GameState, d: dict[str, Any]) -> None:
    s.dice.consume(int(d["forced"]), int(d["seeded"]))


def _nothing(s: GameState, d: dict[str, Any]) -> None:
    return None


HANDLERS: dict[str, Handler] = {
    "game_started": _nothing,
    "turn_started": _turn_started,
    "phase_started": _phase_started,
    "supply_checked": _supply_checked,
    "moved": _moved,
    "entered": _entered,
    "attack_declared": _attack_declared,
    "air_supply": _air_supply,
    "heavy_equipment_removed": _heavy_equipment_removed,
    "air_marker_removed": _air_marker_removed,
    "hqs_activated": _hqs_activated,
    "supported_removed": _supported_removed,
    "combat_resolved": _combat_resolved,
    "air_spent": _air_spent,
    "combat_opened": _combat_opened,
    "decision_opened": _decision_opened,
    "decision_closed": _decision_closed,
    "retreat_chosen": _retreat_chosen,
    "retreated": _retreated,
    "advanced": _advanced,
    "set_up": _set_up,
    "setup_done": _nothing,
    "step_lost": _step_lost,
    "unit_eliminated": _unit_eliminated,
    "vp_awarded": _vp_awarded,
    "combat_closed": _combat_closed,
    "side_done": _side_done,
    "game_ended": _game_ended,
    "dice_rolled": _dice_rolled,
}

marks.install(HANDLERS)  # overruns, disruption, delay, 9.76, A41 (engine/ags/marks.py)


def reduce(state: GameState, event: Event) -> None:
    HANDLERS[event.kind](state, event.data)
    state.seq = event.seq
