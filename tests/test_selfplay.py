"""Self-play over the demo scenarios (DESIGN §2 invariants), with combat: every input the
engine lists is judged; rejected ones change nothing; after every phase no hex is over
stacked; CELs only fall through `cel_lost` events; the combat column stays on the table;
replaying the events rebuilds the state; views never name hidden enemy units."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Applied
from engine.record import GameRecord
from engine.view import view
from engine.wb95.choices import candidate_orders
from engine.wb95.crt import COLUMNS
from engine.wb95.flow import awaited_sides
from engine.wb95.stacking import overstacked
from scenarios import load_scenario


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["demo-steblev", "demo-kursk"]), st.integers(0, 10_000), st.data())
def test_self_play_keeps_the_invariants(scenario_id: str, seed: int, data: st.DataObject) -> None:
    setup = load_scenario(scenario_id)
    rec = GameRecord(setup, seed=seed)
    for _ in range(120):
        if rec.state.over:
            break
        side = awaited_sides(rec.state)[0]
        options = candidate_orders(rec.state, side)
        assert options, f"{side} has nothing to do in {rec.state.phase}"
        order = data.draw(st.sampled_from(options))
        cels = {u.id: u.cel for u in rec.state.units.values()}
        before = rec.state.snapshot()
        phase = rec.state.phase
        result = rec.submit(side, order)
        if not isinstance(result, Applied):
            assert rec.state.snapshot() == before
            continue
        change: Counter[str] = Counter()  # CELs move only through these events
        for e in result.events:
            if e.kind == "cel_lost":
                change[e.data["unit"]] -= 1
            elif e.kind == "repaired":  # 17.1.2
                change[e.data["unit"]] += int(e.data["cels"])
            elif e.kind == "reinforced":  # 15.3.3
                change[e.data["unit"]] += 1
                change[e.data["source"]] -= 1
            if e.kind == "combat_resolved":
                assert e.data["column"] in COLUMNS
        for u in rec.state.units.values():
            assert u.cel - cels[u.id] == change.get(u.id, 0)
        if rec.state.phase != phase:
            assert not overstacked(rec.state)
        for viewer in setup.sides:
            v = view(rec.state, viewer)
            hidden = {u.id for u in rec.state.on_map(setup.enemy_of(viewer))}
            tops = {rec.state.units_at(h)[0].id for h in v.stacks}
            fought = {u.id for u in rec.state.on_map() if u.fought}  # 16.1.3
            shown = {u.id for u in v.units if u.id in hidden}
            assert shown <= tops | fought
    assert rec.rebuild().snapshot() == rec.state.snapshot()
