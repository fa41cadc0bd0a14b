"""Counters: unit values, steps and classes (AGS 3.2, 9.6; AGS-K 19.3, 19.6, 24.1).

A unit's steps are its strength levels, strongest first (AGS 9.61): a Soviet division
has two (front, back; AGS-K 19.6), a corps four over two counters (original and `rpl`,
AGS-K 19.61, 24.11), an HQ one (AGS-K 19.62); German units follow the 16.0 ladders."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.ags.provenance import Provenance
from engine.ags.tec import MoveClass

Side = Literal["soviet", "german"]
Size = Literal["III", "X", "XX", "(XX)", "XXX", "HQ"]
SIDES: tuple[Side, ...] = ("soviet", "german")


@dataclass(frozen=True)
class Step:
    attack: int
    defence: int
    movement: int
    provenance: Provenance  # printed (a counter front, a 16.0 level) or reconstructed
    counter: str = "front"  # front, back, rpl-front, rpl-back (AGS-K 24.11)

    def __str__(self) -> str:
        return f"{self.attack}-{self.defence}-{self.movement}"


@dataclass(frozen=True)
class UnitSpec:
    id: str
    side: Side
    designation: str  # as on the counter: "5 Gd", "80/34", "LAH/LAH"
    size: Size
    type: str  # rifle-division, tank-corps, panzer-regiment ... (see the countersheet)
    move_class: MoveClass  # TEC footnote: mech (armor, mech infantry, cavalry) / inf / hq
    steps: tuple[Step, ...]  # strongest first
    type_provenance: Provenance = "printed"
    formation: str | None = None  # the division of a regiment (AGS 3.21, AGS 9.9)
    guards: bool = False
    leadership: int | None = None  # HQs only (AGS 11.1)
    setup: str | None = None  # German set-up code: area letter, hex, 6F/6G (AGS-K 18.2)
    notes: str = ""

    @property
    def is_hq(self) -> bool:
        return self.size == "HQ"

    @property
    def is_corps(self) -> bool:
        return self.size == "XXX" and not self.is_hq

    @property
    def full(self) -> Step:
        return self.steps[0]

    @property
    def stacking(self) -> int:
        """Units counted against the limit of three (AGS 7.0): an HQ none (it is the
        fourth unit, AGS 11.22), a corps three (AGS-K 24.12), the Baeke heavy tank
        regiment none (AGS-K 19.3)."""
        if self.is_hq or self.type == "heavy-tank-regiment":
            return 0
        return 3 if self.is_corps else 1

    @property
    def mechanized(self) -> bool:
        """May overrun if Soviet (AGS-K 19.4); uses the mud allowance (AGS-K 20.12)."""
        return self.move_class == "mech"
