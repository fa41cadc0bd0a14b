"""The Movement Phase's plan as it is being made (plan.py, garrison.py): the steps it has
given, the hexes its units will fill, the units that have a plan, and what it knows of the
map (legal moves, supply costs, the enemy's reach) so far."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from bot.systems.wb95.ai import hold
from bot.systems.wb95.ai.aims import Aims
from bot.systems.wb95.ai.sight import Sight
from engine import orders as o
from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.wb95.game import legal_moves
from engine.wb95.movement import Reach
from engine.wb95.stacking import STACK_LIMIT
from engine.wb95.strength import strength


@dataclass
class Step:
    """One planned input; steps of one `group` stand or fall together (an attack whose
    first mover is refused is dropped: its other units stay where they are)."""

    group: str
    order: o.Order


@dataclass
class Board:
    state: GameState
    side: str
    sight: Sight
    aims: Aims
    level: int
    reach: dict[str, dict[HexId, Reach]] = field(default_factory=dict)
    cels: dict[HexId, int] = field(default_factory=dict)  # own CELs per hex after the plan
    done: set[str] = field(default_factory=set)  # units with a plan
    costs: dict[HexId, Fraction] = field(default_factory=dict)  # supply MPs (10.1)
    intents: dict[HexId, set[str]] = field(default_factory=dict)  # planned attacks
    cols: dict[HexId, int] = field(default_factory=dict)  # their reckoned columns
    sps: dict[HexId, float] = field(default_factory=dict)  # and attack SPs (air, guns too)
    threat: dict[HexId, float] = field(default_factory=dict)  # enemy SPs within 2 hexes
    dug: set[HexId] = field(default_factory=set)  # hexes where its units are fortified
    arrive: dict[HexId, list[UnitState]] = field(default_factory=dict)  # units moving in
    _goal_d: dict[HexId, int] = field(default_factory=dict)
    _goals: list[HexId] | None = None

    def goal_distance(self, h: HexId) -> int:
        """Hexes from `h` to the nearest goal of the free units (`_goals`)."""
        if self._goals is None:
            self._goals = goals(self)
        d = self._goal_d.get(h)
        if d is None:
            grid = self.state.setup.map.grid
            d = self._goal_d[h] = min((grid.distance(h, g) for g in self._goals), default=0)
        return d

    def moves(self, uid: str) -> dict[HexId, Reach]:
        if uid not in self.reach:
            self.reach[uid] = legal_moves(self.state, uid)
        return self.reach[uid]

    def room(self, h: HexId, u: UnitState) -> bool:
        return self.cels.get(h, 0) + u.cel <= STACK_LIMIT  # 3.2.1

    def put(self, u: UnitState, h: HexId) -> None:
        if u.hex is not None:
            self.cels[u.hex] = self.cels.get(u.hex, 0) - u.cel
        self.cels[h] = self.cels.get(h, 0) + u.cel
        self.done.add(u.id)
        self.arrive.setdefault(h, []).append(u)

    def stack(self, h: HexId) -> list[UnitState]:
        """The regular units that will be in `h` after the plan so far: those there that
        no step moves away, and those moving in."""
        state = self.state
        leaving = {u.id for x, units in self.arrive.items() if x != h for u in units}
        here = [
            u
            for u in state.units_at(h)
            if u.side == self.side and hold.regular(state, u) and u.id not in leaving
        ]
        return here + [u for u in self.arrive.get(h, []) if hold.regular(state, u)]

    def cover(self, h: HexId) -> int:
        row = self.state.setup.table.terrain.get(self.state.setup.map.terrain_of(h))
        return -row.combat if row is not None else 0


def attack_sp(state: GameState, u: UnitState) -> int:
    return strength(state, u, attacking=True).sp


def goals(b: Board) -> list[HexId]:
    """Where the free units go: the withdrawal zones (The Retreat); else the valued hexes
    not its own (attacking) or its own the enemy is near (holding); else the enemy."""
    if b.aims.escape:
        return sorted(b.aims.escape)
    state, grid = b.state, b.state.setup.map.grid
    valued = [h for h, w in b.aims.hexes.items() if w > 0]
    take = [h for h in valued if state.control.get(h) != b.side]
    hold = [
        h
        for h in valued
        if state.control.get(h) == b.side and any(grid.distance(h, e) <= 4 for e in b.sight.stacks)
    ]
    wanted = (take if b.aims.attack else []) + hold
    return sorted(set(wanted)) or sorted(b.sight.stacks) or valued
