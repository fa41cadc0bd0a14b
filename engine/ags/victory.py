"""Victory points and the level of victory (AGS-K 27.1-27.3; A38, A39)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.ags.provenance import Provenance

GermanClass = Literal["infantry-regiment", "other"]
SovietClass = Literal["brigade", "division", "corps", "hq"]


@dataclass(frozen=True)
class VictoryTable:
    destroyed: dict[str, int]  # German unit class -> Soviet VPs (27.1)
    destroyed_isolated: dict[str, int]
    heavy_equipment_under: dict[str, int]
    isolated_at_end: dict[str, int]
    soviet_destroyed: dict[str, int]  # brigade, division, corps-step, corps, hq (27.2)
    levels: tuple[tuple[int | None, str], ...]  # (at least, level), highest first
    provenance: Provenance

    def german_loss(self, cls: GermanClass, isolated: bool) -> int:
        """Soviet VPs for a destroyed German unit (27.1; isolation at the instant of the
        combat or overrun, AGS-K 25.12)."""
        return (self.destroyed_isolated if isolated else self.destroyed)[cls]

    def german_at_end(self, cls: GermanClass, isolated: bool, he_under: bool) -> int:
        """Soviet VPs for a German unit on the map at the end (27.1): isolated, and Heavy
        Equipment under it -- both score (A38)."""
        return (self.isolated_at_end[cls] if isolated else 0) + (
            self.heavy_equipment_under[cls] if he_under else 0
        )

    def soviet_loss(self, cls: SovietClass, steps_lost: int = 1, whole: bool = False) -> int:
        """German VPs for Soviet losses (27.2): a corps scores 2 per step lost, or 12 when
        destroyed whole (instead of its steps)."""
        if cls == "corps":
            if whole:
                return self.soviet_destroyed["corps"]
            return self.soviet_destroyed["corps-step"] * steps_lost
        return self.soviet_destroyed[cls]

    def level(self, soviet: int, german: int) -> str:
        """27.3: the Soviet total less the German total read on the schedule."""
        diff = soviet - german
        for at_least, name in self.levels:
            if at_least is None or diff >= at_least:
                return name
        raise ValueError("the victory schedule has no open-ended last level")
