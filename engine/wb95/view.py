"""WB-95's per-viewer view (16.1, DESIGN §2): what each viewer sees of the units, the
stacks, masks, sealed inputs, bridges, air missions and fortification markers, in the
core's `engine.view.View`. The rules of sight are engine/view.py's docstring.
"""

from __future__ import annotations

from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.view import MODERATOR, SPECTATOR, PendingView, UnitView, View
from engine.wb95 import air, bridges, flow, masking
from engine.wb95.control import victory_points
from engine.wb95.fortification_markers import markers
from engine.wb95.sequence import PHASES


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
