"""5.0 Combat: declaring an attack, counting SPs and CMs, rolling, and the duty to fight.

The procedure of 5.2.1: (a) the attacker names attacking units and defending hexes;
(b) both sides' SPs and CMs are counted; (c) the combat ratio (1.5); (d) the CMs shift
it (1.6, R3); (e) 2K6 with the HQ modifier (9.2, R6); (f) the result is applied --
losses, then retreats and pursuits -- and (g) disorganization tests (`results.py`).
Every combat is explained in one `combat_resolved` event a player can read.

Support from outside the fighting units -- artillery (6.3, `engine.wb95.artillery`) and
later air (8.2) -- plugs in as a `SupportKind` (`register_support`): the attacker names its
support in the attack (`support UNITS`, `air REFS`), the defender in its answer before the
roll (`defend support UNITS`); each kind checks what is named and, when the combat is
rolled, says what SPs it adds, why, and whether a unit of it shares the combat's results
(6.3.5). Towed artillery in a defending hex fights only by supporting (6.6.1), alone it
defends with 1 SP per hex (6.6.3), or like a lone HQ in transport setup (6.6.4, 5.1.9).
A hex that was the target of a ranged attack cannot be attacked in the same Combat Phase
(6.4.5).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from engine import orders as o
from engine.core import Ctx, Rejected
from engine.hexgrid import HexId, HexIdError, normalize
from engine.state import GameState, UnitState
from engine.wb95 import flow, fortified_lines, hq_cms, special, supply
from engine.wb95.crt import (
    COLUMNS,
    Shift,
    clamp_roll,
    final_column,
    halve,
    initial_column,
    lookup,
)
from engine.wb95.dispatch import handles
from engine.wb95.reducer import on
from engine.wb95.results import lone_unit, start_results
from engine.wb95.strength import Strength, is_towed, strength, within_hq_range
from engine.wb95.units import Why, find_unit, own_units
from engine.wb95.zoc import zoc_map

LONE_HQ_COLUMN = len(COLUMNS) - 1  # 5.1.9: the rightmost column
IF_CMS = 2  # 7.2.1
FP = "fixed-position"
FP_CMS = 3  # 7.3.2


# --- who may fight -------------------------------------------------------------------------


def can_attack(state: GameState, u: UnitState) -> Why | None:
    if u.fought:
        return ("it has already fought in this Combat Phase", "5.1.1")
    return unable_to_attack(state, u)


def unable_to_attack(state: GameState, u: UnitState) -> Why | None:
    """Why a unit can never attack in direct combat, or None."""
    spec = state.setup.units[u.id]
    if spec.is_hq:
        return ("an HQ does not attack", "9.1")
    if is_towed(state, u):
        return ("towed units cannot attack in direct combat", "5.1.10")
    if spec.type in ("art", "sp-art"):
        return ("artillery fights by support or ranged fire, not direct attack", "6.3")
    if spec.sp <= 0:
        return ("it has no combat strength", "1.2")
    return None


def fortified(state: GameState, u: UnitState) -> bool:
    """In field or improved fortifications, a fixed position or (Kursk) a fortified line:
    such units need not attack (7.1.11, 7.2.1, 7.3.5; 19.1, K57)."""
    fixed = in_fixed_position(state, u.hex) or fortified_lines.in_line(state, u.hex)
    return u.fortification in ("ff", "if") or fixed


def in_fixed_position(state: GameState, h: HexId | None) -> bool:
    """A hex with a fixed-position hexside is a fixed position (7.3.1)."""
    if h is None:
        return False
    m = state.setup.map
    return any(FP in m.features(h, n) for n in m.grid.neighbours(h))


def out_of_reach(state: GameState) -> set[str]:
    """Units that cannot be attacked (again) in this Combat Phase: they have fought (5.1.1)
    or were the target of a ranged attack (6.4.5)."""
    now = (state.turn, state.phase)
    return {u.id for u in state.units.values() if u.fought or u.shelled_at == now}


# --- 5.1.3 / 5.1.4 mandatory combat --------------------------------------------------------


def mandatory_outstanding(
    state: GameState, side: str, fought: set[str] | None = None
) -> tuple[list[str], list[str]]:
    """Units of `side` that still must attack (5.1.3: in enemy ZoC, not fortified -- 7.1.11)
    and enemy units that still must be attacked (5.1.4: they have such a unit in their ZoC,
    docs/rulings.md K17). `fought` overrides who has fought (to test an attack before it is
    made). Only duties that can still be met are listed (K26); a unit fired at by
    artillery this phase cannot be attacked (6.4.5), so it is counted as having fought."""
    if fought is None:
        fought = out_of_reach(state)
    enemy = state.setup.enemy_of(side)
    enemy_zoc = zoc_map(state, enemy)
    grid = state.setup.map.grid
    enemy_hexes: dict[str, list[str]] = {}
    for e in state.on_map(enemy):
        if e.hex is not None and e.id not in fought:
            enemy_hexes.setdefault(e.hex, []).append(e.id)
    able = [
        u
        for u in state.on_map(side)
        if u.hex is not None and u.id not in fought and unable_to_attack(state, u) is None
    ]
    must_attack: list[str] = []
    must_be_attacked: set[str] = set()
    for u in state.on_map(side):
        if u.hex is None or not enemy_zoc.get(u.hex):
            continue
        if fortified(state, u) or unable_to_attack(state, u) is not None:
            continue  # 7.1.11; HQs, artillery and towed units cannot attack
        if u.id not in fought and any(n in enemy_hexes for n in grid.neighbours(u.hex)):
            must_attack.append(u.id)
        must_be_attacked.update(enemy_zoc[u.hex])
    pending = sorted(
        e
        for e in must_be_attacked
        if e not in fought
        and any(a.hex and grid.adjacent(a.hex, state.units[e].hex or "") for a in able)
    )
    return sorted(must_attack), pending


def _duties_broken(
    state: GameState, side: str, attackers: list[UnitState], defenders: list[UnitState]
) -> str | None:
    """5.1.3-5.1.5: an attack may not make another duty impossible to meet (K26)."""
    before = mandatory_outstanding(state, side)
    fought = out_of_reach(state)
    fought |= {u.id for u in (*attackers, *defenders)}
    after = mandatory_outstanding(state, side, fought)
    lost_att = [a for a in before[0] if a not in after[0] and a not in fought]
    lost_def = [d for d in before[1] if d not in after[1] and d not in fought]
    if lost_att:
        who = ", ".join(lost_att)
        return f"after this attack {who} could no longer make the attack it must make: include it"
    if lost_def:
        where = ", ".join(sorted({state.units[d].hex or "" for d in lost_def}))
        return (
            f"after this attack nobody could attack {where}, which must be attacked: "
            "include it in this attack (several defending hexes are allowed from one hex, 5.1.5)"
        )
    return None


def attack_options(state: GameState, side: str) -> list[tuple[list[str], list[HexId]]]:
    """Attacks `side` could declare now that break no duty (K26): from each defending hex,
    all adjacent able units; from each attacking hex, its units against every adjacent
    enemy hex. A sample for candidates and the K26 backstop, not every combination."""
    grid = state.setup.map.grid
    enemy = state.setup.enemy_of(side)
    able = [u for u in state.on_map(side) if u.hex and can_attack(state, u) is None]
    gone = out_of_reach(state)
    targets = sorted({e.hex for e in state.on_map(enemy) if e.hex and e.id not in gone})
    blocked = {e.hex for e in state.on_map(enemy) if e.hex and e.id in gone}
    targets = [h for h in targets if h not in blocked]
    tries: list[tuple[list[UnitState], list[HexId]]] = []
    for h in targets:
        near = [u for u in able if u.hex and grid.adjacent(u.hex, h)]
        if near:
            tries.append((near, [h]))
    for ah in sorted({u.hex for u in able if u.hex}):
        here = [u for u in able if u.hex == ah]
        near_t = [h for h in targets if grid.adjacent(ah, h)]
        if len(near_t) > 1:
            tries.append((here, near_t))
    out: list[tuple[list[str], list[HexId]]] = []
    for units, hexes in tries:
        defenders = [e for e in state.on_map(enemy) if e.hex in hexes]
        if _duties_broken(state, side, units, defenders) is None:
            out.append((sorted(u.id for u in units), hexes))
    return out


def mandatory_message(state: GameState, side: str) -> str | None:
    attackers, defenders = mandatory_outstanding(state, side)
    if not attackers and not defenders:
        return None
    if not attack_options(state, side):
        return None  # K26: no attack can meet the remaining duties; they lapse
    parts = []
    if attackers:
        where = ", ".join(f"{a} ({state.units[a].hex})" for a in attackers)
        parts.append(f"still must attack: {where} (5.1.3)")
    if defenders:
        hexes = sorted({h for d in defenders if (h := state.units[d].hex)})
        parts.append(f"enemy units still must be attacked in {', '.join(hexes)} (5.1.4)")
    return "the Combat Phase cannot end: " + "; ".join(parts)


# --- support: artillery (6.3) and air (8.2) join combats the same way ----------------------

Who = Literal["attacker", "defender"]
WHO: tuple[Who, Who] = ("attacker", "defender")
NOT_YET = {"support": ("artillery", "6.3"), "air": ("air", "8.2")}


@dataclass(frozen=True)
class Engagement:
    """A declared combat as support sees it: the attacking side, the units fighting in it,
    the defending hexes and the hexes attacked from."""

    side: str
    enemy: str
    attackers: tuple[str, ...]
    defenders: tuple[str, ...]
    targets: tuple[HexId, ...]
    attack_hexes: tuple[HexId, ...]

    def owner(self, who: Who) -> str:
        return self.side if who == "attacker" else self.enemy

    def hexes(self, who: Who) -> tuple[HexId, ...]:
        """The hexes `who` fights from: support must reach one of them (6.3.2, 6.3.3)."""
        return self.attack_hexes if who == "attacker" else self.targets

    def enemy_hexes(self, who: Who) -> tuple[HexId, ...]:
        """The other side's hexes: support next to one shares the results (6.3.5)."""
        return self.targets if who == "attacker" else self.attack_hexes


