"""Attacks (AGS 9.1-9.5, 10.1, 11.33, 11.37, 12.22, 12.23, 14.1; AGS-K 19.56, 23.13,
24.21; A7, A25, A28, A29): who may attack whom, the strengths at the instant of combat,
the odds column and the die on the CRT. The results' choices follow in `results`."""

from __future__ import annotations

from typing import Any

from engine.ags import air as air_power
from engine.ags import command, data, game, results
from engine.ags import crt as table
from engine.ags import integrity as panzer
from engine.ags.units import UnitSpec
from engine.core import Ctx, Rejected
from engine.hexgrid import HexId
from engine.state import GameState, UnitState

INFANTRY_INTEGRITY = ("infantry-regiment", "divisionsgruppe")  # AGS-K 19.56


def check_attack(
    state: GameState,
    side: str,
    units: tuple[str, ...],
    hexes: tuple[HexId, ...],
    air: int,
    hq: tuple[str, ...] = (),
) -> tuple[list[UnitState], list[UnitState]]:
    """The attackers and defenders of a legal attack; Rejected citing the case if not."""
    if not units:
        raise Rejected("an attack needs at least one attacking unit", "AGS 9.11")
    attackers: list[UnitState] = []
    for uid in dict.fromkeys(units):
        u = state.units.get(uid)
        if u is None or not u.on_map or u.side != side:
            raise Rejected(f"{uid} is not one of your units on the map", "AGS 9.11")
        sp = game.spec(state, uid)
        if sp.is_hq or game.step(state, u).attack <= 0:
            raise Rejected(f"{uid} has no attack strength (an HQ never attacks)", "AGS 11.35")
        if u.fought:
            raise Rejected(f"{uid} has already attacked or advanced this phase", "AGS 9.14, 9.83")
        if uid in game.ext(state, "disrupted", []):
            raise Rejected(f"{uid} is disrupted and may not attack", "AGS 6.32")
        if air_power.heavy(state, uid) >= 3:
            raise Rejected(
                f"{uid} has its Heavy Equipment marker under it and may not attack",
                "AGS-K 25.34, 25.36",
            )
        attackers.append(u)
    defenders: list[UnitState] = []
    for h in dict.fromkeys(hexes):
        here = state.units_at(h)
        if not here or here[0].side == side:
            raise Rejected(f"there is no enemy unit in {h}", "AGS 9.11")
        if h in game.ext(state, "defended", []):
            raise Rejected(f"{h} has already been attacked this phase", "AGS 9.14")
        if all(x.fought for x in here):  # defenders of an earlier attack that retreated
            raise Rejected(
                f"every unit in {h} has already been attacked this phase (a hex they retreated "
                "into may be attacked only with other units in it, 9.76)",
                "AGS 9.14, 9.76",
            )
        if any(x.id in game.ext(state, "advanced_defenders", []) for x in here):
            raise Rejected(
                f"units in {h} advanced after defending this phase and may not be attacked",
                "AGS 9.83",
            )
        defenders.extend(here)
    b = game.board(state)
    for a in attackers:
        assert a.hex is not None
        for h in hexes:
            if not b.grid.adjacent(a.hex, h) or b.blocked(a.hex) or b.blocked(h):
                raise Rejected(
                    f"{a.id} in {a.hex} is not adjacent to {h}: every attacker must be adjacent "
                    "to every defending hex",
                    "AGS 9.11, 9.23",
                )
    if side == "soviet":
        for a in attackers:
            if not game.commanding_hqs(state, a):
                raise Rejected(
                    f"{a.id} has no line of communications to an HQ at the instant of combat",
                    "AGS 9.15, 11.33",
                )
            if not game.commanding_hqs(state, a, active_only=True):
                raise Rejected(f"{a.id} is in command only of inactive HQs", "AGS-K 23.14")
        command.charged_hq(state, attackers, hq)  # A40, AGS-K 23.2, 23.23
    elif hq:
        raise Rejected("German attacks name no HQ", "AGS 11.0")
    if air:
        if air != 1:
            raise Rejected("at most one air point per side in a combat", "AGS 14.13")
        if game.ext(state, "air", {}).get(side, 0) < 1:
            raise Rejected(
                "you have no air points left this Game-Turn (none on snow turns)", "AGS-K 19.8, A43"
            )
    return attackers, defenders


