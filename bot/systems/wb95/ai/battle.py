"""The Combat Phase (5.0): every attack it may declare is counted with the engine's
odds preview (engine.wb95.odds.preview: the fog of 16.1, every CM and the HQ modifier it
can know), with all the guns in range (6.3) and its air support over the hex (8.2.2,
R16). It makes the attacks that reach the bar, the most rewarding first; a duty
(5.1.3-5.1.7) it must meet is met with the best combination it finds -- every unit next
to the hex joins when that raises the odds. Then its guns fire at the hexes left alone
(6.4)."""

from __future__ import annotations

from itertools import combinations, islice

from bot.systems.wb95.ai import hold
from bot.systems.wb95.ai.aims import Aims
from bot.systems.wb95.ai.reckon import EVEN, FAIR, GOOD
from bot.systems.wb95.ai.sight import Sight
from engine import orders as o
from engine.hexgrid import HexId
from engine.state import GameState
from engine.wb95 import hq_cms, odds
from engine.wb95.air import attaching
from engine.wb95.artillery import ARTILLERY, RANGE, fire_targets, support_candidates
from engine.wb95.combat import (
    attack_options,
    can_attack,
    engagement,
    mandatory_outstanding,
)
from engine.wb95.crt import COLUMNS, initial_column
from engine.wb95.strength import strength


def _tries(state: GameState, side: str) -> list[tuple[list[str], list[HexId]]]:
    """Attacker sets: the engine's (all units next to a hex; one hex's units against all
    its neighbours), and each duty unit alone and with all the others next to its
    target."""
    seen: set[tuple[tuple[str, ...], tuple[HexId, ...]]] = set()
    grid = state.setup.map.grid
    enemy = state.setup.enemy_of(side)
    foe = sorted({e.hex for e in state.on_map(enemy) if e.hex})
    able = [u for u in state.on_map(side) if u.hex and can_attack(state, u) is None]
    base = list(attack_options(state, side))
    must, _ = mandatory_outstanding(state, side)
    for uid in must:
        u = state.units[uid]
        if u.hex is None:
            continue
        for h in foe:
            if grid.adjacent(u.hex, h):
                base.append(([uid], [h]))
                near = sorted(x.id for x in able if x.hex and grid.adjacent(x.hex, h))
                base.append((near, [h]))
    out = []
    for units, hexes in base:
        key = (tuple(sorted(units)), tuple(hexes))
        if key not in seen:
            seen.add(key)
            out.append((sorted(units), hexes))
    return out


def _hopeless(
    state: GameState, side: str, units: list[str], hexes: list[HexId], sight: Sight, bar: int
) -> bool:
    """No preview needed: even with every gun of its own in range the SPs could not reach
    two columns below the bar (the preview then counts CMs both ways)."""
    att = sum(strength(state, state.units[u], attacking=True).sp for u in units)
    att += sum(sp for _, sp in _own_guns(state, side, hexes))
    hi = sum(sight.stacks[h].hi for h in hexes if h in sight.stacks)
    if not all(sight.stacks.get(h) and sight.stacks[h].regular for h in hexes):
        return False
    return initial_column(att, max(1, hi)) < bar - 2


def _risks_hold(
    state: GameState,
    side: str,
    aims: Aims,
    units: list[str],
    hexes: list[HexId],
    chances: dict[str, float],
) -> bool:
    """A voluntary attack by the whole garrison of a valued hex it holds, for less than
    that hex is worth, when a retreat (5.3) or the loss of a last CEL (5.2.1 f) would
    empty it more than one time in ten: the hex is lost without the enemy attacking."""
    left = hold.empties(state, side, aims, units)
    if not left:
        return False
    if sum(aims.hexes.get(h, 0.0) for h in hexes) > sum(aims.hexes[h] for h in left):
        return False
    frail = any(state.units[u].cel <= 1 for u in units if state.units[u].hex in left)
    risk = chances["attacker_retreats"] + (chances["attacker_loses"] if frail else 0.0)
    return risk > 0.1


def _own_guns(state: GameState, side: str, hexes: list[HexId]) -> list[tuple[str, int]]:
    grid = state.setup.map.grid
    return [
        (u.id, strength(state, u, attacking=True).sp)
        for u in state.on_map(side)
        if u.hex
        and state.setup.units[u.id].type in ARTILLERY
        and any(grid.distance(u.hex, h) <= RANGE for h in hexes)
    ]


