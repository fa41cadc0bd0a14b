"""`kessel`: the command line (DESIGN §6).

    kessel                       local play: pick a shipped scenario and play it here
    kessel play [SCENARIO]       local play of a scenario (shipped id or file) or game export
    kessel scenarios             list the shipped scenarios
    kessel run SCENARIO [--orders FILE|-] [--dice 3,4,6,1] [--seed N] [--json] [--save FILE]
               [--view SIDE|spectator|moderator]
    kessel moves SCENARIO UNIT [--orders FILE]   where a unit may move now, with costs
    kessel validate PATH|ID      check a map, countersheet or scenario; list every problem
    kessel buildmap ID [--check]  rebuild scenarios/maps/ID.yaml from its geography (docs/maps.md)
    kessel render SCENARIO|RECORD [--view SIDE|spectator|moderator]
               [--around HEX --radius N | --box HEX HEX] [--zoom Z] [--out FILE.png]
    kessel bench [SCENARIO]      time map snapshots (render + PNG) against the budgets

Exit status: 0 ok, 1 a bad file or argument, 2 a rejected order.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.script import (
    SourceError,
    check_viewer,
    describe_event,
    export_yaml,
    load_source,
    result_json,
    run_script,
)
from engine.dice import parse_faces
from engine.state import GameState
from engine.view import MODERATOR, View, view, visible_events
from engine.wb95.game import legal_moves
from engine.wb95.movement import fmt_mp
from scenarios import list_scenarios


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "scenarios":
            return _scenarios()
        if args.command == "moves":
            return _moves(args)
        if args.command == "render":
            return _render(args)
        if args.command == "bench":
            from render.bench import bench

            print("\n".join(bench(args.scenario)))
            return 0
        if args.command == "validate":
            return _validate(args.target)
        if args.command == "buildmap":
            from scenarios.mapbuild import main as buildmap

            return buildmap([*args.ids, *(["--check"] if args.check else [])])
        from bot.local import play

        return play(getattr(args, "scenario", None))
    except SourceError as e:
        print(f"kessel: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kessel", description="Kessel, a wargame referee")
    sub = p.add_subparsers(dest="command")
    run = sub.add_parser("run", help="apply a script of orders and print the final state")
    run.add_argument("scenario", help="scenario file, shipped scenario id, or game export")
    run.add_argument("--orders", help="file of orders, or - for standard input")
    run.add_argument("--dice", help="force the next single d6 faces, e.g. 3,4,6,1")
    run.add_argument("--seed", type=int, help="seed of the dice generator (default 0)")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.add_argument("--save", help="write a game export that replays to this position")
    run.add_argument(
        "--view",
        default=MODERATOR,
        metavar="SIDE|spectator|moderator",
        help="print the state as this viewer sees it (fog of war, sealed inputs); "
        "default moderator: everything",
    )
    play = sub.add_parser("play", help="play a scenario locally (hot seat)")
    play.add_argument("scenario", nargs="?")
    sub.add_parser("scenarios", help="list the shipped scenarios")
    rd = sub.add_parser("render", help="draw the map as a viewer sees it (PNG)")
    rd.add_argument("scenario", help="scenario file, shipped scenario id, or game export")
    rd.add_argument("--view", default=MODERATOR, metavar="SIDE|spectator|moderator")
    rd.add_argument("--around", metavar="HEX", help="crop: a window around this hex")
    rd.add_argument("--radius", type=int, default=None, metavar="N", help="with --around")
    rd.add_argument("--box", nargs=2, metavar="HEX", help="crop: the hexes between two corners")
    rd.add_argument("--zoom", type=float, help="scale (default 1 for the map, 2 for a crop)")
    rd.add_argument("--out", default="map.png", metavar="FILE.png", help="default map.png")
    rd.add_argument("--events", action="store_true", help="draw the last phase's moves and combats")
    rd.add_argument("--hq-range", type=int, default=None, metavar="N", help="HQ range rims")
    rd.add_argument("--control", action="store_true", help="outline controlled hexes")
    be = sub.add_parser("bench", help="time map snapshots against the budgets")
    be.add_argument("scenario", nargs="?", default="korsun-1944")
    mv = sub.add_parser("moves", help="list where a unit may move now")
    mv.add_argument("scenario")
    mv.add_argument("unit")
    mv.add_argument("--orders", help="orders to apply first")
    bm = sub.add_parser("buildmap", help="rebuild a shipped map from its geography")
    bm.add_argument("ids", nargs="+", metavar="ID", help="map id: korsun, kursk, prokhorovka")
    bm.add_argument("--check", action="store_true", help="only check the map file is fresh")
    va = sub.add_parser("validate", help="check a map, countersheet or scenario file")
    va.add_argument("target", help="a file, or the id of a shipped scenario, map or countersheet")
    return p


def _validate(target: str) -> int:
    """Exit 0 when the file is good, 1 with every problem listed when it is not."""
    from scenarios.errors import ScenarioError
    from scenarios.validate import validate

    try:
        report = validate(target)
    except ScenarioError as e:
        raise SourceError(str(e)) from None
    if report.ok:
        print(f"{report.file}: {report.kind} ok")
        return 0
    for problem in report.problems:
        print(problem, file=sys.stderr)
    print(f"{report.file}: {len(report.problems)} problem(s)", file=sys.stderr)
    return 1


def _read_orders(ref: str | None) -> str:
    if ref is None:
        return ""
    if ref == "-":
        return sys.stdin.read()
    try:
        return Path(ref).read_text(encoding="utf-8")
    except OSError as e:
        raise SourceError(f"{ref}: {e.strerror or e}") from None


def _dice(text: str | None) -> list[int]:
    if not text:
        return []
    try:
        return parse_faces(text)
    except ValueError as e:
        raise SourceError(f"--dice: {e}") from None


def _run(args: argparse.Namespace) -> int:
    src = load_source(args.scenario)
    viewer = check_viewer(src.setup, args.view)
    orders = src.orders + _read_orders(args.orders)
    seed = args.seed if args.seed is not None else (src.seed or 0)
    res = run_script(src.setup, orders, seed, src.dice + _dice(args.dice))
    if args.save:
        Path(args.save).write_text(export_yaml(res, src.scenario_ref), encoding="utf-8")
    if args.json:
        print(json.dumps(result_json(res, viewer), ensure_ascii=False))
    else:
        for e in visible_events(res.record.events, viewer):
            if text := describe_event(e):
                print(text)
        if viewer == MODERATOR:
            _print_units(res.record.state)
        else:
            _print_view(view(res.record.state, viewer))
        if res.rejected:
            r = res.rejected
            print(f"line {r['line']}: rejected: {r['order']}\n  {r['message']}", file=sys.stderr)
    return 2 if res.rejected else 0


def _print_units(state: GameState) -> None:
    for u in sorted(state.units.values(), key=lambda x: (x.side, x.id)):
        where = "eliminated" if u.eliminated else (u.hex or "off map")
        print(f"  {u.side:8} {u.id:14} {where:10} CEL {u.cel}/{u.max_cel}")


def _print_view(v: View) -> None:
    for u in v.units:
        where = "eliminated" if u.eliminated else (u.hex or "off map")
        if u.known == "full":
            what = f"{u.id:14} CEL {u.cel}/{u.max_cel}"
        elif u.known == "type":
            what = f"({u.type})" + (f" CEL {u.cel}" if u.cel is not None else "")
        else:
            what = "? (masked stack)" if u.known == "masked" else "?"
        print(f"  {u.side:8} {where:10} {what}")


def _render(args: argparse.Namespace) -> int:
    from render import Around, Box, RenderError, snapshot, to_png
    from render.snapshot import Crop

    src = load_source(args.scenario)
    viewer = check_viewer(src.setup, args.view)
    crop: Crop | None = None
    if args.around and args.box:
        raise SourceError("use either --around HEX --radius N or --box HEX HEX, not both")
    if args.around:
        crop = Around(args.around, 3 if args.radius is None else args.radius)
    elif args.radius is not None:
        raise SourceError("--radius goes with --around HEX")
    elif args.box:
        crop = Box(args.box[0], args.box[1])
    res = run_script(src.setup, src.orders, src.seed or 0, src.dice)
    if res.rejected:
        r = res.rejected
        print(f"line {r['line']}: rejected: {r['order']}\n  {r['message']}", file=sys.stderr)
        return 2
    try:
        events = visible_events(res.record.events, viewer) if args.events else None
        img = snapshot(
            res.record.state,
            viewer,
            crop=crop,
            zoom=args.zoom,
            control=args.control,
            hq_range=args.hq_range,
            events=events,
        )
        png = to_png(img)
    except RenderError as e:
        raise SourceError(str(e)) from None
    try:
        Path(args.out).write_bytes(png)
    except OSError as e:
        raise SourceError(f"{args.out}: {e.strerror or e}") from None
    print(f"{args.out}: {len(png) / 1024:.0f} KiB")
    return 0


def _scenarios() -> int:
    for info in list_scenarios():
        print(f"{info.id:24} {info.game:8} {info.turns:3} turns  {info.name}")
    return 0


def _moves(args: argparse.Namespace) -> int:
    src = load_source(args.scenario)
    res = run_script(src.setup, src.orders + _read_orders(args.orders), src.seed or 0, src.dice)
    if res.rejected:
        print(f"line {res.rejected['line']}: {res.rejected['message']}", file=sys.stderr)
        return 2
    moves = legal_moves(res.record.state, args.unit)
    if not moves:
        print(f"{args.unit} cannot move now")
        return 0
    for h, r in sorted(moves.items(), key=lambda kv: (kv[1].cost, kv[0])):
        note = " (stops: enemy ZoC)" if r.stops else ""
        print(f"{h}  {fmt_mp(r.cost):>5} MP  via {' '.join(r.path)}{note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
