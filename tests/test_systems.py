"""The rule-system interface (issue #19, engine/system.py): a toy system registered only
here -- two sides take turns moving one counter one hex, then `done`, for the scenario's
turns -- is played through the interface alone by the service (with the built-in
opponent, which for a system without one plays its deadline defaults), by local play
from a scenario file, and by the fuzzer with its invariants. Nothing of WB-95 is asked."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot import fuzz
from bot import systems as bot_systems
from bot.service import Caller, Referee
from engine import orders as o
from engine import systems
from engine.core import Applied, Ctx, Event, Rejected, Rejection
from engine.dice import DiceState
from engine.model import Setup
from engine.redaction import PUBLIC, UNIT, Spec
from engine.state import Decision, GameState, UnitState
from engine.system import Phase, Reach, RuleSystem
from engine.view import UnitView, View, redacted_log, view, visible_events
from scenarios import load_scenario
from scenarios import systems as scenario_systems
from scenarios.loader import SCENARIO_SYSTEM as WB95_SCENARIOS

ALICE = Caller("u-alice", "Alice", guild="g1", channel="c1")

# Every field of every toy event, for the redaction of the log (engine/redaction.py).
TOY_EVENTS: dict[str, dict[str, Spec]] = {
    "game_started": {"scenario": PUBLIC, "seed": PUBLIC},
    "phase_started": {"turn": PUBLIC, "index": PUBLIC, "side": PUBLIC},
    "moved": {"side": PUBLIC, "unit": UNIT, "path": PUBLIC},
    "side_done": {"side": PUBLIC},
    "game_ended": {"result": PUBLIC},
}


@dataclass(frozen=True)
class Step:
    hex: str
    path: tuple[str, ...]
    cost: Fraction = Fraction(1)
    stops: bool = False


class Toy(RuleSystem):
    id = "toy"
    name = "Toy"

    def initial_state(self, setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> GameState:
        units = {
            st.id: UnitState(st.id, setup.units[st.id].side, st.hex, 1, 1, entered_seq=i)
            for i, st in enumerate(setup.starts)
        }
        return GameState(setup, 1, 0, units, {}, DiceState(seed=seed, forced=list(dice)))

    def new_game(self, setup: Setup, seed: int = 0, dice: Sequence[int] = ()) -> Applied:
        ctx = Ctx(self.initial_state(setup, seed, dice), self.reduce)
        ctx.emit("game_started", scenario=setup.id, seed=seed)
        ctx.emit("phase_started", turn=1, index=0, side=setup.side_names[0])
        return ctx.done()

    def reduce(self, state: GameState, event: Event) -> None:
        d = event.data
        if event.kind == "phase_started":
            state.turn, state.phase, state.done = d["turn"], d["index"], []
            for u in state.units.values():
                u.moved = False
        elif event.kind == "moved":
            u = state.units[d["unit"]]
            u.hex, u.moved = d["path"][-1], True
        elif event.kind == "side_done":
            state.done.append(d["side"])
        elif event.kind == "game_ended":
            state.over, state.result = True, d["result"]
        state.seq = event.seq

    def apply(self, state: GameState, side: str | None, order: o.Order) -> Applied | Rejection:
        try:
            return self._apply(state, side or order.side, order)
        except Rejected as r:
            return r.rejection

    def _apply(self, state: GameState, side: str | None, order: o.Order) -> Applied:
        awaited = self.awaited_sides(state)
        side = side or (awaited[0] if awaited else None)
        if state.over or side not in awaited:
            raise Rejected(f"it is not {side}'s move")
        ctx = Ctx(state, self.reduce)
        if isinstance(order, o.Move):
            (uid,) = order.units
            if order.path[-1] not in self.legal_moves(state, uid):
                raise Rejected(f"{uid} cannot go to {order.path[-1]}")
            ctx.emit("moved", side=side, unit=uid, path=[order.path[-1]])
        elif isinstance(order, o.Done):
            ctx.emit("side_done", side=side)
            if state.phase == 0:
                ctx.emit("phase_started", turn=state.turn, index=1, side=self._mover(state, 1))
            elif state.turn < state.setup.turns:
                ctx.emit("phase_started", turn=state.turn + 1, index=0, side=self._mover(state, 0))
            else:
                ctx.emit("game_ended", result={"winner": None, "why": "the last turn ended"})
        else:
            raise Rejected("a toy game knows only `move` and `done`")
        return ctx.done()

    @staticmethod
    def _mover(state: GameState, index: int) -> str:
        return state.setup.side_names[index]

    def phase(self, state: GameState) -> Phase:
        mover = self._mover(state, state.phase)
        return Phase("movement", state.phase + 1, f"{mover}'s move (turn {state.turn})")

    def acting_sides(self, state: GameState) -> tuple[str, ...]:
        return (self._mover(state, state.phase),)

    def awaited_sides(self, state: GameState) -> list[str]:
        mover = self._mover(state, state.phase)
        return [] if state.over or mover in state.done else [mover]

    def done_refusal(self, state: GameState, side: str) -> Rejection | None:
        return None if side in self.awaited_sides(state) else Rejection("not your move")

    def legal_actions(self, state: GameState, side: str) -> dict[str, object]:
        mine = side in self.awaited_sides(state)
        moves = {u.id: sorted(self.legal_moves(state, u.id)) for u in state.on_map(side)}
        return {"decisions": [], "moves": moves if mine else {}, "done": mine}

    def legal_moves(self, state: GameState, unit_id: str) -> Mapping[str, Reach]:
        u = state.units.get(unit_id)
        if u is None or u.hex is None or u.moved or u.side not in self.awaited_sides(state):
            return {}
        enemy = {x.hex for x in state.on_map(state.setup.enemy_of(u.side))}
        grid = state.setup.map.grid
        return {n: Step(n, (n,)) for n in grid.neighbours(u.hex) if n not in enemy}

    def candidate_orders(
        self, state: GameState, side: str, limit: int = 200, moves: bool = True
    ) -> list[o.Order]:
        if side not in self.awaited_sides(state):
            return []
        out: list[o.Order] = []
        for u in state.on_map(side) if moves else []:
            out += [o.Move(units=(u.id,), path=(h,)) for h in sorted(self.legal_moves(state, u.id))]
        return [*out, o.Done()][-limit:]

    def next_default(self, state: GameState, side: str) -> o.Order | None:
        return o.Done() if side in self.awaited_sides(state) else None

    def decision_defaults(self, state: GameState, decision: Decision) -> list[o.Order]:
        return []

    def view(self, state: GameState, viewer: str) -> View:
        units = [
            UnitView(u.side, u.hex, "full", id=u.id, name=state.setup.units[u.id].name)
            for u in sorted(state.on_map(), key=lambda x: x.id)
        ]
        stacks: dict[str, int] = {}
        for u in units:
            assert u.hex is not None
            stacks[u.hex] = stacks.get(u.hex, 0) + 1
        ph = self.phase(state)
        return View(
            viewer=viewer,
            scenario=state.setup.id,
            turn=state.turn,
            date=None,
            phase=ph.kind,
            phase_number=ph.number,
            active=self.acting_sides(state),
            awaited=tuple(self.awaited_sides(state)),
            units=tuple(units),
            control={},
            pending=(),
            vp={},
            over=state.over,
            result=state.result,
            stacks=stacks,
        )

    def visible_events(
        self, events: Iterable[Event], viewer: str, state: GameState | None = None
    ) -> list[Event]:
        return redacted_log(events, viewer, state, TOY_EVENTS)


class ToyWords:
    """The toy system's describer: its events as sentences."""

    def event(self, e: Event) -> str:
        d = e.data
        if e.kind == "phase_started":
            return f"Turn {d.get('turn')}: {d.get('side')} moves."
        if e.kind == "moved":
            return f"{d.get('unit')} moves to {' '.join(d.get('path') or [])}."
        if e.kind == "side_done":
            return f"{d.get('side')} is done."
        return "The game is over." if e.kind == "game_ended" else ""

    def lines(self, events: Iterable[Event], *, numbered: bool = False) -> list[str]:
        return [f"{e.seq}. {t}" if numbered else t for e in events if (t := self.event(e))]

    def decision(self, kind: str, rule: str, options: Any, info: Any = None, **_: Any) -> str:
        return f"decide {kind}"

    def answers(self, kind: str, options: Any, info: Any = None, **_: Any) -> list[str]:
        return []

    def sealed_item(self, kind: Any, item: Any) -> str:
        return ""


