"""Campaigns: a chain of scenarios played by the same two sides (e.g. The Retreat, then
Deblockade), folded into one campaign score.

What carries over is data in the campaign record, which the league stores and shows:
- `vp_weight`: each game's VPs count this many times in the campaign total;
- `win_points`: campaign points for the side that wins a game (by its victory level);
- `carry_units`: the sides whose surviving units start the next game (the league's
  copy of the next scenario sets up only those survivors for those sides, with the CELs
  they kept: bot/league/carry_over.py);
- `unit_map`: where the next scenario names one of this game's units differently, this
  game's id -> the next game's id (e.g. Korpsabteilung B's regiments).
Nothing else carries over, so the campaign score can be recomputed by hand from the
games' results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Stage:
    scenario: str
    vp_weight: float = 1.0
    win_points: float = 0.0
    carry_units: tuple[str, ...] = ()
    # this game's unit id -> the next game's, where the next scenario names it differently
    unit_map: Mapping[str, str] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Campaign:
    id: str
    name: str
    sides: tuple[str, str]
    stages: tuple[Stage, ...]

    def __post_init__(self) -> None:
        if not self.stages:
            raise ValueError(f"campaign {self.id} has no stages")
        for st in self.stages:
            if not set(st.carry_units) <= set(self.sides):
                raise ValueError(f"{st.scenario}: carry_units names a side not in {self.sides}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "sides": list(self.sides),
            "stages": [_stage_dict(s) for s in self.stages],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Campaign:
        a, b = d["sides"]
        stages = tuple(
            Stage(
                scenario=s["scenario"],
                vp_weight=float(s.get("vp_weight", 1.0)),
                win_points=float(s.get("win_points", 0.0)),
                carry_units=tuple(s.get("carry_units", ())),
                unit_map={str(k): str(v) for k, v in (s.get("unit_map") or {}).items()},
            )
            for s in d["stages"]
        )
        return cls(id=d["id"], name=d["name"], sides=(a, b), stages=stages)


def _stage_dict(s: Stage) -> dict[str, Any]:
    d: dict[str, Any] = {
        "scenario": s.scenario,
        "vp_weight": s.vp_weight,
        "win_points": s.win_points,
        "carry_units": list(s.carry_units),
    }
    if s.unit_map:
        d["unit_map"] = dict(s.unit_map)
    return d


@dataclass(frozen=True)
class StageOutcome:
    """One finished game of the chain, from the engine: each side's VPs, the winning
    side (None for a draw) and the ids of each side's units left at the end."""

    scenario: str
    vp: Mapping[str, float]
    winner: str | None
    survivors: Mapping[str, Sequence[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class CampaignScore:
    points: dict[str, float]  # side -> campaign points
    stages_won: dict[str, int]
    played: int
    complete: bool
    leader: str | None  # the side ahead (the campaign's winner once complete); None if level
    carried: dict[str, tuple[str, ...]]  # the units that start the next game, per side
    next_scenario: str | None
    lines: list[str]  # how each game's points were counted


def campaign_score(campaign: Campaign, outcomes: Sequence[StageOutcome]) -> CampaignScore:
    """Fold the games played so far (in chain order) into the campaign score."""
    if len(outcomes) > len(campaign.stages):
        raise ValueError(f"{campaign.id} has {len(campaign.stages)} games, not {len(outcomes)}")
    points = dict.fromkeys(campaign.sides, 0.0)
    won = dict.fromkeys(campaign.sides, 0)
    lines: list[str] = []
    carried: dict[str, tuple[str, ...]] = {}
    for n, (stage, out) in enumerate(zip(campaign.stages, outcomes, strict=False), start=1):
        if out.scenario != stage.scenario:
            raise ValueError(f"game {n} of {campaign.id} is {stage.scenario}, not {out.scenario}")
        if not set(out.vp) <= set(points) or out.winner not in (None, *campaign.sides):
            raise ValueError(f"{out.scenario}: a side is not one of {campaign.sides}")
        parts = []
        for side in campaign.sides:
            vp = out.vp.get(side, 0.0) * stage.vp_weight
            points[side] += vp
            parts.append(f"{side} {out.vp.get(side, 0.0):g} VP x {stage.vp_weight:g} = {vp:g}")
        if out.winner is not None:
            won[out.winner] += 1
            points[out.winner] += stage.win_points
            if stage.win_points:
                parts.append(f"{out.winner} +{stage.win_points:g} for the win")
        lines.append(f"{n}. {stage.scenario}: " + "; ".join(parts) + ".")
        carried = {s: tuple(out.survivors.get(s, ())) for s in stage.carry_units}
    a, b = campaign.sides
    leader = a if points[a] > points[b] else b if points[b] > points[a] else None
    played = len(outcomes)
    complete = played == len(campaign.stages)
    return CampaignScore(
        points=points,
        stages_won=won,
        played=played,
        complete=complete,
        leader=leader,
        carried=carried,
        next_scenario=None if complete else campaign.stages[played].scenario,
        lines=lines,
    )
