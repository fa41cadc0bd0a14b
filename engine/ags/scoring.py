"""Victory points as they are earned, and the game's end (AGS-K 27.1-27.3; A38, A39)."""

from __future__ import annotations

from engine.ags import game
from engine.ags.victory import GermanClass, SovietClass
from engine.core import Ctx
from engine.state import UnitState

GERMAN_INFANTRY = ("infantry-regiment", "divisionsgruppe")  # 27.1 "infantry regiment"


def german_class(type_: str) -> GermanClass:
    """27.1; A39: an infantry-division counter scores as any other unit."""
    return "infantry-regiment" if type_ in GERMAN_INFANTRY else "other"


def soviet_class(size: str, is_hq: bool) -> SovietClass:
    if is_hq:
        return "hq"
    if size == "X":
        return "brigade"
    return "corps" if size == "XXX" else "division"


def step_lost(ctx: Ctx, u: UnitState, *, isolated: bool) -> None:
    """One step off `u` (AGS 9.61, 9.67) and the VPs it earns (27.1, 27.2)."""
    state = ctx.state
    sp = game.spec(state, u.id)
    left = u.cel - 1
    ctx.emit("step_lost", side=u.side, unit=u.id, hex=u.hex, steps_left=left)
    if left <= 0:
        eliminated(ctx, state.units[u.id], isolated=isolated, steps_before=1)
    elif u.side == "soviet" and soviet_class(sp.size, sp.is_hq) == "corps":
        vt = game.scenario(state).victory
        award(ctx, "german", vt.soviet_loss("corps", 1), f"a step of {u.id}", "AGS-K 27.2")


def eliminated(ctx: Ctx, u: UnitState, *, isolated: bool, steps_before: int | None = None) -> None:
    """`u` leaves the map for good (AGS 9.65) and scores (27.1, 27.2): a whole corps 12
    in all, its earlier steps' points included."""
    state = ctx.state
    sp = game.spec(state, u.id)
    vt = game.scenario(state).victory
    steps = u.cel if steps_before is None else steps_before
    if u.cel > 0 and steps_before is None:
        ctx.emit("step_lost", side=u.side, unit=u.id, hex=u.hex, steps_left=0, steps=u.cel)
    ctx.emit("unit_eliminated", side=u.side, unit=u.id, hex=u.hex)
    if u.side == "german":
        cls = german_class(sp.type)
        pts = vt.german_loss(cls, isolated)
        why = f"{u.id} destroyed" + (" while isolated (AGS-K 25.12)" if isolated else "")
        award(ctx, "soviet", pts, why, "AGS-K 27.1")
    else:
        scls = soviet_class(sp.size, sp.is_hq)
        if scls == "corps":
            earned = vt.soviet_loss("corps", u.max_cel - steps)
            award(
                ctx,
                "german",
                vt.soviet_loss("corps", whole=True) - earned,
                f"{u.id} destroyed",
                "AGS-K 27.2",
            )
        else:
            award(ctx, "german", vt.soviet_loss(scls), f"{u.id} destroyed", "AGS-K 27.2")


def award(ctx: Ctx, side: str, points: int, why: str, rule: str) -> None:
    if points:
        ctx.emit("vp_awarded", side=side, points=points, why=why, rule=rule)


def end_game(ctx: Ctx) -> None:
    """27.1: German units isolated on the map at the end score, and those with their
    Heavy Equipment marker under them (25.36; both, A38); 27.3: the difference read on
    the schedule."""
    state = ctx.state
    vt = game.scenario(state).victory
    supplied = {
        u.hex for u in state.on_map("german") if u.hex is not None and game.in_supply(state, u)
    }
    heavy = game.ext(state, "heavy", {})
    for u in sorted(state.on_map("german"), key=lambda x: x.id):
        iso = game.isolated(state, u, supplied)
        under = int(heavy.get(u.id, 0)) >= 3
        if iso or under:
            cls = german_class(game.spec(state, u.id).type)
            why = " and ".join(
                w for w, b in (("isolated", iso), ("with Heavy Equipment under it", under)) if b
            )
            award(
                ctx,
                "soviet",
                vt.german_at_end(cls, iso, under),
                f"{u.id} {why} at the end",
                "AGS-K 27.1, 25.36" if under else "AGS-K 27.1",
            )
    vp = game.ext(ctx.state, "vp", {"soviet": 0, "german": 0})
    level = vt.level(vp["soviet"], vp["german"])
    winner = (
        "soviet" if level.startswith("Soviet") else "german" if level.startswith("German") else None
    )
    ctx.emit(
        "game_ended",
        result={
            "winner": winner,
            "level": level,
            "vp": dict(vp),
            "why": f"Soviet {vp['soviet']} - German {vp['german']} = "
            f"{vp['soviet'] - vp['german']}: {level} (AGS-K 27.3)",
        },
    )
