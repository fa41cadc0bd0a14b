"""5.0 Combat: declaring an attack, counting SPs and CMs, rolling, and the duty to fight.

The procedure of 5.2.1: (a) the attacker names attacking units and defending hexes;
(b) both sides' SPs and CMs are counted; (c) the combat ratio (1.5); (d) the CMs shift
it (1.6, R3); (e) 2K6 with the HQ modifier (9.2, R6); (f) the result is applied --
losses, then retreats and pursuits -- and (g) disorganization tests (`results.py`).
Every combat is explained in one `combat_resolved` event a player can read.
"""

from __future__ import annotations

from typing import Any, Literal

from engine import orders as o
from engine.core import Ctx, Rejected
from engine.hexgrid import HexId, HexIdError, normalize
from engine.state import GameState, UnitState
from engine.wb95 import flow, special
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
from engine.wb95.strength import is_towed, strength, within_hq_range
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
    """In field or improved fortifications or a fixed position: such units need not attack
    (7.1.11, 7.2.1, 7.3.5)."""
    return u.fortification in ("ff", "if") or in_fixed_position(state, u.hex)


def in_fixed_position(state: GameState, h: HexId | None) -> bool:
    """A hex with a fixed-position hexside is a fixed position (7.3.1)."""
    if h is None:
        return False
    m = state.setup.map
    return any(FP in m.features(h, n) for n in m.grid.neighbours(h))


# --- 5.1.3 / 5.1.4 mandatory combat --------------------------------------------------------


def mandatory_outstanding(state: GameState, side: str) -> tuple[list[str], list[str]]:
    """Units of `side` that still must attack (5.1.3: in enemy ZoC, not fortified -- 7.1.11)
    and enemy units that still must be attacked (5.1.4: they have such a unit in their ZoC,
    docs/rulings.md K17)."""
    enemy = state.setup.enemy_of(side)
    enemy_zoc = zoc_map(state, enemy)
    must_attack: list[str] = []
    must_be_attacked: set[str] = set()
    for u in state.on_map(side):
        if u.hex is None or not enemy_zoc.get(u.hex):
            continue
        if fortified(state, u) or unable_to_attack(state, u) is not None:
            continue  # 7.1.11; HQs, artillery and towed units cannot attack
        if not u.fought:
            must_attack.append(u.id)
        must_be_attacked.update(enemy_zoc[u.hex])
    pending = sorted(e for e in must_be_attacked if not state.units[e].fought)
    return sorted(must_attack), pending


def mandatory_message(state: GameState, side: str) -> str | None:
    attackers, defenders = mandatory_outstanding(state, side)
    if not attackers and not defenders:
        return None
    parts = []
    if attackers:
        where = ", ".join(f"{a} ({state.units[a].hex})" for a in attackers)
        parts.append(f"still must attack: {where} (5.1.3)")
    if defenders:
        hexes = sorted({h for d in defenders if (h := state.units[d].hex)})
        parts.append(f"enemy units still must be attacked in {', '.join(hexes)} (5.1.4)")
    return "the Combat Phase cannot end: " + "; ".join(parts)


# --- declaring and resolving ---------------------------------------------------------------


@handles(o.Attack)
def do_attack(ctx: Ctx, side: str, order: o.Attack) -> None:
    """5.1, 5.2.1 (a): declare the attack; the defender then answers for its abilities."""
    state = ctx.state
    if flow.current_phase(state).kind != "combat":
        now = flow.phase_title(state)
        raise Rejected(f"attacks are made in the Combat Phase; it is {now}", "2.1.2")
    if state.combat is not None:
        raise Rejected("the current combat must be resolved first", "5.2.1")
    if order.support:
        raise Rejected("artillery support is not refereed yet by this version of Kessel", "6.3")
    if order.air:
        raise Rejected("air support is not refereed yet by this version of Kessel", "8.2")
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
    if order.cms:
        raise Rejected("no HQ-loss CMs are available to you here", "9.1.6", "R17")
    ctx.emit(
        "combat_stage",
        combat={
            "declared": {
                "side": side,
                "attackers": [u.id for u in attackers],
                "defenders": [u.id for u in defenders],
                "targets": targets,
                "attacker_abilities": used,
                "defender_abilities": {},
            }
        },
    )
    theirs = special.abilities(state, False, sit)
    if theirs:
        ctx.emit(
            "decision_opened",
            side=enemy,
            kind="defence",
            options={"abilities": theirs, "attacker_abilities": used},
            rule="15.1.6",
            info={},
        )
        return
    roll_combat(ctx)


@handles(o.Defend)
def do_defend(ctx: Ctx, side: str, order: o.Defend) -> None:
    """The defender's answer before the roll: which abilities it uses (15.1.6, 15.4.2)."""
    d = next((d for d in ctx.state.pending if d.side == side and d.kind == "defence"), None)
    if d is None:
        raise Rejected("there is no combat waiting for your defence", "5.2.1")
    usable: dict[str, list[str]] = d.options["abilities"]
    used: dict[str, list[str]] = {}
    for ref in order.stars:
        u = find_unit(ctx.state, ref)
        if u.id not in usable:
            raise Rejected(f"{u.id} has no special ability it may use in this combat", "15.1.2")
        used[u.id] = usable[u.id]
    if order.cms:
        raise Rejected("no HQ-loss CMs are available to you here", "9.1.6", "R17")
    decline_defence(ctx, side, used)


def decline_defence(ctx: Ctx, side: str, used: dict[str, list[str]]) -> None:
    """Close the defence decision (with the abilities used, none for `pass`) and roll."""
    c = ctx.state.combat
    assert c is not None
    declared = {**c["declared"], "defender_abilities": used}
    ctx.emit("decision_closed", side=side, kind="defence")
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
    return special.Situation(attackers, defenders, fortified_here or fp.applies, big)


