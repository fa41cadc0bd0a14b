"""Running a script of orders against a scenario: the core of `kessel run` (DESIGN §6).

Transport-agnostic: takes text, returns data. A game export is a YAML file

    kessel: game-export
    scenario: demo-steblev        # a shipped id, a path (relative to the export) or a mapping
    seed: 7
    dice: [3, 4]
    data_digest: sha256:...       # optional: the data it was played on (engine/digest.py)
    orders: |
      soviet: move s-232 0334 0434

which is how moderators and tests reproduce a position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bot import systems as bot_systems
from engine.core import Event, Rejection
from engine.digest import other_data, setup_digest
from engine.model import Setup
from engine.notation import NotationError, parse_order
from engine.numbers import NumberError
from engine.numbers import seed as check_seed
from engine.record import GameRecord
from engine.view import MODERATOR, SPECTATOR, view, visible_events
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
    warning: str = ""  # why the replay may not be the game exported (other data)


def load_source(ref: str) -> Source:
    """A scenario (path or shipped id) or a game export (its `warning` says when it was
    played on other data than these). Every file is read with
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
    # issue #19: on other data the replay is another game -- said, not hidden (a
    # moderator may still want to look at it)
    problem = other_data(data.get("data_digest"), setup)
    if problem.startswith("data_digest:"):
        raise SourceError(f"{path}: {problem}")
    return Source(setup, seed, list(dice), orders, scen, f"{path}: {problem}" if problem else "")


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
    rules = res.record.system
    ph = rules.phase(state)
    active = rules.acting_sides(state)
    dates = rules.turn_dates(state.setup, state.turn)
    return {
        "system": rules.id,
        "turn": state.turn,
        "phase": ph.kind,
        "active": active[0] if len(active) == 1 else "both",
        "phase_number": ph.number,
        "date": dates[0].isoformat() if dates else None,
        "dates": [d.isoformat() for d in dates],  # the turn's days (AGS: two, AGS-K 17.0)
        "strength": rules.strength_name,  # what units' cel/max_cel count (AGS: steps)
        "awaiting": rules.awaited_sides(state),
        "units": [u.to_json() for u in state.units.values()],
        "pending": [d.to_json() for d in state.pending],
        "control": dict(sorted(state.control.items())),
        "vp": rules.victory_points(state),
        "over": state.over,
        "result": state.result,
        "victory": rules.victory_standing(state),
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
        "data_digest": setup_digest(rec.setup),  # replayed only on the same data (#19)
        "orders": "".join(line + "\n" for line in rec.order_lines()),
    }
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def describe_event(e: Event, system: str = "wb95") -> str:
    """One line of plain text for an event (local play, logs), by the describer of the
    game's rule system (bot/systems; WB-95's is bot/describe.py)."""
    return bot_systems.get(system).describer.event(e)
