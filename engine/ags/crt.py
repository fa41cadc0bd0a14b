"""The Combat Results Table (AGS 9.4, 9.5) and the odds it is read at.

Odds are rounded in favour of the defender (AGS 9.4: 26 to 9 is 2-1; below 1-1 the
defender's multiple is rounded up, 10 to 15 is 1-2). Ratios beyond the table are read on
its end columns (CRT note). Column shifts (air, AGS 14.14; infantry integrity, AGS-K
19.56) are applied after clamping the ratio, then the column is clamped again (A25).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.ags.provenance import Provenance

ResultKind = Literal["none", "steps", "eliminated", "engaged"]


@dataclass(frozen=True)
class Result:
    """One side's result: `steps` = lose `n` steps or retreat all affected units `n`
    hexes (AGS 9.66); `eliminated` = E (AGS 9.65); `engaged` = eng (AGS 9.69)."""

    kind: ResultKind
    n: int = 0

    def __str__(self) -> str:
        return {"none": "-", "eliminated": "E", "engaged": "eng"}.get(self.kind, str(self.n))


NO_EFFECT = Result("none")
ENGAGED = Result("engaged", 1)


@dataclass(frozen=True)
class Cell:
    attacker: Result
    defender: Result

    @property
    def engaged(self) -> bool:
        return self.attacker.kind == "engaged"

    def __str__(self) -> str:
        return "eng" if self.engaged else f"{self.attacker}/{self.defender}"


@dataclass(frozen=True)
class Crt:
    columns: tuple[str, ...]  # "1-3" ... "10-1", weakest first
    rows: dict[int, tuple[Cell, ...]]  # die face -> one cell per column
    provenance: Provenance
    source: str = ""

    def cell(self, column: str, die: int) -> Cell:
        if column not in self.columns:
            raise ValueError(f"no column {column!r} on the CRT (AGS 9.5)")
        if die not in self.rows:
            raise ValueError(f"die {die} is not a row of the CRT (AGS 9.5: one die, 1-6)")
        return self.rows[die][self.columns.index(column)]


def parse_result(text: str) -> Result:
    t = text.strip()
    if t == "-":
        return NO_EFFECT
    if t == "E":
        return Result("eliminated")
    if t.isdigit() and 1 <= int(t) <= 3:
        return Result("steps", int(t))
    raise ValueError(f"{text!r} is not a CRT result ('-', 1, 2, 3, E)")


def parse_cell(text: str) -> Cell:
    """`"1/2"`, `"-/E"`, `"eng"` -> a Cell."""
    t = text.strip()
    if t == "eng":
        return Cell(ENGAGED, ENGAGED)
    parts = t.split("/")
    if len(parts) != 2:
        raise ValueError(f"{text!r} is not a CRT cell (attacker/defender, or eng)")
    return Cell(parse_result(parts[0]), parse_result(parts[1]))


def column_label(attack: int, defence: int) -> str:
    """The raw ratio in favour of the defender, unclamped (AGS 9.4): 26:9 -> '2-1',
    10:15 -> '1-2', 4:13 -> '1-4'."""
    if attack < 1 or defence < 1:
        raise ValueError("strengths are at least 1 (AGS 9.32)")
    if attack >= defence:
        return f"{attack // defence}-1"
    return f"1-{-(-defence // attack)}"


def _rank(label: str) -> int:
    """A ratio as a signed rank: 1-1 = 0, 2-1 = 1, 1-2 = -1, 1-3 = -2 ..."""
    a, d = (int(x) for x in label.split("-"))
    return a - 1 if d == 1 else -(d - 1)


def odds_column(crt: Crt, attack: int, defence: int, shift: int = 0) -> str:
    """The column an attack is resolved on: the ratio clamped to the table, moved `shift`
    columns (positive = toward the attacker), clamped again (A25; CRT note)."""
    ranks = [_rank(c) for c in crt.columns]
    r = min(max(_rank(column_label(attack, defence)), ranks[0]), ranks[-1])
    i = ranks.index(r) + shift
    return crt.columns[min(max(i, 0), len(crt.columns) - 1)]


def air_shift(attacker_points: int, defender_points: int) -> int:
    """AGS 14.13-14.14: at most one air point per side per combat, each one column in its
    side's favour; opposing points cancel."""
    for n in (attacker_points, defender_points):
        if n not in (0, 1):
            raise ValueError("at most one air point per side in a combat (AGS 14.13)")
    return attacker_points - defender_points
