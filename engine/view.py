"""Per-viewer views (DESIGN §2, 16.1): the only way anything leaves the engine for a player.

- A side sees all of its own units. Of an enemy stack it sees the top counter (16.1.1)
  and how many counters the stack has, and every counter that has fought in the current
  Combat Phase (16.1.3); where the stack is adjacent to one of its units,
  it also learns each counter's type, and its CELs unless the stack is fortified
  (16.1.4). Enemy units not yet on the map are not shown; a side sees when and where its own
  reinforcements arrive (11.0).
- A stack under a revealed mask (16.1.2, docs/rulings.md K28) shows its enemy a plain
  "?" counter: no top counter and no number of counters -- unless it is next to one of
  the enemy's units (then every counter's type, and CELs unless fortified, 16.1.4) or
  has fought in the current Combat Phase (those counters in full, 16.1.3).
- A spectator sees every unit as that unit's enemy sees it: what both sides' public
  views share.
- A moderator sees everything.
Pending decisions are shown in full to the side they are addressed to; other viewers
only learn which side is being waited for and for what kind of decision. Sealed inputs
(DESIGN §2, K27) are shown to their side and the moderator only; the event log goes to a
viewer through `visible_events`, which hides other sides' sealed contents until they are
revealed and redacts every field of every event by one table, `engine.redaction.EVENTS`
(docs/rulings.md K96, K98).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from engine import redaction
from engine.core import Event
from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.wb95 import air, bridges, flow, masking, sealed, supply_cut
from engine.wb95.control import victory_points
from engine.wb95.fortification_markers import markers
from engine.wb95.sequence import PHASES

SPECTATOR = "spectator"
MODERATOR = "moderator"


@dataclass(frozen=True)
class UnitView:
    """One counter as a viewer sees it. Unknown values are None; `known` says how much
    is seen: "full", "type" (type and maybe CELs only) or "hidden" (just a counter)."""

    side: str
    hex: HexId | None
    known: str
    stack_pos: int = 0  # 0 = top counter
    id: str | None = None
    name: str | None = None
    type: str | None = None
    size: str | None = None
    nation: str | None = None
    sp: int | None = None  # as printed on the counter
    # its strength now when CELs were lost (K15: in proportion, rounded up); None if full
    sp_now: int | None = None
    art: tuple[int, int] | None = None
    mp: str | None = None
    cel: int | None = None
    max_cel: int | None = None
    stars: tuple[str, ...] = ()
    oos: int | None = None
    disorganized: bool | None = None
    fortification: str | None = None
    setup: str | None = None
    strategic: bool | None = None
    eliminated: bool = False
    arrives: dict[str, Any] | None = None  # a reinforcement off the map: turn, zone or hex


@dataclass(frozen=True)
class PendingView:
    side: str
    kind: str
    options: Any = None  # only for the side the decision is addressed to
    rule: str = ""


@dataclass(frozen=True)
class View:
    viewer: str
    scenario: str
    turn: int
    date: str | None
    phase: str
    phase_number: int
    active: tuple[str, ...]
    awaited: tuple[str, ...]
    units: tuple[UnitView, ...]
    control: dict[HexId, str]
    pending: tuple[PendingView, ...]
    vp: dict[str, int]
    over: bool
    result: dict[str, Any] | None = None
    stacks: dict[HexId, int] = field(default_factory=dict)  # counters per occupied hex
    # (a hex with a plain mask counter is not in `stacks`: its count is not seen, K28)
    masked: tuple[HexId, ...] = ()  # hexes whose stack is under a revealed mask (16.1.2)
    sealed: tuple[dict[str, Any], ...] = ()  # the viewer's own sealed inputs (all: moderator)
    bridges: dict[str, dict[str, Any]] = field(default_factory=dict)  # 14.0, by "A/B"
    bridge_works: tuple[dict[str, Any], ...] = ()  # HQs building bridges (14.3.2)
    # Air missions in play, public once revealed (8.0): id, side, mission, target (a hex or
    # "A/B"), sp, counter, stars, status ("flying", "aborted", "done", "spent"); and what
    # the viewer's side may still fly this turn (the moderator: every side's).
    air: tuple[dict[str, Any], ...] = ()
    air_left: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Fortification markers on the map, {"kind": "ff" | "if", "side"} by hex: counters on
    # the map, seen by every viewer (7.1.1, 7.2.1; IFs placed in the set-up step, K85).
    fortifications: dict[HexId, dict[str, str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["units"] = [{k: v for k, v in asdict(u).items() if v is not None} for u in self.units]
        return d


def _reduced_sp(sp: int, cel: int, max_cel: int) -> int | None:
    """K15 (5.2.1 b): a unit's SPs in proportion to its CELs left, rounded up; None when
    it has all its CELs."""
    if cel >= max_cel or max_cel <= 1:
        return None
    return -(-sp * cel // max_cel)


def _full(state: GameState, u: UnitState, pos: int) -> UnitView:
    spec = state.setup.units[u.id]
    return UnitView(
        side=u.side,
        hex=u.hex,
        known="full",
        stack_pos=pos,
        id=u.id,
        name=spec.name,
        type=spec.type,
        size=spec.size,
        nation=spec.nation,
        sp=spec.sp,
        sp_now=_reduced_sp(spec.sp, u.cel, u.max_cel) if spec.art is None else None,
        art=spec.art,
        mp=str(spec.mp),
        cel=u.cel,
        max_cel=u.max_cel,
        stars=spec.stars,
        oos=u.oos,
        disorganized=u.disorganized,
        fortification=u.fortification,
        setup=u.setup,
        strategic=u.strategic,
        eliminated=u.eliminated,
        arrives=None if u.arrives is None else dict(u.arrives),
    )


def _as_enemy_sees(
    state: GameState, u: UnitState, pos: int, adjacent: bool, fortified: bool, masked: bool
) -> UnitView:
    if (pos == 0 and not masked) or u.fought:
        # 16.1.1: the top counter is visible; 16.1.3: stacks that took part in a combat
        # can be looked at until the end of that Combat Phase
        return _full(state, u, pos)
    if adjacent:  # 16.1.4
        spec = state.setup.units[u.id]
        return UnitView(
            side=u.side,
            hex=u.hex,
            known="type",
            stack_pos=pos,
            type=spec.type,
            cel=None if fortified else u.cel,
        )
    return UnitView(side=u.side, hex=u.hex, known="hidden", stack_pos=pos)


def view(state: GameState, viewer: str) -> View:
    setup = state.setup
    if viewer not in setup.sides and viewer not in (SPECTATOR, MODERATOR):
        raise ValueError(f"unknown viewer '{viewer}'")
    grid = setup.map.grid
    units: list[UnitView] = []
    stacks: dict[HexId, list[UnitState]] = {}
    for u in state.units.values():
        if u.on_map:
            assert u.hex is not None
            stacks.setdefault(u.hex, []).append(u)
    masks = {h for h in state.masks if masking.masked_by(state, h)}
    uncounted: set[HexId] = set()
    side_hexes: dict[str, set[HexId]] = {s: set() for s in setup.sides}
    for h, us in stacks.items():
        us.sort(key=lambda x: x.entered_seq)
        side_hexes[us[0].side].add(h)
    for h, us in sorted(stacks.items()):
        owner = us[0].side
        if viewer in (MODERATOR, owner):
            units.extend(_full(state, u, i) for i, u in enumerate(us))
            continue
        enemy = setup.enemy_of(owner)  # for a spectator: as the owner's enemy sees it
        adjacent = any(n in side_hexes[enemy] for n in grid.neighbours(h))
        fortified = any(u.fortification for u in us)
        masked = h in masks
        if masked and not adjacent and not any(u.fought for u in us):
            units.append(UnitView(side=owner, hex=h, known="masked"))  # K28: a plain "?"
            uncounted.add(h)
            continue
        units.extend(
            _as_enemy_sees(state, u, i, adjacent, fortified, masked) for i, u in enumerate(us)
        )
    for u in sorted(state.units.values(), key=lambda x: x.id):
        if u.eliminated or (u.hex is None and viewer in (MODERATOR, u.side)):
            units.append(_full(state, u, 0))
    pending = tuple(
        PendingView(d.side, d.kind, d.options if viewer in (MODERATOR, d.side) else None, d.rule)
        for d in state.pending
    )
    ph = PHASES[state.phase]
    date = setup.date_of(state.turn)
    bridge_sites, works = bridges.public_view(state, viewer)
    air_missions, air_left = air.public_view(state, viewer)
    return View(
        viewer=viewer,
        scenario=setup.id,
        turn=state.turn,
        date=None if date is None else date.isoformat(),
        phase=ph.kind,
        phase_number=ph.number,
        active=flow.acting_sides(state),
        awaited=tuple(flow.awaited_sides(state)),
        units=tuple(units),
        control=dict(state.control),
        pending=pending,
        vp=victory_points(state),
        over=state.over,
        result=state.result,
        stacks={h: len(us) for h, us in stacks.items() if h not in uncounted},
        masked=tuple(sorted(masks)),
        sealed=tuple(
            {k: x[k] for k in ("submission", "side", "kind", "item")}
            for x in state.sealed
            if viewer in (MODERATOR, x["side"])
        ),
        bridges=bridge_sites,
        bridge_works=tuple(works),
        air=tuple(air_missions),
        air_left=air_left,
        fortifications={h: dict(m) for h, m in sorted(markers(state).items())},
    )


def visible_events(
    events: Iterable[Event], viewer: str, state: GameState | None = None
) -> list[Event]:
    """The event log as `viewer` (a side, "spectator" or "moderator") may read it. The
    moderator reads the full log, from which a replay rebuilds the state. For anyone else,
    another side's sealed submissions show only who made them ("soviet submitted a sealed
    input") until they are revealed (DESIGN §2, K27), and then every field of every event
    goes through the one redaction table, `engine.redaction.EVENTS` (docs/rulings.md K98):
    public fields as they are, a side's own fields (a decision's options, a list of its
    units) only to that side, and values of a unit -- its MPs, strength, setup, supply
    level -- only where the viewer sees that unit in full. Given the current `state`, an
    event never names a unit the viewer does not see in full now (a hidden counter of an
    enemy stack, 16.1.1): in a value, a list, a mapping's key or inside text it is only
    "a Soviet unit" (K96). Every output a player reads passes the state."""
    out = sealed.redact(events, viewer)
    if viewer == MODERATOR:
        return out
    return redaction.redact(out, sight(state, viewer))


def sight(state: GameState | None, viewer: str) -> redaction.Sight:
    """What `viewer` knows of the units now: every unit it does not see in full in
    `view(state, viewer)` is hidden, read as "a Soviet unit" / "a German unit"."""
    if state is None:
        return redaction.Sight(viewer, None)
    known = {u.id for u in view(state, viewer).units if u.id is not None and u.known == "full"}
    hidden = {
        u.id: f"a {u.side.capitalize()} unit" for u in state.units.values() if u.id not in known
    }
    return redaction.Sight(viewer, hidden)


def supply_view(state: GameState, viewer: str) -> tuple[supply_cut.SupplyPicture, ...]:
    """The supply overlay a viewer may see (issue #17, K102): a side its own lines of
    supply, the moderator both sides'; a spectator none (an enemy's supply is not on the
    board)."""
    if viewer == MODERATOR:
        return tuple(supply_cut.picture(state, s) for s in state.setup.sides)
    if viewer in state.setup.sides:
        return (supply_cut.picture(state, viewer),)
    return ()
