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
from engine.record import GameRecord
from engine.wb95 import flow
from engine.wb95.control import victory_points
from engine.wb95.sequence import PHASES
from scenarios import ScenarioError, load_scenario, load_scenario_data
from scenarios.yamlio import parse_yaml


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
    """A scenario (path or shipped id) or a game export."""
    path = Path(ref)
    try:
        if path.is_file():
            data = parse_yaml(path.read_text(encoding="utf-8"), str(path))
            if isinstance(data, dict) and data.get("kessel") == "game-export":
                return _load_export(data, path)
            return Source(load_scenario(path), scenario_ref=str(path))
        return Source(load_scenario(ref), scenario_ref=ref)
    except ScenarioError as e:
        raise SourceError(str(e)) from None
    except OSError as e:
        raise SourceError(f"{ref}: {e.strerror or e}") from None


def _load_export(data: dict[str, Any], path: Path) -> Source:
    scen = data.get("scenario")
    if isinstance(scen, dict):
        setup = load_scenario_data(scen, name=f"{path}: scenario", base_dir=path.parent)
    elif isinstance(scen, str):
        rel = path.parent / scen
        setup = load_scenario(rel if rel.is_file() else scen)
    else:
        raise SourceError(f"{path}: scenario: a game export must name its scenario")
    seed = data.get("seed", 0)
    if not isinstance(seed, int):
        raise SourceError(f"{path}: seed: must be a whole number")
    dice = data.get("dice") or []
    if not isinstance(dice, list) or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
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


def result_json(res: RunResult) -> dict[str, Any]:
    """The `kessel run --json` object (DESIGN §6)."""
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
        return f"game {d['scenario']} starts (seed {d['seed']})"
    if k == "combat_resolved":
        who = " ".join(a["unit"] for a in d["attackers"])
        mod = f" {d['modifier']:+d}" if d["modifier"] else ""
        head = (
            f"combat: {who} ({d['attack_sp']} SP) attack {' '.join(d['hexes'])} "
            f"({d['defence_sp']} SP): {d['initial']} -> {d['column']}, dice {d['dice']}"
            f"{mod} = {d['roll']}: {d['result']}"
        )
        return "\n".join([head, *(f"    {line}" for line in d["explanation"])])
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
    if k == "decision_opened":
        return f"{d['side']} must decide: {d['kind']} ({d['rule']})"
    if k in ("combat_stage", "decision_closed", "decision_updated", "hq_cms_spent"):
        return ""
    if k == "game_ended":
        return f"game over: {d['reason']}; VPs {d['result'].get('vp')}"
    return f"{k} {d}"