def engagement(state: GameState, decl: Mapping[str, Any]) -> Engagement:
    side: str = decl["side"]
    hexes = {state.units[u].hex for u in decl["attackers"]}
    return Engagement(
        side=side,
        enemy=state.setup.enemy_of(side),
        attackers=tuple(decl["attackers"]),
        defenders=tuple(decl["defenders"]),
        targets=tuple(decl["targets"]),
        attack_hexes=tuple(sorted(h for h in hexes if h is not None)),
    )


@dataclass(frozen=True)
class Support:
    """SPs a side gets from outside its fighting units: `source` (a unit id, an air
    counter, an SP amount) gives `sp`, counted as `why` under `rule`. `unit` is the unit on
    the map that fires, if any: it has fired for this Combat Phase (6.1.4) and counts for
    its formation's tactical concentration (13.1.5). `takes_effects`: it shares the side's
    combat results -- losses, retreat, disorganization -- but never pursues (6.3.4, 6.3.5,
    5.6.3). `cms`: column shifts it gives its side besides its SPs (a white-star air
    counter, Kursk 21.1.1)."""

    source: str
    kind: str
    sp: int
    why: str
    rule: str
    unit: str | None = None
    takes_effects: bool = False
    cms: int = 0

    def line(self, state: GameState) -> dict[str, Any]:
        hex_ = state.units[self.unit].hex if self.unit else None
        return {
            "source": self.source,
            "kind": self.kind,
            "unit": self.unit,
            "hex": hex_,
            "sp": self.sp,
            "why": self.why,
            "rule": self.rule,
            "takes_effects": self.takes_effects,
            "cms": self.cms,
        }


