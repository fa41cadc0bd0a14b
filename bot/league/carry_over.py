"""Campaign carry-over (issue #20): the next game of a campaign set up with the units that
survived the previous one, and the shipped campaign records (`scenarios/campaigns/`).

The rules (docs/leagues.md, Campaigns), for each side the campaign carries:
- a unit eliminated in the previous game is taken out of the next scenario (its setup or
  its reinforcements), and out of every list of the scenario that names it (activation
  groups, linked reinforcements, withdrawals, supply from a unit ...); a rule left naming
  no unit at all is dropped;
- a surviving unit starts with the CELs it ended the previous game with, never more than
  the next scenario sets it up with (its own reductions still apply, and a setup the
  scenario allows stays allowed: stacks only get lighter);
- units are matched by id, or through the campaign's `unit_map` where the next scenario
  names a unit differently; units the next scenario does not have are not carried;
- nothing else carries: hexes, arrival turns, supply, disorganization and fortifications
  are the next scenario's.
Every change is returned as a sentence that the league shows with the game.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.league.campaign import Campaign
from engine.state import GameState, UnitState
from scenarios.errors import ScenarioError
from scenarios.loader import list_scenarios, load_scenario_data
from scenarios.systems import PACKAGE_DIR
from scenarios.yamlio import read_yaml_file

CAMPAIGNS_DIR = PACKAGE_DIR / "campaigns"
PROVENANCE_KINDS = ("rulebook", "reconstructed", "league-supplied")
_SKIP = frozenset({"units", "map", "air", "calendar", "start", "options", "control"})


class CampaignError(ValueError):
    """A campaign record or a carry-over that cannot be used, with the reason."""


def carried_scenario(
    next_data: Mapping[str, Any],
    previous: GameState,
    carry_sides: Sequence[str],
    *,
    stage_name: str,
    unit_map: Mapping[str, str] | None = None,
    base_dir: Path | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The next game's scenario data (a deep copy of `next_data`) with each side of
    `carry_sides` set up as it survived `previous`, and one sentence per change."""
    before = previous.setup.id
    data = copy.deepcopy(dict(next_data))
    try:
        setup = load_scenario_data(copy.deepcopy(data), name=stage_name, base_dir=base_dir)
    except ScenarioError as e:
        raise CampaignError(f"{stage_name}: the scenario does not load: {e}") from None
    for side in carry_sides:
        if side not in previous.setup.sides or side not in setup.sides:
            raise CampaignError(
                f"cannot carry side {side!r}: {before} has sides {', '.join(previous.setup.sides)}"
                f", {stage_name} has {', '.join(setup.sides)}"
            )
    umap = dict(unit_map or {})
    starts = {st.id: st for st in setup.starts}
    carried = [u for u in previous.units.values() if u.side in carry_sides]
    lines: list[str] = []
    gone: dict[str, str] = {}  # the next scenario's id -> the previous game's label
    cels: dict[str, tuple[int, int, int]] = {}  # next id -> (cel, max_cel, set up with)
    label: dict[str, str] = {}
    missing: list[str] = []
    claimed: dict[str, str] = {}
    for u in sorted(carried, key=lambda u: u.id):
        nid = umap.get(u.id, u.id)
        if nid not in setup.units:
            missing.append(f"{u.id} (eliminated)" if u.eliminated else u.id)
            continue
        if setup.units[nid].side != u.side:
            raise CampaignError(
                f"{u.id} ({u.side}) in {before} is {nid}, a {setup.units[nid].side} unit, "
                f"in {stage_name}"
            )
        if nid in claimed:
            raise CampaignError(f"{claimed[nid]} and {u.id} of {before} are both {nid}")
        claimed[nid] = u.id
        label[nid] = u.id if nid == u.id else f"{u.id} ({nid} in {stage_name})"
        if u.eliminated:
            gone[nid] = label[nid]
            continue
        start, max_cel = starts[nid].cel, setup.units[nid].max_cel
        cel = min(_cel_left(u), start)
        if cel < start:
            cels[nid] = (cel, max_cel, start)
    kept: list[Any] = []
    for raw in data.get("units") or []:
        uid = str(raw.get("id")) if isinstance(raw, dict) else None
        if uid in gone:
            arrives = raw.get("arrives")
            where = (
                f"{stage_name}'s reinforcements ({_arrival(arrives)})"
                if isinstance(arrives, dict)
                else f"{stage_name}'s setup"
            )
            lines.append(f"{gone[uid]}: eliminated in {before}, removed from {where}")
            continue
        if uid in cels:
            cel, max_cel, start = cels[uid]
            raw = {**raw, "cel": cel, "max_cel": max_cel}
            lost = _cels(max_cel - cel)
            setup_text = "" if start == max_cel else f"; {stage_name} sets it up with {start}"
            lines.append(
                f"{label[uid]}: starts with {cel} of {max_cel} CELs ({lost} lost in "
                f"{before}{setup_text})"
            )
        kept.append(raw)
    if gone:
        data["units"] = kept
        for key in [k for k in data if k not in _SKIP]:
            value, dropped = _scrub(data[key], set(gone), key, lines, gone)
            if dropped:
                raise CampaignError(f"{stage_name}: {key} names only units that are gone")
            data[key] = value
    if missing:
        lines.append(f"not in {stage_name}, so not carried: {', '.join(missing)}")
    try:
        load_scenario_data(copy.deepcopy(data), name=stage_name, base_dir=base_dir)
    except ScenarioError as e:
        raise CampaignError(f"{stage_name} with the units carried from {before}: {e}") from None
    return data, lines


