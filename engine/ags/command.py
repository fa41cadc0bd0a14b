"""Soviet command as the Soviet player's decisions (AGS-K 23.1, 23.2, 24.22; AGS 11.37;
A32, A33, A34, A40; K160-K163).

- At the beginning of each Soviet player-turn -- in the Initial Movement Phase before any
  Soviet unit moves (K161) -- the Soviet player chooses the active HQs (23.11, 23.12):
  `activate HQ...`. Until he does, the referee's default stands: the printed turn-1 HQs,
  then those active before (`sequence._active_hqs`).
- At the start of Game-Turn 2 the referee removes Supported markers by default (24.22,
  K160); the Soviet player chooses otherwise with `unsupport UNIT...` at the same time.
- Every Soviet attack is charged to an active HQ in command of each attacker (A40); from
  Game-Turn 5 an HQ coordinates at most half its leadership in offensive operations per
  Game-Turn (23.2). `attack ... support HQ` names it; stacked with an attacker, its
  leadership is added to the attack (11.37) and it shares the attack's results (11.36).
"""

from __future__ import annotations

from typing import Any

from engine import orders as o
from engine.ags import game
from engine.core import Ctx, Rejected
from engine.state import GameState, UnitState

LIMIT_FROM_TURN = 5  # AGS-K 23.2


# --- the choices at the start of the Soviet player-turn ------------------------------------


def hqs_on_map(state: GameState) -> list[str]:
    return sorted(u.id for u in state.on_map("soviet") if game.spec(state, u.id).is_hq)


def open_turn_decisions(ctx: Ctx, turn: int) -> None:
    """Called once the Game-Turn's first phase has begun: on turn 2 the referee takes the
    Supported markers off as its default (24.22, K160); the Soviet player may choose
    otherwise with `unsupport` at the beginning of his player-turn (K161)."""
    state = ctx.state
    opts = supported_options(state, turn)
    if opts is None:
        return
    ctx.emit(
        "supported_removed",
        side="soviet",
        units=default_removal(opts),
        options=opts,
        by="referee",
        rule="AGS-K 24.22",
    )


def supported_options(state: GameState, turn: int) -> dict[str, Any] | None:
    """AGS-K 24.22 (K160): at most `printed markers - removed` markers stay, on corps in
    supply; a marker that left the map with its eliminated corps is one of those removed."""
    sc = game.scenario(state)
    if not sc.supported_removal.get(turn):
        return None
    left = [u for u in game.ext(state, "supported", []) if state.units[u].on_map]
    keep = max(0, len(sc.supported) - int(sc.supported_removal[turn] or 0))
    oos = sorted(u for u in left if not game.in_supply(state, state.units[u]))
    may_keep = sorted(u for u in left if u not in oos)
    return {
        "supported": sorted(left),
        "must_remove": oos,
        "may_keep": may_keep,
        "keep": min(keep, len(may_keep)),
    }


def default_removal(opts: dict[str, Any]) -> list[str]:
    """The referee's pick (K161): the out-of-supply corps, then the later ones by id."""
    kept = list(opts["may_keep"])[: int(opts["keep"])]
    return sorted(u for u in opts["supported"] if u not in kept)


def at_player_turn_start(state: GameState) -> bool:
    """AGS-K 23.12: the Soviet player "may only change the status of his HQ units at the
    beginning of his Player-Turn" (K161): in his Initial Movement Phase, before any
    Soviet unit has moved or entered."""
    return (
        state.phase == 0
        and not state.pending
        and "soviet" not in state.done
        and not any(u.moved or u.fought for u in state.units.values() if u.side == "soviet")
    )


