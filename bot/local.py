"""Local play at the terminal, no Discord needed: what `make run` starts when no Discord
token is configured. Hot seat: whoever sits at the keyboard gives the orders of the side
the game awaits (or starts a line with `side:`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from bot.script import SourceError, describe_event, export_yaml, load_source
from engine.core import Rejection
from engine.notation import USAGE, NotationError, parse_order
from engine.record import GameRecord
from engine.view import MODERATOR, View, view
from engine.wb95 import flow
from engine.wb95.game import legal_moves
from engine.wb95.movement import fmt_mp
from engine.wb95.sequence import PHASES, title
from scenarios import list_scenarios

HELP = """Type orders in the notation, one per line, e.g.
  move s-232 0434            move a unit (cheapest path) or give the path: move s-232 0334 0434
  done                       end your part of the phase
Other commands:
  units [SIDE]               the units a side sees (default: the side to act)
  moves UNIT                 where a unit may move now, with costs
  orders                     the order forms
  undo                       take back your last order (not past a die roll)
  save FILE                  write a game export (replay it with: kessel run FILE)
  help, quit"""


def play(
    ref: str | None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> int:
    """Run a local game; `read`/`write` are replaceable for tests."""
    if ref is None:
        ref = _choose(read, write)
        if ref is None:
            return 0
    try:
        src = load_source(ref)
    except SourceError as e:
        write(f"kessel: {e}")
        return 1
    rec = GameRecord(src.setup, src.seed or 0, tuple(src.dice))
    for e in rec.start_events:
        write(describe_event(e))
    for raw in src.orders.splitlines():
        order = parse_order(raw)
        if order is not None:
            rec.submit(None, order)
    write(f"{src.setup.name}. Type 'help' for commands.")
    while True:
        if rec.state.over:
            write(f"The game is over: {rec.state.result}")
            return 0
        try:
            line = read(_prompt(rec)).strip()
        except EOFError:
            write("")
            return 0
        if not line:
            continue
        word, _, rest = line.partition(" ")
        cmd = word.lower()
        if cmd in ("quit", "exit"):
            return 0
        if cmd == "help":
            write(HELP)
        elif cmd == "orders":
            write("\n".join(USAGE.values()))
        elif cmd == "units":
            _show_units(rec, rest.strip().lower() or None, write)
        elif cmd == "moves":
            _show_moves(rec, rest.strip(), write)
        elif cmd == "undo":
            awaited = flow.awaited_sides(rec.state)
            if not awaited:
                write("nothing to undo")
                continue
            r = rec.undo(awaited[0])
            write(str(r) if isinstance(r, Rejection) else f"undone: {r.line}")
        elif cmd == "save":
            _save(rec, src.scenario_ref, rest.strip(), write)
        else:
            _order(rec, line, write)


def _choose(read: Callable[[str], str], write: Callable[[str], None]) -> str | None:
    infos = list_scenarios()
    write("Kessel — local play. Shipped scenarios:")
    for i, info in enumerate(infos, 1):
        write(f"  {i}. {info.id} — {info.name} ({info.game}, {info.turns} turns)")
    while True:
        try:
            ans = read("Scenario number or id (q to quit): ").strip()
        except EOFError:
            return None
        if ans.lower() in ("q", "quit", ""):
            return None
        if ans.isdigit() and 1 <= int(ans) <= len(infos):
            return infos[int(ans) - 1].id
        if any(info.id == ans for info in infos) or Path(ans).is_file():
            return ans
        write(f"no scenario '{ans}'")


def _prompt(rec: GameRecord) -> str:
    s = rec.state
    ph = PHASES[s.phase]
    awaited = ", ".join(flow.awaited_sides(s))
    return f"[turn {s.turn} · {title(ph, s.setup.side_names)} · awaiting {awaited}] > "


def _order(rec: GameRecord, line: str, write: Callable[[str], None]) -> None:
    try:
        order = parse_order(line)
    except NotationError as e:
        write(f"not understood: {e.problem}")
        return
    if order is None:
        return
    result = rec.submit(None, order)
    if isinstance(result, Rejection):
        write(f"rejected: {result}")
        return
    for e in result.events:
        if text := describe_event(e):
            write(text)
    for d in rec.state.pending:
        write(f"  {d.side} decides {d.kind}: {d.options}")


def _show_units(rec: GameRecord, side: str | None, write: Callable[[str], None]) -> None:
    viewer = side or (flow.awaited_sides(rec.state) or [MODERATOR])[0]
    try:
        v: View = view(rec.state, viewer)
    except ValueError as e:
        write(str(e))
        return
    for u in v.units:
        where = "eliminated" if u.eliminated else (u.hex or "off map")
        if u.known == "full":
            vals = f"{u.sp}-{u.mp}" if u.art is None else f"{u.art[0]}/{u.art[1]}-{u.mp}"
            write(f"  {u.side:8} {where:10} {u.id:14} {u.type:6} {vals:8} CEL {u.cel}/{u.max_cel}")
        else:
            seen = f"{u.type}, {u.cel} CEL" if u.known == "type" else "?"
            write(f"  {u.side:8} {where:10} (counter {u.stack_pos + 1} of stack: {seen})")
    if v.vp:
        write(f"  VPs: {v.vp}")


def _show_moves(rec: GameRecord, unit: str, write: Callable[[str], None]) -> None:
    moves = legal_moves(rec.state, unit)
    if not moves:
        write(f"{unit or 'that unit'} cannot move now")
        return
    for h, r in sorted(moves.items(), key=lambda kv: (kv[1].cost, kv[0])):
        note = " (stops: enemy ZoC)" if r.stops else ""
        write(f"  {rec.state.setup.map.label(h)}: {fmt_mp(r.cost)} MP via {' '.join(r.path)}{note}")


def _save(rec: GameRecord, scenario_ref: object, path: str, write: Callable[[str], None]) -> None:
    if not path:
        write("save needs a file name")
        return
    from bot.script import RunResult

    try:
        Path(path).write_text(export_yaml(RunResult(rec), scenario_ref), encoding="utf-8")
    except OSError as e:
        write(f"cannot write {path}: {e.strerror}")
        return
    write(f"saved to {path}; replay with: kessel run {path}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(play(sys.argv[1] if len(sys.argv) > 1 else None))