def choices(
    state: GameState,
    side: str,
    aims: Aims,
    sight: Sight,
    level: int,
    intents: dict[HexId, set[str]] | None = None,
) -> list[tuple[o.Order, int]]:
    """The inputs to try in order, each attack with the column it reads now (-1 for the
    others). The attacks its Movement Phase prepared (`intents`) come first when they read
    1:1 or better: their units moved for them, and the guns were counted for them."""
    intents = intents or {}
    must, must_hit = mandatory_outstanding(state, side)
    scored: list[tuple[tuple[float, ...], o.Attack, int]] = []
    tries = _tries(state, side)
    able = {u.id for u in state.on_map(side) if can_attack(state, u) is None}
    for t, meant_units in sorted(intents.items()):
        left = sorted(meant_units & able)
        if left:
            tries.insert(0, (left, [t]))
    queue = list(tries)
    base = {(tuple(u), tuple(h)) for u, h in tries}  # subsets are taken of these only
    intended = {u for us in intents.values() for u in us}
    # the units each planned attack must not take from the others
    elsewhere = {t: {u for x, us in intents.items() if x != t for u in us} for t in intents}
    done: set[tuple[tuple[str, ...], tuple[HexId, ...]]] = set()
    while queue:
        units, hexes = queue.pop(0)
        key = (tuple(units), tuple(hexes))
        if key in done:
            continue
        done.add(key)
        duty = bool(set(units) & set(must)) or any(state.units[d].hex in hexes for d in must_hit)
        if not duty and _hopeless(state, side, units, hexes, sight, FAIR):
            continue
        decl = {"side": side, "attackers": units, "defenders": [], "targets": hexes}
        # the guns a planned attack on another hex counts on are left to it; a duty that
        # was not planned may take them (the planned attacks are made first)
        planned = any(h in intents for h in hexes)
        spoken = {g for x, us in intents.items() if x not in hexes for g in us}
        if duty and not planned:
            spoken = set()
        guns = tuple(
            g
            for g in support_candidates(state, engagement(state, decl), "attacker")
            if g not in spoken
        )
        air = tuple(str(m["id"]) for m in attaching(state, side, "support-attack", hexes))
        stars = tuple(u for u in units if state.setup.units[u].stars and level >= 2)
        # everything it has; without the abilities; at level 3 also without the guns
        variants = [(guns, stars), *([(guns, ())] if stars else [])]
        if guns and level >= 3:
            variants.append(((), ()))
        theirs = hq_cms.available(state, state.setup.enemy_of(side), hexes)  # 9.1.6, public
        ours = hq_cms.available(state, side, hexes)
        for support, star in variants:
            order = o.Attack(
                units=tuple(units),
                target=hexes[0],
                also=tuple(hexes[1:]),
                support=support,
                air=air,
                stars=star,
                cms=ours,
            )
            p = odds.preview(state, side, order)
            if not isinstance(p, dict):
                continue
            col = max(0, COLUMNS.index(p["column"]) - theirs)
            win = p["odds"]["defender_retreats_or_loses"]
            hurt = p["odds"]["attacker_loses"] + 0.5 * p["odds"]["attacker_retreats"]
            meets = len(set(units) & set(must)) + sum(
                1 for d in must_hit if state.units[d].hex in hexes
            )
            worth = sum(aims.hexes.get(h, 0.0) for h in hexes)
            bar = FAIR if (worth > 0 and aims.attack) or p["modifier"] < 0 else GOOD
            if aims.short and worth > 0 and aims.attack:
                bar = FAIR - 1  # the last turns: 1:1 for an objective
            good = col >= bar
            planned_here = set().union(*(intents.get(h, set()) for h in hexes))
            if not meets and set(units) & (intended - planned_here):
                continue  # it would take units a planned attack needs
            if col >= bar + 1 and len(units) > 2 and support == guns and level >= 2 and key in base:
                # a unit it could spare: the same attack without it (levels 2-3)
                for k in range(len(units) - 1, len(units) - level, -1):
                    subs = islice(combinations(units, k), 12 * level)  # bounded: its time
                    queue.extend((list(sub), hexes) for sub in subs)
            if not good and not meets:
                continue
            if not meets and _risks_hold(state, side, aims, units, hexes, p["odds"]):
                continue
            meant = (
                len(hexes) == 1
                and hexes[0] in intents
                and intents[hexes[0]] & able <= set(units)
                and not set(units) & elsewhere.get(hexes[0], set())
            )
            score = (
                float(meant and col >= EVEN),  # the plan's attacks (their guns counted)
                float(good and meets > 0),  # a duty met well first: it may need the guns
                float(good),
                float(meets > 0),  # duties first among the bad ones
                (1.0 + worth) * win - hurt * (1.0 + aims.loss) + 0.05 * col,
                -len(units) - 0.1 * len(support),
            )
            scored.append((score, order, col))
    scored.sort(key=lambda x: x[0], reverse=True)
    out: list[tuple[o.Order, int]] = [(order, col) for _, order, col in scored]
    attacked = {u.hex for u in state.on_map() if u.fought and u.hex}
    targets = fire_targets(state, side)
    for h in sorted(targets, key=lambda h: (-(sight.stacks[h].est if h in sight.stacks else 0), h)):
        if h not in attacked:
            out.append((o.Fire(units=tuple(targets[h]), target=h), -1))
    out.append((o.Done(), -1))
    return out
