"""7.1 / 7.2 The fortification markers: where they lie and when they go.

A field (FF) or improved (IF) fortification is a marker in a hex, under the units of the
side that built or placed it (7.1.1, 7.2.1). `GameState.fortifications` holds the markers
by hex (None until the first change: then the markers are those the scenario placed, IF
or FF under the units that start in them). Each unit's `fortification` mirrors the marker
of its hex when that marker is its side's, so the combat code (7.1.10, 7.1.11, 7.2.1) and
the views read the unit.

- A unit that leaves a marked hex leaves the marker behind; a friendly unit that ends its
  move in a marked hex is in the fortification too, even after its builders left (7.1.5
  note).
- An enemy unit entering a marked hex removes the marker, FF or IF (7.1.6, 7.2.1).
- At the end of every phase an FF marker in a hex without units is removed (7.1.5); an IF
  marker stays until an enemy unit enters (7.2.1).

`after_move` keeps all this for one unit's move; the movement code calls it, and so should
any code that moves a unit (retreat, pursuit, advance after combat). The end-of-phase step
also puts right anything a move that did not call it left (`fortification_synced`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.core import Ctx, Event
from engine.hexgrid import HexId
from engine.model import Setup
from engine.state import GameState
from engine.wb95 import flow
from engine.wb95.reducer import on

FF = "ff"
IF = "if"
NAMES = {FF: "field fortifications", IF: "improved fortifications"}
_RANK = {FF: 1, IF: 2}


def initial_markers(setup: Setup) -> dict[HexId, dict[str, str]]:
    """The markers the scenario places: under every unit that starts in a fortification
    (IF where the scenario mixes IF and FF in one hex)."""
    out: dict[HexId, dict[str, str]] = {}
    for st in setup.starts:
        if st.hex is None or st.fortification not in _RANK:
            continue
        kind = st.fortification
        old = out.get(st.hex)
        if old is None or _RANK[kind] > _RANK[old["kind"]]:
            out[st.hex] = {"kind": kind, "side": setup.units[st.id].side}
    placed = setup.special.get("improved_fortifications")  # free IF placement (loader)
    if isinstance(placed, dict):
        for h in placed.get("hexes", ()):
            out.setdefault(str(h), {"kind": IF, "side": str(placed["side"])})
    return out


def markers(state: GameState) -> Mapping[HexId, Mapping[str, str]]:
    """Every fortification marker on the map, by hex: {"kind": "ff"|"if", "side": ...}."""
    if state.fortifications is None:
        return initial_markers(state.setup)
    return state.fortifications


def marker_at(state: GameState, h: HexId | None) -> Mapping[str, str] | None:
    if h is None:
        return None
    return markers(state).get(h)


def own_marker(state: GameState, side: str, h: HexId | None) -> str | None:
    """The kind of `side`'s marker in hex `h`, if there is one."""
    m = marker_at(state, h)
    return m["kind"] if m is not None and m["side"] == side else None


def _writable(state: GameState) -> dict[HexId, dict[str, str]]:
    if state.fortifications is None:
        state.fortifications = initial_markers(state.setup)
    return state.fortifications


# --- keeping the markers as units move ---------------------------------------------------


def enemy_entered(ctx: Ctx, h: HexId, side: str) -> None:
    """A unit of `side` entered `h`: the other side's marker there is removed (7.1.6, 7.2.1)."""
    m = marker_at(ctx.state, h)
    if m is not None and m["side"] != side:
        kind = m["kind"]
        ctx.emit(
            "fortification_removed",
            hex=h,
            side=m["side"],
            fortification=kind,
            reason="an enemy unit entered the hex",
            rule="7.1.6" if kind == FF else "7.2.1",
        )


def after_move(ctx: Ctx, unit_id: str, path: Sequence[HexId]) -> None:
    """Keep the markers right after `unit_id` moved along `path` (its start hex first):
    enemy markers in the hexes it entered go (7.1.6, 7.2.1); it leaves the fortification of
    its start hex and is in its side's fortification of the hex it ends in (7.1.5 note)."""
    u = ctx.state.units[unit_id]
    for h in path[1:]:
        enemy_entered(ctx, h, u.side)
    start, end = path[0], path[-1]
    if u.fortification is not None:
        ctx.emit(
            "fortification_left", unit=u.id, hex=start, fortification=u.fortification, rule="7.1.5"
        )
    kind = own_marker(ctx.state, u.side, end)
    if kind is not None and u.on_map:
        ctx.emit("fortification_joined", unit=u.id, hex=end, fortification=kind, rule="7.1.5")


@flow.at_phase_end
def _phase_end(ctx: Ctx) -> None:
    """7.1.5 / 7.1.6 as a phase ends; units whose moves bypassed `after_move` are put right
    first."""
    state = ctx.state
    for h, m in sorted(markers(state).items()):
        if any(u.side != m["side"] for u in state.units_at(h)):
            enemy_entered(ctx, h, state.setup.enemy_of(m["side"]))
    for u in sorted(ctx.state.on_map(), key=lambda x: x.id):
        kind = own_marker(ctx.state, u.side, u.hex)
        if u.fortification != kind:
            ctx.emit("fortification_synced", unit=u.id, hex=u.hex, fortification=kind, rule="7.1.1")
    for h, m in sorted(markers(ctx.state).items()):
        if m["kind"] == FF and not ctx.state.units_at(h):
            ctx.emit(
                "fortification_removed",
                hex=h,
                side=m["side"],
                fortification=FF,
                reason="no unit is in the hex at the end of the phase",
                rule="7.1.5",
            )


# --- events --------------------------------------------------------------------------------


def place(state: GameState, h: HexId, side: str, kind: str) -> None:
    """Put a marker in a hex, under `side`'s units there (used by reducers)."""
    _writable(state)[h] = {"kind": kind, "side": side}
    for u in state.units_at(h):
        if u.side == side:
            u.fortification = kind


@on("fortification_removed")
def _fortification_removed(state: GameState, e: Event) -> None:
    h = e.data["hex"]
    _writable(state).pop(h, None)
    for u in state.units_at(h):
        if u.side == e.data["side"]:
            u.fortification = None


@on("fortification_left")
def _fortification_left(state: GameState, e: Event) -> None:
    state.units[e.data["unit"]].fortification = None


@on("fortification_joined")
def _fortification_joined(state: GameState, e: Event) -> None:
    state.units[e.data["unit"]].fortification = e.data["fortification"]


@on("fortification_synced")
def _fortification_synced(state: GameState, e: Event) -> None:
    state.units[e.data["unit"]].fortification = e.data["fortification"]