Declare = Callable[[GameState, Engagement, Who, tuple[str, ...]], list[str]]
Offer = Callable[[GameState, Engagement, Who], list[str]]
Contribute = Callable[[GameState, Engagement, Who, list[str]], list[Support]]


@dataclass(frozen=True)
class SupportKind:
    """A kind of support (artillery 6.3, air 8.2), registered with `register_support`.

    - `part`: the part of the orders that names it: "support" (in `attack` and `defend`)
      or "air" (in `attack`).
    - `declare(state, eng, who, refs)`: check what the attacker (`who` "attacker", at the
      attack) or the defender ("defender", in its `defence` answer) names, and return it
      as plain ids to keep in the combat; raise `Rejected` for anything illegal. Called
      also with no refs, so a kind may attach support by itself (R16).
    - `offer(state, eng, who)`: what the defender could name; a non-empty offer opens the
      defender's pre-roll `defence` decision.
    - `contributions(state, eng, who, ids)`: as the combat is rolled, the SPs each of
      them adds and why.
    """

    name: str
    part: str
    declare: Declare
    offer: Offer
    contributions: Contribute


SUPPORT_KINDS: dict[str, SupportKind] = {}


def register_support(kind: SupportKind) -> SupportKind:
    if kind.name in SUPPORT_KINDS:
        raise RuntimeError(f"two support kinds named '{kind.name}'")
    SUPPORT_KINDS[kind.name] = kind
    return kind


def declare_support(
    state: GameState, eng: Engagement, who: Who, parts: Mapping[str, tuple[str, ...]]
) -> dict[str, list[str]]:
    """Check the support named in an order's parts ({"support": refs, "air": refs}) and
    return what each kind keeps: {kind name: ids}."""
    for part, refs in parts.items():
        if refs and not any(k.part == part for k in SUPPORT_KINDS.values()):
            what, rule = NOT_YET.get(part, (part, ""))
            raise Rejected(f"{what} support is not refereed yet by this version of Kessel", rule)
    return {
        k.name: k.declare(state, eng, who, tuple(parts.get(k.part, ())))
        for k in SUPPORT_KINDS.values()
    }


def support_offer(state: GameState, eng: Engagement, who: Who) -> dict[str, list[str]]:
    """What `who` could still name, by kind (empty kinds left out)."""
    out = {k.name: k.offer(state, eng, who) for k in SUPPORT_KINDS.values()}
    return {k: v for k, v in out.items() if v}