def unit_attack(
    state: GameState, u: UnitState, supplied: bool, integrity: bool = False
) -> tuple[int, str]:
    """A unit's attack strength with why: supported corps doubled (AGS-K 24.2), a panzer
    division's integrity doubled (19.51, A30), then halved out of supply (12.23, 19.55),
    rounded down, at least 1 (9.32, A29)."""
    s = game.step(state, u).attack
    why = [f"{s}"]
    if u.id in game.ext(state, "supported", []):
        s *= 2
        why.append("x2 supported (AGS-K 24.2)")
    if integrity:
        s *= 2
        why.append("x2 divisional integrity (AGS-K 19.51, A30)")
    if not supplied:
        s = max(1, s // 2)
        why.append("halved out of supply (AGS 12.23)")
    return s, " ".join(why)


def unit_defence(
    state: GameState, u: UnitState, attackers: list[UnitState], supplied: bool, alone_hq: bool
) -> tuple[int, str]:
    """A defender's strength: terrain (10.1; TEC), river hexsides when every attacker
    attacks across one (10.12, 10.14, A28; never more than tripled), then halved out of
    supply (12.23), rounded down, at least 1 (9.32, A29). An HQ alone defends with half
    its leadership; stacked with combat units it adds nothing (11.38, A7)."""
    sc = game.scenario(state)
    sp: UnitSpec = game.spec(state, u.id)
    assert u.hex is not None
    if u.id in game.ext(state, "retreated_into", {}):
        return 0, "retreated into the hex this phase: adds nothing (AGS 9.76)"
    if sp.is_hq:
        if not alone_hq:
            return 0, "HQ stacked with combat units adds nothing (AGS 11.38, A7)"
        base = max(1, (sp.leadership or 0) // 2)
    else:
        base = game.step(state, u).defence
    mult = sc.tec.row(sc.board.terrain_at(u.hex)).defence or 1
    why = [str(base)]
    if mult > 1:
        why.append(f"x{mult} {sc.board.terrain_at(u.hex)}")
    sides = [sc.board.feature(a.hex, u.hex) for a in attackers if a.hex is not None]
    if sides and all(f is not None for f in sides):
        river = 3 if all(f == "major-river" for f in sides) else 2
        why.append(f"x{river} attacked across rivers (AGS 10.12, 10.14, A28)")
        # more than one bonus is tripled, never more (TEC note, A28)
        mult = 3 if mult > 1 else river
    s = base * mult
    if panzer.defence_doubled(state, u):
        s *= 2
        why.append("x2 divisional integrity (AGS-K 19.52, A31)")
    if air_power.heavy(state, u.id) in (1, 2):  # dug in; A37: with out of supply, cancels
        s *= 2
        why.append("x2 Heavy Equipment (AGS-K 25.33)")
    if not supplied:
        s = max(1, s // 2)
        why.append("halved out of supply (AGS 12.23)")
    return max(1, s), " ".join(why)


def infantry_integrity(state: GameState, defenders: list[UnitState], attacker: str) -> bool:
    """AGS-K 19.56: all three units of a German infantry division (or the three
    Divisionsgruppe units) in one hex shift one column in the defender's favour against a
    Soviet attack."""
    if attacker != "soviet":
        return False
    by_hex: dict[tuple[HexId | None, str], int] = {}
    for d in defenders:
        sp = game.spec(state, d.id)
        if sp.type in INFANTRY_INTEGRITY and sp.formation:
            key = (d.hex, sp.formation)
            by_hex[key] = by_hex.get(key, 0) + 1
    return any(n >= 3 for n in by_hex.values())


def attack(
    ctx: Ctx,
    side: str,
    units: tuple[str, ...],
    hexes: tuple[HexId, ...],
    air: int,
    hq: tuple[str, ...] = (),
) -> None:
    """Declare the attack (with the HQ it is charged to, A40, and whether that HQ adds its
    leadership, 11.37), let the defender answer with its air point (14.12), resolve."""
    state = ctx.state
    attackers, defenders = check_attack(state, side, units, hexes, air, hq)
    charged = command.charged_hq(state, attackers, hq) if side == "soviet" else None
    led = (
        charged is not None
        and charged not in game.ext(state, "led", [])
        and any(a.hex == state.units[charged].hex for a in attackers)
    )
    ctx.emit(
        "attack_declared",
        side=side,
        attackers=[a.id for a in attackers],
        hexes=list(hexes),
        defenders=[d.id for d in defenders],
        air=air,
        hq=charged,
        led=led,
    )
    if not air_power.offer(ctx, side, list(hexes), air):
        resolve(ctx, 0)


def resolve(ctx: Ctx, defender_air: int) -> None:
    """The declared attack at the instant of combat: strengths, odds column, die."""
    state = ctx.state
    declared = state.ext["declared"]
    side = str(declared["side"])
    attackers = [state.units[i] for i in declared["attackers"]]
    defenders = [state.units[i] for i in declared["defenders"]]
    hexes = list(declared["hexes"])
    air = int(declared["air"])
    lines: list[dict[str, Any]] = []
    total_a = 0
    strengths: dict[str, int] = {}
    doubled = panzer.attack_doubled(state, attackers)  # AGS-K 19.51, A30
    for a in attackers:
        s, why = unit_attack(state, a, game.in_supply(state, a), a.id in doubled)  # 12.22
        total_a += s
        strengths[a.id] = s
        lines.append({"unit": a.id, "role": "attacker", "strength": s, "why": why})
    charged = declared.get("hq")
    in_results = list(attackers)
    if charged and declared.get("led"):
        added = command.leadership_added(state, charged, attackers, strengths)
        if added is not None:
            total_a += added[0]
            lines.append(
                {"unit": charged, "role": "attacker", "strength": added[0], "why": added[1]}
            )
            in_results.append(state.units[charged])  # 11.36: it shares the results
    total_d = 0
    combat_units = [d for d in defenders if not game.spec(state, d.id).is_hq]
    for d in defenders:
        s, why = unit_defence(state, d, attackers, game.in_supply(state, d), not combat_units)
        total_d += s
        lines.append({"unit": d.id, "role": "defender", "strength": s, "why": why})
    total_d = max(1, total_d)
    shift = air - defender_air
    notes = []
    if charged:
        notes.append(f"coordinated by {charged} (A40)")
    if air:
        notes.append("attacker's air point: one column right (AGS 14.14)")
    if defender_air:
        notes.append(
            "defender's air point: one column left (AGS 14.12, 14.14)"
            if not air
            else "defender's air point cancels the attacker's (AGS 14.14)"
        )
    if infantry_integrity(state, defenders, side):
        shift -= 1
        notes.append(
            "German infantry division's three units together: one column left (AGS-K 19.56)"
        )
    crt = game.scenario(state).crt
    column = table.odds_column(crt, total_a, total_d, shift)
    die = ctx.roll(1, "combat", rule="AGS 9.4")[0]
    cell = crt.cell(column, die)
    reconstructed = sorted(
        {
            a_or_d.id
            for a_or_d in (*attackers, *defenders)
            if game.step(state, a_or_d).provenance != "printed"
        }
    )
    ctx.emit(
        "combat_resolved",
        side=side,
        attack=total_a,
        defence=total_d,
        ratio=table.column_label(total_a, total_d),
        shift=shift,
        column=column,
        die=die,
        result=str(cell),
        lines=lines,
        notes=notes,
        crt=crt.provenance,
        reconstructed=reconstructed,
        data=data.used_in_combat(state, attackers, defenders),  # issue #19: said
        defender_air=defender_air,
    )
    results.begin(ctx, side, in_results, defenders, hexes, cell)
