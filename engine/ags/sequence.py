"""The Korsun sequence of play (AGS 4.2; AGS-K 19.11, 19.12, 20.1, 23.11, 28.0).

Each Game-Turn is the Soviet player-turn, then the German (19.11), each an Initial
Movement Phase, a Combat Phase and a Mechanized Movement Phase. The Disruption Removal
Phase has nothing to remove without overruns, and the Air Power Phase nothing to do
without air supply (both not yet played, docs/ags.md), so they pass without an input.
At the start of the Soviet player-turn the turn's weather, air points (19.8) and active
HQs (23.11) are set; at the start of each movement phase the phasing side's supply is
checked (A11); reinforcements enter in the Initial Movement Phase (15.0, 26.0)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.ags import game
from engine.core import Ctx
from engine.state import GameState


@dataclass(frozen=True)
class PhaseSpec:
    side: str
    kind: str  # "movement" | "combat"
    number: int  # as printed in AGS 4.2
    name: str
    mech: bool = False  # the Mechanized Movement Phase: cavalry, HQs, mechanized (4.2)


PHASES: tuple[PhaseSpec, ...] = (
    PhaseSpec("soviet", "movement", 1, "Initial Movement Phase"),
    PhaseSpec("soviet", "combat", 2, "Combat Phase"),
    PhaseSpec("soviet", "movement", 3, "Mechanized Movement Phase", mech=True),
    PhaseSpec("german", "movement", 1, "Initial Movement Phase"),
    PhaseSpec("german", "combat", 2, "Combat Phase"),
    PhaseSpec("german", "movement", 3, "Mechanized Movement Phase", mech=True),
)


def current(state: GameState) -> PhaseSpec:
    return PHASES[state.phase]


def title(state: GameState) -> str:
    from engine.ags import deploy

    before = deploy.title(state)  # AGS-K 18.2, K170
    if before is not None:
        return before
    p = current(state)
    return f"the {p.side.capitalize()} {p.name}, turn {state.turn}"


def start_game(ctx: Ctx) -> None:
    """The German set-up step first (AGS-K 18.2, K170); its `done` starts Game-Turn 1."""
    from engine.ags import deploy

    deploy.open_setup(ctx)


def start_turn(ctx: Ctx, turn: int) -> None:
    """AGS 4.2 C, then the Soviet player-turn's start: weather (AGS-K 20.1; 28.0 with the
    optional rule, from turn 4), air points (19.8; unused ones lapse, A43), active HQs
    (23.11, 23.12)."""
    sc = game.scenario(ctx.state)
    die = None
    if sc.variable_weather and turn >= sc.track.variable_from:
        die = ctx.roll(1, "weather", rule="AGS-K 28.0")[0]
    weather = sc.track.weather(turn, die)
    points = sc.track.effects[weather].air_points
    ctx.emit(
        "turn_started",
        turn=turn,
        date=sc.date(turn).isoformat(),
        weather=weather,
        air={"soviet": points, "german": points},
        active_hqs=_active_hqs(ctx.state, turn),
        supported=_supported(ctx.state, turn),
    )
    start_phase(ctx, turn, 0)
    from engine.ags import command

    command.open_turn_decisions(ctx, turn)  # the Soviet player's choices (23.11, 24.22)


def _active_hqs(state: GameState, turn: int) -> list[str]:
    """The HQs active as the turn begins, until the Soviet player chooses them
    (`engine.ags.command`, 23.11, 23.12, A33; also the deadline default, K161): the
    printed turn-1 HQs first, then those active before, then the HQs in the scenario's
    order, up to the schedule's number."""
    sc = game.scenario(state)
    limit = sc.track.turn(turn).active_hqs
    hqs = [u.id for u in state.on_map("soviet") if game.spec(state, u.id).is_hq]
    before = game.ext(state, "active_hqs", [])
    order = [*sc.active_turn_1, *before, *hqs]
    out: list[str] = []
    for h in order:
        if h in hqs and h not in out and len(out) < limit:
            out.append(h)
    return out


def _supported(state: GameState, turn: int) -> list[str]:
    """Supported corps (AGS-K 24.2, A5): the corps in the printed hexes on turn 1; on
    turn 2 those still on the map, until the Soviet player removes markers
    (`engine.ags.command`, 24.22, K160); none from turn 3 (24.23)."""
    sc = game.scenario(state)
    if turn == 1:
        return sorted(u.id for u in state.on_map("soviet") if u.hex in sc.supported)
    if sc.supported_removal.get(turn, 0) is None:
        return []
    return [uid for uid in game.ext(state, "supported", []) if state.units[uid].on_map]


def start_phase(ctx: Ctx, turn: int, index: int) -> None:
    p = PHASES[index]
    ctx.emit("phase_started", turn=turn, index=index, side=p.side, title=p.name)
    if p.side == "german" and p.number == 1:
        from engine.ags import air

        air.start_of_german_player_turn(ctx)  # AGS-K 25.35
    if p.kind == "movement":
        check_supply(ctx, p.side)


def check_supply(ctx: Ctx, side: str) -> None:
    """A11: supply is judged at the start of each movement phase (AGS 4.2, 12.21): a unit
    out of supply then has its allowance halved for the phase (5.25)."""
    state = ctx.state
    units = [u for u in state.on_map(side)]
    out = sorted(u.id for u in units if not game.in_supply(state, u))
    isolated: list[str] = []
    if side == "german":
        supplied = {u.hex for u in units if u.id not in out and u.hex is not None}
        isolated = sorted(uid for uid in out if game.isolated(state, state.units[uid], supplied))
    ctx.emit("supply_checked", side=side, out_of_supply=out, isolated=isolated)


def end_phase(ctx: Ctx) -> None:
    """The phase ends: on to the next one, the next Game-Turn, or the game's end."""
    from engine.ags.scoring import end_game

    state = ctx.state
    if state.phase + 1 < len(PHASES):
        start_phase(ctx, state.turn, state.phase + 1)
    elif state.turn < game.scenario(state).turns:
        start_turn(ctx, state.turn + 1)
    else:
        end_game(ctx)
