"""legal_actions' further keys (issue #7): every order the engine referees is listed when
it is legal now and not when it is not -- 15.3.3 reinforce, 7.1 fortify, 12.1.4 strategic,
16.1.2 mask, 14.0 bridge, withdrawals, Kursk 17.1.2 repair, 15.1.6 stars, 11.2 delay and
leave, the defence decision and pass; air targets per mission (8.2)."""

from __future__ import annotations

from conftest import play, scenario

from engine import orders as o
from engine.core import Applied
from engine.record import GameRecord
from engine.wb95.game import apply, legal_actions
from scenarios import load_scenario

KEYS = (
    "reinforce",
    "withdraw",
    "repair",
    "fortify",
    "strategic",
    "mask",
    "bridge",
    "stars",
    "delay",
    "leave",
    "defend",
    "pass",
)


def _units():  # type: ignore[no-untyped-def]
    return [
        {"id": "s1", "hex": "0303"},
        {"id": "g1", "hex": "0803"},
        {"id": "g-inf", "hex": "0806", "cel": 2, "max_cel": 4},
        {"id": "g-vs", "hex": "0806", "type": "vs", "cel": 2},
    ]


def test_keys_are_always_there_with_their_shapes() -> None:
    rec = play(scenario(_units()))
    for side in ("soviet", "german"):
        la = legal_actions(rec.state, side)
        for k in KEYS:
            assert k in la
        assert set(la["bridge"]) == {"destroy", "build"}  # type: ignore[arg-type]
    assert legal_actions(rec.state, "german")["fortify"] == []  # not its phase


def test_7_1_fortify_and_12_1_4_strategic_in_the_movement_phase_only() -> None:
    rec = play(scenario(_units()))
    la = legal_actions(rec.state, "soviet")
    assert la["fortify"] == ["s1"] and la["strategic"] == ["s1"]
    assert isinstance(apply(rec.state, "soviet", o.Fortify(units=("s1",))), Applied)
    rec = play(scenario(_units()), "move s1 0403")
    la = legal_actions(rec.state, "soviet")
    assert la["fortify"] == [] and la["strategic"] == []  # it has moved (7.1.2, 12.1.2)


def test_16_1_2_mask_lists_own_stacks() -> None:
    rec = play(scenario(_units()))
    assert legal_actions(rec.state, "soviet")["mask"] == {"0303": "on"}
    rec = play(scenario(_units()), "mask 0303 on")
    assert legal_actions(rec.state, "soviet")["mask"] == {"0303": "off"}


def test_15_3_3_reinforce_from_volkssturm() -> None:
    setup = scenario(_units(), start={"turn": 1, "phase": "movement", "active": "german"})
    rec = GameRecord(setup)
    la = legal_actions(rec.state, "german")
    assert la["reinforce"] == {"g-inf": ["g-vs"]}
    assert isinstance(apply(rec.state, "german", o.Reinforce(unit="g-inf", source="g-vs")), Applied)
    rec = play(setup, "move g-inf 0807")
    assert legal_actions(rec.state, "german")["reinforce"] == {}  # it moved (15.3.3)


def test_withdraw_and_repair_empty_when_not_due() -> None:
    rec = play(scenario(_units()))
    la = legal_actions(rec.state, "soviet")
    assert la["withdraw"] == [] and la["repair"] == {} and la["defend"] == {}
    assert la["pass"] is False


def test_repair_listed_with_the_kursk_decision() -> None:
    setup = load_scenario("demo-kursk")
    import random

    from engine.wb95.choices import candidate_orders
    from engine.wb95.flow import awaited_sides

    for seed in range(6):
        rng = random.Random(seed)
        rec = GameRecord(setup, seed=seed)
        for _ in range(150):
            s = rec.state
            if s.over:
                break
            for d in s.pending:
                la = legal_actions(s, d.side)
                if d.kind == "repair":
                    assert la["repair"]["fronts"] == d.options["fronts"]  # type: ignore[index]
                if d.kind in ("defence", "pursuit"):
                    assert la["pass"] is True
                if d.kind == "defence":
                    assert la["defend"]
            side = awaited_sides(s)[0]
            rec.submit(side, rng.choice(candidate_orders(s, side)))


def test_8_2_air_targets_per_mission() -> None:
    from engine.wb95.flow import awaited_sides, current_phase

    setup = load_scenario("demo-kursk")
    rec = GameRecord(setup, seed=1)
    for _ in range(40):  # say done until an Air Phase in which a side may fly
        s = rec.state
        side = awaited_sides(s)[0]
        air = legal_actions(s, side)["air"]
        if current_phase(s).kind == "air" and air:
            break
        rec.submit(side, o.Done() if not s.pending else o.Pass())
    else:
        raise AssertionError("no Air Phase reached")
    assert isinstance(air, dict) and "missions" in air and "targets" in air
    targets = air["targets"]
    assert set(targets) == set(air["missions"])
    enemy = {u.hex for u in s.on_map(setup.enemy_of(side))}
    assert targets["attack"] and set(targets["attack"]) <= enemy
    h = targets["attack"][0]
    counters = air["counters"]
    order = (
        o.Air(mission="attack", hex=h, counter=counters[0])
        if counters
        else o.Air(mission="attack", hex=h, amount=1)
    )
    assert isinstance(apply(s, side, order), Applied)
