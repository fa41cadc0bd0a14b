"""Self-play fuzzing (issue #9): random players play shipped scenarios while every input is
checked against the engine's invariants (DESIGN §2).

A fuzz player chooses uniformly, in two stages, among what the engine says a side may do
now, through the game's rule system (`engine.system.RuleSystem`: `candidate_orders`,
`legal_moves`): first one of the movable units or "something else" (WB-95: entries,
delays, setups, withdrawals, attacks, fire, barrages, air, decisions' answers, `done`,
plus the system's `probes` the engine may reject: fortify, mask, strategic marking,
leaving the map, bridges, Volkssturm, moves paying an OoS level), then one target of it.
A pending decision is answered uniformly among its answers. A side whose `done` is
refused (WB-95: over-stacked hexes, 3.2.1; attacks it owes, 5.1.7) gives what the
deadline policy would give for it next (`RuleSystem.next_default`), as a player reads
the refusal and mends it. Now and then a side takes its last input back
(undo), and the replay invariant is checked after it.

After every input the fuzzer checks (`check_input`): a rejected input changed nothing;
the system's own invariants hold (`RuleSystem.invariant_problems`; WB-95: CELs stay in
0..max_cel and move only through `cel_lost`/`repaired`/`reinforced` events, OoS levels
stay in bounds, engine/wb95/checks.py); no unit appears, moves or vanishes without an
event naming it;
the input's notation parses back to the same order (reproducers must replay); the game
is live: every awaited side has an input the referee accepts that moves the game on
without undo (`check_liveness`: `done`, or the deadline policy's next input). When a
phase ends (and at the end of the game) it also checks (`check_phase_end`, `Shadow`): the
system's end-of-phase invariants (WB-95: no hex was over-stacked when the phase ended);
replaying the events rebuilds the same state; each side's view does not change when what
it cannot see is changed (`RuleSystem.perturbed`).

A broken invariant saves a game export (`kessel run FILE` replays it) with the invariant
in a comment, in `fuzz-failures/` by default. Importable without pytest.
"""

from __future__ import annotations

import random
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import yaml

from engine import orders as o
from engine import systems
from engine.core import Applied, Event, Rejection
from engine.digest import setup_digest
from engine.model import Setup
from engine.notation import format_order, parse_order
from engine.record import GameRecord
from engine.state import GameState
from engine.view import view
from scenarios import ScenarioError, list_scenarios, load_scenario

DEFAULT_OUT = Path("fuzz-failures")


class FuzzPlayer(Protocol):
    name: str

    def choose(self, state: GameState, side: str, rng: random.Random) -> o.Order | None: ...


class RandomPlayer:
    """Uniform choice among the engine's legal inputs (see the module docstring)."""

    name = "random"

    def choose(self, state: GameState, side: str, rng: random.Random) -> o.Order | None:
        rules = systems.of(state)
        if any(d.side == side for d in state.pending):
            answers = rules.candidate_orders(state, side, limit=10_000)
            return rng.choice(answers) if answers else None
        kind = rules.phase(state).kind
        movers: list[str] = []
        if kind in ("movement", "strategic") and not state.pending:
            movers = [u.id for u in state.on_map(side) if rules.why_immobile(state, u.id) is None]
        pick = rng.randrange(len(movers) + 1)
        if pick < len(movers):
            reach = rules.legal_moves(state, movers[pick])
            if reach:
                u = state.units[movers[pick]]
                full = u.oos > 0 and rng.random() < 0.3  # 10.2.3
                to = reach[rng.choice(sorted(reach))]
                # half the time the whole path (as a map client sends it), else only the
                # destination (the engine finds the cheapest path)
                path = to.path if rng.random() < 0.5 else (to.hex,)
                return o.Move(units=(u.id,), path=path, full=full)
        others = rules.candidate_orders(state, side, limit=10_000, moves=False)
        others.extend(rules.probes(state, side, rng))
        return rng.choice(others) if others else None


class OpponentPlayer:
    """The built-in opponent of the game's system (bot/systems) on both sides: one per
    side, its tie-break seed drawn from the game's generator."""

    name = "opponent"

    def __init__(self) -> None:
        self._sides: dict[str, Any] = {}

    def choose(self, state: GameState, side: str, rng: random.Random) -> o.Order | None:
        from bot.systems import builtin_opponent

        if side not in self._sides:
            self._sides[side] = builtin_opponent(side, rng.randrange(1 << 31))
        order: o.Order | None = self._sides[side](state)
        return order