def support_contributions(
    state: GameState, eng: Engagement, who: Who, declared: Mapping[str, list[str]]
) -> list[Support]:
    out: list[Support] = []
    for k in SUPPORT_KINDS.values():
        out.extend(k.contributions(state, eng, who, list(declared.get(k.name, []))))
    return out


# --- towed artillery attacked directly (6.6.1, 6.6.3, 6.6.4) -----------------------------


def defence_strengths(
    state: GameState, defenders: list[UnitState], targets: list[HexId]
) -> dict[str, Strength]:
    """The defending units' own SPs (5.2.1 b). Towed artillery adds its SPs only by
    supporting the defence, which it may when a regular unit is with it (6.6.1); without
    one, a hex with towed artillery in combat setup defends with 1 SP in all (6.6.3); in
    transport setup it does not fight (6.6.4, 6.2.4 example); HQs have none (5.1.9)
    (K47)."""
    out: dict[str, Strength] = {}
    for h in targets:
        here = [u for u in defenders if u.hex == h]
        alone = all(
            state.setup.units[u.id].is_hq or state.setup.units[u.id].type == "art" for u in here
        )
        counted = False
        for u in here:
            spec = state.setup.units[u.id]
            if spec.type != "art":
                out[u.id] = strength(state, u, attacking=False)
            elif u.setup == "transport":
                out[u.id] = Strength(0, "towed artillery in transport setup does not fight (6.6.4)")
            elif not alone:
                out[u.id] = Strength(0, "towed artillery adds SPs only by supporting (6.6.1)")
            elif not counted:
                out[u.id] = Strength(1, f"towed artillery alone: {h} defends with 1 SP (6.6.3)")
                counted = True
            else:
                out[u.id] = Strength(0, f"counted in the 1 SP of {h} (6.6.3)")
    return out


# --- declaring and resolving ---------------------------------------------------------------


@handles(o.Attack)
def do_attack(ctx: Ctx, side: str, order: o.Attack) -> None:
    """5.1, 5.2.1 (a): declare the attack with its support (6.3, 8.2); the defender then
    answers for its abilities and support."""
    state = ctx.state
    declared, full = check_attack(state, side, order)
    for uid in full:
        supply.pay_level(ctx, uid, "attack")  # 10.2.3: full strength for an OoS level
    ctx.emit("combat_stage", combat={"declared": declared})
    attackers = [state.units[u] for u in declared["attackers"]]
    defenders = [state.units[u] for u in declared["defenders"]]
    targets = declared["targets"]
    enemy = state.setup.enemy_of(side)
    eng = engagement(state, declared)
    used = declared["attacker_abilities"]
    sit = situation(state, attackers, defenders, targets)
    theirs = special.abilities(state, False, sit)
    their_cms = hq_cms.available(state, enemy, targets)
    offer = support_offer(state, eng, "defender")
    if theirs or their_cms or offer:
        ctx.emit(
            "decision_opened",
            side=enemy,
            decision="defence",
            options={
                "abilities": theirs,
                "cms": their_cms,
                "support": offer,
                "hq": within_hq_range(state, enemy, defenders),  # `defend ... nohq` (K100)
                "attacker_abilities": used,
                "attacker_cms": order.cms,
            },
            rule="15.1.6" if theirs or their_cms else "6.3.3",
            info={},
        )
        return
    roll_combat(ctx)


