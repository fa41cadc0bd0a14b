"""An AGS game's state read through the rules: the scenario a state plays, a unit's
current step, who stands where, zones of control, supply and command now.

The AGS scenario (`engine.ags.scenario.Scenario`) travels as `Setup.results`; the
system's own per-game values live in `GameState.ext` (docs/ags.md, "State")."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from engine.ags import supply as lines
from engine.ags.board import Board
from engine.ags.scenario import Scenario
from engine.ags.units import Step, UnitSpec
from engine.ags.zoc import controlled
from engine.hexgrid import HexId
from engine.state import GameState, UnitState

SIDES = ("soviet", "german")

T = TypeVar("T")

# Supply and command lines and zones of control depend only on the board and where each
# side's units stand (every unit has a ZoC, AGS 8.12, 11.35), so they are memoized per
# scenario by that position: a bounded LRU behind a lock, dropped with its scenario
# (a finalizer). Values are immutable (bools, frozensets); nothing else is kept.
CACHE_LIMIT = 50_000
_LOCK = threading.Lock()
_CACHES: dict[int, OrderedDict[tuple[Any, ...], Any]] = {}  # id(scenario) -> its cache


def _drop(key: int) -> None:
    with _LOCK:
        _CACHES.pop(key, None)


def _memo(state: GameState, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
    sc = scenario(state)
    with _LOCK:
        cache = _CACHES.get(id(sc))
        if cache is None:
            cache = _CACHES[id(sc)] = OrderedDict()
            weakref.finalize(sc, _drop, id(sc))  # the id is never reused before this runs
        if key in cache:
            cache.move_to_end(key)
            return cache[key]  # type: ignore[no-any-return]
    value = compute()
    with _LOCK:
        cache[key] = value
        if len(cache) > CACHE_LIMIT:
            cache.popitem(last=False)
    return value


def clear_caches() -> None:
    with _LOCK:
        _CACHES.clear()


def _positions(state: GameState, side: str) -> tuple[frozenset[HexId], frozenset[HexId]]:
    """(hexes of `side`, hexes of its enemy)."""
    return frozenset(hexes_of(state, side)), frozenset(hexes_of(state, enemy(side)))


def scenario(state: GameState) -> Scenario:
    sc = state.setup.results
    assert isinstance(sc, Scenario), "an AGS game's Setup.results is its Scenario"
    return sc


def board(state: GameState) -> Board:
    return scenario(state).board


def spec(state: GameState, uid: str) -> UnitSpec:
    return scenario(state).units[uid]


def step(state: GameState, u: UnitState) -> Step:
    """The counter's current face: steps lost so far are `max_cel - cel` (AGS 9.61)."""
    steps = spec(state, u.id).steps
    return steps[min(len(steps) - 1, u.max_cel - u.cel)]


def enemy(side: str) -> str:
    return "german" if side == "soviet" else "soviet"


def ext(state: GameState, key: str, default: Any) -> Any:
    return state.ext.get(key, default)


def hexes_of(state: GameState, side: str) -> set[HexId]:
    return {u.hex for u in state.on_map(side) if u.hex is not None}


def enemy_zoc(state: GameState, side: str) -> frozenset[HexId]:
    """Hexes in the zone of control of `side`'s enemy (AGS 8.11, 8.12)."""
    foes = frozenset(hexes_of(state, enemy(side)))
    return _memo(state, ("zoc", foes), lambda: frozenset(controlled(board(state), foes)))


def hq_in_supply(state: GameState, hq: UnitState) -> bool:
    """AGS-K 19.71: a line of any length to the north or east edge."""
    assert hq.hex is not None
    side = hq.side
    friends, foes = _positions(state, side)
    return _memo(
        state,
        ("hq", hq.hex, side, friends, foes),
        lambda: lines.soviet_hq_in_supply(
            board(state),
            hq.hex,  # type: ignore[arg-type]
            scenario(state).soviet_edges,
            enemy=foes,
            ezoc=enemy_zoc(state, side),
            friends=friends,
        ),
    )


def commanding_hqs(state: GameState, u: UnitState, *, active_only: bool = False) -> list[str]:
    """The Soviet HQs with a line of communications to `u` (AGS 11.31, 11.32). A disrupted
    HQ provides no supply (AGS 6.32) and so coordinates no attack, overrun or mechanized
    move either (11.3, 23.1, 23.23; K172); it still traces its own supply."""
    if u.hex is None:
        return []
    active = set(ext(state, "active_hqs", []))
    disrupted = set(ext(state, "disrupted", []))
    friends, foes = _positions(state, u.side)
    ezoc = enemy_zoc(state, u.side)
    out = []
    for hq in state.on_map(u.side):
        sp = spec(state, hq.id)
        if not sp.is_hq or hq.hex is None or (active_only and hq.id not in active):
            continue
        if hq.id in disrupted and hq.id != u.id:
            continue  # AGS 6.32, K172
        if hq.id == u.id or _memo(
            state,
            ("command", u.hex, hq.hex, sp.leadership or 0, u.side, friends, foes),
            _command_line(state, u.hex, hq.hex, sp.leadership or 0, friends, foes, ezoc),
        ):
            out.append(hq.id)
    return out


def _command_line(
    state: GameState,
    at: HexId,
    hq: HexId,
    leadership: int,
    friends: frozenset[HexId],
    foes: frozenset[HexId],
    ezoc: frozenset[HexId],
) -> Callable[[], bool]:
    def compute() -> bool:
        return lines.in_command(
            board(state), at, hq, leadership, enemy=foes, ezoc=ezoc, friends=friends
        )

    return compute


def in_supply(state: GameState, u: UnitState) -> bool:
    """Whether `u` traces supply now (AGS 12.1; AGS-K 19.71, 19.72; AGS 11.34, 12.14).
    Reinforcements are in supply in the player-turn they enter (AGS 15.0)."""
    if u.hex is None:
        return False
    if u.id in ext(state, "fresh", []):
        return True
    side = u.side
    if side == "german":
        heavy = int(ext(state, "heavy", {}).get(u.id, 0))
        if heavy >= 3:  # AGS-K 25.34, 25.36: Heavy Equipment under the unit
            return False
        until = ext(state, "air_supplied", {}).get(u.id)
        if until is not None and state.turn <= int(until):  # AGS-K 25.23
            return True
        friends, foes = _positions(state, side)
        at = u.hex
        return _memo(
            state,
            ("german", at, friends, foes),
            lambda: lines.german_in_supply(
                board(state),
                at,
                scenario(state).german_sources,
                enemy=foes,
                ezoc=enemy_zoc(state, side),
                friends=friends,
            ),
        )
    by_id = state.units
    return any(hq_in_supply(state, by_id[h]) for h in commanding_hqs(state, u))


def isolated(state: GameState, u: UnitState, supplied: set[HexId] | None = None) -> bool:
    """AGS-K 25.1: a German unit out of supply and more than three hexes from the nearest
    supplied German unit."""
    if u.side != "german" or u.hex is None or in_supply(state, u):
        return False
    if supplied is None:
        supplied = {
            x.hex for x in state.on_map("german") if x.hex is not None and in_supply(state, x)
        }
    return lines.isolated(board(state), u.hex, supplied)