PLAYERS: dict[str, Callable[[], FuzzPlayer]] = {
    "random": RandomPlayer,
    "opponent": OpponentPlayer,
}


# --- invariants --------------------------------------------------------------------------


class InvariantBroken(Exception):
    """An invariant failed; the message says which and how."""


@dataclass(frozen=True)
class _Before:
    copy: GameState | None  # a clone: snapshotted only when an input is rejected
    units: dict[str, tuple[Any, ...]]
    cels: dict[str, int]
    phase: int
    turn: int


def _unit_places(state: GameState) -> dict[str, tuple[Any, ...]]:
    return {
        u.id: (u.hex, u.eliminated, u.withdrawn, u.arrives is None) for u in state.units.values()
    }


def before(state: GameState, with_copy: bool = True) -> _Before:
    return _Before(
        state.clone() if with_copy else None,
        _unit_places(state),
        {u.id: u.cel for u in state.units.values()},
        state.phase,
        state.turn,
    )


def _named(data: Any, out: set[str]) -> None:
    if isinstance(data, str):
        out.add(data)
    elif isinstance(data, dict):
        for v in data.values():
            _named(v, out)
    elif isinstance(data, (list, tuple)):
        for v in data:
            _named(v, out)


def check_bounds(state: GameState) -> None:
    """The system's invariants of one state (WB-95: CELs and OoS levels in bounds)."""
    problems = systems.of(state).invariant_problems(state, state, ())
    if problems:
        raise InvariantBroken(problems[0])


def check_input(state: GameState, was: _Before, result: object) -> None:
    """The per-input invariants; `result` is what `GameRecord.submit` returned."""
    if not isinstance(result, Applied):
        if was.copy is not None and state.snapshot() != was.copy.snapshot():
            raise InvariantBroken("rejected input changed the state")
        return
    named: set[str] = set()
    for e in result.events:
        _named(e.data, named)
    for u in state.units.values():
        if u.id not in was.units:
            raise InvariantBroken(f"unit appeared: {u.id} is new in the state")
    if was.copy is not None:
        problems = systems.of(state).invariant_problems(was.copy, state, result.events)
        if problems:
            raise InvariantBroken(problems[0])
    if set(was.units) != set(state.units):
        raise InvariantBroken(f"unit vanished: {sorted(set(was.units) - set(state.units))}")
    now = _unit_places(state)
    for uid, place in now.items():
        if place != was.units[uid] and uid not in named:
            raise InvariantBroken(
                f"unit moved/appeared/vanished without an event: {uid} "
                f"{was.units[uid]} -> {place} (hex, eliminated, withdrawn, arrived)"
            )


def check_liveness(state: GameState) -> None:
    """Every side the game awaits can move it on without undo: it may say `done`, or the
    deadline policy finds it an input the referee accepts (an answer to its decision, an
    attack it owes, a move out of an over-stacked hex: K97)."""
    if state.over:
        return
    rules = systems.of(state)
    awaited = rules.awaited_sides(state)
    if not awaited:
        raise InvariantBroken("liveness: the game waits for nobody but is not over")
    for side in awaited:
        deciding = any(d.side == side for d in state.pending)
        why = None if deciding else rules.done_refusal(state, side)
        if not deciding and why is None:
            continue
        if rules.next_default(state, side) is None:
            raise InvariantBroken(
                f"liveness: {side} is awaited at {rules.phase(state).title} (turn "
                f"{state.turn}) but no input of it is accepted"
                + (f"; done: {why}" if why is not None else "")
            )


class Shadow:
    """The game replayed event by event beside the record: the state at the very end of
    every phase (just before its `phase_started`), where the system's end-of-phase
    invariants hold (WB-95: 3.2.1's stacking limit) -- an input that ends a phase also
    runs the next phases' automatic steps (e.g. a Kursk repair in the Supply Phase,
    17.1.2), so the record's state after it is too late."""

    def __init__(self, rec: GameRecord) -> None:
        self.rules = rec.system
        self.state = self.rules.initial_state(rec.setup, rec.seed, rec.dice)
        self.feed(rec.events)

    def feed(self, events: Iterable[Event]) -> None:
        for e in events:
            if e.kind in ("phase_started", "game_ended"):
                problems = self.rules.phase_end_problems(self.state)
                if problems:
                    raise InvariantBroken(f"{problems[0]} (before event {e.seq} {e.kind})")
            self.rules.reduce(self.state, e)


