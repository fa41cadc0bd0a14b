"""The odds of a proposed attack, computed as `combat.resolve` computes them at the
instant of combat but without declaring or rolling (AGS 9.3, 9.4; A25): the attack and
defence strengths, the shift (the attacker's air point, AGS-K 19.56) and the CRT column.
Nothing is hidden in AGS (engine/ags/view.py), so any side may ask; the defender's air
answer (14.12) is not known in advance and is left out (`worst` gives it)."""

from __future__ import annotations

from typing import Any

from engine.ags import combat, game
from engine.ags import crt as table
from engine.ags import integrity as panzer
from engine.hexgrid import HexId
from engine.orders import Attack
from engine.state import GameState


def odds(
    state: GameState,
    side: str,
    units: tuple[str, ...],
    hexes: tuple[HexId, ...],
    air: int = 0,
    hq: tuple[str, ...] = (),
) -> dict[str, Any]:
    """{attack, defence, ratio, shift, column, worst, columns_index}; Rejected (the rule
    cited) when the attack is not legal now."""
    attackers, defenders = combat.check_attack(state, side, units, hexes, air, hq)
    doubled = panzer.attack_doubled(state, attackers)
    total_a = sum(
        combat.unit_attack(state, a, game.in_supply(state, a), a.id in doubled)[0]
        for a in attackers
    )
    fighting = [d for d in defenders if not game.spec(state, d.id).is_hq]
    total_d = max(
        1,
        sum(
            combat.unit_defence(state, d, attackers, game.in_supply(state, d), not fighting)[0]
            for d in defenders
        ),
    )
    shift = air - (1 if combat.infantry_integrity(state, defenders, side) else 0)
    crt = game.scenario(state).crt
    column = table.odds_column(crt, total_a, total_d, shift)
    enemy_air = int(game.ext(state, "air", {}).get(game.enemy(side), 0))
    worst = table.odds_column(crt, total_a, total_d, shift - (1 if enemy_air else 0))
    by_result: dict[str, list[int]] = {}
    for die in range(1, 7):  # AGS 9.4: one die
        by_result.setdefault(str(crt.cell(column, die)), []).append(die)
    text = f"{total_a} against {total_d} ({table.column_label(total_a, total_d)}): column {column}"
    if shift:
        text += f" (shifted {shift:+d})"
    if worst != column:
        text += f"; {worst} if the defender spends its air point (AGS 14.12)"
    return {
        "text": text,
        "results": [
            {
                "result": cell,
                "rolls": dice,
                "p": len(dice) / 6,
                "attacker": _said(cell, 0),
                "defender": _said(cell, 1),
            }
            for cell, dice in by_result.items()
        ],
        "attack": total_a,
        "defence": total_d,
        "ratio": table.column_label(total_a, total_d),
        "shift": shift,
        "column": column,
        "worst": worst,
        "index": crt.columns.index(column),
        "worst_index": crt.columns.index(worst),
    }


def _said(cell: str, i: int) -> str:
    """One side's part of a CRT cell in words (AGS 9.65-9.69)."""
    if cell == "eng":
        return "engaged (AGS 9.69)"
    part = cell.split("/")[i]
    if part == "-":
        return "no effect"
    if part == "E":
        return "eliminated"
    return f"loses {part} step(s) or retreats {part} hex(es)"


def preview(state: GameState, side: str, order: Attack) -> dict[str, Any]:
    """`RuleSystem.preview` for an `attack` order (its words as `orders.apply` reads them:
    `air 1`, `support HQ`); Rejected when it is not legal now."""
    hexes = (order.target, *order.also)
    return odds(state, side, tuple(order.units), hexes, len(order.air), tuple(order.support))
