"""Combat strengths (AGS 9.3, 10.12-10.14, 10.26, 10.32, 11.37, 11.38, 12.23; AGS-K 19.5,
24.21, 25.33; A7, A28, A29, A32, A34, A37).

Per unit: multiply for every increase (terrain at most x3, divisional integrity x2, Heavy
Equipment x2, supported corps x2), then halve (out of supply, overrun), round down at the
end, never below 1 (AGS 9.32, A29)."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from engine.ags.board import Board
from engine.ags.tec import Tec
from engine.hexgrid import HexId


def unit_strength(
    base: int,
    *,
    multipliers: Iterable[int] = (),
    halvings: int = 0,
) -> int:
    """AGS 9.32: multiply, then halve, round down only at the end, at least 1 (A29)."""
    v = Fraction(base)
    for m in multipliers:
        v *= m
    v /= 2**halvings
    return max(1, int(v))


def terrain_multiplier(board: Board, tec: Tec, defender: HexId, attackers: Iterable[HexId]) -> int:
    """The defence multiplier of the defender's hex and the hexsides attacked across
    (AGS 9.31, 10.12, 10.14, 10.26, 10.32): a river counts only when every attacking hex
    attacks across one (minor or major: x2; all across major: x3, A28); two or more
    bonuses triple; never more than triple."""
    row = tec.row(board.terrain_at(defender))
    bonuses = [row.defence] if row.defence and row.defence > 1 else []
    feats = [board.feature(a, defender) for a in attackers]
    if feats and all(f is not None for f in feats):
        bonuses.append(3 if all(f == "major-river" for f in feats) else 2)
    if not bonuses:
        return 1
    return 3 if len(bonuses) > 1 else min(3, max(bonuses))


def hq_bonus(leadership: int, stack_attack: int, *, hq_in_supply: bool = True) -> int:
    """AGS 11.37: an HQ stacked with attacking units adds its leadership, but never more
    than those units' strength after deductions (A34: the cap is the halved strength;
    the rating itself is not halved for their supply); an HQ out of supply adds half
    its rating (A32)."""
    rating = leadership if hq_in_supply else leadership // 2
    return min(rating, stack_attack)


def hq_alone_defence(leadership: int) -> int:
    """AGS 11.38, AGS-K 19.62, A7: an HQ alone defends with half its rating, rounded
    down; stacked with combat units it adds nothing."""
    return max(1, leadership // 2)