def activate(ctx: Ctx, units: tuple[str, ...]) -> None:
    """`activate HQ...` (AGS-K 23.11, 23.12, A33)."""
    state = ctx.state
    if not at_player_turn_start(state):
        raise Rejected(
            "HQs change status only at the beginning of the Soviet player-turn, before any "
            "Soviet unit moves",
            "AGS-K 23.12",
            "K161",
        )
    sc = game.scenario(state)
    hqs = hqs_on_map(state)
    limit = sc.track.turn(state.turn).active_hqs
    chosen = list(dict.fromkeys(units))
    for h in chosen:
        if h not in hqs:
            raise Rejected(f"{h} is not a Soviet HQ on the map", "AGS-K 23.1")
    if len(chosen) > limit:
        raise Rejected(
            f"at most {limit} HQs may be active on Game-Turn {state.turn}", "AGS-K 23.11", "A33"
        )
    missing = [h for h in sc.active_turn_1 if h in hqs and h not in chosen]
    if state.turn == 1 and missing:
        raise Rejected(f"{', '.join(missing)} must be active on Game-Turn 1", "AGS-K 23.12")
    ctx.emit("hqs_activated", side="soviet", hqs=sorted(chosen), rule="AGS-K 23.11")


def unsupport(ctx: Ctx, units: tuple[str, ...]) -> None:
    """`unsupport UNIT...`: the corps whose markers come off on Game-Turn 2 (24.22),
    replacing the referee's default pick while the player-turn has not begun (K161)."""
    state = ctx.state
    opts = game.ext(state, "supported_options", None)
    if opts is None or not at_player_turn_start(state):
        raise Rejected(
            "Supported markers are removed at the beginning of the Soviet player-turn of "
            "Game-Turn 2, before any Soviet unit moves",
            "AGS-K 24.22",
            "K161",
        )
    chosen = sorted(dict.fromkeys(units))
    for u in chosen:
        if u not in opts["supported"]:
            raise Rejected(f"{u} has no Supported marker", "AGS-K 24.22")
    kept = [u for u in opts["supported"] if u not in chosen]
    oos = [u for u in opts["must_remove"] if u in kept]
    if oos:
        raise Rejected(
            f"{', '.join(oos)} is out of supply: its marker must come off", "AGS-K 24.22"
        )
    if len(kept) != int(opts["keep"]):
        remove = len(opts["supported"]) - int(opts["keep"])
        raise Rejected(
            f"remove exactly {remove} marker(s): {opts['keep']} stay", "AGS-K 24.22", "K160"
        )
    ctx.emit(
        "supported_removed",
        side="soviet",
        units=chosen,
        options=opts,
        by="soviet",
        rule="AGS-K 24.22",
    )


def announcements(state: GameState, side: str) -> list[str]:
    """What the Soviet player may choose as his player-turn begins."""
    if side != "soviet" or not at_player_turn_start(state):
        return []
    out = []
    sc = game.scenario(state)
    hqs = hqs_on_map(state)
    limit = sc.track.turn(state.turn).active_hqs
    active = game.ext(state, "active_hqs", [])
    if hqs:
        out.append(
            f"Active HQs: {', '.join(active) or 'none'} (at most {limit} this Game-Turn); "
            "change them now with `activate HQ...` (AGS-K 23.11, 23.12)."
        )
    opts = game.ext(state, "supported_options", None)
    if opts is not None:
        out.append(
            f"Supported corps: {', '.join(game.ext(state, 'supported', [])) or 'none'} keep "
            f"their markers; choose otherwise now with `unsupport UNIT...` (AGS-K 24.22)."
        )
    return out


def candidates(state: GameState) -> list[o.Order]:
    """A few choices for the fuzzer (`activate`, `unsupport`)."""
    if not at_player_turn_start(state):
        return []
    sc = game.scenario(state)
    hqs = hqs_on_map(state)
    limit = sc.track.turn(state.turn).active_hqs
    must = [h for h in sc.active_turn_1 if h in hqs] if state.turn == 1 else []
    out: list[o.Order] = []
    for h in [h for h in hqs if h not in must][:3]:
        pick = [*must, h][:limit]
        if pick:
            out.append(o.Activate(units=tuple(pick)))
    opts = game.ext(state, "supported_options", None)
    if opts is not None:
        for u in opts["may_keep"][:3]:
            others = [x for x in opts["may_keep"] if x != u][: max(0, int(opts["keep"]) - 1)]
            kept = [u, *others][: int(opts["keep"])]
            out.append(o.Unsupport(units=tuple(x for x in opts["supported"] if x not in kept)))
    return out