def check_attack(state: GameState, side: str, order: o.Attack) -> tuple[dict[str, Any], list[str]]:
    """Every check of an attack declaration (5.1, 5.2.1 a, 6.3, 8.2), without changing
    anything: the combat as it would be declared, and the attackers that pay an OoS level
    for full strength (10.2.3). Raises `Rejected` as `do_attack` does; the odds preview
    (`engine.wb95.odds`) uses it too."""
    if flow.current_phase(state).kind != "combat":
        now = flow.phase_title(state)
        raise Rejected(f"attacks are made in the Combat Phase; it is {now}", "2.1.2")
    if state.combat is not None:
        raise Rejected("the current combat must be resolved first", "5.2.1")
    attackers = own_units(state, side, order.units, lambda u: can_attack(state, u), "attack")
    try:
        targets = list(dict.fromkeys(normalize(h) for h in (order.target, *order.also)))
    except HexIdError as e:
        raise Rejected(str(e)) from None
    enemy = state.setup.enemy_of(side)
    defenders: list[UnitState] = []
    m = state.setup.map
    for h in targets:
        if not m.grid.contains(h):
            raise Rejected(f"{h} is not on the map", "1.1")
        here = [u for u in state.units_at(h) if u.side == enemy]
        if not here:
            raise Rejected(f"there are no enemy units in {m.label(h)} to attack", "5.1.2")
        if any(u.fought for u in here):
            raise Rejected(f"the units in {h} have already fought in this Combat Phase", "5.1.1")
        if any(u.shelled_at == (state.turn, state.phase) for u in here):
            raise Rejected(
                f"the units in {h} were the target of a ranged attack in this Combat Phase and "
                "cannot be attacked directly",
                "6.4.5",
            )
        defenders.extend(here)  # every unit in a defending hex defends
    attack_hexes = sorted({u.hex for u in attackers if u.hex})
    if len(targets) > 1 and len(attack_hexes) > 1:
        raise Rejected("either all attackers or all defenders must be in one hex", "5.1.5")
    for u in attackers:
        assert u.hex is not None
        for h in targets:
            if not m.grid.adjacent(u.hex, h):
                raise Rejected(f"{u.id} at {u.hex} is not adjacent to {h}", "5.1.2")
            for f in m.features(u.hex, h):
                row = state.setup.table.hexsides.get(f)
                if row is not None and row.no_attack:
                    why = f"no attack across the {f} between {u.hex} and {h}"
                    raise Rejected(why, "5.5.1", "R24")
    broken = _duties_broken(state, side, attackers, defenders)
    if broken:
        raise Rejected(broken, "5.1.4")
    decl = {"side": side, "attackers": [u.id for u in attackers], "targets": targets}
    eng = engagement(state, {**decl, "defenders": [u.id for u in defenders]})
    backing = declare_support(state, eng, "attacker", {"support": order.support, "air": order.air})
    full = [u.id for u in supply.full_strength_units(state, attackers, order.full)]
    sit = situation(state, attackers, defenders, targets)
    usable = special.abilities(state, True, sit)
    used: dict[str, list[str]] = {}
    for ref in order.stars:
        u = find_unit(state, ref)
        if u not in attackers:
            raise Rejected(f"{u.id} is not one of the attackers", "15.1.6")
        if u.id not in usable:
            raise Rejected(f"{u.id} has no special ability it may use in this attack", "15.1.2")
        used[u.id] = usable[u.id]
    if order.cms > hq_cms.available(state, side, targets):
        have = hq_cms.available(state, side, targets)
        raise Rejected(f"only {have} HQ-loss CMs are available for this combat", "9.1.7", "R17")
    declared = {
        "side": side,
        "attackers": [u.id for u in attackers],
        "defenders": [u.id for u in defenders],
        "targets": targets,
        "attacker_abilities": used,
        "defender_abilities": {},
        "attacker_cms": order.cms,
        "defender_cms": 0,
        "support": {"attacker": backing, "defender": {}},
        "attacker_hq": not order.nohq,  # 9.2.1 "can subtract" (K100)
    }
    return declared, full


@handles(o.Defend)
def do_defend(ctx: Ctx, side: str, order: o.Defend) -> None:
    """The defender's answer before the roll: which abilities it uses (15.1.6, 15.4.2) and
    which units support its defence (6.3.3, 6.6.1)."""
    d = next((d for d in ctx.state.pending if d.side == side and d.kind == "defence"), None)
    if d is None:
        raise Rejected("there is no combat waiting for your defence", "5.2.1")
    c = ctx.state.combat
    assert c is not None
    eng = engagement(ctx.state, c["declared"])
    backing = declare_support(ctx.state, eng, "defender", {"support": order.support})
    usable: dict[str, list[str]] = d.options["abilities"]
    used: dict[str, list[str]] = {}
    for ref in order.stars:
        u = find_unit(ctx.state, ref)
        if u.id not in usable:
            raise Rejected(f"{u.id} has no special ability it may use in this combat", "15.1.2")
        used[u.id] = usable[u.id]
    if order.cms > int(d.options["cms"]):
        have = d.options["cms"]
        raise Rejected(f"only {have} HQ-loss CMs are available for this combat", "9.1.7", "R17")
    decline_defence(ctx, side, used, order.cms, backing, hq=not order.nohq)


def decline_defence(
    ctx: Ctx,
    side: str,
    used: dict[str, list[str]],
    cms: int = 0,
    backing: dict[str, list[str]] | None = None,
    *,
    hq: bool = True,
) -> None:
    """Close the defence decision (with the abilities used and the support named, none
    for `pass`) and roll."""
    c = ctx.state.combat
    assert c is not None
    support = {**c["declared"].get("support", {}), "defender": backing or {}}
    declared = {
        **c["declared"],
        "defender_abilities": used,
        "defender_cms": cms,
        "support": support,
        "defender_hq": hq,  # K100: `pass` keeps the claim; `defend ... nohq` declines it
    }
    ctx.emit("decision_closed", side=side, decision="defence")
    ctx.emit("combat_stage", combat={"declared": declared})
    roll_combat(ctx)