def check_phase_end(rec: GameRecord, shadow: Shadow | None = None) -> None:
    """Replaying the events gives the same state (the shadow's, or a full replay) and the
    fog-of-war check; the stacking limit is checked by the `Shadow`."""
    state = rec.state
    replayed = shadow.state if shadow is not None else rec.rebuild()
    if replayed.snapshot() != state.snapshot():
        raise InvariantBroken("replaying the events does not give the same state")
    check_fog(state)


def perturbed(state: GameState, viewer: str) -> tuple[GameState, list[str]]:
    """A copy of `state` in which what `viewer` cannot see is changed, and the units
    changed (`RuleSystem.perturbed`; WB-95's: engine/wb95/checks.py)."""
    return systems.of(state).perturbed(state, viewer)


def check_fog(state: GameState) -> None:
    """Each side's view is the same when what it cannot see is changed (16.1)."""
    for viewer in state.setup.sides:
        other, changed = perturbed(state, viewer)
        if not changed:
            continue
        if view(state, viewer).to_json() != view(other, viewer).to_json():
            raise InvariantBroken(f"fog of war: {viewer}'s view depends on hidden enemy values")


# --- games -------------------------------------------------------------------------------


@dataclass
class GameReport:
    scenario: str
    seed: int
    player: str
    inputs: int = 0
    rejected: int = 0
    turn: int = 0
    phase: str = ""
    over: bool = False
    seconds: float = 0.0
    failure: str | None = None
    saved: Path | None = None
    undos: int = 0

    def line(self) -> str:
        end = "game over" if self.over else f"turn {self.turn} {self.phase}"
        why = (self.failure or "").splitlines()[:1]
        status = "ok" if self.failure is None else f"FAIL: {why[0]} -> {self.saved}"
        return (
            f"{self.scenario} seed {self.seed} ({self.player}): {self.inputs} inputs "
            f"({self.rejected} rejected, {self.undos} undone), {end}, {self.seconds:.1f} s: "
            f"{status}"
        )


def play_game(
    scenario: str | Setup,
    seed: int,
    max_inputs: int = 5000,
    max_turns: int | None = None,
    player: FuzzPlayer | None = None,
    out: Path | None = DEFAULT_OUT,
) -> GameReport:
    """Play `scenario` (a shipped id or file, or a setup) with seed `seed` until it ends,
    `max_inputs` inputs were tried or turn `max_turns` is reached, checking the
    invariants; save a reproducer on failure."""
    t0 = time.perf_counter()
    players = player or RandomPlayer()
    if isinstance(scenario, Setup):
        setup, scenario = scenario, scenario.id
    else:
        try:
            setup = load_scenario(scenario)
        except ScenarioError as e:  # e.g. a data file being edited: report it, go on
            failure = f"scenario does not load: {e}"
            return GameReport(scenario, seed, players.name, failure=failure)
    rng = random.Random(f"{scenario}:{seed}:{players.name}")
    rec = GameRecord(setup, seed=seed)
    report = GameReport(scenario, seed, players.name)
    last: tuple[str, o.Order] | None = None
    stuck = 0
    mend: str | None = None  # the side whose `done` was just refused
    try:
        check_bounds(rec.state)
        shadow = Shadow(rec)
        while report.inputs < max_inputs and not rec.state.over:
            if max_turns is not None and rec.state.turn > max_turns:
                break
            awaited = rec.system.awaited_sides(rec.state)
            if not awaited:
                raise InvariantBroken("the game waits for nobody but is not over")
            side = rng.choice(awaited)
            if mend == side and rng.random() < 0.8:  # it reads the refusal and mends it
                order = rec.system.next_default(rec.state, side) or o.Done()
            elif rec.entries and rng.random() < 0.01 and _undo(rec, side):
                report.undos += 1
                shadow = Shadow(rec)
                continue
            else:
                order = players.choose(rec.state, side, rng) or o.Done()
            mend = None
            last = (side, order)
            line = format_order(order)
            if parse_order(line, 0) != order:
                raise InvariantBroken(f"notation round trip: '{line}' parses differently")
            was = before(rec.state)
            result = rec.submit(side, order)
            report.inputs += 1
            if not isinstance(result, Applied):
                report.rejected += 1
                stuck += 1
                if stuck > 200:
                    raise InvariantBroken(f"{side} has no accepted input in 200 tries: {result}")
            else:
                stuck = 0
            check_input(rec.state, was, result)
            if isinstance(result, Applied):
                shadow.feed(result.events)
                check_liveness(rec.state)
            elif isinstance(order, o.Done):
                mend = side
            last = None
            if rec.state.phase != was.phase or rec.state.turn != was.turn or rec.state.over:
                check_phase_end(rec, shadow)
        check_phase_end(rec)  # a full replay at the end
    except InvariantBroken as e:
        report.failure = str(e)
    except Exception as e:  # the engine crashed: that is a failure too
        report.failure = f"engine raised {type(e).__name__}: {e}"
        report.failure += "\n" + traceback.format_exc()
    report.turn = rec.state.turn
    report.phase = rec.system.phase(rec.state).kind
    report.over = rec.state.over
    if report.failure is not None and out is not None:
        report.saved = save_reproducer(rec, scenario, report.failure, out, last)
    report.seconds = time.perf_counter() - t0
    return report