def _counted_hex(state: GameState, defenders: list[UnitState], targets: list[HexId]) -> HexId:
    """5.5.3: of several defending hexes, the one with the most SPs counts for CMs."""
    sp = {h: sum(strength(state, u, False).sp for u in defenders if u.hex == h) for h in targets}
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
) -> list[Shift]:
    setup = state.setup
    m, table = setup.map, setup.table
    shifts: list[Shift] = []
    terrain = m.terrain_of(counted)
    row = table.terrain[terrain]
    cms = -row.combat + (-table.terrain[row.base].combat if row.base else 0)
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
    elif any(u.fortification == "if" for u in here):
        shifts.append(Shift(IF_CMS, f"improved fortifications at {counted}", "defender", "7.2.1"))
    elif any(u.fortification == "ff" for u in here):
        shifts.append(Shift(ff, f"field fortifications in {terrain}", "defender", "7.1.10, R15"))
    sides: tuple[tuple[Literal["attacker", "defender"], list[UnitState]], ...] = (
        ("attacker", attackers),
        ("defender", defenders),
    )
    for who, units in sides:
        for formation, n in _concentration(state, units).items():
            shifts.append(
                Shift(n // 3, f"tactical concentration: {n} units of {formation}", who, "13.1.2")
            )
    return shifts


def _concentration(state: GameState, units: list[UnitState]) -> dict[str, int]:
    """13.1: units per division (German and Allied) or Soviet armoured/mechanized corps
    taking part; only formations with 3 or more count (13.1.2, 13.1.4)."""
    counts: dict[str, int] = {}
    for u in units:
        spec = state.setup.units[u.id]
        if not spec.formation:
            continue
        if spec.nation in ("soviet", "guards") and spec.type not in SOVIET_CORPS_TYPES:
            continue  # 13.1.1: Soviet TC is for armoured / mechanized corps
        counts[spec.formation] = counts.get(spec.formation, 0) + 1
    return {f: n for f, n in sorted(counts.items()) if n >= 3}


SOVIET_CORPS_TYPES = frozenset({"arm", "mech", "mot", "recon", "ag", "sp-art"})


def roll_combat(ctx: Ctx) -> None:
    """5.2.1 (b)-(e): count, shift, roll, read the table; then apply the result."""
    from engine.wb95.results import start_results

    state = ctx.state
    assert state.combat is not None
    decl = state.combat["declared"]
    side: str = decl["side"]
    enemy = state.setup.enemy_of(side)
    attackers = [state.units[u] for u in decl["attackers"]]
    defenders = [state.units[u] for u in decl["defenders"]]
    targets: list[HexId] = decl["targets"]
    att = {u.id: strength(state, u, attacking=True) for u in attackers}
    dfn = {u.id: strength(state, u, attacking=False) for u in defenders}
    att_sp = {k: v.sp for k, v in att.items()}
    def_sp = {k: v.sp for k, v in dfn.items()}
    counted = _counted_hex(state, defenders, targets)
    fp = _fixed_position(state, attackers, counted)
    attack_total = sum(att_sp.values())
    notes: list[str] = []
    if fp.front:
        front = sum(att_sp[u] for u in fp.front)
        halved = halve(front)
        attack_total = attack_total - front + halved
        notes.append(f"{front} SPs attacking through the fixed position count {halved} (7.3.2, R5)")
    defence_total = sum(def_sp.values())
    lone_hq = all(state.setup.units[u.id].is_hq for u in defenders)
    sit = situation(state, attackers, defenders, targets)
    extra = special.special_cms(state, sit, decl["attacker_abilities"], decl["defender_abilities"])
    if lone_hq:  # 5.1.9
        initial = column = LONE_HQ_COLUMN
        lines = ["attack on a lone HQ: rightmost column (5.1.9)"]
    else:
        initial = initial_column(attack_total, defence_total)
        shifts = _shifts(state, attackers, defenders, counted, att_sp, fp)
        if extra.attacker:
            shifts.append(Shift(extra.attacker, "special units (below)", "attacker", "15.0"))
        if extra.defender:
            shifts.append(Shift(extra.defender, "special units (below)", "defender", "15.0"))
        column, lines = final_column(initial, shifts)
        lines = lines + list(extra.lines)
    modifier = 0
    if within_hq_range(state, side, attackers):
        modifier -= 1
        notes.append(f"{side} HQ in range: -1 (9.2.1)")
    if within_hq_range(state, enemy, defenders):
        modifier += 1
        notes.append(f"{enemy} HQ in range: +1 (9.2.1)")
    faces = ctx.roll(2, "combat (5.2.1 e)")
    roll = clamp_roll(sum(faces) + modifier)
    if roll != sum(faces) + modifier:
        notes.append(f"modified roll {sum(faces) + modifier} reads row {roll} (R6)")
    result = lookup(state.setup.results, column, roll)
    ctx.emit(
        "combat_resolved",
        attacker=side,
        defender=enemy,
        attackers=[_line(u, att[u.id].sp, att[u.id].why) for u in attackers],
        defenders=[_line(u, dfn[u.id].sp, dfn[u.id].why) for u in defenders],
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
    )


def _line(u: UnitState, sp: int, why: str) -> dict[str, Any]:
    return {"unit": u.id, "hex": u.hex, "sp": sp, "why": why}


@on("combat_resolved")
def _combat_resolved(state: GameState, e: Any) -> None:
    for part in (*e.data["attackers"], *e.data["defenders"]):
        u = state.units[part["unit"]]
        u.fought = True
        u.active_since_disorg = True
