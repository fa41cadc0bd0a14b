"""WB-95: what a side is told as its step of play begins (issue #17): the reinforcements it may
bring in now, each with an order it can type as it stands (11.1), the units that must
attack this Combat Phase (5.1.3) and the enemy hexes that must be attacked (5.1.4), and
its units out of supply and where each line of supply is cut (10.1, 10.2, K102). Read
from the engine as the side's own player may know it (its own units; the enemy stacks on
the board), so nothing here is hidden from that side."""

from __future__ import annotations

from engine import orders as o
from engine.notation import format_order
from engine.state import GameState
from engine.wb95 import combat, flow
from engine.wb95.reinforcements import legal_entries
from engine.wb95.supply_cut import cuts

MAX_LISTED = 8


def announcements(state: GameState, side: str) -> list[str]:
    """Lines for `side`'s turn notice; empty when there is nothing to announce."""
    kind = flow.current_phase(state).kind
    out: list[str] = []
    if kind in ("movement", "strategic"):
        entries = []
        for u in sorted(state.units.values(), key=lambda x: x.id):
            if u.side != side or u.on_map:
                continue
            picks = sorted(legal_entries(state, u.id).values(), key=lambda e: (e.cost, e.hex))
            if picks:
                e = picks[0]
                order = o.Enter(units=(u.id,), where=e.entry, path=e.path[1:])
                entries.append(format_order(order))
        if entries:
            shown = entries[:MAX_LISTED]
            more = (
                f" (and {len(entries) - len(shown)} more: `legal`)" if entries[MAX_LISTED:] else ""
            )
            out.append(f"Reinforcements may enter now (11.1){more}; for example:")
            out += [f"  {x}" for x in shown]
    if kind == "combat" and state.combat is None:
        attackers, defenders = combat.mandatory_outstanding(state, side)
        if attackers:
            names = ", ".join(attackers[:MAX_LISTED]) + (" ..." if attackers[MAX_LISTED:] else "")
            out.append(f"Must attack this phase (in enemy ZoC, 5.1.3): {names}")
        hexes = sorted({h for d in defenders if (h := state.units[d].hex) is not None})
        if hexes:
            out.append(f"Enemy hexes that must be attacked (5.1.4): {', '.join(hexes)}")
    oos = sorted(u.id for u in state.on_map(side) if u.oos > 0)
    if oos and kind in ("movement", "combat"):
        out.append("Out of supply (10.2: half MPs and attack strength):")
        cut = cuts(state, side)
        for uid in oos[:MAX_LISTED]:
            why = cut[uid].sentence() if uid in cut else "a line is open again now (10.2.7)"
            out.append(f"  {uid} (level {state.units[uid].oos}): {why}")
        if oos[MAX_LISTED:]:
            out.append(f"  and {len(oos) - MAX_LISTED} more: `map supply` shows them all")
    return out
