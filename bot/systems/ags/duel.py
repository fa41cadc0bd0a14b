"""The AGS duel (issue #19): the built-in opponent (bot/systems/ags/opponent.py) against
the baseline (bot/systems/ags/baseline.py, the first opponent) on `ags-korsun`, each side
in turn, over fixed seeds. Per game: the victory level (AGS-K 27.3, whose winner decides
win, draw or loss), the VP margin of the new opponent's side (its points less the other
side's, 27.1, 27.2), the same side's margin when the baseline plays both sides on that
seed (the scenario is lopsided: the Soviet needs 60 points more than the German for a
draw, so the gain over the baseline says more than the level), and the longest time
either took to think over one of its player-turns.

`python -m bot.systems.ags.duel [--seeds N] [--from S] [--turns T] [--side SIDE]
[--no-reference]`."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from bot.systems import Chooser
from bot.systems.ags.baseline import Opponent as Baseline
from bot.systems.ags.opponent import Opponent
from engine.ags import game as ags_game
from engine.core import Applied
from engine.record import GameRecord
from scenarios import load_scenario

SCENARIO = "ags-korsun"


@dataclass
class Game:
    seed: int
    new_side: str | None  # None: the baseline on both sides
    vp: dict[str, int]
    level: str
    winner: str | None
    turns: int
    seconds: float
    longest: dict[str, float]  # "new" / "baseline" -> the longest player-turn's thinking
    overruns: int  # the new opponent's
    activations: int  # the new opponent's `activate` inputs

    def margin_of(self, side: str) -> int:
        other = "german" if side == "soviet" else "soviet"
        return self.vp[side] - self.vp[other]

    @property
    def margin(self) -> int:
        return self.margin_of(self.new_side or "soviet")

    @property
    def result(self) -> str:
        if self.winner is None:
            return "draw"
        return "win" if self.winner == self.new_side else "loss"


def players(new_side: str | None, seed: int) -> dict[str, Chooser]:
    return {
        s: (Opponent(s, seed) if s == new_side else Baseline(s, seed)).choose
        for s in ("soviet", "german")
    }


def play(
    seed: int, new_side: str | None, turns: int | None = None, max_inputs: int = 20000
) -> Game:
    """One game, `new_side` played by the opponent, the other by the baseline; `turns`
    stops it early (the points are then those scored so far)."""
    rec = GameRecord(load_scenario(SCENARIO), seed)
    chooser = players(new_side, seed)
    spent: dict[tuple[int, str], float] = {}
    overruns = activations = 0
    start = time.perf_counter()
    for _ in range(max_inputs):
        st = rec.state
        if st.over or (turns is not None and st.turn > turns):
            break
        side = ([d.side for d in st.pending] or rec.system.awaited_sides(st))[0]
        t0 = time.perf_counter()
        order = chooser[side](st) or rec.system.next_default(st, side)
        key = (st.turn, side)
        spent[key] = spent.get(key, 0.0) + time.perf_counter() - t0
        if order is None:
            raise RuntimeError(f"seed {seed}: {side} is stuck")
        phase = rec.system.phase(st)
        r = rec.submit(side, order)
        if not isinstance(r, Applied):
            raise RuntimeError(f"seed {seed}: {side}: {order} refused: {r}")
        if side == new_side:
            activations += order.verb == "activate"
            overruns += order.verb == "attack" and phase.kind == "movement"
    longest = {"new": 0.0, "baseline": 0.0}
    for (_, s), secs in spent.items():
        who = "new" if s == new_side else "baseline"
        longest[who] = max(longest[who], secs)
    result = rec.state.result or {}
    vp = dict(rec.state.ext["vp"])
    level = ags_game.scenario(rec.state).victory.level(vp["soviet"], vp["german"])
    return Game(
        seed=seed,
        new_side=new_side,
        vp=vp,
        level=str(result.get("level", f"unfinished, {level}")),
        winner=result.get("winner") if result else _winner(level),
        turns=min(rec.state.turn, rec.state.setup.turns),
        seconds=time.perf_counter() - start,
        longest=longest,
        overruns=overruns,
        activations=activations,
    )


def _winner(level: str) -> str | None:
    """AGS-K 27.3: the side a level names (as engine/ags/scoring.py reads it)."""
    return (
        "soviet" if level.startswith("Soviet") else "german" if level.startswith("German") else None
    )


def line(g: Game) -> str:
    who = g.new_side or "(baseline both)"
    return (
        f"seed {g.seed:<3} new={who:<7} {g.result:<4} margin {g.margin:+d} "
        f"(vp soviet {g.vp['soviet']} german {g.vp['german']}; {g.level}) turns {g.turns} "
        f"{g.seconds:.0f}s; longest player-turn new {g.longest['new']:.1f}s base "
        f"{g.longest['baseline']:.1f}s; overruns {g.overruns}, activations {g.activations}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bot.systems.ags.duel")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--from", dest="start", type=int, default=1)
    ap.add_argument("--turns", type=int, default=None)
    ap.add_argument("--side", choices=("soviet", "german"), default=None)
    ap.add_argument("--no-reference", action="store_true", help="no baseline-only games")
    args = ap.parse_args(argv)
    games, refs = [], {}
    for seed in range(args.start, args.start + args.seeds):
        if not args.no_reference:
            refs[seed] = play(seed, None, args.turns)
            print(line(refs[seed]), flush=True)
        for side in [args.side] if args.side else ["soviet", "german"]:
            g = play(seed, side, args.turns)
            games.append(g)
            ref = f" (baseline's margin {refs[seed].margin_of(side):+d})" if refs else ""
            print(line(g) + ref, flush=True)
    for side in ("soviet", "german"):
        mine = [g for g in games if g.new_side == side]
        if mine and not refs:
            wins = sum(g.result == "win" for g in mine)
            mean = sum(g.margin for g in mine) / len(mine)
            print(f"as {side}: {wins}/{len(mine)} wins (27.3), mean VP margin {mean:+.1f}")
        elif mine:
            wins = sum(g.result == "win" for g in mine)
            mean = sum(g.margin for g in mine) / len(mine)
            gain = sum(g.margin - refs[g.seed].margin_of(side) for g in mine) / len(mine)
            better = sum(g.margin > refs[g.seed].margin_of(side) for g in mine)
            print(
                f"as {side}: {wins}/{len(mine)} wins (27.3), mean VP margin {mean:+.1f}, "
                f"{gain:+.1f} on the baseline's; better on {better}/{len(mine)} seeds"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