# --- offensive operations and leadership (23.2, 11.37) -------------------------------------


def leadership(state: GameState, hq: UnitState) -> int:
    """An HQ's leadership; half (rounded down) while it is out of supply (A32)."""
    lead = game.spec(state, hq.id).leadership or 0
    return lead if game.hq_in_supply(state, hq) else lead // 2


def operations_left(state: GameState, hq: str) -> int | None:
    """Offensive operations the HQ may still coordinate this Game-Turn (23.2); None before
    Game-Turn 5 (no limit)."""
    if state.turn < LIMIT_FROM_TURN:
        return None
    used = int(game.ext(state, "operations", {}).get(hq, 0))
    return leadership(state, state.units[hq]) // 2 - used


def charged_hq(state: GameState, attackers: list[UnitState], named: tuple[str, ...]) -> str:
    """The active HQ the attack is charged to (A40): the one named (`support HQ`), which must
    be in command of every attacker; else the referee's pick (K161): of the active HQs in
    command of every attacker, the one with the most operations left, then by id.
    Rejected (23.23) when there is none."""
    eligible: set[str] | None = None
    for a in attackers:
        mine = set(game.commanding_hqs(state, a, active_only=True))
        eligible = mine if eligible is None else eligible & mine
    eligible = eligible or set()
    if len(named) > 1:
        raise Rejected("name one HQ to coordinate an attack", "AGS-K 23.2", "A40")
    if named:
        hq = named[0]
        u = state.units.get(hq)
        if u is None or u.side != "soviet" or not game.spec(state, hq).is_hq or not u.on_map:
            raise Rejected(f"{hq} is not a Soviet HQ on the map", "AGS 11.37")
        if hq not in game.ext(state, "active_hqs", []):
            raise Rejected(f"{hq} is inactive", "AGS-K 23.13")
        if hq in game.ext(state, "disrupted", []):
            raise Rejected(
                f"{hq} is disrupted: it coordinates no attack or overrun until its "
                "Disruption Removal Phase",
                "AGS 6.32, 6.33",
                "K172",
            )
        if hq not in eligible:
            raise Rejected(
                f"{hq} has no line of communications to every attacker", "AGS 11.31", "A40"
            )
        left = operations_left(state, hq)
        if left is not None and left <= 0:
            raise Rejected(
                f"{hq} has coordinated all the offensive operations its leadership allows "
                "this Game-Turn",
                "AGS-K 23.2, 23.23",
            )
        return hq
    if not eligible:
        raise Rejected(
            "no active HQ has a line of communications to every attacker", "AGS-K 23.23", "A40"
        )
    ranked = sorted(eligible, key=lambda h: (-(operations_left(state, h) or 0), h))
    best = ranked[0]
    left = operations_left(state, best)
    if left is not None and left <= 0:
        raise Rejected(
            "every active HQ in command of these attackers has used its offensive operations "
            "this Game-Turn (half its leadership)",
            "AGS-K 23.2, 23.23",
        )
    return best


def leadership_added(
    state: GameState, hq: str, attackers: list[UnitState], strengths: dict[str, int]
) -> tuple[int, str] | None:
    """AGS 11.37: an HQ stacked with attackers adds its leadership, never more than those
    stacked units' strength after supply (A34: capped at the halved strength, itself not
    halved; A32: an HQ out of supply counts half). None when it is not stacked with one."""
    u = state.units[hq]
    stacked = [a for a in attackers if a.hex == u.hex]
    if not stacked:
        return None
    lead = leadership(state, u)
    cap = sum(strengths[a.id] for a in stacked)
    add = min(lead, cap)
    why = f"+{add} leadership of {hq} (AGS 11.37"
    if add < lead:
        why += "; capped at the stacked units' strength, A34"
    if lead < (game.spec(state, hq).leadership or 0):
        why += "; HQ out of supply: half, A32"
    return add, why + ")"


def event_fields(hq: str, led: bool) -> dict[str, Any]:
    return {"hq": hq, "led": led}