def _build(data: dict[str, Any], file: str, base_dir: Path | None) -> Setup:
    """The toy reads its scenarios in WB-95's format (a real system has its own)."""
    return replace(WB95_SCENARIOS.build({**data, "system": "wb95"}, file, base_dir), system="toy")


@pytest.fixture(autouse=True)
def toy() -> Iterator[RuleSystem]:
    system = systems.register(Toy())
    bot_systems.register(bot_systems.BotSystem("toy", describer=ToyWords()))
    scenario_systems.register(scenario_systems.ScenarioSystem("toy", _build))
    yield system
    systems.unregister("toy")
    bot_systems.unregister("toy")
    scenario_systems.unregister("toy")


def _scenario(turns: int = 3) -> dict[str, Any]:
    return {
        "id": "toy-duel",
        "name": "Toy duel",
        "system": "toy",
        "game": "korsun",
        "initiative": "soviet",
        "turns": turns,
        "start": {"turn": 1, "phase": "movement", "active": "soviet"},
        "map": {"layout": "even-q", "cols": [1, 6], "rows": [1, 6], "default": "clear"},
        "sides": {
            "soviet": {"nation": "soviet", "supply": [{"edge": "E"}]},
            "german": {"nation": "german", "supply": [{"edge": "W"}]},
        },
        "units": [
            {"id": "s1", "name": "s1", "side": "soviet", "sp": 4, "mp": 4, "type": "inf",
             "hex": "0505"},
            {"id": "g1", "name": "g1", "side": "german", "sp": 4, "mp": 4, "type": "inf",
             "hex": "0202"},
        ],
    }  # fmt: skip


