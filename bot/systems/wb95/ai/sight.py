"""What the side sees of the enemy (16.1): every stack of its view, with the defence it
could have and the hexes its ZoC may cover. Nothing here reads a hidden value: a counter
seen in full counts as the view shows it (its CELs, supply and disorganization are on
view), one seen only by its type counts at the top of that type's range in the
scenario's order of battle (public), as the odds preview does (engine.wb95.odds)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.hexgrid import Grid, HexId
from engine.state import GameState
from engine.view import view
from engine.wb95.artillery import ARTILLERY, RANGE
from engine.wb95.special import FU_CMS
from engine.wb95.strength import strength
from engine.wb95.zoc import zoc_hexes


@dataclass
class Stack:
    """An enemy hex as seen: `hi` its worst-case defence SPs, `est` a likely figure."""

    hex: HexId
    side: str
    hi: int = 0
    est: float = 0.0
    counters: int = 0
    regular: bool = False  # anything but HQs and towed artillery (5.1.9, 6.6.4)
    fortified: str = ""  # a fortification seen: "ff" or "if" (7.1, 7.2)
    cms: int = 0  # CMs its special units may add in defence: stars 15.1.6, FU 15.4.1
    ids: list[str] = field(default_factory=list)  # the counters seen in full
    cels: list[int] = field(default_factory=list)  # their CELs, as the view shows them


@dataclass
class Sight:
    stacks: dict[HexId, Stack]
    zoc: dict[HexId, set[HexId]]  # hex -> the enemy hexes whose ZoC may cover it
    guns: list[tuple[HexId, int]] = field(default_factory=list)  # artillery seen, its SPs
    # counters seen as nothing at all that could be guns, while the enemy's order of
    # battle (public) has guns not seen yet: how many, and the SPs of its best
    maybe: list[HexId] = field(default_factory=list)
    unseen_guns: int = 0
    top_gun: int = 0

    def gun_sp(self, grid: Grid, h: HexId) -> int:
        """The SPs the enemy's guns may add to the defence of `h` (6.3.3): those seen, and
        each hidden counter in range as a gun as often as its unseen guns are among its
        hidden counters (all of them when there are as many guns as hidden counters)."""
        seen = sum(sp for g, sp in self.guns if grid.distance(g, h) <= RANGE)
        hidden = sum(1 for g in self.maybe if grid.distance(g, h) <= RANGE)
        share = min(1.0, self.unseen_guns / max(1, len(self.maybe)))
        return seen + round(hidden * share * self.top_gun)


def _type_figures(state: GameState, enemy: str) -> dict[str | None, tuple[int, float]]:
    """Per unit type (None: any), the top and the mean printed defence in the enemy's
    order of battle (public data)."""
    per: dict[str | None, list[int]] = {}
    for spec in state.setup.units.values():
        if spec.side != enemy or spec.is_hq:
            continue
        sp = spec.art[1] if spec.art is not None else spec.sp
        per.setdefault(spec.type, []).append(sp)
        per.setdefault(None, []).append(sp)
    return {k: (max(v), sum(v) / len(v)) for k, v in per.items() if v}


def look(state: GameState, side: str) -> Sight:
    setup = state.setup
    enemy = setup.enemy_of(side)
    figures = _type_figures(state, enemy)
    grid = setup.map.grid
    stacks: dict[HexId, Stack] = {}
    zoc: dict[HexId, set[HexId]] = {}
    guns: list[tuple[HexId, int]] = []
    maybe: list[HexId] = []
    all_guns = {i for i, sp in setup.units.items() if sp.side == enemy and sp.type in ARTILLERY}
    top_gun = max(
        (sp.art[1] for sp in setup.units.values() if sp.side == enemy and sp.art is not None),
        default=0,
    )
    seen = [v for v in view(state, side).units if v.side == enemy]
    known = {v.id for v in seen if v.id is not None}
    typed = 0  # guns seen by their type only
    for v in seen:
        if v.hex is None or v.eliminated:
            continue
        st = stacks.setdefault(v.hex, Stack(v.hex, enemy))
        st.counters += 1
        st.fortified = st.fortified or (v.fortification or "")
        if v.id is not None:
            spec = setup.units[v.id]
            st.ids.append(v.id)
            st.cels.append(v.cel if v.cel is not None else 1)
            st.cms = min(3, st.cms + (FU_CMS if spec.type == "fu" else min(1, len(spec.stars))))
            covers = zoc_hexes(setup, spec, v.hex)
            if spec.type in ARTILLERY:  # it may support the defence (6.3.3)
                guns.append((v.hex, strength(state, state.units[v.id], attacking=False).sp))
            if spec.is_hq or spec.type == "art":
                sp = 0
            else:
                sp = strength(state, state.units[v.id], attacking=False).sp
                st.regular = True
        else:
            covers = list(grid.neighbours(v.hex))  # unseen: it may have a ZoC (4.1)
            if v.type in ARTILLERY:
                guns.append((v.hex, top_gun))
                typed += 1
            if v.type is None:
                maybe.append(v.hex)
            if v.type == "fu":
                st.cms = min(3, st.cms + FU_CMS)
            if v.type in ("hq", "art"):
                sp = 0
            else:
                top, mean = figures.get(v.type, figures.get(None, (1, 1.0)))
                st.hi += top
                st.est += mean
                st.regular = True
                sp = -1
        if sp >= 0:
            st.hi += sp
            st.est += sp
        for h in covers:
            zoc.setdefault(h, set()).add(v.hex)
    for st in stacks.values():
        if not st.regular:
            st.hi = min(st.hi, 1)  # a lone HQ or gun (5.1.9, 6.6.3)
    unseen = len(all_guns - known) - typed
    return Sight(stacks, zoc, guns, maybe, max(0, unseen), top_gun)
