"""Odds a planned attack would get, reckoned before the move (5.2.1 b-f as far as the
side can know them): the attackers' SPs as they are now, the defence at the top of what
the side sees (sight.Stack.hi), the terrain's CMs and a seen fortification. In the Combat
Phase the engine's own preview (engine.wb95.odds.preview) replaces this estimate."""

from __future__ import annotations

from collections.abc import Iterable

from bot.systems.wb95.ai.sight import Sight, Stack
from engine.hexgrid import HexId
from engine.state import GameState
from engine.wb95 import fortified_lines, hq_cms
from engine.wb95.air import attaching
from engine.wb95.combat import FP_CMS, IF_CMS, terrain_cms
from engine.wb95.crt import COLUMNS, MAX_COLUMN, halve, initial_column
from engine.wb95.fortifications import fixed_position_hex

LOSING = COLUMNS.index("1:2")  # forced attacks at this column or worse throw units away
EVEN = COLUMNS.index("1:1")
FAIR = COLUMNS.index("2:1")
GOOD = COLUMNS.index("3:1")


def crossing(state: GameState, a: HexId, t: HexId) -> int:
    """The defender's CMs for attacking from `a` into `t` across its hexside (5.5.4)."""
    table = state.setup.table
    cms = [-table.hexsides[f].combat for f in state.setup.map.features(a, t) if f in table.hexsides]
    return max([0, *cms])


def hq_loss_cms(state: GameState, gainer: str, h: HexId) -> int:
    """The CMs `gainer` may still spend on `h` in the next Combat Phase from an HQ it has
    eliminated (9.1.6-9.1.7, R17: the two Combat Phases after the one it fell in, within
    8 hexes). Reckoned for the coming Combat Phase, so a plan made in the Movement Phase
    counts them too."""
    grid = state.setup.map.grid
    coming = (state.turn, next((i for i in hq_cms.COMBAT_PHASES if i >= state.phase), 99))
    total = 0
    for loss in state.hq_losses:
        if loss["gainer"] != gainer or loss.get("hex") is None:
            continue
        fell = (int(loss["turn"]), int(loss["phase"]))
        window = [(t, i) for t in (fell[0], fell[0] + 1, fell[0] + 2) for i in hq_cms.COMBAT_PHASES]
        if coming not in [w for w in window if w > fell][:2]:
            continue
        if grid.distance(str(loss["hex"]), h) <= hq_cms.HQ_LOSS_RANGE:
            total += max(0, hq_cms.HQ_LOSS_CMS - int(loss.get("spent", 0)))
    return total


def defence_cms(state: GameState, stack: Stack, line: bool = False) -> int:
    """Terrain (5.5.1), a fortification seen (7.1.10, 7.2.1), a fixed position (7.3.2) or a
    fortified line attacked across (`line`, 19.1.2: 2 CMs in their place), the CMs the
    enemy holds from an HQ of ours it eliminated (9.1.6: public, R17) and those of the
    special units seen (15.1.6, 15.4.1)."""
    table = state.setup.table
    cms = terrain_cms(state, stack.hex) + hq_loss_cms(state, stack.side, stack.hex)
    cms += stack.cms
    if line:
        cms += 2
    elif fixed_position_hex(state.setup.map, stack.hex):
        cms += FP_CMS
    elif stack.fortified == "if":
        cms += IF_CMS
    elif stack.fortified:
        terrain = state.setup.map.terrain_of(stack.hex)
        cms += table.ff_cms.get(terrain, table.ff_cms.get("*", 1))
    return cms


def guns_in_range(state: GameState, sight: Sight, h: HexId, side: str) -> int:
    """The SPs the enemy's artillery in range (6.3.3, a hidden counter possibly one of its
    unseen guns) and its revealed defensive air support over `h` (8.2.4) could add to the
    defence of `h`."""
    enemy = state.setup.enemy_of(side)
    air = sum(int(m["sp"]) for m in attaching(state, enemy, "support-defence", [h]))
    return air + sight.gun_sp(state.setup.map.grid, h)


def column(
    state: GameState,
    attack_sp: float,
    stack: Stack,
    parts: Iterable[tuple[HexId, float]] = (),
    backing: int = 0,
) -> int:
    """The column `attack_sp` SPs would read against `stack` (worst case) with `backing`
    SPs of enemy guns joining, after the defender's CMs; `parts` (attacking hex, SPs)
    adds a river's CMs when more than half the SPs cross it (5.5.4), and a fortified line
    crossed halves the attack (19.1.1, taken whole: the worst case)."""
    if not stack.regular:
        return MAX_COLUMN  # a lone HQ or gun (5.1.9, 6.6.4)
    parts = list(parts)
    line = fortified_lines.in_line(state, stack.hex) and any(
        fortified_lines.crosses_line(state, a, stack.hex) for a, _ in parts
    )
    if line:
        attack_sp = halve(int(attack_sp))
    col = min(initial_column(int(attack_sp), max(1, stack.hi + backing)), MAX_COLUMN)
    across: dict[int, float] = {}
    for a, sp in parts:
        c = crossing(state, a, stack.hex)
        if c:
            across[c] = across.get(c, 0.0) + sp
    units_sp = sum(sp for _, sp in parts)  # 5.5.4 counts the attacking units' SPs only
    river = max((c for c, sp in across.items() if 2 * sp > units_sp), default=0)
    return max(0, col - defence_cms(state, stack, line) - river)
