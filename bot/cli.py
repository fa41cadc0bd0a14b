"""`kessel`: the command line (DESIGN §6).

    kessel                       the Discord bot if a token is configured, else local play
    kessel play [SCENARIO|GAME] [--db FILE] [--vs SIDE|--hotseat] [--seed N] [--level L]
                                 play at this terminal (games kept in kessel.db; no scenario:
                                 a menu of unfinished games and scenarios; L: the built-in
                                 opponent's strength 1-3, 0 the baseline)
    kessel scenarios             list the shipped scenarios
    kessel run SCENARIO [--orders FILE|-] [--dice 3,4,6,1] [--seed N] [--json] [--save FILE]
               [--view SIDE|spectator|moderator]
    kessel moves SCENARIO UNIT [--orders FILE]   where a unit may move now, with costs
    kessel validate PATH|ID      check a map, countersheet or scenario; list every problem
    kessel validate --data DIR [PATH|ID]   check a league's data directory (docs/ags.md)
    kessel buildmap ID [--check]  rebuild scenarios/maps/ID.yaml from its geography (docs/maps.md)
    kessel render SCENARIO|RECORD [--view SIDE|spectator|moderator]
               [--around HEX --radius N | --box HEX HEX] [--zoom Z] [--out FILE.png]
    kessel bench [SCENARIO] [--json FILE] [--quick]   time engine and renderer vs. targets
    kessel bot [--db FILE] [--sync global|guild ID]   the Discord referee (token: env/kessel.toml)
    kessel mail [--db FILE] [--once]   the referee by e-mail (IMAP/SMTP; docs/mail.md)
    kessel load [--games 200] [--seconds 60] [--rate 20] [--store sqlite|postgresql://...]
                                 load the service and its store (--processes 2: two bots)
    kessel migrate --from sqlite:kessel.db --to postgresql://... [--replace]
                                 copy every game to another store, and check the copy
    kessel fuzz [SCENARIO...] [--seeds N] [--from S] [--max-inputs M]   self-play fuzzing
    kessel duel [SCENARIO...] [--seeds N] [--from S] [--level L] [--turns T] [--json FILE]
                                 the WB-95 opponent against the baseline, each side in turn

Every `--db` takes a file (or `sqlite:FILE`) or a `postgresql://user@host/db` URL
(docs/deploy.md); so does KESSEL_DB.

The commands that play take `--data DIR` (else KESSEL_DATA, else kessel.toml's [league]
data): a league's data files in place of the shipped ones (issue #19, docs/ags.md).

Exit status: 0 ok, 1 a bad file or argument, 2 a rejected order.
"""

from __future__ import annotations

# Only the standard library at module level: `kessel --help` and the quick commands load
# the engine, the scenarios, the renderer, the store or discord.py only when they use
# them (issue #13; `kessel bench` measures the start-up against the bare interpreter).
import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

if TYPE_CHECKING:
    from bot.script import Source
    from engine.state import GameState
    from engine.system import RuleSystem
    from engine.view import View

