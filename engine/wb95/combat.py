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
from engine.wb95 import flow, hq_cms, special, supply
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


def mandatory_outstanding(
    state: GameState, side: str, fought: set[str] | None = None
) -> tuple[list[str], list[str]]:
    """Units of `side` that still must attack (5.1.3: in enemy ZoC, not fortified -- 7.1.11)
    and enemy units that still must be attacked (5.1.4: they have such a unit in their ZoC,
    docs/rulings.md K17). `fought` overrides who has fought (to test an attack before it is
    made). Only duties that can still be met are listed (K26)."""
    if fought is None:
        fought = {u.id for u in state.units.values() if u.fought}
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
    fought = {u.id for u in state.units.values() if u.fought}
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
    targets = sorted({e.hex for e in state.on_map(enemy) if e.hex and not e.fought})
    blocked = {e.hex for e in state.on_map(enemy) if e.hex and e.fought}
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
    broken = _duties_broken(state, side, attackers, defenders)
    if broken:
        raise Rejected(broken, "5.1.4")
    for u in supply.full_strength_units(state, attackers, order.full):
        supply.pay_level(ctx, u.id, "attack")  # 10.2.3: full strength for an OoS level
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
                "attacker_cms": order.cms,
                "defender_cms": 0,
            }
        },
    )
    theirs = special.abilities(state, False, sit)
    their_cms = hq_cms.available(state, enemy, targets)
    if theirs or their_cms:
        ctx.emit(
            "decision_opened",
            side=enemy,
            kind="defence",
            options={
                "abilities": theirs,
                "cms": their_cms,
                "attacker_abilities": used,
                "attacker_cms": order.cms,
            },
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
    if order.cms > int(d.options["cms"]):
        have = d.options["cms"]
        raise Rejected(f"only {have} HQ-loss CMs are available for this combat", "9.1.7", "R17")
    decline_defence(ctx, side, used, order.cms)


def decline_defence(ctx: Ctx, side: str, used: dict[str, list[str]], cms: int = 0) -> None:
    """Close the defence decision (with the abilities used, none for `pass`) and roll."""
    c = ctx.state.combat
    assert c is not None
    declared = {**c["declared"], "defender_abilities": used, "defender_cms": cms}
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
        spenders: tuple[tuple[Literal["attacker", "defender"], str, str], ...] = (
            ("attacker", "attacker_cms", side),
            ("defender", "defender_cms", enemy),
        )
        for who, key, owner in spenders:
            if decl.get(key):
                hq_cms.spend(ctx, owner, int(decl[key]), targets)
                why = f"{decl[key]} CMs for an HQ eliminated nearby"
                shifts.append(Shift(int(decl[key]), why, who, "9.1.6, R17"))
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
    )


def _line(u: UnitState, sp: int, why: str) -> dict[str, Any]:
    return {"unit": u.id, "hex": u.hex, "sp": sp, "why": why}


@on("combat_resolved")
def _combat_resolved(state: GameState, e: Any) -> None:
    for part in (*e.data["attackers"], *e.data["defenders"]):
        u = state.units[part["unit"]]
        u.fought = True
        u.mark_active(state.turn, state.phase)