def test_the_scenario_loader_dispatches_on_system_and_refuses_unknown_ones() -> None:
    from scenarios import ScenarioError, load_scenario_data

    setup = load_scenario_data(_scenario())
    assert setup.system == "toy" and systems.of(setup).name == "Toy"
    with pytest.raises(ScenarioError, match=r"unknown rule system 'chess'.*'toy'"):
        load_scenario_data({**_scenario(), "system": "chess"})
    with pytest.raises(systems.UnknownSystem, match="unknown rule system 'chess'"):
        systems.get("chess")


def test_the_fuzzer_plays_a_toy_game_to_the_end_with_its_invariants(tmp_path: Path) -> None:
    from scenarios import load_scenario_data

    setup = load_scenario_data(_scenario())
    for player in (fuzz.RandomPlayer(), fuzz.OpponentPlayer()):
        report = fuzz.play_game(setup, 1, max_inputs=300, player=player, out=tmp_path)
        assert report.failure is None, report.failure
        assert report.over and report.inputs >= 6


def test_the_service_plays_a_toy_game_against_the_built_in_opponent(store_url: str) -> None:
    async def go() -> None:
        ref = await Referee.open(store_url)  # the default built-in opponent
        try:
            out = await ref.new_game(
                ALICE, "toy-duel", seed=1, side="soviet", scenario_data=_scenario(2)
            )
            gid = out[0].game
            assert gid is not None
            await ref.seat_ai(ALICE, gid, "german")
            await ref.orders(ALICE, gid, "move s1 0504")
            await ref.orders(ALICE, gid, "done")  # the opponent (toy: its defaults) answers
            g = await ref.game(gid)
            assert g.state.turn == 2 and g.awaited() == ["soviet"]
            assert g.where() == "soviet's move (turn 2)"
            await ref.orders(ALICE, gid, "done")
            g = await ref.game(gid)
            assert g.state.over and g.status == "over"
            log = "\n".join(r.text for r in await ref.history(ALICE, gid, limit=50))
            assert "s1 moves to 0504." in log and "The game is over." in log
        finally:
            await ref.close()
        ref = await Referee.open(store_url)  # rebuilt from the stored log
        try:
            g = await ref.game(gid)
            assert g.state.over and g.state.units["s1"].hex == "0504"
        finally:
            await ref.close()

    asyncio.run(go())


def test_local_play_of_a_toy_scenario_file(tmp_path: Path) -> None:
    from bot.local import LocalPlay
    from bot.terminal import PlainOut

    path = tmp_path / "toy-duel.yaml"
    path.write_text(yaml.safe_dump(_scenario(1)), encoding="utf-8")
    lines = ["move s1 0504", "done", "quit"]
    out: list[str] = []

    def read(prompt: str) -> str:
        if not lines:
            raise EOFError
        return lines.pop(0)

    session = LocalPlay(PlainOut(read, out.append), tmp_path / "kessel.db")
    assert asyncio.run(session.main(str(path), vs="german", seed=1)) == 0
    assert session.live is not None and session.live.state.over
    text = "\n".join(out)
    assert "s1 moves to 0504." in text


def test_views_and_the_log_go_through_the_system() -> None:
    from engine.record import GameRecord
    from scenarios import load_scenario_data

    rec = GameRecord(load_scenario_data(_scenario()), 0)
    assert rec.system is systems.get("toy")
    assert isinstance(rec.submit("soviet", o.Move(units=("s1",), path=("0504",))), Applied)
    assert view(rec.state, "german").units[1].hex == "0504"
    seen = visible_events(rec.events, "german", rec.state)
    assert [e.kind for e in seen][-1] == "moved"
    assert isinstance(rec.submit("soviet", o.Attack(units=("s1",), target="0202")), Rejection)


def test_wb95_is_the_built_in_system() -> None:
    setup = load_scenario("demo-steblev")
    assert systems.of(setup).id == "wb95" and "wb95" in systems.ids()
    assert bot_systems.get("wb95").opponent is not None
