"""Campaign carry-over (bot/league/carry_over.py): The Retreat played with the engine, then
Deblockade set up with what survived; the shipped campaign record and its validation."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from bot.league.campaign import Campaign, Stage, campaign_score
from bot.league.carry_over import (
    CampaignError,
    campaign_from_data,
    carried_scenario,
    list_campaigns,
    load_campaign,
    stage_scenario,
)
from engine.core import Applied
from engine.record import GameRecord
from engine.state import GameState
from engine.wb95.choices import candidate_orders
from engine.wb95.defaults import next_default
from engine.wb95.flow import awaited_sides
from scenarios import load_scenario
from scenarios.loader import list_scenarios, load_scenario_data
from scenarios.yamlio import read_yaml_file

SHIPPED = {i.id: i.path for i in list_scenarios()}


def _data(sid: str) -> dict[str, Any]:
    raw = read_yaml_file(SHIPPED[sid])
    assert isinstance(raw, dict)
    return raw


@pytest.fixture(scope="module")
def retreat() -> GameRecord:
    return GameRecord(load_scenario("the-retreat"), seed=0)


@pytest.fixture(scope="module")
def played(retreat: GameRecord) -> GameState:
    """Two turns of The Retreat: random legal orders (seeded), the deadline defaults
    answering every decision (losses, retreats, the IF placement)."""
    rec = GameRecord(retreat.setup, seed=0)
    rng = random.Random(0)
    for _ in range(3000):
        if rec.state.over or rec.state.turn > 2:
            break
        side = awaited_sides(rec.state)[0]
        mine = any(d.side == side for d in rec.state.pending)
        options = [] if mine else candidate_orders(rec.state, side)
        order = rng.choice(options) if options else next_default(rec.state, side)
        assert order is not None
        if not isinstance(rec.submit(side, order), Applied):
            fallback = next_default(rec.state, side)
            assert fallback is not None
            assert isinstance(rec.submit(side, fallback), Applied)
    return rec.state


def _ended(retreat: GameRecord, **changes: int) -> GameState:
    """The Retreat's first state with units' CELs set by hand (0: eliminated)."""
    state = retreat.state.clone()
    for uid, cel in changes.items():
        u = state.units[uid.replace("_", "-")]
        u.cel = cel
        u.eliminated = cel == 0
        if u.eliminated:
            u.hex = None
    return state


def test_the_retreat_played_then_deblockade_set_up_with_the_survivors(
    played: GameState,
) -> None:
    gone = {u.id for u in played.units.values() if u.eliminated}
    worn = {u.id: u.cel for u in played.units.values() if not u.eliminated and u.cel < u.max_cel}
    assert gone and worn, "two turns of play should cost both kinds of loss"
    shipped = load_campaign("the-retreat-deblockade").campaign
    data, lines = stage_scenario(shipped, 2, played)
    setup = load_scenario_data(data, name="deblockade")
    plain = load_scenario("deblockade")
    starts = {st.id: st for st in plain.starts}
    umap = shipped.stages[0].unit_map
    for uid in gone:
        nid = umap.get(uid, uid)
        assert nid not in setup.units
        if nid in plain.units:
            assert any(
                line.startswith(f"{uid}") and "eliminated in the-retreat" in line for line in lines
            )
        else:
            assert any(
                line.startswith("not in deblockade") and f"{uid} (eliminated)" in line
                for line in lines
            )
    game = GameRecord(setup, seed=1).state  # the engine starts each unit with its CELs
    for uid, cel in worn.items():
        nid = umap.get(uid, uid)
        if nid not in plain.units:
            continue
        want = min(cel, starts[nid].cel)
        assert game.units[nid].cel == want
        assert game.units[nid].max_cel == plain.units[nid].max_cel
        if want < starts[nid].cel:
            assert f"starts with {want} of {plain.units[nid].max_cel} CELs" in "\n".join(lines)
    assert any("removed from deblockade's" in line for line in lines)
    assert any("CELs (1 CEL lost in the-retreat)" in line for line in lines)
    # everything else is Deblockade's own setup
    assert set(setup.units) == set(plain.units) - {umap.get(u, u) for u in gone}
    assert len(lines) == len(set(lines))


def test_the_sentences_say_every_change(retreat: GameRecord) -> None:
    ended = _ended(
        retreat,
        s_232_inf=0,  # on Deblockade's map
        g_24_arm_1=0,  # a Deblockade reinforcement, and its 24 ARM link
        g_88_inf_3=1,  # full strength in Deblockade: reduced
        g_198_inf_1=1,  # Deblockade already sets it up with 1 of 2: no change
        g_332b_inf=1,  # Deblockade's g-b-inf-1
        g_rg_smiela=0,  # not in Deblockade
    )
    data, lines = carried_scenario(
        _data("deblockade"),
        ended,
        ("german", "soviet"),
        stage_name="deblockade",
        unit_map={"g-332b-inf": "g-b-inf-1"},
    )
    assert lines == [  # in the order of Deblockade's units
        "g-88-inf-3: starts with 1 of 2 CELs (1 CEL lost in the-retreat)",
        "g-332b-inf (g-b-inf-1 in deblockade): starts with 1 of 2 CELs (1 CEL lost in the-retreat)",
        "s-232-inf: eliminated in the-retreat, removed from deblockade's setup",
        "g-24-arm-1: eliminated in the-retreat, removed from deblockade's reinforcements "
        "(turn 1, zone C)",
        "g-24-arm-1: also taken out of special.linked_reinforcements.if_entered",
        "not in deblockade, so not carried: g-112b-inf, g-167-inf-1, g-177-inf, g-239-ag, "
        "g-255b-inf, g-5ss-arm-4, g-911-ag, g-rg-smiela (eliminated), g-rg-szpola, "
        "g-xxxxii-hq, s-52a-hq, s-6-eng",
    ]
    text = "\n".join(lines)
    assert "g-198-inf-1" not in text
    units = {u["id"]: u for u in data["units"]}
    assert "s-232-inf" not in units and "g-24-arm-1" not in units
    assert units["g-88-inf-3"]["cel"] == 1 and units["g-88-inf-3"]["max_cel"] == 2
    assert units["g-b-inf-1"]["cel"] == 1
    assert data["special"]["linked_reinforcements"]["if_entered"] == ["g-24-arm-2", "g-24-arm-3"]
    setup = load_scenario_data(data, name="deblockade")
    state = GameRecord(setup, seed=1).state
    assert (state.units["g-88-inf-3"].cel, state.units["g-88-inf-3"].max_cel) == (1, 2)
    assert state.units["g-198-inf-1"].cel == 1


def test_the_shipped_data_is_not_changed_and_other_sides_are_not_carried(
    retreat: GameRecord,
) -> None:
    original = _data("deblockade")
    before = copy.deepcopy(original)
    ended = _ended(retreat, s_232_inf=0, s_38_inf=1, g_88_inf_3=0)
    data, lines = carried_scenario(original, ended, ("german",), stage_name="deblockade")
    assert original == before
    units = {u["id"]: u for u in data["units"]}
    assert "s-232-inf" in units and "cel" not in units["s-38-inf"]  # the Soviets start afresh
    assert "g-88-inf-3" not in units
    assert lines[0] == "g-88-inf-3: eliminated in the-retreat, removed from deblockade's setup"
    assert not any(line.startswith("s-") for line in lines)
    untouched, none = carried_scenario(original, retreat.state, (), stage_name="deblockade")
    assert (untouched, none) == (before, [])


def test_lists_naming_a_unit_lose_it_and_rules_naming_only_gone_units_are_dropped(
    retreat: GameRecord,
) -> None:
    nxt = _data("the-retreat")  # a chain may repeat a scenario
    nxt["special"]["activation"].append(
        {"units": ["s-232-inf"], "from_turn": 2, "label": "232 alone"}
    )
    nxt["sides"]["german"]["supply"].append({"unit": "g-xi-hq"})
    ended = _ended(retreat, s_232_inf=0, g_xi_hq=0, g_24_arm_1=0, g_24_arm_2=0, g_24_arm_3=0)
    data, lines = carried_scenario(nxt, ended, ("german", "soviet"), stage_name="the-retreat")
    acts = data["special"]["activation"]
    assert len(acts) == 1 and "s-232-inf" not in acts[0]["units"]
    assert {"unit": "g-xi-hq"} not in data["sides"]["german"]["supply"]
    assert "linked_reinforcements" not in data["special"]
    assert "s-232-inf: also taken out of special.activation[0].units" in lines
    assert "special.activation[1] (232 alone) is dropped: every unit of its units is gone" in lines
    assert "g-xi-hq: sides.german.supply[7] (supply from it) is dropped" in lines
    assert (
        "special.linked_reinforcements (24 ARM) is dropped: every unit of its if_entered is gone"
        in lines
    )
    load_scenario_data(data, name="the-retreat")


def test_a_carry_that_cannot_be_made_is_refused(retreat: GameRecord) -> None:
    deb = _data("deblockade")
    with pytest.raises(CampaignError, match="cannot carry side 'allied'"):
        carried_scenario(deb, retreat.state, ("allied",), stage_name="deblockade")
    with pytest.raises(CampaignError, match="a soviet unit"):
        carried_scenario(
            deb, retreat.state, ("german",), stage_name="deblockade",
            unit_map={"g-332b-inf": "s-2uf-hq"},
        )  # fmt: skip
    with pytest.raises(CampaignError, match="are both g-b-inf-1"):
        carried_scenario(
            deb, retreat.state, ("german",), stage_name="deblockade",
            unit_map={"g-332b-inf": "g-b-inf-1", "g-255b-inf": "g-b-inf-1"},
        )  # fmt: skip
    with pytest.raises(CampaignError, match="does not load"):
        carried_scenario({**deb, "turns": 0}, retreat.state, (), stage_name="deblockade")


def test_the_shipped_campaign_validates_and_scores() -> None:
    assert "the-retreat-deblockade" in list_campaigns()
    shipped = load_campaign("the-retreat-deblockade")
    c = shipped.campaign
    assert [s.scenario for s in c.stages] == ["the-retreat", "deblockade"]
    assert c.stages[0].carry_units == ("german", "soviet")
    assert c.stages[0].unit_map["g-112b-inf"] == "g-b-inf-3"
    assert shipped.provenance["kind"] == "reconstructed"
    assert shipped.provenance["source"] == "league-supplied"
    assert "league" in shipped.provenance["reason"]
    assert Campaign.from_dict(c.to_dict()) == c and hash(c.stages[0])
    assert campaign_score(c, []).next_scenario == "the-retreat"
    with pytest.raises(CampaignError, match="no shipped campaign 'nope'"):
        load_campaign("nope")


def _record(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "id": "t",
        "name": "T",
        "sides": ["german", "soviet"],
        "provenance": {"kind": "league-supplied", "reason": "the league's choice"},
        "stages": [
            {"scenario": "the-retreat", "carry_units": ["german"]},
            {"scenario": "deblockade"},
        ],
    }
    raw.update(changes)
    return raw


def test_campaign_records_that_are_refused() -> None:
    assert campaign_from_data(_record()).campaign.stages[0].carry_units == ("german",)
    cases = [
        (_record(stages=[{"scenario": "the-advance"}]), r"stages\[0\] \(the-advance\): no such"),
        (_record(sides=["german", "allied"]), "side 'allied' is not in the scenario"),
        (_record(stages=[{"scenario": "deblockade", "carry_units": ["german"]}]), "no next game"),
        (_record(provenance={"kind": "reconstructed"}), "provenance.reason"),
        (_record(provenance={"kind": "guess", "reason": "x"}), "provenance.kind"),
        (_record(stages=[]), "no stages"),
        (_record(stages=[
            {"scenario": "the-retreat", "unit_map": {"g-nope": "g-b-inf-1"}},
            {"scenario": "deblockade"},
        ]), "no unit 'g-nope' in the-retreat"),
        (_record(stages=[
            {"scenario": "the-retreat", "unit_map": {"g-332b-inf": "s-2uf-hq"}},
            {"scenario": "deblockade"},
        ]), "g-332b-inf is german, s-2uf-hq is soviet"),
        (_record(stages=[
            {"scenario": "the-retreat", "carry_units": ["allied"]},
            {"scenario": "deblockade"},
        ]), "carry_units"),
    ]  # fmt: skip
    for raw, problem in cases:
        with pytest.raises(CampaignError, match=problem):
            campaign_from_data(raw, name="t.yaml")


def test_stage_numbers_and_the_previous_game_are_checked(retreat: GameRecord) -> None:
    c = Campaign(
        "c", "C", ("german", "soviet"),
        (Stage("the-retreat", carry_units=("german",)), Stage("deblockade")),
    )  # fmt: skip
    with pytest.raises(CampaignError, match="games 2-2"):
        stage_scenario(c, 1, retreat.state)
    deblockade = GameRecord(load_scenario("deblockade"), seed=0).state
    with pytest.raises(CampaignError, match="is the-retreat, not deblockade"):
        stage_scenario(c, 2, deblockade)
    _, lines = stage_scenario(c, 2, retreat.state)
    assert lines[-1].startswith("not in deblockade, so not carried: g-")