def situation(
    state: GameState, attackers: list[UnitState], defenders: list[UnitState], targets: list[HexId]
) -> special.Situation:
    m, table = state.setup.map, state.setup.table
    counted = _counted_hex(state, defenders, targets)
    fp = _fixed_position(state, attackers, counted)
    big = any(
        table.hexsides[f].bridge_only
        for u in attackers
        if u.hex
        for h in targets
        for f in m.features(u.hex, h)
        if f in table.hexsides
    )
    fortified_here = any(u.fortification for u in defenders if u.hex == counted)
    fl = fortified_lines.assess(state, attackers, defenders, counted)  # R20: FL too
    return special.Situation(
        attackers, defenders, fortified_here or fp.applies or fl.fortified, big
    )


def _counted_hex(state: GameState, defenders: list[UnitState], targets: list[HexId]) -> HexId:
    """5.5.3: of several defending hexes, the one with the most SPs counts for CMs."""
    own = defence_strengths(state, defenders, targets)
    sp = {h: sum(own[u.id].sp for u in defenders if u.hex == h) for h in targets}
    return max(targets, key=lambda h: (sp[h], -targets.index(h)))


class _FP:
    def __init__(self, front: list[str], front_sp: int, rear_sp: int) -> None:
        self.front = front  # attackers assaulting through the FP hexside: halved (7.3.2)
        self.front_sp = front_sp
        self.rear_sp = rear_sp
        # 7.3.4: FP counts when no less than half of the attacking SPs come through it
        self.applies = bool(front) and front_sp >= rear_sp
        self.rear = bool(front) or rear_sp > 0


def _fixed_position(state: GameState, attackers: list[UnitState], counted: HexId) -> _FP:
    if not in_fixed_position(state, counted):
        return _FP([], 0, 0)
    m = state.setup.map
    front: list[str] = []
    front_sp = rear_sp = 0
    for u in attackers:
        assert u.hex is not None
        sp = strength(state, u, True).sp
        if FP in m.features(u.hex, counted):
            front.append(u.id)
            front_sp += sp
        else:
            rear_sp += sp
    return _FP(front, front_sp, rear_sp)


