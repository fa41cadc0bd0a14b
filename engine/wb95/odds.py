"""The odds preview: a what-if for a proposed attack (5.2.1 b-f), as the attacking side
can know it.

`preview(state, side, order)` checks the declaration exactly as `do_attack` does
(`combat.check_attack`: 5.1, 5.1.3-5.1.5, 5.5.1, 6.3, 8.2, 15.1) and then counts the
combat the way `combat.roll_combat` will -- the attackers' SPs with their reasons (1.2,
5.6.4, 10.2.2, K15), the halving through a fixed position or fortified line (7.3.2,
19.1.1), the initial ratio (1.5, 1.7, R4), the CMs (5.5, 7.1-7.3, 13.1, 15.0, 9.1.6, R3)
and the HQ modifier (9.2.1) -- and reads the COMBAT TABLE (scenario data) for every 2K6
roll (1.8, R6). No die is rolled and the state is not changed.

Fog (16.1): the defence is counted only from what `engine.view.view(state, side)` shows.
A counter seen in full counts its SPs; a counter seen only by its type (16.1.4) counts as
a range, from 1 SP (a reduced, disorganized unit) to the most any enemy unit of that type
defends with in the scenario's order of battle (public); the preview assumes the top of
the range (the attacker's worst case) and also gives the best case. Concentration,
fortification and abilities of counters not seen in full are not counted, and what the
defender may add later -- artillery (6.3.3), air (8.2), its abilities (15.1.6), HQ-loss
CMs (9.1.6) -- is unknown to the attacker: the preview says so (docs/rulings.md K88).
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from engine import orders as o
from engine.core import Ctx, Rejected, Rejection
from engine.hexgrid import HexId
from engine.state import GameState, UnitState
from engine.view import UnitView, view
from engine.wb95 import artillery, combat, flow, special, supply
from engine.wb95.crt import (
    COLUMNS,
    CombatResult,
    Shift,
    clamp_roll,
    final_column,
    initial_column,
    lookup,
)
from engine.wb95.reducer import reduce
from engine.wb95.results import lone_unit
from engine.wb95.sequence import PHASES
from engine.wb95.strength import DEFAULT_HQ_RANGE, HQ_RANGE, strength, within_hq_range

TWO_DICE: dict[int, int] = {s: 6 - abs(s - 7) for s in range(2, 13)}  # 2K6 (1.8): ways /36


def preview(state: GameState, side: str, order: o.Attack) -> dict[str, Any] | Rejection:
    """What `order` (an `attack` by `side`) would give if declared now, or why it would be
    refused. Pure: no dice, no change, nothing `side` could not see. In the side's own
    Movement Phase, the attack as its coming Combat Phase would count it with the units
    where they stand (planning; K181): nothing of the enemy's moves in between (2.2)."""
    ahead = _coming_combat(state, side)
    try:
        declared, full = combat.check_attack(ahead or state, side, order)
    except Rejected as r:
        return r.rejection
    if ahead is not None:
        state = ahead
    if full:  # 10.2.3: see the attackers as they would be after paying the level
        ctx = Ctx(state, reduce)
        for uid in full:
            supply.pay_level(ctx, uid, "attack")
        state = ctx.state
    out = _reckon(state, side, declared)
    if ahead is not None:
        out["planning"] = True
        out["explanation"].insert(
            0,
            "planning: it is the Movement Phase; counted as the coming Combat Phase would "
            "count it, the units where they stand now (2.1.2, K181)",
        )
    return out


def _coming_combat(state: GameState, side: str) -> GameState | None:
    """In `side`'s own Movement Phase (no decision open), the state as its Combat Phase
    would begin with nothing moved further (2.2: that Combat Phase follows at once); None
    otherwise. Shares the unchanged parts with `state` (the preview changes nothing)."""
    now = flow.current_phase(state)
    if now.kind != "movement" or state.pending or state.phase + 1 >= len(PHASES):
        return None
    after = PHASES[state.phase + 1]
    if after.kind != "combat" or after.player != now.player:
        return None
    if flow.acting_sides(state) != (side,):
        return None
    return dataclasses.replace(state, phase=state.phase + 1, done=[])


def distribution(modifier: int = 0) -> dict[int, int]:
    """Ways out of 36 to read each table row with a 2K6 roll and `modifier` (R6 clamps)."""
    out: dict[int, int] = defaultdict(int)
    for s, ways in TWO_DICE.items():
        out[clamp_roll(s + modifier)] += ways
    return dict(out)


