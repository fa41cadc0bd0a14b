"""2.0 Phases and turns: the twelve phases of a WB-95 turn.

Player A is the side with the initiative (2.2). The Air Phases (1 and 7) belong to both
players; every other phase belongs to one of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PhaseKind = Literal["air", "barrage", "movement", "combat", "strategic", "supply"]
PHASE_KINDS: tuple[PhaseKind, ...] = ("air", "barrage", "movement", "combat", "strategic", "supply")

TITLES: dict[str, str] = {
    "air": "Air Phase",
    "barrage": "Artillery Barrage",
    "movement": "Movement Phase",
    "combat": "Combat Phase",
    "strategic": "Strategic Movement Phase",
    "supply": "Supply Phase",
}


@dataclass(frozen=True)
class Phase:
    number: int  # 1..12 as printed in 2.2
    kind: PhaseKind
    player: Literal["A", "B", "both"]


PHASES: tuple[Phase, ...] = (
    Phase(1, "air", "both"),
    Phase(2, "barrage", "A"),
    Phase(3, "movement", "A"),
    Phase(4, "combat", "A"),
    Phase(5, "strategic", "A"),
    Phase(6, "supply", "A"),
    Phase(7, "air", "both"),
    Phase(8, "barrage", "B"),
    Phase(9, "movement", "B"),
    Phase(10, "combat", "B"),
    Phase(11, "strategic", "B"),
    Phase(12, "supply", "B"),
)


def actors(phase: Phase, sides: tuple[str, ...]) -> tuple[str, ...]:
    """The sides that act in a phase; `sides` lists player A first."""
    if phase.player == "both":
        return sides
    return (sides[0],) if phase.player == "A" else (sides[1],)


def phase_index(kind: str, active: str, sides: tuple[str, ...]) -> int:
    """The phase of a given kind belonging to `active` (for a scenario's start)."""
    player = "A" if active == sides[0] else "B"
    if kind == "air":  # player B's half of the turn opens with the second Air Phase
        return 0 if player == "A" else 6
    for i, ph in enumerate(PHASES):
        if ph.kind == kind and ph.player == player:
            return i
    raise ValueError(f"no {kind} phase for {active}")


def title(phase: Phase, sides: tuple[str, ...]) -> str:
    who = "both sides" if phase.player == "both" else actors(phase, sides)[0]
    return f"{TITLES[phase.kind]} {phase.number} ({who})"