def _shifts(
    state: GameState,
    attackers: list[UnitState],
    defenders: list[UnitState],
    counted: HexId,
    att_sp: dict[str, int],
    fp: _FP,
    tc_extra: Mapping[Who, list[UnitState]] | None = None,
) -> list[Shift]:
    setup = state.setup
    m, table = setup.map, setup.table
    shifts: list[Shift] = []
    terrain = m.terrain_of(counted)
    cms = terrain_cms(state, counted)
    if cms > 0:
        shifts.append(Shift(cms, f"{terrain} at {counted}", "defender", "5.5.1"))
    total_att = sum(att_sp.values())
    crossing: dict[str, int] = {}
    for u in attackers:
        assert u.hex is not None
        for f in m.features(u.hex, counted):
            if f in table.hexsides:
                crossing[f] = crossing.get(f, 0) + att_sp[u.id]
    for f, sp in sorted(crossing.items()):
        hs = table.hexsides[f]
        if -hs.combat > 0 and 2 * sp > total_att:  # 5.5.4: more than half of the SPs
            why = f"attack across the {f} ({sp} of {total_att} SPs)"
            shifts.append(Shift(-hs.combat, why, "defender", "5.5.4"))
    here = [u for u in defenders if u.hex == counted]
    ff = table.ff_cms.get(terrain, table.ff_cms.get("*", 1))
    if fp.applies:
        why = f"fixed position ({fp.front_sp} SPs in front, {fp.rear_sp} from the rear)"
        shifts.append(Shift(FP_CMS, why, "defender", "7.3.2, 7.3.4"))
    elif fp.rear:
        why = f"fixed position attacked mostly from the rear: as field fortifications ({ff})"
        shifts.append(Shift(ff, why, "defender", "7.3.4"))
    elif (fl := fortified_lines.assess(state, attackers, defenders, counted, att_sp)).replaces_ff:
        shifts.append(Shift(fl.cms, fl.why, "defender", fl.rule))  # 19.1.2-19.1.4, K57
    elif any(u.fortification == "if" for u in here):
        shifts.append(Shift(IF_CMS, f"improved fortifications at {counted}", "defender", "7.2.1"))
    elif any(u.fortification == "ff" for u in here):
        shifts.append(Shift(ff, f"field fortifications in {terrain}", "defender", "7.1.10, R15"))
    extra = tc_extra or {}
    sides: tuple[tuple[Literal["attacker", "defender"], list[UnitState]], ...] = (
        ("attacker", [*attackers, *extra.get("attacker", [])]),
        ("defender", [*defenders, *extra.get("defender", [])]),
    )
    for who, units in sides:  # 13.1.5: supporting organic artillery counts too (K50)
        for formation, n in _concentration(state, units).items():
            shifts.append(
                Shift(n // 3, f"tactical concentration: {n} units of {formation}", who, "13.1.2")
            )
    return shifts


def attack_strength(
    state: GameState,
    attackers: list[UnitState],
    defenders: list[UnitState],
    counted: HexId,
    att_sp: dict[str, int],
    att_support: int,
) -> tuple[int, list[str], _FP]:
    """The attack's SPs with what halves them, the notes saying why -- through a fixed
    position (7.3.2; supporting SPs always, K46) or a fortified line (19.1.1) -- and the
    fixed position found (its CMs come later, 7.3.3)."""
    attack_total = sum(att_sp.values()) + att_support
    notes: list[str] = []
    fp = _fixed_position(state, attackers, counted)
    if fp.front:
        front = sum(att_sp[u] for u in fp.front) + att_support
        halved = halve(front)
        attack_total = attack_total - front + halved
        notes.append(f"{front} SPs attacking through the fixed position count {halved} (7.3.2, R5)")
    elif (fl := fortified_lines.assess(state, attackers, defenders, counted, att_sp)).front:
        attack_total, note = fortified_lines.halve_attack(attack_total, att_sp, att_support, fl)
        notes.append(note)  # 19.1.1: like a fixed position
    return attack_total, notes, fp


def terrain_cms(state: GameState, h: HexId) -> int:
    """The defender's CMs for the terrain of hex `h` (5.5.1, 5.5.2: a row on top of its base
    adds up); as a count of CMs, >= 0 (A-10)."""
    table = state.setup.table
    row = table.terrain[state.setup.map.terrain_of(h)]
    return -row.combat + (-table.terrain[row.base].combat if row.base else 0)


def _concentration(state: GameState, units: list[UnitState]) -> dict[str, int]:
    """13.1: units per division (German and Allied) or Soviet armoured/mechanized corps
    taking part; only formations with 3 or more count (13.1.2, 13.1.4)."""
    counts: dict[str, int] = {}
    for u in units:
        spec = state.setup.units[u.id]
        if not spec.formation:
            continue
        if spec.nation in SOVIET_NATIONS and not _soviet_corps(state, spec.formation):
            continue  # 13.1.1: Soviet TC is for armoured / mechanized corps
        counts[spec.formation] = counts.get(spec.formation, 0) + 1
    return {f: n for f, n in sorted(counts.items()) if n >= 3}


SOVIET_NATIONS = frozenset({"soviet", "guards"})
SOVIET_CORPS_TYPES = frozenset({"arm", "mech", "mot", "recon", "ag", "sp-art"})


def _soviet_corps(state: GameState, formation: str) -> bool:
    """A Soviet formation is an armoured/mechanized corps (13.1.1) when most of its units
    in the scenario are armoured or mechanized; then all of them count, its organic
    artillery included (13.1.5, K55)."""
    members = [s for s in state.setup.units.values() if s.formation == formation]
    corps = [s for s in members if s.type in SOVIET_CORPS_TYPES]
    return 2 * len(corps) > len(members)


def roll_combat(ctx: Ctx) -> None:
    """5.2.1 (b)-(e): count, shift, roll, read the table; then apply the result."""
    state = ctx.state
    assert state.combat is not None
    decl = state.combat["declared"]
    side: str = decl["side"]
    enemy = state.setup.enemy_of(side)
    attackers = [state.units[u] for u in decl["attackers"]]
    defenders = [state.units[u] for u in decl["defenders"]]
    targets: list[HexId] = decl["targets"]
    att = {u.id: strength(state, u, attacking=True) for u in attackers}
    dfn = defence_strengths(state, defenders, targets)
    att_sp = {k: v.sp for k, v in att.items()}
    def_sp = {k: v.sp for k, v in dfn.items()}
    eng = engagement(state, decl)
    declared = decl.get("support", {})
    backing = {who: support_contributions(state, eng, who, declared.get(who, {})) for who in WHO}
    helpers = {who: [state.units[b.unit] for b in backing[who] if b.unit] for who in WHO}
    counted = _counted_hex(state, defenders, targets)
    att_support = sum(b.sp for b in backing["attacker"])
    attack_total, notes, fp = attack_strength(
        state, attackers, defenders, counted, att_sp, att_support
    )
    defence_total = sum(def_sp.values()) + sum(b.sp for b in backing["defender"])
    lone = all(lone_unit(state, u) for u in defenders)
    sit = situation(state, attackers, defenders, targets)
    extra = special.special_cms(state, sit, decl["attacker_abilities"], decl["defender_abilities"])
    if lone:  # 5.1.9, 6.6.4
        initial = column = LONE_HQ_COLUMN
        if all(state.setup.units[u.id].is_hq for u in defenders):
            lines = ["attack on a lone HQ: rightmost column (5.1.9)"]
        else:
            lines = ["towed artillery in transport setup alone: rightmost column (6.6.4, 5.1.9)"]
    else:
        initial = initial_column(attack_total, defence_total)
        shifts = _shifts(state, attackers, defenders, counted, att_sp, fp, helpers)
        for who in WHO:  # support that brings CMs (Kursk 21.1.1)
            shifts.extend(
                Shift(b.cms, f"{b.kind} {b.source}", who, b.rule) for b in backing[who] if b.cms
            )
        if extra.attacker:
            shifts.append(Shift(extra.attacker, "special units (below)", "attacker", "15.0"))
        if extra.defender:
            shifts.append(Shift(extra.defender, "special units (below)", "defender", "15.0"))
        spenders: tuple[tuple[Literal["attacker", "defender"], str, str], ...] = (
            ("attacker", "attacker_cms", side),
            ("defender", "defender_cms", enemy),
        )
        for who, key, owner in spenders:
            if decl.get(key):
                hq_cms.spend(ctx, owner, int(decl[key]), targets)
                why = f"{decl[key]} CMs for an HQ eliminated nearby"
                shifts.append(Shift(int(decl[key]), why, who, "9.1.6, R17"))
        column, lines = final_column(initial, shifts, attack_total, defence_total)
        lines = lines + list(extra.lines)
    modifier = 0
    if within_hq_range(state, side, attackers):  # K16: support is not in the test
        if decl.get("attacker_hq", True) and state.hq_claims.get(side, True):
            modifier -= 1
            notes.append(f"{side} HQ in range: -1 (9.2.1)")
        else:
            notes.append(f"{side} HQ in range, modifier declined (9.2.1, K100)")
    if within_hq_range(state, enemy, defenders):
        if decl.get("defender_hq", True) and state.hq_claims.get(enemy, True):
            modifier += 1
            notes.append(f"{enemy} HQ in range: +1 (9.2.1)")
        else:
            notes.append(f"{enemy} HQ in range, modifier declined (9.2.1, K100)")
    faces = ctx.roll(2, "combat (5.2.1 e)")
    roll = clamp_roll(sum(faces) + modifier)
    if roll != sum(faces) + modifier:
        notes.append(f"modified roll {sum(faces) + modifier} reads row {roll} (R6)")
    result = lookup(state.setup.results, column, roll)
    notes.append(
        f"result {result.text} -- attacker: {result.attacker.words()}; "
        f"defender: {result.defender.words()} (5.2.1 f)"
    )
    ctx.emit(
        "combat_resolved",
        attacker=side,
        defender=enemy,
        attackers=[_line(u, att[u.id].sp, att[u.id].why) for u in attackers],
        defenders=[_line(u, dfn[u.id].sp, dfn[u.id].why) for u in defenders],
        support={who: [b.line(state) for b in backing[who]] for who in WHO},
        hexes=targets,
        attack_sp=attack_total,
        defence_sp=defence_total,
        initial=COLUMNS[max(0, min(initial, len(COLUMNS) - 1))],
        column=COLUMNS[column],
        explanation=lines + notes,
        dice=faces,
        modifier=modifier,
        roll=roll,
        result=result.text,
    )
    supply.after_combat(ctx, decl["attackers"], decl["defenders"], result.defender.retreat > 0)
    star_users = {
        "attacker": sorted(decl["attacker_abilities"]),
        "defender": sorted(decl["defender_abilities"]),
    }
    start_results(
        ctx,
        side,
        [u.id for u in attackers],
        [u.id for u in defenders],
        targets,
        result,
        star_users=star_users,
        fixed_position=in_fixed_position(state, counted),
        supporters={
            who: [b.unit for b in backing[who] if b.unit and b.takes_effects] for who in WHO
        },
    )


def _line(u: UnitState, sp: int, why: str) -> dict[str, Any]:
    return {"unit": u.id, "hex": u.hex, "sp": sp, "why": why}


@on("combat_resolved")
def _combat_resolved(state: GameState, e: Any) -> None:
    now = (state.turn, state.phase)
    for part in (*e.data["attackers"], *e.data["defenders"]):
        u = state.units[part["unit"]]
        u.fought = True
        u.mark_active(*now)
    for lines in e.data.get("support", {}).values():
        for part in lines:
            if part.get("unit"):  # 6.1.4: it has fired in this Combat Phase
                u = state.units[part["unit"]]
                u.fired_at = now
                u.mark_active(*now)
