"""16.1.2 Masking (K28) as a sealed input (K27), its interplay with 16.1.3 and 16.1.4 in the
views, and a fog-of-war property: what a side sees never depends on what it may not see."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from conftest import play, reject, scenario
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.state import GameState
from engine.view import view, visible_events
from engine.wb95 import flow

GERMAN_MOVES = {"turn": 1, "phase": "movement", "active": "german"}
UNITS: list[dict[str, Any]] = [
    {"id": "s-inf", "hex": "0604"},
    {"id": "g-top", "hex": "0805", "type": "arm", "mp": 6},
    {"id": "g-mid", "hex": "0805", "type": "inf"},
    {"id": "g-low", "hex": "0805", "type": "art", "sp": [6, 2], "setup": "transport"},
    {"id": "g-far", "hex": "0904", "type": "inf", "mp": 6},
]


def replays(rec) -> bool:  # type: ignore[no-untyped-def]
    return bool(rec.rebuild().snapshot() == rec.state.snapshot())


def german(state: GameState, viewer: str = "soviet") -> list[tuple[str, str | None, str | None]]:
    return [(u.known, u.hex, u.id) for u in view(state, viewer).units if u.side == "german"]


def test_16_1_2_k28_a_mask_is_sealed_until_the_phase_closes() -> None:
    setup = scenario(UNITS, start=GERMAN_MOVES)
    rec = play(setup, "mask 0805 on")
    assert german(rec.state)[:3] == [
        ("full", "0805", "g-top"),
        ("hidden", "0805", None),
        ("hidden", "0805", None),
    ]
    assert view(rec.state, "soviet").masked == ()
    assert view(rec.state, "soviet").stacks["0805"] == 3
    assert view(rec.state, "german").sealed[0]["item"] == {"hex": "0805", "on": True}
    rec = play(setup, "mask 0805 on", "done")
    assert rec.state.masks == {"0805": "german"}
    for viewer in ("soviet", "spectator"):
        v = view(rec.state, viewer)
        assert german(rec.state, viewer) == [("masked", "0805", None), ("full", "0904", "g-far")]
        assert v.masked == ("0805",)
        assert "0805" not in v.stacks  # not even the number of counters (K28)
        text = repr(v.to_json())
        assert "g-top" not in text and "arm" not in text
    own = view(rec.state, "german")
    assert [u.id for u in own.units if u.hex == "0805"] == ["g-top", "g-mid", "g-low"]
    assert own.masked == ("0805",)
    assert replays(rec)


def test_16_1_4_k28_adjacent_masked_stacks_show_types_and_cels_but_no_identity() -> None:
    setup = scenario(UNITS, start=GERMAN_MOVES)
    rec = play(setup, "mask 0805 on", "done")
    assert flow.current_phase(rec.state).kind == "movement"
    assert flow.acting_sides(rec.state) == ("soviet",) and rec.state.turn == 2
    rec = play(setup, "mask 0805 on", "done", "move s-inf 0705")
    seen = [
        (u.known, u.id, u.type, u.cel, u.stack_pos)
        for u in view(rec.state, "soviet").units
        if u.hex == "0805"
    ]
    assert seen == [
        ("type", None, "arm", 2, 0),
        ("type", None, "inf", 2, 1),
        ("type", None, "art", 1, 2),
    ]
    assert view(rec.state, "soviet").stacks["0805"] == 3
    assert replays(rec)


def test_16_1_3_k28_counters_that_fought_are_seen_through_the_mask() -> None:
    rec = play(scenario(UNITS, start=GERMAN_MOVES), "mask 0805 on", "done")
    state = rec.state.clone()
    state.units["g-mid"] = replace(state.units["g-mid"], fought=True)
    assert german(state)[:3] == [
        ("hidden", "0805", None),  # the top counter stays under the mask
        ("full", "0805", "g-mid"),
        ("hidden", "0805", None),
    ]


def test_16_1_2_k28_the_last_order_for_a_hex_wins_and_off_takes_the_mask_away() -> None:
    setup = scenario(UNITS, start=GERMAN_MOVES)
    rec = play(setup, "mask 0805 on", "mask 0805 off", "done")
    assert rec.state.masks == {}
    assert not any(e.kind == "mask_placed" for e in rec.events)
    rec = play(setup, "mask 0805 on", "done", "done", "mask 0805 off")
    assert rec.state.masks == {"0805": "german"}  # sealed until the phase closes
    rec = play(setup, "mask 0805 on", "done", "done", "mask 0805 off", "done")
    assert rec.state.masks == {}
    assert any(e.kind == "mask_removed" and e.data["reason"] == "taken off" for e in rec.events)
    assert replays(rec)


def test_16_1_2_k28_a_mask_covers_joiners_and_is_lifted_from_an_emptied_hex() -> None:
    setup = scenario(UNITS, start=GERMAN_MOVES)
    turn2 = ("mask 0805 on", "done", "done")
    rec = play(setup, *turn2, "move g-far 0805")
    assert german(rec.state) == [("masked", "0805", None)]
    rec = play(setup, *turn2, "move @0805 0806", "mask 0806 on")
    assert rec.state.masks == {"0805": "german"}  # the empty hex keeps it until the phase ends
    rec = play(setup, *turn2, "move g-top g-mid 0806", "move g-low 0905", "done")
    lifted = [e for e in rec.events if e.kind == "mask_removed"]
    assert [(e.data["hex"], e.data["reason"]) for e in lifted] == [
        ("0805", "no unit of the side is left in the hex")
    ]
    assert rec.state.masks == {}
    # a mask ordered for a hex the side leaves before the reveal is void
    rec = play(setup, "mask 0805 on", "move g-top g-mid 0806", "move g-low 0905", "done")
    assert rec.state.masks == {}
    assert replays(rec)


def test_16_1_2_k28_when_and_where_a_mask_may_be_given() -> None:
    setup = scenario(UNITS, start=GERMAN_MOVES)
    rec = play(setup)
    r = reject(rec, "mask 0604 on")
    assert r.rule == "16.1.2" and "no unit of yours" in r.message
    r = reject(rec, "mask 0805 off")
    assert "not masked" in r.message
    rec = play(setup, "mask 0805 on")
    assert "already masked" in reject(rec, "mask 0805 on").message
    r = reject(rec, "soviet: mask 0604 on")
    assert r.rule == "2.1.2"  # not soviet's phase
    guns = [dict(u, setup="combat") if u["id"] == "g-low" else u for u in UNITS]
    rec = play(scenario(guns, start=GERMAN_MOVES), "done")
    assert flow.current_phase(rec.state).kind == "combat"  # the guns may fire (K13)
    r = reject(rec, "mask 0805 on")
    assert (r.rule, r.ruling) == ("16.1.2", "K28")


# --- fog of war: a property ---------------------------------------------------------------

HEXES = [f"{c:02d}{r:02d}" for c in range(1, 9) for r in range(1, 7)]
FOOT = ["inf", "cav", "para", "eng"]


@st.composite
def positions(draw: st.DrawFn) -> dict[str, Any]:
    soviet = draw(st.lists(st.sampled_from(HEXES), min_size=1, max_size=3, unique=True))
    free = [h for h in HEXES if h not in soviet]
    stacks = draw(st.lists(st.sampled_from(free), min_size=1, max_size=3, unique=True))
    where = draw(st.lists(st.sampled_from(stacks), min_size=2, max_size=6))
    ghexes = sorted(set(where))
    masks = draw(st.lists(st.sampled_from(ghexes), unique=True))
    sealed_a = draw(st.lists(st.sampled_from(ghexes), unique=True))
    sealed_b = draw(st.permutations(ghexes))[: len(sealed_a)]
    fought = draw(st.lists(st.integers(0, len(where) - 1), unique=True, max_size=2))
    new = draw(
        st.lists(
            st.tuples(st.sampled_from(FOOT), st.integers(1, 12), st.integers(1, 2)),
            min_size=len(where),
            max_size=len(where),
        )
    )
    return {
        "soviet": soviet,
        "german": where,
        "masks": masks,
        "sealed": (sealed_a, sealed_b),
        "fought": fought,
        "new": new,
    }


def _units(p: dict[str, Any], changed: frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"id": f"s-{i}", "hex": h, "cel": 1, "max_cel": 1} for i, h in enumerate(p["soviet"])
    ]
    for i, h in enumerate(p["german"]):
        u = {"id": f"g-{i}", "hex": h, "type": "inf", "sp": 5, "cel": 1, "max_cel": 1}
        if i in changed:  # a different counter under the same place in the stack
            kind, sp, mc = p["new"][i]
            u.update(id=f"g-{i}-other", name=f"other {i}", type=kind, sp=sp, max_cel=mc)
        out.append(u)
    return out


def _position(p: dict[str, Any], changed: frozenset[int], masks_given: list[str]) -> GameState:
    rec = play(
        scenario(_units(p, changed), cols=(1, 8), rows=(1, 6), start=GERMAN_MOVES),
        *(f"mask {h} on" for h in masks_given),
    )
    state = rec.state.clone()
    for h in p["masks"]:  # masks revealed in an earlier phase
        state.masks[h] = "german"
    for i in p["fought"]:  # counters that fought in this Combat Phase (16.1.3)
        uid = next(u for u in state.units if u == f"g-{i}" or u.startswith(f"g-{i}-"))
        state.units[uid] = replace(state.units[uid], fought=True)
    return state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_16_1_k28_a_sides_view_does_not_depend_on_what_it_may_not_see(p: dict[str, Any]) -> None:
    base = _position(p, frozenset(), p["sealed"][0])
    grid = base.setup.map.grid
    near = {n for h in p["soviet"] for n in grid.neighbours(h)}
    hidden: set[int] = set()
    for i, h in enumerate(p["german"]):
        top = base.units_at(h)[0].id == f"g-{i}"
        if (not top or h in p["masks"]) and h not in near and i not in p["fought"]:
            hidden.add(i)
    other = _position(p, frozenset(hidden), p["sealed"][1])
    for viewer in ("soviet", "spectator"):
        assert view(base, viewer).to_json() == view(other, viewer).to_json()
    # the log the soviet side reads does not tell which stacks the Germans masked
    ev_a = play(
        scenario(_units(p), cols=(1, 8), rows=(1, 6), start=GERMAN_MOVES),
        *(f"mask {h} on" for h in p["sealed"][0]),
    ).events
    ev_b = play(
        scenario(_units(p), cols=(1, 8), rows=(1, 6), start=GERMAN_MOVES),
        *(f"mask {h} on" for h in p["sealed"][1]),
    ).events
    assert visible_events(ev_a, "soviet") == visible_events(ev_b, "soviet")
