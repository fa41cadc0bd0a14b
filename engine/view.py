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

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from engine import redaction
from engine.core import Event
from engine.hexgrid import HexId
from engine.state import GameState

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
    # a system whose counters print more than SP-MP: the factors of the face now shown
    # (AGS: attack-defence-movement of the current step), and the NATO symbol its own
    # `type` word is drawn with ("inf", "arm", "mech", "cav", "para", "ag", "hq" ...)
    factors: str | None = None
    symbol: str | None = None
    face: str | None = None  # which printed face shows when not the front (AGS: back, rpl)


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


@dataclass(frozen=True)
class Cut:
    """Where and why a unit's line of supply fails."""

    unit: str
    hex: HexId | None  # where the line breaks (None: no line over any ground)
    why: str  # a sentence: "0512 is in enemy ZoC"
    rule: str
    ruling: str = ""

    def sentence(self) -> str:
        case = self.rule + (f", {self.ruling}" if self.ruling else "")
        return f"{self.why} ({case})"


@dataclass(frozen=True)
class SupplyPicture:
    """What a supply overlay draws for one side (issue #17): the hexes its lines of supply
    reach now, within the largest supply MPs of its nations (10.1.7), and where the lines
    of its units that cannot trace supply are cut."""

    side: str
    reach: frozenset[HexId]
    cuts: tuple[Cut, ...]
    at: Mapping[str, HexId]  # the hex of each unit in `cuts`


def view(state: GameState, viewer: str) -> View:
    """Everything `viewer` may see now, by the rules of the game's system (the rules of
    sight above are WB-95's, `engine.wb95.view`)."""
    from engine import systems

    return systems.of(state).view(state, viewer)


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
    "a Soviet unit" (K96). Every output a player reads passes the state. Given the
    state, the game's system may redact more (`RuleSystem.visible_events`)."""
    if state is not None:
        from engine import systems

        return systems.of(state).visible_events(events, viewer, state)
    return redacted_log(events, viewer, None)


def redacted_log(
    events: Iterable[Event],
    viewer: str,
    state: GameState | None,
    table: dict[str, dict[str, redaction.Spec]] | None = None,
) -> list[Event]:
    """`visible_events` by the core's rules, which a system may use as they are: sealed
    inputs hidden until revealed, then every field by the system's redaction `table`
    (default: `engine.redaction.EVENTS`)."""
    out = redaction.redact_sealed(events, viewer)
    if viewer == MODERATOR:
        return out
    return redaction.redact(out, sight(state, viewer), table)


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


def supply_view(state: GameState, viewer: str) -> tuple[SupplyPicture, ...]:
    """The supply overlay a viewer may see (issue #17, K102): a side its own lines of
    supply, the moderator both sides'; a spectator none (an enemy's supply is not on the
    board). Each side's picture is its rule system's (`RuleSystem.supply_picture`)."""
    from engine import systems

    rules = systems.of(state)
    sides = state.setup.sides if viewer == MODERATOR else [viewer]
    found = (rules.supply_picture(state, s) for s in sides if s in state.setup.sides)
    return tuple(p for p in found if p is not None)