def _names_only(value: Any, gone: set[str]) -> bool:
    """A non-empty list of unit ids that are all gone."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(x, str) and x in gone for x in value)
    )


def _cel_left(u: UnitState) -> int:
    return 0 if u.eliminated else u.cel


def _cels(n: int) -> str:
    return f"{n} CEL" if n == 1 else f"{n} CELs"


def _arrival(arrives: Mapping[str, Any]) -> str:
    where = f"hex {arrives['hex']}" if "hex" in arrives else f"zone {arrives.get('zone')}"
    return f"turn {arrives.get('turn')}, {where}"


def _scrub(
    node: Any, gone: set[str], path: str, lines: list[str], label: Mapping[str, str]
) -> tuple[Any, bool]:
    """`node` without the ids in `gone`; True when `node` itself must go: a mapping whose
    list of units is left empty (and that names no formations), or a supply source that is
    a unit that is gone."""
    if isinstance(node, list):
        out: list[Any] = []
        for i, item in enumerate(node):
            where = f"{path}[{i}]"
            if isinstance(item, str) and item in gone:
                lines.append(f"{label[item]}: also taken out of {path}")
                continue
            value, dropped = _scrub(item, gone, where, lines, label)
            if dropped:
                continue
            out.append(value)
        return out, False
    if isinstance(node, dict):
        if isinstance(node.get("unit"), str) and node["unit"] in gone:
            lines.append(f"{label[node['unit']]}: {path} (supply from it) is dropped")
            return node, True
        new: dict[Any, Any] = {}
        emptied: list[str] = []
        for k, v in node.items():
            value, dropped = _scrub(v, gone, f"{path}.{k}", lines, label)
            if dropped:
                continue
            if _names_only(v, gone):
                emptied.append(str(k))
            new[k] = value
        if emptied and not new.get("formations"):
            name = node.get("label")
            named = f" ({name})" if name else ""
            lines.append(
                f"{path}{named} is dropped: every unit of its {' and '.join(emptied)} is gone"
            )
            return new, True
        return new, False
    return node, False


# --- shipped campaigns ---------------------------------------------------------------------
@dataclass(frozen=True)
class CampaignFile:
    """A campaign record as shipped: the campaign and where its values come from."""

    campaign: Campaign
    provenance: Mapping[str, str]
    notes: str
    path: Path | None


def list_campaigns() -> list[str]:
    return sorted(p.stem for p in CAMPAIGNS_DIR.glob("*.yaml"))


def load_campaign(ref: str | Path) -> CampaignFile:
    """A shipped campaign by id (`scenarios/campaigns/<id>.yaml`) or a file, validated."""
    path = Path(ref) if isinstance(ref, Path) or str(ref).endswith(".yaml") else None
    if path is None:
        path = CAMPAIGNS_DIR / f"{ref}.yaml"
        if not path.is_file():
            known = ", ".join(list_campaigns()) or "none"
            raise CampaignError(f"no shipped campaign {ref!r} (shipped: {known})")
    try:
        raw = read_yaml_file(path, "campaign file")
    except ScenarioError as e:
        raise CampaignError(str(e)) from None
    return campaign_from_data(raw, name=str(path), path=path)


def campaign_from_data(
    raw: Any,
    name: str = "<campaign>",
    path: Path | None = None,
    scenarios: Mapping[str, Mapping[str, Any]] | None = None,
) -> CampaignFile:
    """Read and validate a campaign record: every stage's scenario exists and loads, both
    sides are in every one, a `unit_map` maps a unit to one of the next scenario's of the
    same side. `scenarios` (id -> scenario data) stands for the shipped ones (tests)."""

    def bad(problem: str) -> CampaignError:
        return CampaignError(f"{name}: {problem}")

    if not isinstance(raw, dict):
        raise bad("a campaign must be a mapping (id, name, sides, stages, provenance)")
    for key in ("id", "name", "sides", "stages", "provenance"):
        if key not in raw:
            raise bad(f"missing {key!r}")
    sides, stages = raw["sides"], raw["stages"]
    if not isinstance(sides, list) or len(sides) != 2 or not all(isinstance(s, str) for s in sides):
        raise bad("sides must be a list of two side names")
    if not isinstance(stages, list) or not all(isinstance(s, dict) for s in stages):
        raise bad("stages must be a list of mappings (scenario, vp_weight, ...)")
    prov = raw["provenance"]
    if not isinstance(prov, dict) or prov.get("kind") not in PROVENANCE_KINDS:
        raise bad(f"provenance.kind must be one of {', '.join(PROVENANCE_KINDS)}")
    if not str(prov.get("reason") or "").strip():
        raise bad("provenance.reason: say where the campaign's values come from")
    try:
        campaign = Campaign.from_dict(raw)
    except (KeyError, TypeError, ValueError) as e:
        raise bad(f"not a campaign record: {e}") from None
    setups = []
    for n, stage in enumerate(campaign.stages):
        where = f"stages[{n}] ({stage.scenario})"
        try:
            setup = load_scenario_data(
                _scenario_data(stage.scenario, scenarios), name=stage.scenario
            )
        except CampaignError as e:
            raise bad(f"{where}: {e}") from None
        except ScenarioError as e:
            raise bad(f"{where}: the scenario does not load: {e}") from None
        for side in campaign.sides:
            if side not in setup.sides:
                have = ", ".join(setup.sides)
                raise bad(f"{where}: side {side!r} is not in the scenario (its sides: {have})")
        setups.append(setup)
    for n, stage in enumerate(campaign.stages):
        where = f"stages[{n}] ({stage.scenario})"
        if n + 1 == len(campaign.stages):
            if stage.carry_units or stage.unit_map:
                raise bad(f"{where}: the last game has no next game to carry units into")
            break
        here, there = setups[n], setups[n + 1]
        for old, new in stage.unit_map.items():
            if old not in here.units:
                raise bad(f"{where}: unit_map: no unit {old!r} in {stage.scenario}")
            if new not in there.units:
                raise bad(f"{where}: unit_map: no unit {new!r} in {there.id}")
            if here.units[old].side != there.units[new].side:
                raise bad(
                    f"{where}: unit_map: {old} is {here.units[old].side}, "
                    f"{new} is {there.units[new].side}"
                )
        if len(set(stage.unit_map.values())) != len(stage.unit_map):
            raise bad(f"{where}: unit_map: two units are mapped to the same unit")
    return CampaignFile(
        campaign=campaign,
        provenance={str(k): str(v) for k, v in prov.items()},
        notes=str(raw.get("notes") or ""),
        path=path,
    )


def stage_scenario(
    campaign: Campaign,
    number: int,
    previous: GameState,
    scenarios: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Game `number` (1-based, from 2) of `campaign` as the league sets it up: its
    scenario carried over from the previous game's final state by the previous stage's
    `carry_units` and `unit_map`."""
    if not 2 <= number <= len(campaign.stages):
        raise CampaignError(f"{campaign.id} has games 2-{len(campaign.stages)} to carry into")
    stage, before = campaign.stages[number - 1], campaign.stages[number - 2]
    if previous.setup.id != before.scenario:
        raise CampaignError(
            f"game {number - 1} of {campaign.id} is {before.scenario}, not {previous.setup.id}"
        )
    return carried_scenario(
        _scenario_data(stage.scenario, scenarios),
        previous,
        before.carry_units,
        stage_name=stage.scenario,
        unit_map=before.unit_map,
    )


def _scenario_data(
    scenario: str, given: Mapping[str, Mapping[str, Any]] | None
) -> Mapping[str, Any]:
    """A scenario's YAML data: from `given`, else the shipped scenario with that id."""
    if given is not None:
        if scenario not in given:
            raise CampaignError(f"no such scenario (known: {', '.join(sorted(given))})")
        return given[scenario]
    shipped = {info.id: info.path for info in list_scenarios()}
    if scenario not in shipped:
        raise CampaignError(f"no such scenario (shipped: {', '.join(sorted(shipped))})")
    raw = read_yaml_file(shipped[scenario])
    if not isinstance(raw, dict):
        raise CampaignError(f"{shipped[scenario]} is not a scenario")
    return raw