def outcomes(state: GameState, column: int, modifier: int = 0) -> list[dict[str, Any]]:
    """Each COMBAT TABLE result of `column` with the rows that give it and its chance."""
    by_text: dict[str, dict[str, Any]] = {}
    for roll, ways in sorted(distribution(modifier).items()):
        r = lookup(state.setup.results, column, roll)
        e = by_text.setdefault(r.text, {"result": r.text, "rolls": [], "ways": 0, "r": r})
        e["rolls"].append(roll)
        e["ways"] += ways
    out = []
    for e in by_text.values():
        cell: CombatResult = e.pop("r")
        e["p"] = round(e["ways"] / 36, 4)
        e["attacker"] = cell.attacker.words()
        e["defender"] = cell.defender.words()
        out.append(e)
    return out


def summary(state: GameState, column: int, modifier: int = 0) -> dict[str, float]:
    """Chances of the main outcomes on `column` with `modifier`."""
    acc: dict[str, int] = defaultdict(int)
    for roll, ways in distribution(modifier).items():
        r = lookup(state.setup.results, column, roll)
        d, a = r.defender, r.attacker
        if d.retreat or d.losses:
            acc["defender_retreats_or_loses"] += ways
        if d.retreat:
            acc["defender_retreats"] += ways
        if d.losses:
            acc["defender_loses"] += ways
        if a.losses:
            acc["attacker_loses"] += ways
        if a.retreat:
            acc["attacker_retreats"] += ways
        if d.disorganized or d.test:
            acc["defender_disorganized_or_tests"] += ways
    keys = (
        "defender_retreats_or_loses",
        "defender_retreats",
        "defender_loses",
        "attacker_loses",
        "attacker_retreats",
        "defender_disorganized_or_tests",
    )
    return {k: round(acc[k] / 36, 4) for k in keys}


# --- counting -----------------------------------------------------------------------------


