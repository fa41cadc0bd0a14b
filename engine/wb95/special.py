"""15.0 Special units: stars (15.1), resilience groups (15.2), Volkssturm (15.3) and
fortification units (15.4) in combat.

Stars and the FU ability are optional (15.1.6, 15.4.2): the attacker names the units
using them in its attack, the defender answers before the roll. Cancellation is worked
out on the abilities both sides declared, all at once (docs/rulings.md K19): a white star
disables the enemy's black and yellow stars, a black star the enemy's yellow stars; blue
stars are never disabled (15.1.2). Each remaining star is +1 CM (15.1.3, 15.1.4), capped
at 3 per hex when the scenario takes the variant option `star_cap` (002's 15.1.4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.state import GameState, UnitState
from engine.wb95.regular import is_regular
from engine.wb95.strength import is_towed

STARS = ("black", "white", "yellow", "blue")
STAR_CAP = 3  # variant (002 15.1.4): no more than 3 star CMs at one hex
FU_CMS = 2  # 15.4.1
RG_CMS = 1  # 15.2.3
VS_CMS = 2  # 15.3.1


@dataclass(frozen=True)
class Situation:
    """What decides which abilities apply in one combat."""

    attackers: Sequence[UnitState]
    defenders: Sequence[UnitState]
    defender_fortified: bool  # R20: FF, IF, fixed position or fortified line
    across_big_river: bool  # 15.1.8


def _mechanized(state: GameState, units: Sequence[UnitState]) -> bool:
    return any(state.setup.units[u.id].move == "mechanized" for u in units)


def usable_stars(state: GameState, u: UnitState, attacking: bool, sit: Situation) -> list[str]:
    """The star colours a unit may use in this combat (15.1.2, 15.1.5, 15.1.8, R20)."""
    if sit.across_big_river:
        return []  # 15.1.8
    if attacking and is_towed(state, u):
        return []  # 15.1.5
    enemy = sit.defenders if attacking else sit.attackers
    out: list[str] = []
    for colour in state.setup.units[u.id].stars:
        if colour == "black" and attacking and sit.defender_fortified:
            continue  # black: in attack only against unfortified units
        if colour == "white" and not _mechanized(state, enemy):
            continue  # white: against mechanized units (K19)
        if colour == "yellow" and not attacking:
            continue  # yellow: attack only
        out.append(colour)
    return out


def fu_usable(state: GameState, u: UnitState, sit: Situation) -> bool:
    """15.4.1: a fortification unit defending in any fortification."""
    return (
        state.setup.units[u.id].type == "fu"
        and u in sit.defenders
        and (u.fortification in ("ff", "if") or sit.defender_fortified)
    )


def abilities(state: GameState, attacking: bool, sit: Situation) -> dict[str, list[str]]:
    """Units of one side that have an ability to use here, with what they may use."""
    units = sit.attackers if attacking else sit.defenders
    out: dict[str, list[str]] = {}
    for u in units:
        can = usable_stars(state, u, attacking, sit)
        if not attacking and fu_usable(state, u, sit):
            can.append("fu")
        if can:
            out[u.id] = can
    return out


@dataclass(frozen=True)
class SpecialCMs:
    attacker: int
    defender: int
    lines: tuple[str, ...]


def special_cms(
    state: GameState,
    sit: Situation,
    att_used: Mapping[str, Sequence[str]],
    def_used: Mapping[str, Sequence[str]],
) -> SpecialCMs:
    """CMs from stars, FU, RG and VS, with a line explaining each."""
    lines: list[str] = []
    att_colours = {c for cs in att_used.values() for c in cs}
    def_colours = {c for cs in def_used.values() for c in cs}
    cap = STAR_CAP if state.setup.options.get("star_cap") else None

    def disabled(colour: str, enemy: set[str]) -> str | None:
        if colour == "black" and "white" in enemy:
            return "white"
        if colour == "yellow" and ("white" in enemy or "black" in enemy):
            return "white" if "white" in enemy else "black"
        return None

    totals = {"attacker": 0, "defender": 0}
    for who, used, enemy in (
        ("attacker", att_used, def_colours),
        ("defender", def_used, att_colours),
    ):
        per_hex: dict[str, int] = {}
        for uid, colours in sorted(used.items()):
            u = state.units[uid]
            for c in colours:
                if c == "fu":
                    totals[who] += FU_CMS
                    lines.append(f"{who} +{FU_CMS}: fortification unit {uid} (15.4.1)")
                    continue
                by = disabled(c, enemy)
                if by:
                    lines.append(f"{who}: {c} star of {uid} disabled by the enemy's {by} (15.1.2)")
                    continue
                h = u.hex or ""
                if cap is not None and per_hex.get(h, 0) >= cap:
                    lines.append(f"{who}: {c} star of {uid} over the cap of {cap} at {h}")
                    continue
                per_hex[h] = per_hex.get(h, 0) + 1
                totals[who] += 1
                lines.append(f"{who} +1: {c} star of {uid} (15.1.3)")
    rg = [u for u in sit.defenders if state.setup.units[u.id].type == "rg"]
    if rg:
        totals["defender"] += RG_CMS * len(rg)
        lines.append(f"defender +{RG_CMS * len(rg)}: resilience group(s) (15.2.3)")
    for who, mine in (("attacker", sit.defenders), ("defender", sit.attackers)):
        vs = _vs_bonus(state, mine)
        if vs:
            totals[who] += vs
            lines.append(f"{who} +{vs}: fighting Volkssturm (15.3.1-15.3.2)")
    return SpecialCMs(totals["attacker"], totals["defender"], tuple(lines))


def _vs_bonus(state: GameState, units: Sequence[UnitState]) -> int:
    """15.3.1-15.3.2: the enemy of Volkssturm gains 2 CMs, one less for each regular unit
    stacked with it; with VS in several hexes the best hex for the enemy counts."""
    best = 0
    for h in {u.hex for u in units if state.setup.units[u.id].type == "vs"}:
        if h is None:
            continue
        regulars = [x for x in state.units_at(h) if is_regular(state.setup.units[x.id])]
        best = max(best, VS_CMS - len(regulars))
    return max(0, best)