MODERATOR = "moderator"  # engine.view.MODERATOR (a test checks), the --view default
# commands that read the shipped data only (validate reads a league's directory itself)
NO_DATA = frozenset({"bench", "load", "buildmap", "validate", "duel", "migrate"})
# commands that load stored games, which may play the operator's named data sets (None:
# `kessel` alone, local play or the bot)
USES_SETS = frozenset({"play", "league", "verify", "bot", "mail", None})


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # --help (0), or a bad argument (1, with the usage)
        return e.code if isinstance(e.code, int) else 1
    try:
        if args.command not in NO_DATA:  # a league's data directory (issue #19)
            refused = _use_data(args)
            if refused is not None:
                return refused
        if args.command == "run":
            return _run(args)
        if args.command == "scenarios":
            return _scenarios()
        if args.command == "moves":
            return _moves(args)
        if args.command == "render":
            return _render(args)
        if args.command == "bench":
            from bot.bench import main as bench

            return bench(args)
        if args.command == "load":
            from bot.load import main as load

            return load(args)
        if args.command == "migrate":
            from bot.migrate import main as migrate

            return migrate(args)
        if args.command == "fuzz":
            from bot.fuzz import main as fuzz

            return fuzz(args)
        if args.command == "duel":
            from bot.systems.wb95.duel import main as duel

            return duel(args)
        if args.command == "validate":
            return _validate(args.target, args.data)
        if args.command == "verify":
            return _verify(args.game, args.db)
        if args.command == "league":
            return _league(args.words, args.db, args.who)
        if args.command == "buildmap":
            from scenarios.mapbuild import main as buildmap

            return buildmap([*args.ids, *(["--check"] if args.check else [])])
        if args.command == "play":
            return _play(args)
        if args.command == "bot":
            from bot.discord.run import main as bot

            return bot(args)
        if args.command == "mail":
            from bot.mail.loop import main as mail

            return mail(args)
        return _default()
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("kessel: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # the command's error boundary: a sentence, never a traceback
        from bot import incident
        from bot.script import SourceError  # loaded only once a command has failed

        if isinstance(e, SourceError):
            print(f"kessel: {_clip(str(e))}", file=sys.stderr)
            return 1
        incident.to_file()
        iid = incident.record(e, f"kessel {args.command or ''}".strip())
        print(f"kessel: {incident.sentence(iid, where=True)}", file=sys.stderr)
        return 3


class _Parser(argparse.ArgumentParser):
    """A bad argument exits 1 ("a bad file or argument"), as documented; argparse's own
    2 is the code of a rejected order. The argument is quoted cut and made visible."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
        self.exit(1, f"kessel: {_clip(text, 500)}\n")


def _clip(text: str, n: int = 2000) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _seed(text: str) -> int:
    """--seed: the one seed check of every entry point (engine/numbers.py)."""
    return _typed(lambda t: int(_numbers().seed(t, "--seed")))(text)


def _whole(lo: int, hi: int) -> Callable[[str], int]:
    return _typed(lambda text: _numbers().whole(text, "the value", lo, hi))


def _decimal(lo: float, hi: float) -> Callable[[str], float]:
    return _typed(lambda text: _numbers().decimal(text, "the value", lo, hi))


def _numbers() -> Any:
    """engine/numbers.py, loaded when an argument is parsed (not for `--help`)."""
    from engine import numbers

    return numbers


T = TypeVar("T")


def _typed(parse: Callable[[str], T]) -> Callable[[str], T]:
    """An argparse `type`: engine/numbers.py's parsing, its refusal as argparse's error."""

    def typed(text: str) -> T:
        from engine.numbers import NumberError

        try:
            return parse(text)
        except NumberError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return typed


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kessel", description="Kessel, a wargame referee")
    sub = p.add_subparsers(dest="command")
    run = sub.add_parser("run", help="apply a script of orders and print the final state")
    run.add_argument("scenario", help="scenario file, shipped scenario id, or game export")
    run.add_argument("--orders", help="file of orders, or - for standard input")
    run.add_argument("--dice", help="force the next single d6 faces, e.g. 3,4,6,1")
    run.add_argument("--seed", type=_seed, help="seed of the dice generator (default 0)")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.add_argument("--save", help="write a game export that replays to this position")
    run.add_argument("--force", action="store_true", help="--save may replace any file")
    _data_option(run)
    run.add_argument(
        "--view",
        default=MODERATOR,
        metavar="SIDE|spectator|moderator",
        help="print the state as this viewer sees it (fog of war, sealed inputs); "
        "default moderator: everything",
    )
    play = sub.add_parser(
        "play", help="play at this terminal: hot seat, or against the built-in opponent"
    )
    play.add_argument(
        "scenario", nargs="?", help="shipped scenario id, scenario file, game export or game id"
    )
    play.add_argument(
        "--db",
        default="kessel.db",
        metavar="FILE",
        help="a file or postgresql:// URL; default kessel.db",
    )
    how = play.add_mutually_exclusive_group()
    how.add_argument("--vs", metavar="SIDE", help="the built-in opponent plays SIDE")
    how.add_argument("--hotseat", action="store_true", help="every side at this screen")
    play.add_argument("--seed", type=_seed, help="seed of the dice (default: a random one)")
    play.add_argument(
        "--level",
        type=_whole(0, 3),
        metavar="L",
        help="the opponent's strength: 1-3, 0 the old one",
    )
    _data_option(play)
    _data_option(sub.add_parser("scenarios", help="list the shipped scenarios"))
    rd = sub.add_parser("render", help="draw the map as a viewer sees it (PNG)")
    rd.add_argument("scenario", help="scenario file, shipped scenario id, or game export")
    rd.add_argument("--view", default=MODERATOR, metavar="SIDE|spectator|moderator")
    rd.add_argument("--around", metavar="HEX", help="crop: a window around this hex")
    rd.add_argument("--radius", type=_whole(0, 99), default=None, metavar="N", help="with --around")
    rd.add_argument("--box", nargs=2, metavar="HEX", help="crop: the hexes between two corners")
    rd.add_argument(
        "--zoom", type=_decimal(0.1, 8), help="scale (default 1 for the map, 2 for a crop)"
    )
    rd.add_argument("--out", default="map.png", metavar="FILE.png", help="default map.png")
    rd.add_argument("--force", action="store_true", help="--out may replace any file")
    rd.add_argument("--events", action="store_true", help="draw the last phase's moves and combats")
    rd.add_argument(
        "--hq-range", type=_whole(0, 30), default=None, metavar="N", help="HQ range rims"
    )
    rd.add_argument("--control", action="store_true", help="outline controlled hexes")
    rd.add_argument(
        "--supply", action="store_true", help="the viewer's lines of supply: reach and cuts"
    )
    rd.add_argument(
        "--legend", action="store_true", help="the map's full legend instead of the map"
    )
    _data_option(rd)
    be = sub.add_parser("bench", help="time the engine and the renderer against the targets")
    be.add_argument("scenario", nargs="?", default="korsun-1944")
    be.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    be.add_argument("--quick", action="store_true", help="one repetition each (a smoke run)")
    ld = sub.add_parser("load", help="load the referee service and its store (loopback)")
    ld.add_argument("--games", type=_whole(1, 100_000), default=200, metavar="N", help="games")
    ld.add_argument("--seconds", type=_decimal(0.1, 86_400), default=60.0, metavar="S")
    ld.add_argument("--rate", type=_decimal(0.01, 10_000), default=20.0, metavar="R")
    ld.add_argument("--seed", type=_seed, default=1, metavar="N")
    ld.add_argument("--db", metavar="FILE", help="database file (default: a temporary one)")
    ld.add_argument(
        "--store",
        default="sqlite",
        metavar="sqlite|URL",
        help="sqlite (default), or postgresql://user@host/db (an empty database for the run)",
    )
    ld.add_argument(
        "--processes",
        type=_whole(1, 16),
        default=1,
        metavar="N",
        help="bot processes sharing a PostgreSQL store (default 1)",
    )
    ld.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    fz = sub.add_parser("fuzz", help="self-play with random players, checking invariants")
    fz.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="default: all shipped")
    fz.add_argument("--seeds", type=_whole(1, 10**6), default=10, metavar="N", help="per scenario")
    fz.add_argument("--from", dest="start", type=_seed, default=0, metavar="S", help="first seed")
    fz.add_argument("--max-inputs", type=_whole(1, 10**7), default=5000, metavar="M")
    fz.add_argument("--max-turns", type=_whole(1, 999), default=None, metavar="T")
    fz.add_argument("--out", default="fuzz-failures", metavar="DIR", help="reproducers")
    fz.add_argument("--players", default="random", help="random, opponent or both: a,b")
    _data_option(fz)
    du = sub.add_parser("duel", help="the built-in opponent against the baseline (issue #23)")
    du.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="default: the duel set")
    du.add_argument(
        "--seeds",
        type=_whole(1, 1000),
        default=None,
        metavar="N",
        help="per side (default: the duel set's: demo-steblev 100, deblockade 4, prokhorovka 4)",
    )
    du.add_argument("--from", dest="start", type=_seed, default=1, metavar="S", help="first seed")
    du.add_argument("--level", type=_whole(1, 3), default=2, metavar="L", help="1..3 (default 2)")
    du.add_argument("--turns", type=_whole(1, 999), default=None, metavar="T", help="stop early")
    du.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    mv = sub.add_parser("moves", help="list where a unit may move now")
    mv.add_argument("scenario")
    mv.add_argument("unit")
    mv.add_argument("--orders", help="orders to apply first")
    _data_option(mv)
    bm = sub.add_parser("buildmap", help="rebuild a shipped map from its geography")
    bm.add_argument("ids", nargs="+", metavar="ID", help="map id: korsun, kursk, prokhorovka")
    bm.add_argument("--check", action="store_true", help="only check the map file is fresh")
    from bot.discord.options import add_arguments as bot_arguments

    bt = sub.add_parser("bot", help="run the Discord referee (needs a bot token)")
    bot_arguments(bt)
    _data_option(bt)
    from bot.mail.options import add_arguments as mail_arguments

    ml = sub.add_parser("mail", help="run the referee by e-mail (IMAP or SMTP; docs/mail.md)")
    mail_arguments(ml)
    _data_option(ml)
    lg = sub.add_parser(
        "league", help="leagues on a game database: seasons, pairings, standings, ratings"
    )
    lg.add_argument("words", nargs="*", help="a league command; `kessel league help` lists them")
    lg.add_argument(
        "--db",
        default="kessel.db",
        metavar="FILE",
        help="a file or postgresql:// URL; default kessel.db",
    )
    lg.add_argument(
        "--as", dest="who", metavar="NAME", help="act as this local player (default: you)"
    )
    _data_option(lg)
    mg = sub.add_parser("migrate", help="copy every game to another store, and check the copy")
    mg.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="SOURCE",
        help="sqlite:FILE (or a path), or postgresql://user@host/db",
    )
    mg.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="TARGET",
        help="the same kinds; a PostgreSQL database must exist (createdb)",
    )
    mg.add_argument("--replace", action="store_true",
                    help="empty a target that is not empty, then copy into it")  # fmt: skip
    vf = sub.add_parser(
        "verify", help="check a game's dice: its seed's commitment and every logged roll"
    )
    vf.add_argument("game", help="the game id")
    vf.add_argument(
        "--db",
        default="kessel.db",
        metavar="FILE",
        help="a file or postgresql:// URL; default kessel.db",
    )
    _data_option(vf)
    va = sub.add_parser(
        "validate", help="check a map, countersheet or scenario file, or a league's data"
    )
    va.add_argument(
        "target",
        nargs="?",
        help="a file, or the id of a shipped scenario, map or countersheet (with --data DIR: "
        "checked with the league's files in place)",
    )
    _data_option(va)
    return p


def _data_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data",
        metavar="DIR",
        help="a league's data files in place of the shipped ones (default: KESSEL_DATA, "
        "kessel.toml [league] data; docs/ags.md)",
    )


def _use_data(args: argparse.Namespace) -> int | None:
    """Read the league's data directory the command names (--data, KESSEL_DATA,
    kessel.toml) in place of the shipped files; exit 1, using nothing of it, when it has
    a problem."""
    from bot.league_data import ConfigError, configured

    try:
        where = configured(getattr(args, "data", None))
    except ConfigError as e:
        print(f"kessel: {_clip(str(e))}", file=sys.stderr)
        return 1
    if where is not None:
        from scenarios.override_check import activate

        problems = activate(where)
        if problems:
            for problem in problems[:50]:
                print(_clip(problem), file=sys.stderr)
            print(
                f"kessel: the league's data in {where} are not used: {len(problems)} "
                f"problem(s) (`kessel validate --data {where}` lists them)",
                file=sys.stderr,
            )
            return 1
    return _declare_sets() if args.command in USES_SETS else None


def _declare_sets() -> int | None:
    """Declare the operator's named data sets (kessel.toml `[data.NAME]`), each checked
    whole; exit 1, declaring none, when one has a problem (scenarios/data_sets.py)."""
    from bot.league_data import ConfigError, sets

    try:
        named = sets()
    except ConfigError as e:
        print(f"kessel: {_clip(str(e))}", file=sys.stderr)
        return 1
    if not named:
        return None
    from scenarios.override_check import declare

    problems = declare(named)
    if not problems:
        return None
    for problem in problems[:50]:
        print(_clip(problem), file=sys.stderr)
    bad = [n for n in named if any(p.startswith(f"data set {n}: ") for p in problems)]
    print(
        f"kessel: the data sets of kessel.toml are not used: {len(problems)} problem(s) in "
        + ", ".join(f"{n} (`kessel validate --data {named[n]}` lists them)" for n in bad),
        file=sys.stderr,
    )
    return 1


def _play(args: argparse.Namespace) -> int:
    from bot.local import play

    if args.level is not None:  # the WB-95 opponent's strength (issue #23)
        from bot.systems import wb95

        wb95.set_level(args.level)
    return play(args.scenario, db=args.db, vs=args.vs, hotseat=args.hotseat, seed=args.seed)


def _discord_configured() -> bool:
    """A Discord bot token in the environment (KESSEL_DISCORD_TOKEN), kessel.toml or .env."""
    import os

    try:
        from bot.discord.config import load_config
    except ImportError:
        return bool(os.environ.get("KESSEL_DISCORD_TOKEN", "").strip())
    return load_config() is not None


def _default() -> int:
    """`kessel` alone (`make run`): the Discord bot when a token is configured, else local
    play at this terminal."""
    if _discord_configured():
        if "bot" in _commands():
            return main(["bot"])
        print(
            "kessel: a Discord token is configured, but this Kessel has no Discord bot "
            "(`kessel bot`) yet; starting local play instead.",
            file=sys.stderr,
        )
    from bot.local import play

    return play()


def _commands() -> set[str]:
    for action in _parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return set(action.choices)
    return set()  # pragma: no cover


def _league(words: list[str], db: str, who: str | None) -> int:
    """`kessel league ...` on the local games of a database (the same commands as local
    play's `league`): the person at the command line organises; `--as NAME` acts as a
    named local player (to sign up, or to look at one's own record)."""
    import asyncio

    from bot.local import local_caller
    from bot.script import SourceError
    from bot.service import Refusal
    from bot.service.league_commands import run
    from bot.service.referee import Referee
    from bot.store import StoreError

    caller = local_caller(who, organiser=who is None)

    async def act() -> list[str]:
        ref = await Referee.open(db)
        try:
            out = await run(ref.leagues, caller, words)
            return [out] if isinstance(out, str) else [r.text for r in out]
        finally:
            await ref.close()

    try:
        texts = asyncio.run(act())
    except Refusal as e:
        print(f"kessel: {_clip(str(e))}", file=sys.stderr)
        return 2
    except StoreError as e:
        raise SourceError(str(e)) from None
    for t in texts:
        print(t.rstrip("\n"))
    return 0


def _verify(game: str, db: str) -> int:
    """Exit 0 when every roll of the game comes from its seed and the seed matches its
    commitment, 2 when one does not (a tampered log), 1 for no such game or database. The
    holder of the database file sees every game: no seat is asked for."""
    import asyncio

    from bot.safefile import is_file
    from bot.script import SourceError
    from bot.service import Refusal
    from bot.service.referee import Referee, dice_report
    from bot.store import StoreError

    if not db.startswith(("postgresql://", "postgres://")) and not is_file(
        db.removeprefix("sqlite:")
    ):
        raise SourceError(f"there is no game database '{db}'")

    async def check() -> str:
        ref = await Referee.open(db, read_only=True, opponents=None)
        try:
            g = await ref.game(game)
            return dice_report(g, (await ref.whole_record(g)).events)
        finally:
            await ref.close()

    try:
        text = asyncio.run(check())
    except (Refusal, StoreError) as e:
        raise SourceError(str(e)) from None
    print(text)
    return 2 if "✘" in text else 0


def _validate(target: str | None, data: str | None) -> int:
    """Exit 0 when the file (or the league's data directory) is good, 1 with every
    problem listed when it is not. A file is checked with the league's data in place of
    the shipped files when a data directory is named (--data, KESSEL_DATA, kessel.toml);
    with no file, the default directory and every data set kessel.toml declares are."""
    from pathlib import Path

    from bot.league_data import ConfigError, configured, sets
    from bot.script import SourceError
    from scenarios import overrides
    from scenarios.errors import ScenarioError
    from scenarios.override_check import problems as data_problems
    from scenarios.validate import Report, validate

    try:
        where = configured(data)
        named = sets() if target is None else {}  # the operator's data sets, all checked
    except ConfigError as e:
        raise SourceError(str(e)) from None
    if target is None and where is None and not named:
        raise SourceError(
            "validate what? a file, a shipped id, --data DIR, or the data sets of kessel.toml "
            "([data.NAME] dir = ...)"
        )
    reports = []
    if where is not None:
        reports.append(Report("league data", where, tuple(data_problems(Path(where)))))
    for name, directory in named.items():
        reports.append(Report(f"data set {name}", directory, tuple(data_problems(Path(directory)))))
    if target is not None:
        scope = where if where is not None and reports[0].ok else None
        try:
            with overrides.scoped(None if scope is None else Path(scope)):
                reports.append(validate(target))
        except ScenarioError as e:
            raise SourceError(str(e)) from None
    for report in reports:
        if report.ok:
            print(f"{report.file}: {report.kind} ok")
            continue
        for problem in report.problems:
            print(problem, file=sys.stderr)
        print(f"{report.file}: {len(report.problems)} problem(s)", file=sys.stderr)
    return 0 if all(r.ok for r in reports) else 1


def _write(name: str, data: str | bytes, force: bool, what: str) -> None:
    """A file the user named: never over a game database, nor over another file without
    --force; atomically (bot/safefile.py)."""
    from bot.safefile import WriteRefused, write_file
    from bot.script import SourceError

    try:
        write_file(name, data, force=force, stores=_stores(), what=what)
    except WriteRefused as e:
        raise SourceError(str(e)) from None


def _stores() -> list[str]:
    """The game databases this command could be pointed at: KESSEL_DB and kessel.db."""
    import os

    return [os.environ.get("KESSEL_DB") or "kessel.db", "kessel.db"]


def _read_orders(ref: str | None) -> str:
    from bot.script import SourceError
    from scenarios.errors import ScenarioError
    from scenarios.yamlio import MAX_BYTES, decode_text, read_text

    if ref is None:
        return ""
    try:  # the one reading path: regular files, a size limit, UTF-8 (issue #14)
        if ref == "-":
            stdin = getattr(sys.stdin, "buffer", None)  # a text stream in tests
            if stdin is None:
                return sys.stdin.read(MAX_BYTES)
            data = stdin.read(MAX_BYTES + 1)
            if len(data) > MAX_BYTES:
                raise SourceError(f"standard input: more than {MAX_BYTES:,} bytes of orders")
            return decode_text(data, "standard input", "orders")
        return read_text(ref, "orders file")
    except ScenarioError as e:
        raise SourceError(str(e)) from None


def _dice(text: str | None) -> list[int]:
    from bot.script import SourceError
    from engine.dice import parse_faces

    if not text:
        return []
    try:
        return parse_faces(text)
    except ValueError as e:
        raise SourceError(f"--dice: {e}") from None


def _source(ref: str) -> Source:
    """`load_source`, its warning (an export played on other data, issue #19) on stderr."""
    from bot.script import load_source

    src = load_source(ref)
    if src.warning:
        print(f"kessel: warning: {src.warning}; the replay may differ", file=sys.stderr)
    return src


def _run(args: argparse.Namespace) -> int:
    import json

    from bot.script import (
        check_viewer,
        describe_event,
        export_yaml,
        result_json,
        run_script,
    )
    from engine.view import view, visible_events

    src = _source(args.scenario)
    viewer = check_viewer(src.setup, args.view)
    orders = src.orders + _read_orders(args.orders)
    seed = args.seed if args.seed is not None else (src.seed or 0)
    res = run_script(src.setup, orders, seed, src.dice + _dice(args.dice))
    if args.save:
        _write(args.save, export_yaml(res, src.scenario_ref), args.force, "game export")
    if args.json:
        print(json.dumps(result_json(res, viewer), ensure_ascii=False))
    else:
        for e in visible_events(res.record.events, viewer, res.record.state):
            if text := describe_event(e, src.setup.system):
                print(text)
        print(_turn_line(res.record.state))
        if viewer == MODERATOR:
            _print_units(res.record.state)
        else:
            _print_view(view(res.record.state, viewer), res.record.system)
        if res.rejected:
            r = res.rejected
            _rejected(r)
    return 2 if res.rejected else 0


def _rejected(r: dict[str, object]) -> None:
    """The refused line of a script, cut (a 1 MB line is not echoed whole)."""
    print(f"line {r['line']}: rejected: {_clip(str(r['order']), 200)}", file=sys.stderr)
    print(f"  {_clip(str(r['message']), 1000)}", file=sys.stderr)


def _turn_line(state: GameState) -> str:
    """The line `kessel run` prints before the units: "Turn 1 (26-27 Jan 1944): the ..." --
    the system's calendar (`RuleSystem.turn_dates`: AGS two days a turn, AGS-K 17.0)."""
    from engine import systems

    rules = systems.of(state)
    days = rules.turn_dates(state.setup, state.turn)
    when = ""
    if days:
        first, last = days[0], days[-1]
        span = (
            f"{first.day} {first:%b %Y}"
            if first == last
            else f"{first.day}-{last.day} {last:%b %Y}"
            if (first.month, first.year) == (last.month, last.year)
            else f"{first.day} {first:%b} - {last.day} {last:%b %Y}"
        )
        when = f" ({span})"
    over = " -- the game is over" if state.over else ""
    return f"Turn {state.turn}{when}: {rules.phase(state).title}{over}"


def _print_units(state: GameState) -> None:
    from engine import systems

    rules = systems.of(state)
    for u in sorted(state.units.values(), key=lambda x: (x.side, x.id)):
        where = "eliminated" if u.eliminated else (u.hex or "off map")
        print(f"  {u.side:8} {u.id:14} {where:10} {rules.strength_label(u.cel, u.max_cel)}")


def _print_view(v: View, rules: RuleSystem) -> None:
    for u in v.units:
        where = "eliminated" if u.eliminated else (u.hex or "off map")
        if u.known == "full" and u.cel is not None and u.max_cel is not None:
            what = f"{u.id:14} {rules.strength_label(u.cel, u.max_cel)}"
        elif u.known == "full":
            what = f"{u.id:14}"
        elif u.known == "type":
            what = f"({u.type})" + (f" {rules.strength_name} {u.cel}" if u.cel is not None else "")
        else:
            what = "? (masked stack)" if u.known == "masked" else "?"
        print(f"  {u.side:8} {where:10} {what}")


def _render(args: argparse.Namespace) -> int:
    from bot.script import SourceError, check_viewer, run_script
    from engine.view import visible_events
    from render import Around, Box, RenderError, snapshot, to_png
    from render.snapshot import Crop

    src = _source(args.scenario)
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
        _rejected(r)
        return 2
    try:
        events = (
            visible_events(res.record.events, viewer, res.record.state) if args.events else None
        )
        if args.legend:  # the map's legend as its own picture (#18, item 11)
            from render import legend

            png = to_png(legend(res.record.state, viewer))
            _write(args.out, png, args.force, "legend picture")
            print(f"{args.out}: {len(png) / 1024:.0f} KiB")
            return 0
        img = snapshot(
            res.record.state,
            viewer,
            crop=crop,
            zoom=args.zoom,
            control=args.control,
            hq_range=args.hq_range,
            events=events,
            supply=args.supply,
        )
        png = to_png(img)
    except RenderError as e:
        raise SourceError(str(e)) from None
    _write(args.out, png, args.force, "map picture")
    print(f"{args.out}: {len(png) / 1024:.0f} KiB")
    return 0


def _scenarios() -> int:
    from scenarios import list_scenarios
    from scenarios.provenance import data_note

    for info in list_scenarios():
        print(f"{info.id:24} {info.game:8} {info.turns:3} turns  {info.name}")
        note = data_note(info.path)  # issue #19: reconstructed data are said
        if note:
            print(f"{'':24} {note}")
    return 0


def _moves(args: argparse.Namespace) -> int:
    from bot.script import SourceError, run_script

    src = _source(args.scenario)
    res = run_script(src.setup, src.orders + _read_orders(args.orders), src.seed or 0, src.dice)
    if res.rejected:
        print(
            f"line {res.rejected['line']}: {_clip(str(res.rejected['message']))}", file=sys.stderr
        )
        return 2
    state = res.record.state
    if args.unit not in state.units:
        from engine.numbers import shown

        raise SourceError(f"there is no unit '{shown(args.unit, 40)}' in {state.setup.id}")
    rules = res.record.system
    moves = rules.legal_moves(state, args.unit)
    if not moves:
        why = rules.why_immobile(state, args.unit)
        print(f"{args.unit} cannot move now" + (f": {why[0]} ({why[1]})" if why else ""))
        return 0
    for h, r in sorted(moves.items(), key=lambda kv: (kv[1].cost, kv[0])):
        note = " (stops: enemy ZoC)" if r.stops else ""
        print(f"{h}  {rules.format_cost(r.cost):>5} MP  via {' '.join(r.path)}{note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