def _reckon(state: GameState, side: str, decl: dict[str, Any]) -> dict[str, Any]:
    enemy = state.setup.enemy_of(side)
    attackers = [state.units[u] for u in decl["attackers"]]
    targets: list[HexId] = list(decl["targets"])
    seen_by_hex = _seen(state, side, targets)
    seen_units = [state.units[v.id] for vs in seen_by_hex.values() for v in vs if v.id]
    # -- the attack: own units, all known (5.2.1 b) --
    att = {u.id: strength(state, u, attacking=True) for u in attackers}
    att_sp = {k: v.sp for k, v in att.items()}
    eng = combat.engagement(state, decl)
    declared = decl["support"]["attacker"]
    backing = combat.support_contributions(state, eng, "attacker", declared)
    helpers = [state.units[b.unit] for b in backing if b.unit]
    # -- the defence as seen (16.1) --
    lo_by_hex, hi_by_hex, seen_lines, unseen_lines = _defence(state, enemy, seen_by_hex)
    # support the defence gets without a choice, known to both sides: revealed defensive
    # air missions over the hex (8.2.4); the artillery it may still name stays unknown
    auto = combat.declare_support(state, eng, "defender", {})
    their_backing = combat.support_contributions(state, eng, "defender", auto)
    their_sp = sum(b.sp for b in their_backing)
    def_lo = sum(lo_by_hex.values()) + their_sp
    def_hi = sum(hi_by_hex.values()) + their_sp
    counted = max(targets, key=lambda h: (hi_by_hex[h], -targets.index(h)))  # 5.5.3
    att_support = sum(b.sp for b in backing)
    attack_total, notes, fp = combat.attack_strength(
        state, attackers, seen_units, counted, att_sp, att_support
    )
    lone = _lone(state, seen_by_hex)
    shifts: list[Shift] = []
    if lone:
        initial = worst = best = combat.LONE_HQ_COLUMN
        lines = ["attack on a lone HQ or towed artillery in transport setup: rightmost column"]
        lines.append("(5.1.9, 6.6.4)")
    else:
        shifts = combat._shifts(
            state, attackers, seen_units, counted, att_sp, fp, {"attacker": helpers}
        )
        shifts.extend(
            Shift(b.cms, f"{b.kind} {b.source}", "attacker", b.rule) for b in backing if b.cms
        )
        shifts.extend(
            Shift(b.cms, f"{b.kind} {b.source}", "defender", b.rule) for b in their_backing if b.cms
        )
        sit = combat.situation(state, attackers, seen_units, targets)
        extra = special.special_cms(state, sit, decl["attacker_abilities"], {})
        if extra.attacker:
            shifts.append(Shift(extra.attacker, "special units (below)", "attacker", "15.0"))
        if extra.defender:
            shifts.append(Shift(extra.defender, "special units (below)", "defender", "15.0"))
        if decl.get("attacker_cms"):
            n = int(decl["attacker_cms"])
            shifts.append(
                Shift(n, f"{n} CMs for an HQ eliminated nearby", "attacker", "9.1.6, R17")
            )
        initial = initial_column(attack_total, def_hi)
        worst, lines = final_column(initial, shifts, attack_total, def_hi)
        best, _ = final_column(initial_column(attack_total, def_lo), shifts)
        lines = lines + list(extra.lines)
    claim = bool(decl.get("attacker_hq", True))  # `attack ... nohq` (K100)
    modifier, mod_notes, mod_unknown = _modifier(state, side, enemy, attackers, seen_by_hex, claim)
    unknown = list(mod_unknown)
    hidden = sum(1 for vs in seen_by_hex.values() for v in vs if v.id is None)
    total = sum(len(vs) for vs in seen_by_hex.values())
    if hidden:
        unknown.insert(
            0,
            f"defence unknown: {total - hidden} of {total} counters seen in full; the others "
            f"count {def_lo - sum(x['sp'] for x in seen_lines)}-"
            f"{def_hi - sum(x['sp'] for x in seen_lines)} SPs by their type (16.1.4)",
        )
        unknown.append(
            "counters not seen in full may add defender CMs (tactical concentration 13.1, "
            "special units 15.0) not counted here"
        )
    unknown.append(
        f"{enemy} may still add the artillery it has in range (6.3.3) and use its special "
        "abilities (15.1.6) or HQ-loss CMs (9.1.6): not counted"
        + (" (its revealed air support is counted)" if their_backing else "")
    )
    odds = summary(state, worst, modifier)
    ratio = f"{attack_total}:{def_hi}"
    pct = round(100 * odds["defender_retreats_or_loses"])
    text = f"{ratio}, column {COLUMNS[worst]} → {pct} % the defender retreats or loses CELs" + (
        f" (defence {def_lo}-{def_hi} SPs: column {COLUMNS[best]}-{COLUMNS[worst]})"
        if hidden
        else ""
    )
    return {
        "side": side,
        "defender": enemy,
        "targets": targets,
        "attackers": [
            {"unit": u.id, "hex": u.hex, "sp": att[u.id].sp, "why": att[u.id].why}
            for u in attackers
        ],
        "support": [b.line(state) for b in backing],
        # the artillery that could still join (6.3): `support UNIT ...` in the order
        "may_support": [
            u
            for u in artillery.support_candidates(state, eng, "attacker")
            if u not in {b.unit for b in backing}
        ],
        "defender_support": [b.line(state) for b in their_backing],  # revealed air (8.2.4)
        "attack_sp": attack_total,
        "defenders": seen_lines,
        "unseen": unseen_lines,
        "defence_sp": def_hi,
        "defence_range": [def_lo, def_hi],
        "defence_known": not hidden,
        "ratio": ratio,
        "initial": COLUMNS[max(0, min(initial, len(COLUMNS) - 1))],
        "column": COLUMNS[worst],
        "column_range": [COLUMNS[worst], COLUMNS[best]],
        "shifts": [
            {"cms": s.cms, "side": s.side, "source": s.source, "rule": s.rule} for s in shifts
        ],
        "explanation": lines + notes + mod_notes,
        "modifier": modifier,
        "results": outcomes(state, worst, modifier),
        "odds": odds,
        "best_odds": summary(state, best, modifier),
        "unknown": unknown,
        "text": text,
    }


def _seen(state: GameState, side: str, targets: Sequence[HexId]) -> dict[HexId, list[UnitView]]:
    """The counters of each defending hex as `side` sees them (16.1)."""
    v = view(state, side)
    out: dict[HexId, list[UnitView]] = {h: [] for h in targets}
    for u in v.units:
        if u.hex in out and u.side != side and not u.eliminated:
            out[u.hex].append(u)
    return out


def _type_range(state: GameState, enemy: str, kind: str | None) -> tuple[int, int]:
    """The SPs a counter of `kind` (None: any) could defend with: 1 up to the printed
    defence of the strongest such unit in the scenario's order of battle."""
    best = 0
    for spec in state.setup.units.values():
        if spec.side != enemy or (kind is not None and spec.type != kind):
            continue
        sp = spec.art[1] if spec.art is not None else spec.sp
        best = max(best, sp)
    return (min(1, best), best)


