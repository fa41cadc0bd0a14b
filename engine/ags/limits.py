"""The German movement limits of Game-Turns 1-3 (AGS-K 21.11-21.15, 21.2).

At the end of a move a restricted German unit must be within its radius of its set-up
area's stretch of the start line (A, B, E: four hexes on turn 1; C, D: two hexes on turns
1-3), or of its printed set-up hex (four hexes on turn 1; the 2306 group three hexes on
turns 1-3). Distances are counted regardless of units and zones of control (21.14). A
unit outside its area (after a retreat) may move only closer to it (21.15). Advances and
retreats are never limited (21.15); reinforcements have no set-up area."""

from __future__ import annotations

from collections.abc import Callable

from engine.ags import game
from engine.ags.setup import distance_to_area
from engine.hexgrid import HexId
from engine.state import GameState

Limit = tuple[int, Callable[[HexId], int], str, str]  # radius, distance, what, its case


def limit_of(state: GameState, uid: str) -> Limit | None:
    sc = game.scenario(state)
    sp = game.spec(state, uid)
    code = sp.setup
    if sp.side != "german" or code is None or uid not in sc.positions:
        return None
    start = sc.positions[uid]
    grid = sc.board.grid
    later = state.turn > 1  # 21.2: the limits that last into Game-Turns 2 and 3
    best: Limit | None = None
    for m in sc.movement_limits:
        if state.turn not in m.turns:
            continue
        lim: Limit | None = None
        if code in m.areas and code in sc.start_line:
            case = "AGS-K 21.11" if m.turns == (1,) else "AGS-K 21.13"
            lim = (
                m.hexes,
                lambda h, c=code: distance_to_area(sc.board, sc.start_line, c, h),
                f"set-up area {code}'s stretch of the start line",
                f"AGS-K 21.2, {case[6:]}" if later else case,
            )
        elif (m.group is not None and code == m.group) or (
            m.setup_hexes and code.isdigit() and code != _group(state)
        ):
            lim = (
                m.hexes,
                lambda h: grid.distance(start, h),
                f"its set-up hex {start}",
                "AGS-K 21.2, 21.12" if later else "AGS-K 21.12",
            )
        if lim is not None and (best is None or lim[0] < best[0]):
            best = lim
    return best


def _group(state: GameState) -> str | None:
    for m in game.scenario(state).movement_limits:
        if m.group is not None:
            return m.group
    return None


def problem(state: GameState, uid: str, dest: HexId) -> tuple[str, str] | None:
    """Why `uid` may not end a move in `dest` and the case (AGS-K 21.1x, 21.2), or None."""
    lim = limit_of(state, uid)
    u = state.units[uid]
    if lim is None or u.hex is None:
        return None
    radius, dist, what, case = lim
    if dist(dest) <= radius:
        return None
    now = dist(u.hex)
    if now > radius and dist(dest) < now:
        return None  # 21.15: outside, it may move closer
    if now > radius:
        return (
            f"{uid} may not end its move in {dest}: it is outside its limit on Game-Turn "
            f"{state.turn} ({now} hexes from {what}, at most {radius}) and may move only "
            f"closer ({dest} is {dist(dest)})",
            f"{case}, 21.15",
        )
    return (
        f"{uid} may not end its move in {dest}: on Game-Turn {state.turn} it stays within "
        f"{radius} hexes of {what} ({dest} is {dist(dest)})",
        f"{case}, 21.14",
    )
