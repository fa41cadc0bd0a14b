"""Running a script of orders against a scenario: the core of `kessel run` (DESIGN §6).

Transport-agnostic: takes text, returns data. A game export is a YAML file

    kessel: game-export
    scenario: demo-steblev        # a shipped id, a path (relative to the export) or a mapping
    seed: 7
    dice: [3, 4]
    orders: |
      soviet: move s-232 0334 0434

which is how moderators and tests reproduce a position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine.core import Event, Rejection
from engine.model import Setup
from engine.notation import NotationError, parse_order
from engine.numbers import NumberError
from engine.numbers import seed as check_seed
from engine.record import GameRecord
from engine.view import MODERATOR, SPECTATOR, view, visible_events
from engine.wb95 import flow
from engine.wb95.control import victory_points
from engine.wb95.sequence import PHASES
from engine.wb95.victory import victory_standing
from scenarios import ScenarioError, load_scenario, load_scenario_data
from scenarios.errors import one_line
from scenarios.yamlio import parse_yaml, path_exists, read_text


class SourceError(Exception):
    """A scenario or export that cannot be loaded (exit status 1)."""


@dataclass
class Source:
    setup: Setup
    seed: int | None = None
    dice: list[int] = field(default_factory=list)
    orders: str = ""
    scenario_ref: Any = None


def load_source(ref: str) -> Source:
    """A scenario (path or shipped id) or a game export. Every file is read with
    `scenarios.yamlio.read_text` (regular UTF-8 files within a size limit only) and parsed
    with `parse_yaml` (with its limits); every failure is a SourceError of one line."""
    try:
        path = Path(ref)
        if path_exists(path):
            data = parse_yaml(read_text(path, "scenario or game export"), str(path))
            if isinstance(data, dict) and data.get("kessel") == "game-export":
                return _load_export(data, path)
            return Source(load_scenario_data(data, str(path), path.parent), scenario_ref=str(path))
        return Source(load_scenario(ref), scenario_ref=ref)
    except ScenarioError as e:
        raise SourceError(str(e)) from None
    except OSError as e:
        raise SourceError(one_line(f"{ref}: {e.strerror or e}")) from None


def _load_export(data: dict[str, Any], path: Path) -> Source:
    scen = data.get("scenario")
    if isinstance(scen, dict):
        setup = load_scenario_data(scen, name=f"{path}: scenario", base_dir=path.parent)
    elif isinstance(scen, str) and scen:
        rel = path.parent / scen  # an absolute `scen` stays itself
        # a path (relative to the export) or a shipped id; load_scenario reads a path with
        # read_text, which refuses /dev/zero, a directory or a FIFO
        setup = load_scenario(rel if path_exists(rel) else scen)
    else:
        raise SourceError(f"{path}: scenario: a game export must name its scenario")
    try:
        seed = check_seed(data.get("seed", 0), "seed")
    except NumberError as e:
        raise SourceError(f"{path}: {e}") from None
    dice = data.get("dice") or []
    if not isinstance(dice, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice
    ):
        raise SourceError(f"{path}: dice: must be a list of die faces 1-6")
    orders = data.get("orders") or ""
    if not isinstance(orders, str):
        raise SourceError(f"{path}: orders: must be text, one order per line")
    return Source(setup, seed, list(dice), orders, scen)


@dataclass
class RunResult:
    record: GameRecord
    rejected: dict[str, Any] | None = None


def run_script(setup: Setup, text: str, seed: int = 0, dice: list[int] | None = None) -> RunResult:
    """Apply the orders in `text` in order; stop at the first rejected or malformed one,
    leaving the state as it was before it."""
    rec = GameRecord(setup, seed, tuple(dice or ()))
    for lineno, raw in enumerate(text.splitlines(), start=1):
        try:
            order = parse_order(raw, lineno)
        except NotationError as e:
            return RunResult(rec, _rejected(lineno, raw, e.message, ""))
        if order is None:
            continue
        result = rec.submit(None, order)
        if isinstance(result, Rejection):
            return RunResult(rec, _rejected(lineno, raw, str(result), result.rule, result.ruling))
    return RunResult(rec)


def _rejected(line: int, raw: str, message: str, rule: str, ruling: str = "") -> dict[str, Any]:
    out = {"line": line, "order": raw.split("#", 1)[0].strip(), "message": message, "rule": rule}
    if ruling:
        out["ruling"] = ruling
    return out


def check_viewer(setup: Setup, viewer: str) -> str:
    """A `--view` argument: a side of the scenario, "spectator" or "moderator"."""
    v = viewer.lower()
    if v not in setup.sides and v not in (SPECTATOR, MODERATOR):
        choices = ", ".join([*setup.sides, SPECTATOR, MODERATOR])
        raise SourceError(f"--view: '{viewer}' is not a viewer; choose one of {choices}")
    return v


def result_json(res: RunResult, viewer: str = MODERATOR) -> dict[str, Any]:
    """The `kessel run --json` object (DESIGN §6), as `viewer` sees it: the moderator sees
    the whole state and event log; a side or a spectator sees `units` and `pending`
    through `engine.view.view` (fog of war, 16.1) and the events through
    `visible_events` (sealed inputs, DESIGN §2), plus the bridges and masks it sees."""
    out = _result_json(res)
    if viewer == MODERATOR:
        return out
    v = view(res.record.state, viewer)
    vj = v.to_json()
    out["view"] = viewer
    out["units"] = vj["units"]
    out["pending"] = vj["pending"]
    out["stacks"] = vj["stacks"]
    out["masked"] = vj["masked"]
    out["sealed"] = vj["sealed"]
    out["bridges"] = vj["bridges"]
    out["bridge_works"] = vj["bridge_works"]
    out["air"] = vj["air"]  # air missions in play (8.0), public once revealed
    out["air_left"] = vj["air_left"]
    out["events"] = [
        e.to_json() for e in visible_events(res.record.events, viewer, res.record.state)
    ]
    return out


def _result_json(res: RunResult) -> dict[str, Any]:
    state = res.record.state
    ph = PHASES[state.phase]
    active = flow.acting_sides(state)
    date = state.setup.date_of(state.turn)
    return {
        "turn": state.turn,
        "phase": ph.kind,
        "active": active[0] if len(active) == 1 else "both",
        "phase_number": ph.number,
        "date": None if date is None else date.isoformat(),
        "awaiting": flow.awaited_sides(state),
        "units": [u.to_json() for u in state.units.values()],
        "pending": [d.to_json() for d in state.pending],
        "control": dict(sorted(state.control.items())),
        "vp": victory_points(state),
        "over": state.over,
        "result": state.result,
        "victory": victory_standing(state) if state.setup.victory_rules else None,
        "events": [e.to_json() for e in res.record.events],
        "rejected": res.rejected,
    }


def export_yaml(res: RunResult, scenario_ref: Any) -> str:
    """A game export that `kessel run` replays to the same position."""
    rec = res.record
    data = {
        "kessel": "game-export",
        "scenario": scenario_ref,
        "seed": rec.seed,
        "dice": list(rec.dice),
        "orders": "".join(line + "\n" for line in rec.order_lines()),
    }
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def describe_event(e: Event) -> str:
    """One line of plain text for an event (local play, logs)."""
    d = e.data
    k = e.kind
    if k == "moved":
        extra = " (+1 road hex, R12)" if d.get("bonus") else ""
        if d.get("mp") is None:  # a unit not seen in full: its MPs are not shown (K98)
            return f"{d['unit']} moves {' '.join(d['path'])}"
        return f"{d['unit']} moves {' '.join(d['path'])} for {d['cost']} of {d['mp']} MP{extra}"
    if k == "phase_started":
        return f"— turn {d['turn']}, phase {d['number']}: {d['phase']} ({', '.join(d['active'])})"
    if k == "phase_skipped":
        return f"  phase {d['number']} ({d['phase']}) skipped: {d['reason']}"
    if k == "turn_started":
        return f"== turn {d['turn']}" + (f" ({d['date']})" if d.get("date") else "")
    if k == "side_done":
        return f"{d['side']} is done with the {d['phase']} phase"
    if k == "control_changed":
        parts = [f"{h}→{s or 'nobody'}" for h, s in d["changes"].items()]
        return f"hex control ({d['side']} Supply Phase, 4.3): {', '.join(parts)}"
    if k == "dice_rolled":
        return f"dice {d['faces']} = {d['total']} ({d['reason']})"
    if k == "game_started":
        seed = f" (seed {d['seed']})" if d.get("seed") is not None else ""  # moderator only
        return f"game {d['scenario']} starts{seed}"
    if k == "combat_resolved":
        who = " ".join(a["unit"] for a in d["attackers"])
        mod = f" {d['modifier']:+d}" if d["modifier"] else ""
        head = (
            f"combat: {who} ({d['attack_sp']} SP) attack {' '.join(d['hexes'])} "
            f"({d['defence_sp']} SP): {d['initial']} -> {d['column']}, dice {d['dice']}"
            f"{mod} = {d['roll']}: {d['result']}"
        )
        backing = [
            f"    {who} support: {x['source']} {x['sp']} SP ({x['why']})"
            for who, lines in d.get("support", {}).items()
            for x in lines
        ]
        return "\n".join([head, *backing, *(f"    {line}" for line in d["explanation"])])
    if k == "fire_resolved":
        who = " ".join(x["source"] for x in d["sources"])
        res = d["result"] if d["result"] is not None else "no effect (R7)"
        head = (
            f"{d['mode']} fire: {who} -> {d['target']} ({d['used']} SP, {d['table']}), "
            f"dice {d['dice']} = {d['roll']}: {res}"
        )
        return "\n".join([head, *(f"    {line}" for line in d["explanation"])])
    if k == "setup_changed":
        if d.get("to") is None:  # K98
            return f"{d['unit']} changes its setup ({d['rule']})"
        return f"{d['unit']} changes to {d['to']} setup for {d['cost']} MP ({d['rule']})"
    if k == "cel_lost":
        end = " — eliminated" if d["eliminated"] else ""
        return f"{d['unit']} loses a CEL: {d['cause']} ({d['rule']}){end}"
    if k in ("retreated", "pursued"):
        return f"{d['unit']} {k} {' '.join(d['path'])}"
    if k == "retreat_held":
        return f"{d['unit']} holds: {d['reason']} ({d['rule']})"
    if k == "disorganized":
        return f"{d['unit']} is disorganized: {d['cause']} ({d['rule']})"
    if k == "recovered":
        return f"{d['unit']} recovers from disorganization (5.6.5)"
    if k == "supply_traced":
        out = d["out_of_supply"]  # the ids, or for the enemy only how many (16.1.1)
        oos = (f"{out} units" if out else "none") if isinstance(out, int) else ", ".join(out)
        oos = oos or "none"
        return f"{d['side']} traces supply (10.1): out of supply: {oos}"
    if k in ("oos_changed", "oos_paid"):
        if d.get("old") is None:  # an enemy unit not seen in full: no levels (K98)
            return f"{d['unit']}: its OoS level changes ({d.get('rule') or '10.2'})"
        why = d.get("reason") or f"pays for full {'MPs' if d['use'] == 'move' else 'strength'}"
        return f"{d['unit']} OoS level {d['old']} -> {d['new']}: {why} ({d['rule']})"
    if k == "surrender_test":
        if d.get("note") is None:  # K98
            end = "it surrenders" if d.get("surrendered") else "it holds out"
            return f"{d['unit']} surrender test ({d['rule']}): {end}"
        return f"{d['unit']} surrender test ({d['rule']}): {d['note']}"
    if k == "mod_edited":
        where = " ".join(d.get("hexes") or []) or "off the map"
        if d.get("private"):
            return f"the moderator edited the position ({where})"
        what = d["unit"] or d["hex"]
        return f"moderator edit: {what} {d['field']} {d['before']} -> {d['after']} ({where})"
    if k == "decision_opened":
        return f"{d['side']} must decide: {d['decision']} ({d['rule']})"
    if k in ("combat_stage", "decision_closed", "decision_updated", "hq_cms_spent"):
        return ""
    if k in ("sealed_submitted", "sealed_amended", "sealed_completed"):
        if d.get("sealed"):
            return "" if k == "sealed_amended" else str(d["note"])
        if k == "sealed_submitted":
            return f"{d['side']} seals: {d['sealed_kind']} {_plain(d['item'])}"
        return "" if k == "sealed_amended" else f"{d['side']} has completed its sealed input"
    if k == "revealed":
        shown = "; ".join(f"{x['side']} {x['kind']} {_plain(x['item'])}" for x in d["items"])
        return f"revealed ({d['reason']}): {shown or 'nothing'}"
    if k == "mask_placed":
        return f"{d['side']} masks the stack at {d['hex']} (16.1.2)"
    if k == "mask_removed":
        return f"the mask at {d['hex']} is lifted: {d['reason']} (16.1.2)"
    if k == "bridge_control_changed":
        parts = [f"{h}→{s or 'nobody'}" for h, s in d["changes"].items()]
        return f"bridge control (14.1.3): {', '.join(parts)}"
    if k == "bridge_destroyed":
        return f"bridge {d['hexside']} destroyed: {d['cause']} ({d['rule']})"
    if k == "bridge_rebuilt":
        if d.get("cost") is None:  # K98
            return f"{d['unit']} rebuilds the bridge {d['hexside']} ({d['rule']})"
        return f"{d['unit']} rebuilds the bridge {d['hexside']} for {d['cost']} MP ({d['rule']})"
    if k == "bridge_building_declared":
        return f"{d['hq']} at {d['hex']} starts building a bridge; the hexside is noted (14.3.2)"
    if k == "bridge_built":
        return f"{d['hq']} has built the bridge {d['hexside']} (14.3.2)"
    if k == "bridge_building_failed":
        return f"{d['hq']} fails to build the bridge {d['hexside']}: {d['reason']} (14.3.2)"
    if k in ("bridge_work_updated", "bridge_work_ended"):
        return ""
    if k == "mines":  # Kursk 18.1
        return f"mines on the {d['front']} front: {d['faces']}, {d['note']} ({d['rule']})"
    if k == "breakdown_roll":  # Kursk 22.1
        lost = "loses a CEL" if d["lost"] else "no breakdown"
        return f"{d['unit']} breakdown roll {d['face']}: {lost} ({d['rule']})"
    if k == "repair_placed":  # Kursk 17.1.2
        return f"{d['side']} puts the {d['front']} Repair counter on {d['unit']} ({d['rule']})"
    if k == "repair_spoiled":
        return f"{d['unit']} loses its Repair counter: {d['reason']} ({d['rule']})"
    if k == "repaired":
        if d.get("cels") is None:  # K98
            return f"{d['unit']} is repaired ({d['rule']})"
        return f"{d['unit']} is repaired: +{d['cels']} CEL ({d['rule']})"
    if k == "withdrawn":
        return f"{d['unit']} is withdrawn from the map: {d['reason']}"
    if k in ("supply_steps", "unit_activity", "activity_cleared"):
        return ""
    if k == "game_ended":
        return f"game over: {d['reason']}; VPs {d['result'].get('vp')}"
    return f"{k} {d}"


def _plain(item: Any) -> str:
    """A sealed item's content in a log line: `hex=0405 on=True`."""
    if isinstance(item, dict):
        return " ".join(f"{k}={v}" for k, v in item.items())
    return str(item)