def _defence(
    state: GameState, enemy: str, seen: dict[HexId, list[UnitView]]
) -> tuple[dict[HexId, int], dict[HexId, int], list[dict[str, Any]], list[dict[str, Any]]]:
    lo: dict[HexId, int] = {}
    hi: dict[HexId, int] = {}
    seen_lines: list[dict[str, Any]] = []
    unseen_lines: list[dict[str, Any]] = []
    for h, vs in seen.items():
        full = [state.units[v.id] for v in vs if v.id]
        kinds = [v.type for v in vs]
        regular = any(k not in ("art", "hq") and k is not None for k in kinds) or any(
            k is None for k in kinds
        )
        own = combat.defence_strengths(state, full, [h]) if full else {}
        if not regular and any(v.id is None for v in vs):
            own = {}  # towed artillery alone may count 1 SP for the hex (6.6.3): a range
        lo[h] = hi[h] = 0
        for u in full:
            sp = own[u.id].sp if u.id in own else 0
            why = own[u.id].why if u.id in own else "see the hex's range"
            seen_lines.append({"unit": u.id, "hex": h, "sp": sp, "why": why})
            lo[h] += sp
            hi[h] += sp
        for v in vs:
            if v.id is not None:
                continue
            if v.type == "hq":
                r = (0, 0)  # HQs have no defence SPs (5.1.9)
            elif v.type == "art" and regular:
                r = (0, 0)  # towed artillery adds SPs only by supporting (6.6.1)
            elif v.type == "art":
                r = (0, 1)  # 6.6.3 / 6.6.4
            else:
                r = _type_range(state, enemy, v.type)
            unseen_lines.append({"hex": h, "type": v.type, "sp_range": list(r)})
            lo[h] += r[0]
            hi[h] += r[1]
        if not regular and any(v.id is None for v in vs):
            hi[h] = min(hi[h], 1)
    return lo, hi, seen_lines, unseen_lines


def _lone(state: GameState, seen: dict[HexId, list[UnitView]]) -> bool:
    """5.1.9, 6.6.4: only HQs (or towed artillery in transport setup) defend -- known only
    when every counter is seen to be one."""
    for vs in seen.values():
        for v in vs:
            if v.id is not None:
                if not lone_unit(state, state.units[v.id]):
                    return False
            elif v.type != "hq":
                return False
    return True


def _modifier(
    state: GameState,
    side: str,
    enemy: str,
    attackers: list[UnitState],
    seen: dict[HexId, list[UnitView]],
    claim: bool = True,
) -> tuple[int, list[str], list[str]]:
    """9.2.1 as far as `side` can know it: its own HQs; enemy HQs seen, and whether an
    unseen counter near enough could be one (the worst case is assumed)."""
    modifier = 0
    notes: list[str] = []
    unknown: list[str] = []
    if within_hq_range(state, side, attackers):
        if claim and state.hq_claims.get(side, True):
            modifier -= 1
            notes.append(f"{side} HQ in range: -1 (9.2.1)")
        else:
            notes.append(f"{side} HQ in range, modifier declined (9.2.1, K100)")
    if not state.hq_claims.get(enemy, True):  # the enemy's standing choice is public
        return modifier, [*notes, f"{enemy} declines its HQ modifier (9.2.1, K100)"], unknown
    grid = state.setup.map.grid
    defence_hexes = [h for h, vs in seen.items() if vs]
    v = view(state, side)
    nations = {s.nation for s in state.setup.units.values() if s.side == enemy and s.is_hq}
    reach = max((HQ_RANGE.get(n, DEFAULT_HQ_RANGE) for n in nations), default=0)
    seen_hq = False
    maybe = False
    for u in v.units:
        if u.side != enemy or u.hex is None or u.eliminated:
            continue
        if u.id is not None:
            if state.setup.units[u.id].is_hq:
                rng = HQ_RANGE.get(state.setup.units[u.id].nation, DEFAULT_HQ_RANGE)
                if all(grid.distance(u.hex, h) <= rng for h in defence_hexes):
                    seen_hq = True
        elif (
            u.type in (None, "hq")
            and reach
            and all(grid.distance(u.hex, h) <= reach for h in defence_hexes)
        ):
            maybe = True
    if seen_hq:
        modifier += 1
        notes.append(f"{enemy} HQ in range: +1 (9.2.1)")
    elif maybe:
        modifier += 1
        unknown.append(
            f"an unseen {enemy} counter near the defence may be an HQ: +1 assumed (9.2.1)"
        )
    return modifier, notes, unknown
