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
from engine.wb95 import flow
from engine.wb95.crt import COLUMNS, Shift, clamp_roll, final_column, initial_column, lookup
from engine.wb95.dispatch import handles
from engine.wb95.reducer import on
from engine.wb95.strength import is_towed, strength, within_hq_range
from engine.wb95.units import Why, own_units
from engine.wb95.zoc import zoc_map

LONE_HQ_COLUMN = len(COLUMNS) - 1  # 5.1.9: the rightmost column
IF_CMS = 2  # 7.2.1


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


def fortified(u: UnitState) -> bool:
    """In field or improved fortifications (7.1.11, 7.2.1)."""
    return u.fortification in ("ff", "if")


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
        if fortified(u) or unable_to_attack(state, u) is not None:
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
    """5.1, 5.2.1 (a)-(e)."""
    state = ctx.state
    if flow.current_phase(state).kind != "combat":
        raise Rejected(
            f"attacks are made in the Combat Phase; it is {flow.phase_title(state)}", "2.1.2"
        )
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
        done = [u for u in here if u.fought]
        if done:
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
                    raise Rejected(
                        f"no attack across the {f} between {u.hex} and {h}", "5.5.1", "R24"
                    )
    resolve(ctx, side, attackers, defenders, targets)


def _shifts(
    state: GameState,
    attackers: list[UnitState],
    defenders: list[UnitState],
    targets: list[HexId],
    att_sp: dict[str, int],
    def_sp: dict[str, int],
) -> list[Shift]:
    setup = state.setup
    m, table = setup.map, setup.table
    shifts: list[Shift] = []
    # 5.5.3: the defending hex with the most SPs counts for the defender's CMs
    by_hex = {h: sum(def_sp[u.id] for u in defenders if u.hex == h) for h in targets}
    counted = max(targets, key=lambda h: (by_hex[h], targets.index(h) * -1))
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
            shifts.append(
                Shift(
                    -hs.combat,
                    f"attack across the {f} ({sp} of {total_att} SPs)",
                    "defender",
                    "5.5.4",
                )
            )
    here = [u for u in defenders if u.hex == counted]
    if any(u.fortification == "if" for u in here):
        shifts.append(Shift(IF_CMS, f"improved fortifications at {counted}", "defender", "7.2.1"))
    elif any(u.fortification == "ff" for u in here):
        ff = table.ff_cms.get(terrain, table.ff_cms.get("*", 1))
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
        if spec.nation in ("soviet", "guards") and spec.type not in (
            "arm",
            "mech",
            "mot",
            "recon",
            "ag",
            "sp-art",
        ):
            continue  # 13.1.1: Soviet corps TC is for armoured / mechanized corps
        counts[spec.formation] = counts.get(spec.formation, 0) + 1
    return {f: n for f, n in sorted(counts.items()) if n >= 3}


def resolve(
    ctx: Ctx,
    side: str,
    attackers: list[UnitState],
    defenders: list[UnitState],
    targets: list[HexId],
) -> None:
    from engine.wb95.results import start_results

    state = ctx.state
    enemy = state.setup.enemy_of(side)
    att = {u.id: strength(state, u, attacking=True) for u in attackers}
    dfn = {u.id: strength(state, u, attacking=False) for u in defenders}
    att_sp = {k: v.sp for k, v in att.items()}
    def_sp = {k: v.sp for k, v in dfn.items()}
    lone_hq = all(state.setup.units[u.id].is_hq for u in defenders)
    if lone_hq:  # 5.1.9
        column, lines = LONE_HQ_COLUMN, ["attack on a lone HQ: rightmost column (5.1.9)"]
        initial = LONE_HQ_COLUMN
    else:
        initial = initial_column(sum(att_sp.values()), sum(def_sp.values()))
        shifts = _shifts(state, attackers, defenders, targets, att_sp, def_sp)
        column, lines = final_column(initial, shifts)
    modifier = 0
    notes: list[str] = []
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
        attack_sp=sum(att_sp.values()),
        defence_sp=sum(def_sp.values()),
        initial=COLUMNS[max(0, min(initial, len(COLUMNS) - 1))],
        column=COLUMNS[column],
        explanation=lines + notes,
        dice=faces,
        modifier=modifier,
        roll=roll,
        result=result.text,
    )
    start_results(ctx, side, [u.id for u in attackers], [u.id for u in defenders], targets, result)


def _line(u: UnitState, sp: int, why: str) -> dict[str, Any]:
    return {"unit": u.id, "hex": u.hex, "sp": sp, "why": why}


@on("combat_resolved")
def _combat_resolved(state: GameState, e: Any) -> None:
    for part in (*e.data["attackers"], *e.data["defenders"]):
        u = state.units[part["unit"]]
        u.fought = True
        u.active_since_disorg = True
