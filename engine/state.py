"""The dynamic side of a game: plain data that serialises to JSON (DESIGN §2).

A state points at its `Setup` (static, shared between states) and holds everything that
changes. States are only changed by applying events (`engine.wb95.reducer`), so replaying a
game's events from its initial state rebuilds the identical state.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from typing import Any

from engine.dice import DiceState
from engine.hexgrid import HexId
from engine.model import Setup


@dataclass
class UnitState:
    id: str
    side: str
    hex: HexId | None
    cel: int
    max_cel: int
    oos: int = 0
    disorganized: bool = False
    fortification: str | None = None  # "ff" | "if" | None (7.1, 7.2)
    setup: str | None = None  # towed artillery: "combat" | "transport" (6.2)
    strategic: bool = False  # marked for strategic movement (12.0)
    eliminated: bool = False
    arrives: dict[str, Any] | None = None  # not yet on the map (11.0)
    moved: bool = False  # has moved in the current phase (3.1.6)
    fought: bool = False  # has attacked or been attacked in the current phase (5.1.1)
    full_attack: bool = False  # OoS, paid a level to attack at full strength this phase (10.2.3)
    disorganized_at: tuple[int, int] | None = None  # (turn, phase index) it became so (R22)
    active_since_disorg: bool = False  # moved/fought since it became disorganized (R22)
    retreated_turn: int | None = None  # the turn it last retreated (5.3.10, 7.1.2 b)
    reinforced_turn: int | None = None  # the turn it last took a CEL from Volkssturm (15.3.4)
    retreated_phase: int | None = None  # ... and the phase index of that retreat
    ff_built_turn: int | None = None  # turn in whose Movement Phase it built FF (7.1.2, 7.1.4)
    mp_spent: Fraction = Fraction(0)
    entered_seq: int = 0  # order of arrival in its hex: the earliest is the top counter
    # Its last entry onto the map as a reinforcement (11.1.5): {"turn", "phase", "hex",
    # "stack"}, the stack being the n-th to enter through that hex in that phase. Replaced
    # whole by the reducer, never changed in place (clone() shares it).
    entry: dict[str, Any] | None = None
    # Artillery (6.0, engine.wb95.artillery), each the (turn, phase index) it last happened:
    # it fired -- support, ranged fire, fire at an object or barrage -- (6.1.4); it fired a
    # barrage (6.5.5, 6.5.6); it was the target of a ranged attack (6.4.5).
    fired_at: tuple[int, int] | None = None
    barrage_at: tuple[int, int] | None = None
    shelled_at: tuple[int, int] | None = None
    withdrawn: int | None = None  # the turn a scenario's withdrawal took it off the map

    def mark_active(self, turn: int, phase: int) -> None:
        """It moved, fought, fired or supported: a disorganized unit's full turn of rest
        starts again from now (5.6.5, R22, K36)."""
        self.active_since_disorg = True
        if self.disorganized:
            self.disorganized_at = (turn, phase)

    @property
    def on_map(self) -> bool:
        return self.hex is not None and not self.eliminated

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "side": self.side,
            "hex": self.hex,
            "cel": self.cel,
            "max_cel": self.max_cel,
            "oos": self.oos,
            "disorganized": self.disorganized,
            "fortification": self.fortification,
            "setup": self.setup,
            "strategic": self.strategic,
            "eliminated": self.eliminated,
        }


@dataclass
class Decision:
    """A pending decision addressed to one side (DESIGN §2): nothing else of that side's
    can happen until it is answered."""

    side: str
    kind: str
    options: Any
    rule: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"side": self.side, "kind": self.kind, "options": self.options, "rule": self.rule}


@dataclass
class GameState:
    setup: Setup
    turn: int
    phase: int  # index into the sequence of play (engine.wb95.sequence.PHASES)
    units: dict[str, UnitState]
    control: dict[HexId, str]
    dice: DiceState
    done: list[str] = field(default_factory=list)  # sides that said `done` this phase
    pending: list[Decision] = field(default_factory=list)
    seq: int = 0  # number of the last event
    over: bool = False
    result: dict[str, Any] | None = None
    combat: dict[str, Any] | None = None  # the combat being resolved (5.2.1), plain data
    # Fortification markers by hex, {"kind": "ff" | "if", "side": ...} (7.1.1, 7.2.1); None
    # while they are still as the scenario placed them (engine.wb95.fortification_markers).
    fortifications: dict[HexId, dict[str, str]] | None = None
    # HQs eliminated (9.1.6, 9.1.7, R17): {"unit", "side" (the HQ's), "gainer", "hex",
    # "turn", "phase" (index into sequence.PHASES), "number" (printed phase number)}.
    hq_losses: list[dict[str, Any]] = field(default_factory=list)
    # Sealed inputs not yet revealed (DESIGN §2, engine.wb95.sealed): {"submission" (the
    # seq of its event), "side", "kind", "group", "item"}; and their groups by name,
    # {"must": [sides], "complete": [sides], "reveal": "phase_end" | "explicit"}.
    sealed: list[dict[str, Any]] = field(default_factory=list)
    sealed_groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Masked stacks as revealed (16.1.2, engine.wb95.masking): hex -> the side masking it.
    masks: dict[HexId, str] = field(default_factory=dict)
    # Bridges (14.0, engine.wb95.bridges), keyed "AAAA/BBBB" (sorted hexside): changes to
    # the printed ones ("destroyed" | "built"), their controllers once they changed from
    # set-up (14.1.3), and the HQs building big-river bridges (14.3.2; the public part,
    # {"hq", "side", "hex", "turn", "note" (the sealed submission), "stage"}).
    bridges: dict[str, str] = field(default_factory=dict)
    bridge_control: dict[str, str | None] = field(default_factory=dict)
    bridge_works: list[dict[str, Any]] = field(default_factory=list)
    # Ammo Units spent on barrages by each side (6.5.7, engine.wb95.artillery).
    ammo_used: dict[str, int] = field(default_factory=dict)
    # Air (8.0, engine.wb95.air): the missions revealed in the last Air Phase, in play until
    # the next one starts -- {"id", "side", "mission", "target", "sp", "counter", "stars",
    # "turn", "phase", "status"} --; and what each side has flown in the current turn,
    # {side: {"turn", "sp", "counters", "aborted"}} (8.1.5, 8.1.9).
    air_missions: list[dict[str, Any]] = field(default_factory=list)
    air_used: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The current Supply Phase's registered steps (engine.wb95.flow.supply_step, e.g. Kursk
    # 17.0, 18.0, 22.0) while they run or wait for a decision: {"side", "left": [names],
    # "supplied": [the units that traced supply, 4.3.5]}; empty otherwise.
    supply_steps: dict[str, Any] = field(default_factory=dict)
    # Kursk (engine.wb95.kursk): Repair counters on units (17.1.2), {"front", "unit", "hex",
    # "turn", "phase"}; and what each unit of the side that rolls for mines and breakdowns
    # did since that side's last Supply Phase (18.1.3, 22.1.1): unit -> ["attacked",
    # "fortified-line", "moved"].
    repairs: list[dict[str, Any]] = field(default_factory=list)
    activity: dict[str, list[str]] = field(default_factory=dict)
    # Named rivers each side's units have crossed (Kursk victory: "crossing Sjejm river";
    # engine.wb95.victory, K68): side -> sorted river names.
    rivers_crossed: dict[str, list[str]] = field(default_factory=dict)
    # 9.2.1 "can add/subtract" (K100): a side's standing choice to decline its HQ dice
    # modifier; absent: claimed (the default). side -> False when declined.
    hq_claims: dict[str, bool] = field(default_factory=dict)
    # The game's rule system's own values (engine/system.py), JSON-plain, by the system's
    # keys: where a system other than WB-95 keeps what the fields above do not hold (the
    # fields above are WB-95's; docs/architecture.md, "Adding a rule system").
    ext: dict[str, Any] = field(default_factory=dict)

    def clone(self) -> GameState:
        """A copy that shares the static setup and copies everything mutable."""
        return GameState(
            setup=self.setup,
            turn=self.turn,
            phase=self.phase,
            units={k: replace(u) for k, u in self.units.items()},
            control=dict(self.control),
            dice=self.dice.clone(),
            done=list(self.done),
            pending=[replace(d, info=dict(d.info)) for d in self.pending],
            seq=self.seq,
            over=self.over,
            result=None if self.result is None else dict(self.result),
            combat=None if self.combat is None else copy.deepcopy(self.combat),
            fortifications=None
            if self.fortifications is None
            else {h: dict(m) for h, m in self.fortifications.items()},
            hq_losses=[dict(x) for x in self.hq_losses],
            sealed=copy.deepcopy(self.sealed),
            sealed_groups=copy.deepcopy(self.sealed_groups),
            masks=dict(self.masks),
            bridges=dict(self.bridges),
            bridge_control=dict(self.bridge_control),
            bridge_works=[dict(x) for x in self.bridge_works],
            ammo_used=dict(self.ammo_used),
            air_missions=copy.deepcopy(self.air_missions),
            air_used=copy.deepcopy(self.air_used),
            supply_steps=copy.deepcopy(self.supply_steps),
            repairs=[dict(x) for x in self.repairs],
            activity={k: list(v) for k, v in self.activity.items()},
            rivers_crossed={k: list(v) for k, v in self.rivers_crossed.items()},
            hq_claims=dict(self.hq_claims),
            ext=copy.deepcopy(self.ext),
        )

    def snapshot(self) -> dict[str, Any]:
        """Everything dynamic, as comparable plain data (for replay checks and saves)."""
        return {
            "turn": self.turn,
            "phase": self.phase,
            "units": {
                k: {f.name: _plain(getattr(u, f.name)) for f in fields(u)}
                for k, u in sorted(self.units.items())
            },
            "control": dict(sorted(self.control.items())),
            "dice": self.dice.to_json(),
            "done": list(self.done),
            "pending": [d.to_json() | {"info": d.info} for d in self.pending],
            "seq": self.seq,
            "over": self.over,
            "result": self.result,
            "combat": self.combat,
            "fortifications": None
            if self.fortifications is None
            else {h: dict(m) for h, m in sorted(self.fortifications.items())},
            "hq_losses": [dict(x) for x in self.hq_losses],
            "sealed": copy.deepcopy(self.sealed),
            "sealed_groups": copy.deepcopy(dict(sorted(self.sealed_groups.items()))),
            "masks": dict(sorted(self.masks.items())),
            "bridges": dict(sorted(self.bridges.items())),
            "bridge_control": dict(sorted(self.bridge_control.items())),
            "bridge_works": [dict(x) for x in self.bridge_works],
            "ammo_used": dict(sorted(self.ammo_used.items())),
            "air_missions": copy.deepcopy(self.air_missions),
            "air_used": copy.deepcopy(dict(sorted(self.air_used.items()))),
            "supply_steps": copy.deepcopy(self.supply_steps),
            "repairs": [dict(x) for x in self.repairs],
            "activity": {k: list(v) for k, v in sorted(self.activity.items())},
            "rivers_crossed": {k: list(v) for k, v in sorted(self.rivers_crossed.items())},
            "hq_claims": dict(sorted(self.hq_claims.items())),
            # only when a system keeps values there: WB-95 snapshots are as before
            **({"ext": copy.deepcopy(self.ext)} if self.ext else {}),
        }

    @classmethod
    def from_snapshot(cls, setup: Setup, data: dict[str, Any]) -> GameState:
        """The exact inverse of `snapshot()`: the state a snapshot (or its JSON round trip)
        was taken of, playing on identically -- Fractions, tuples and the dice included."""
        units: dict[str, UnitState] = {}
        for k, raw in data["units"].items():
            values: dict[str, Any] = {}
            for f in fields(UnitState):
                if f.name not in raw:
                    continue  # a snapshot from before the field existed: its default
                values[f.name] = _unplain(str(f.type), raw[f.name])
            units[k] = UnitState(**values)
        # the scenario's order, as `initial_state` built it (snapshot() sorts by id)
        order = {st.id: i for i, st in enumerate(setup.starts)}
        units = dict(sorted(units.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
        dice = data["dice"]
        fort = data["fortifications"]
        return cls(
            setup=setup,
            turn=int(data["turn"]),
            phase=int(data["phase"]),
            units=units,
            control=dict(data["control"]),
            dice=DiceState(int(dice["seed"]), int(dice["index"]), list(dice["forced"])),
            done=list(data["done"]),
            pending=[
                Decision(
                    d["side"],
                    d["kind"],
                    copy.deepcopy(d["options"]),
                    d.get("rule", ""),
                    copy.deepcopy(d.get("info", {})),
                )
                for d in data["pending"]
            ],
            seq=int(data["seq"]),
            over=bool(data["over"]),
            result=copy.deepcopy(data["result"]),
            combat=copy.deepcopy(data["combat"]),
            fortifications=None if fort is None else {h: dict(m) for h, m in fort.items()},
            hq_losses=copy.deepcopy(data.get("hq_losses", [])),
            sealed=copy.deepcopy(data.get("sealed", [])),
            sealed_groups=copy.deepcopy(data.get("sealed_groups", {})),
            masks=dict(data.get("masks", {})),
            bridges=dict(data.get("bridges", {})),
            bridge_control=dict(data.get("bridge_control", {})),
            bridge_works=copy.deepcopy(data.get("bridge_works", [])),
            ammo_used=dict(data.get("ammo_used", {})),
            air_missions=copy.deepcopy(data.get("air_missions", [])),
            air_used=copy.deepcopy(data.get("air_used", {})),
            supply_steps=copy.deepcopy(data.get("supply_steps", {})),
            repairs=copy.deepcopy(data.get("repairs", [])),
            activity={k: list(v) for k, v in data.get("activity", {}).items()},
            rivers_crossed={k: list(v) for k, v in data.get("rivers_crossed", {}).items()},
            hq_claims={str(k): bool(v) for k, v in data.get("hq_claims", {}).items()},
            ext=copy.deepcopy(data.get("ext", {})),
        )

    # --- queries used everywhere --------------------------------------------------------
    def units_at(self, h: HexId) -> list[UnitState]:
        """The units in a hex, top counter first (the one that has been there longest)."""
        us = [u for u in self.units.values() if u.hex == h and not u.eliminated]
        us.sort(key=lambda u: u.entered_seq)
        return us

    def occupant_side(self, h: HexId) -> str | None:
        for u in self.units.values():
            if u.hex == h and not u.eliminated:
                return u.side
        return None

    def on_map(self, side: str | None = None) -> list[UnitState]:
        return [u for u in self.units.values() if u.on_map and (side is None or u.side == side)]


def _plain(v: Any) -> Any:
    if isinstance(v, Fraction):
        return str(v)
    return v


def field_value(name: str, v: Any) -> Any:
    """A value for UnitState field `name` from its plain (JSON) form: Fractions from their
    text, tuples from lists (event data and snapshots carry them plain)."""
    return _unplain(_UNIT_TYPES[name], v)


def _unplain(annotation: str, v: Any) -> Any:
    """A UnitState field's value back from `_plain` (and JSON: tuples come back as lists)."""
    if v is None:
        return None
    if annotation.startswith("Fraction"):
        return Fraction(v)
    if annotation.startswith("tuple"):
        return tuple(v)
    if isinstance(v, dict):
        return copy.deepcopy(v)
    return v


_UNIT_TYPES: dict[str, str] = {f.name: str(f.type) for f in fields(UnitState)}