def _undo(rec: GameRecord, side: str) -> bool:
    """Take back `side`'s last input (DESIGN §2 undo) and check the replay invariant."""
    if isinstance(rec.undo(side), Rejection):
        return False
    check_bounds(rec.state)
    if rec.rebuild().snapshot() != rec.state.snapshot():
        raise InvariantBroken("after an undo, replaying the events does not give the state")
    return True


def save_reproducer(
    rec: GameRecord,
    scenario: str,
    failure: str,
    out: Path,
    last: tuple[str, o.Order] | None = None,
) -> Path:
    """A game export of the accepted inputs (and, last, the input being judged when the
    invariant broke), with the broken invariant in a comment."""
    out.mkdir(parents=True, exist_ok=True)
    lines = [e.line for e in rec.entries]
    if last is not None:
        side, order = last
        lines.append(f"{side}: {format_order(order)}")
    data = {
        "kessel": "game-export",
        "scenario": scenario,
        "seed": rec.seed,
        "dice": list(rec.dice),
        "data_digest": setup_digest(rec.setup),
        "orders": "".join(x + "\n" for x in lines),
    }
    head = "".join(f"# {x}\n" for x in f"fuzz failure: {failure}".splitlines())
    path = out / f"{scenario}-seed{rec.seed}-{len(lines)}.yaml"
    path.write_text(
        head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    return path


def shipped() -> list[str]:
    return [info.id for info in list_scenarios()]


@dataclass
class Summary:
    games: int = 0
    inputs: int = 0
    over: int = 0
    turns: dict[str, list[int]] = field(default_factory=dict)  # scenario -> turns reached
    failures: list[GameReport] = field(default_factory=list)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        out = [
            f"{self.games} games, {self.inputs} inputs, {self.over} played to the end, "
            f"{len(self.failures)} failures, {self.seconds:.0f} s"
        ]
        for sid, turns in self.turns.items():
            out.append(
                f"  {sid}: {len(turns)} games, turns reached {min(turns)}-{max(turns)} "
                f"(mean {sum(turns) / len(turns):.1f})"
            )
        for report in self.failures:
            out.append(f"  FAIL {report.scenario} seed {report.seed}: {report.saved}")
        return out


def run(
    scenarios: Sequence[str] | None = None,
    seeds: Iterable[int] = range(10),
    max_inputs: int = 5000,
    max_turns: int | None = None,
    out: Path | None = DEFAULT_OUT,
    progress: Callable[[GameReport], None] | None = None,
    players: Sequence[str] = ("random",),
) -> Summary:
    t0 = time.perf_counter()
    summary = Summary()
    for seed in seeds:
        for scenario in scenarios or shipped():
            for name in players:
                report = play_game(scenario, seed, max_inputs, max_turns, PLAYERS[name](), out)
                summary.games += 1
                summary.inputs += report.inputs
                summary.over += report.over
                summary.turns.setdefault(scenario, []).append(report.turn)
                if report.failure is not None:
                    summary.failures.append(report)
                if progress is not None:
                    progress(report)
    summary.seconds = time.perf_counter() - t0
    return summary


def main(args: Any) -> int:
    """`kessel fuzz`: a line per game, then the summary; exit 1 when an invariant broke."""
    from bot.script import SourceError

    players = [p.strip() for p in args.players.split(",") if p.strip()]
    for name in players:
        if name not in PLAYERS:
            raise SourceError(f"--players: '{name}' is not one of {', '.join(PLAYERS)}")
    for sid in args.scenarios:
        try:
            load_scenario(sid)  # a bad id fails before any game is played
        except ScenarioError as e:
            raise SourceError(str(e)) from None
    summary = run(
        args.scenarios or None,
        range(args.start, args.start + args.seeds),
        args.max_inputs,
        args.max_turns,
        Path(args.out),
        progress=lambda r: print(r.line(), flush=True),
        players=players,
    )
    print("\n".join(summary.lines()))
    return 1 if summary.failures else 0
