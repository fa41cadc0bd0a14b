"""Local play at the terminal (`kessel play`, and `make run` when no Discord token is
configured): a terminal referee on the referee service (bot/service) with a SQLite file
in the working directory (default `kessel.db`).

Two ways to play:
- hot seat: the person at this terminal (`local:player`) holds every side; the side the
  game awaits gives its orders. At one shared screen the view is the moderator's (the
  service shows a person who holds every side everything).
- against the built-in opponent (`--vs SIDE`: the opponent plays SIDE, you the other
  sides): the game is created by `local:host`, you see only your side's view, and the
  service plays the opponent's inputs as soon as the game awaits it.

Every input is on disk before it is answered (the service's write path), so quitting at
any moment and starting again continues exactly where the game was. Bad input changes
nothing: the service refuses it and says why.

Reading and writing go through an `Out` (bot/terminal.py): rich tables, colour and
spinners at a terminal, plain text through injected `read`/`write` functions otherwise.
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import getpass
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from bot import describe, incident
from bot import systems as bot_systems
from bot.safefile import WriteRefused, is_file, write_file
from bot.service import Caller, Referee, Refusal, Reply
from bot.service.game import LiveGame
from bot.store import StoreError, is_postgres_url, shown_url
from bot.terminal import Out, PlainOut, RichOut, interactive, plain
from engine.notation import USAGE, NotationError, parse_order
from engine.notation import VERBS as ORDER_VERBS
from engine.numbers import NumberError, is_whole, shown, whole
from engine.view import SPECTATOR, UnitView
from scenarios import list_scenarios
from scenarios.yamlio import path_exists

DEFAULT_DB = "kessel.db"
GUILD, CHANNEL = "local", "terminal"
PLAYER_ID = "local:player"
HOST = Caller("local:host", "this terminal", guild=GUILD, channel=CHANNEL)

HELP = """Type orders in the notation, one per line (several lines pasted: one block, all or none):
  move s-232 0434            move a unit (cheapest path), or give the path: move s-232 0334 0434
  attack g-88a g-88b -> 1619 declare an attack; then answer its decisions (retreat, losses, ...)
  german: done               a line may name its side (hot seat, both sides awaited)
  done                       end your part of the phase (or a set-up step)
Other commands:
  status                     where the game is, who is awaited, open decisions
  legal                      what the side to act may do now, decisions with their options
  units [SIDE]               the units (default: the side to act) as you may see them
  moves UNIT                 where a unit may move now, with MP costs and paths
  odds ATTACK-ORDER          preview an attack, e.g. odds attack s-232 -> 1619
  log [new|N]                the turn log (new: since your last input; N: last N lines)
  map [HEX [RADIUS]]         write a PNG of the map in your view; around HEX if given
  map legend                 write a PNG of the map's legend (terrain, markers, counters)
  map supply [HEX [RADIUS]]  the map with your lines of supply: their reach, where they are cut
  undo                       take back your last input (not past a die roll)
  export FILE                a game record; `kessel run FILE` replays it
  verify                     check the dice once the game ends: seed, commitment, every roll
  league ...                 leagues and seasons on this machine's games (league help)
  mod COMMAND                moderator tools of the service (hot seat), e.g. mod rollback 120
  decision                   your open decision again; answer it by its number (e.g. 2)
  orders                     the order forms
  help, quit                 (the game is saved at every input: `kessel play` continues it)"""

COMMANDS = frozenset(
    {
        "help",
        "?",
        "quit",
        "exit",
        "q",
        "status",
        "legal",
        "units",
        "moves",
        "odds",
        "log",
        "map",
        "undo",
        "export",
        "verify",
        "league",
        "mod",
        "orders",
        "decision",
    }
)


def play(
    scenario: str | None = None,
    read: Callable[[str], str] | None = None,
    write: Callable[[str], None] | None = None,
    *,
    db: str | Path = DEFAULT_DB,
    vs: str | None = None,
    hotseat: bool = False,
    seed: int | None = None,
    out: Out | None = None,
    **referee_kw: Any,
) -> int:
    """Run local play until `quit` or the end of input; `read`/`write` (or `out`) are
    replaceable for tests and pipes. `referee_kw` goes to `Referee.open` (e.g. a test's
    `opponents=`). Returns the exit status."""
    if out is None:
        if read is None and write is None and interactive():
            out = RichOut()
        else:
            out = PlainOut(read or input, write or print)
    session = LocalPlay(out, db, **referee_kw)
    return asyncio.run(session.main(scenario, vs=None if hotseat else vs, seed=seed))


class LocalPlay:
    def __init__(
        self,
        out: Out,
        db: str | Path = DEFAULT_DB,
        *,
        confirm_done: bool | None = None,
        **referee_kw: Any,
    ) -> None:
        self.out = out
        # a file, or a PostgreSQL database's URL (issue #21), shown without its password
        self.db: Path | str = db if isinstance(db, str) and is_postgres_url(db) else Path(db)
        self.where = self.db if isinstance(self.db, Path) else shown_url(self.db)
        self.referee_kw = referee_kw
        # hot-seat safety (issue #17): a `done` for another step of play than the one of
        # the person's last input asks first -- at a terminal (not through a pipe)
        self.confirm_done = interactive() if confirm_done is None else confirm_done
        self.last_step: str | None = None  # the step the last accepted input was given in
        self.me = Caller(PLAYER_ID, _user_name(), guild=GUILD, channel=CHANNEL)
        self._ref: Referee | None = None
        self.gid: str | None = None
        self.live: LiveGame | None = None  # the game at the last prompt (tests look at it)
        self.as_side: str | None = None  # the side a `SIDE: command` names, while it runs

    @property
    def ref(self) -> Referee:
        assert self._ref is not None, "not open"
        return self._ref

    # --- the session ------------------------------------------------------------------
    async def main(self, scenario: str | None, *, vs: str | None, seed: int | None) -> int:
        incident.to_file()  # at the terminal, tracebacks go to the incident log only
        if (
            scenario is not None
            and isinstance(self.db, Path)
            and not self.db.exists()
            and not _starts_a_game(scenario)
        ):
            # a game id, but no database to find it in: say so, and create no empty file
            self.out.line(
                f"kessel: there is no {self.where} here, so no saved game "
                f"'{shown(scenario, 40)}'; `kessel play` lists the scenarios to start "
                "(or give --db FILE)",
                "bad",
            )
            return 1
        try:
            with self.out.busy(f"Opening {self.where}"):
                self._ref = await Referee.open(self.db, **self.referee_kw)
        except (StoreError, OSError) as e:
            said = str(e)  # the store's own "cannot open the game database X: ..." once
            if not (isinstance(e, StoreError) and said.startswith("cannot ")):
                said = f"cannot open {self.where}: {said}"
            self.out.line(f"kessel: {said}", "bad")
            return 1
        try:
            try:
                if scenario is None:
                    gid = await self.menu(vs, seed)
                else:
                    gid = await self.open_game(scenario, vs, seed)
            except Refusal as e:
                self.out.line(f"kessel: {e}", "bad")
                return 1
            except (EOFError, KeyboardInterrupt):
                self.out.line("")
                return 0
            except Exception as e:  # the error boundary of starting a session
                self.out.line(f"kessel: {self._incident(e, 'opening a game')}", "bad")
                return 1
            if gid is None:
                return 0
            self.gid = gid
            return await self.loop()
        finally:
            await self.ref.close()

    async def menu(self, vs: str | None, seed: int | None) -> str | None:
        """Unfinished local games to continue, and the shipped scenarios to start."""
        games = await self.ref.games(self.me, here=False, mine=True)
        self.out.line("Kessel — local play", "head")
        if games:
            rows = []
            for x in games:
                g = await self.ref.game(x["id"])
                ai = g.ai_sides()
                mode = f"vs opponent ({', '.join(ai)})" if ai else "hot seat"
                rows.append(
                    [x["id"], x["scenario"], x["where"], mode, await self._last_played(x["id"])]
                )
            self.out.table(
                f"Unfinished games in {self.where}:",
                ["game", "scenario", "now", "players", "last played"],
                rows,
            )
        infos = list_scenarios()
        self.out.table(
            "Scenarios to start:",
            ["#", "scenario", "name", "game", "turns", "data"],
            [
                [i, s.id, s.name, s.game, s.turns, _data_mark(s.path)]
                for i, s in enumerate(infos, 1)
            ],
        )
        ids = {x["id"] for x in games}
        while True:
            ask = "Game id to continue, or scenario number or id to start (q to quit): "
            ans = self.out.ask(ask if games else "Scenario number or id (q to quit): ").strip()
            if ans.lower() in ("q", "quit", "exit"):
                return None
            if not ans:
                continue
            if ans.lower() in ids:
                return ans.lower()
            if is_whole(ans) and 1 <= int(ans) <= len(infos):
                ans = infos[int(ans) - 1].id
            if any(s.id == ans for s in infos) or is_file(ans):
                if vs is None:
                    vs = await self._ask_mode(ans)
                return await self.open_game(ans, vs or None, seed)
            self.out.line(f"no game or scenario '{ans}'", "bad")

    async def _ask_mode(self, scenario: str) -> str:
        sides = await asyncio.to_thread(_sides_of, scenario)
        opts = "/".join(sides)
        while True:
            ans = (
                self.out.ask(
                    f"h: hot seat (every side at this screen), or the side the built-in "
                    f"opponent plays ({opts}) [h]: "
                )
                .strip()
                .lower()
            )
            if ans in ("", "h", "hot", "hotseat", "hot seat"):
                return ""
            if ans in sides:
                return ans
            self.out.line(f"answer h or one of {', '.join(sides)}", "bad")

    async def _last_played(self, gid: str) -> str:
        g = await self.ref.game(gid)
        last = await self.ref.store.log(gid, after=max(0, g.head - 1))
        ts = last[-1].ts if last else g.row.created_at
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))

    async def open_game(self, ref: str, vs: str | None, seed: int | None) -> str:
        """A new game of a shipped scenario, a scenario file or a game export; or an
        existing game of this db by its id."""
        # anything at that path is meant as a file (read_text then says what is wrong)
        path = Path(ref) if path_exists(ref) else None
        known = {s.id for s in list_scenarios()}
        if ref not in known and path is None:
            try:
                g = await self.ref.game(ref)
            except Refusal:
                raise Refusal(
                    f"'{shown(ref, 40)}' is neither a shipped scenario "
                    f"({', '.join(sorted(known))}), a file, nor a game in {self.where}"
                ) from None
            if not g.sides_of(self.me.id):
                raise Refusal(f"you hold no seat in game {g.id}")
            return g.id
        if vs is not None and not self._has_opponent():
            self.out.line(
                "The built-in opponent is not available in this Kessel (bot/systems does "
                "not load): the game is hot seat instead.",
                "warn",
            )
            vs = None
        creator = self.me if vs is None else HOST
        with self.out.busy("Setting up the game"):
            if path is not None and ref not in known:
                replies, gid = await self._from_file(creator, path, seed)
            else:
                replies = await self.ref.new_game(creator, ref, seed=seed)
                gid = _game_of(replies)
            g = await self.ref.game(gid)
            if vs is not None:
                vs = vs.strip().lower()
                if vs not in g.setup.sides:
                    raise Refusal(
                        f"'{vs}' is not a side of {g.setup.name}: {', '.join(g.setup.sides)}"
                    )
            for side in g.setup.sides:
                if side != vs:
                    replies += await self.ref.join(self.me, gid, side)
        if vs is not None:
            with self.out.busy(f"The built-in opponent ({vs}) sits down"):
                replies += await self.ref.seat_ai(HOST, gid, vs)
        # the seat-by-seat chatter of setting up is left out
        await self.show([r for r in replies if r.kind != "info" or r.to == "side"])
        return gid

    async def _from_file(
        self, creator: Caller, path: Path, seed: int | None
    ) -> tuple[list[Reply], str]:
        from scenarios import ScenarioError
        from scenarios.yamlio import parse_yaml, read_text

        try:  # the one reading path: regular files, a size limit, UTF-8 (issue #14)
            text = read_text(path, "scenario or game export")
            data = parse_yaml(text, str(path))
        except ScenarioError as e:
            raise Refusal(str(e)) from None
        if isinstance(data, dict) and data.get("kessel") == "game-export":
            replies = await self.ref.import_game(creator, text)
        elif isinstance(data, dict):
            replies = await self.ref.new_game(creator, path.stem, seed=seed, scenario_data=data)
        else:
            raise Refusal(f"{path}: neither a scenario nor a game export")
        return replies, _game_of(replies)

    def _has_opponent(self) -> bool:
        return self.ref.has_opponent

    # --- the prompt loop --------------------------------------------------------------
    async def loop(self) -> int:
        g = await self.ref.game(self.gid or "")
        self.out.line(
            f"{g.row.name} — game {g.id} in {self.where}. Type 'help' for commands.", "head"
        )
        await self.cmd_status([])
        replies = await self.ref.history(self.me, g.id, limit=8)
        await self.show(replies)
        await self._nudge_opponent()
        while True:
            try:
                text = self.out.ask(await self.prompt())
            except (EOFError, KeyboardInterrupt):
                self.out.line("")
                self._bye()
                return 0
            text = text.strip()
            if not text:
                continue
            try:
                if await self.command(text):
                    self._bye()
                    return 0
            except Refusal as e:
                self.out.line(f"refused: {e}", "bad")
            except Exception as e:  # the error boundary of one line: the game goes on
                self.out.line(self._incident(e, "a line of local play"), "bad")

    def _incident(self, e: Exception, where: str) -> str:
        iid = incident.record(e, where)
        return incident.sentence(
            iid, changed="the saved game is unharmed (`status` shows where it is)", where=True
        )

    def _bye(self) -> None:
        self.out.line(
            f"Game {self.gid} is saved in {self.where}; `kessel play` continues it.", "dim"
        )

    async def prompt(self) -> str:
        g = await self.ref.game(self.gid or "")
        self.live = g
        if g.status == "over" or g.state.over:
            return f"[{g.id} · game over] > "
        if g.status != "active":
            return f"[{g.id} · {g.status}] > "
        side = await self.acting_side()
        s = g.state
        what = f"T{s.turn} {_short_where(g.where())}"
        asks = [d for d in s.pending if d.side == side]
        if side is None:
            who = "awaiting " + ", ".join(g.awaited())
        elif asks:
            who = f"{side} decides: {asks[0].kind}"
        else:
            who = f"{side} to act"
        return f"[{g.id} · {what} · {who}] > "

    async def acting_side(self) -> str | None:
        """The side at the keyboard: the side named before the command (`german: units`),
        else the first side awaited that this person holds."""
        g = await self.ref.game(self.gid or "")
        mine = g.sides_of(self.me.id)
        if self.as_side is not None and self.as_side in mine:
            return self.as_side
        return next((s for s in g.awaited() if s in mine), None)

    async def _side_command(self, text: str) -> tuple[str, str] | None:
        """`SIDE: COMMAND ...` for one of the game's sides and a command that is not an
        order (orders keep their prefix, as the notation reads it): the side and the rest."""
        found = re.match(r"\s*([A-Za-z][A-Za-z-]*)\s*:\s*(\S.*)$", text, re.S)
        if found is None or self.gid is None:
            return None
        side, rest = found[1].lower(), found[2]
        verb = rest.split(maxsplit=1)[0].lower()
        if verb not in COMMANDS or verb in ORDER_VERBS:
            return None
        g = await self.ref.game(self.gid)
        if side not in g.setup.sides:
            return None
        if side not in g.sides_of(self.me.id):
            raise Refusal(f"you do not play {side} in game {g.id}")
        return side, rest

    async def command(self, text: str) -> bool:
        """One input; True to quit."""
        lines = [x for x in text.splitlines() if x.strip()]
        if len(lines) > 1:
            await self.cmd_orders(lines)
            return False
        prefixed = await self._side_command(text)
        if prefixed is not None:  # `soviet: undo` (issue #17: every prefix, every command)
            side, rest_text = prefixed
            self.as_side = side
            try:
                return await self.command(rest_text)
            finally:
                self.as_side = None
        word, _, rest = text.partition(" ")
        verb = word.lower()
        args = rest.split()
        if verb not in COMMANDS:
            if verb.rstrip(":") not in ORDER_VERBS and ":" not in verb:
                close = difflib.get_close_matches(verb, [*COMMANDS, *ORDER_VERBS], n=1)
                if close:  # `hlep`: a typo of a command or an order
                    raise Refusal(f"'{shown(word, 20)}' is not a command: did you mean {close[0]}?")
            await self.cmd_orders([text])
            return False
        lo, hi, usage = ARITY.get(verb, (0, 99, ""))
        if not lo <= len(args) <= hi:
            raise Refusal(f"usage: {usage}")
        if verb in ("quit", "exit", "q"):
            return True
        if verb in ("help", "?"):
            await self.cmd_help(args)
        elif verb == "orders":
            self.out.line("\n".join(USAGE.values()))
        elif verb == "status":
            await self.cmd_status(args)
        elif verb == "legal":
            await self.cmd_legal()
        elif verb == "decision":
            await self.cmd_decision()
        elif verb == "units":
            await self.cmd_units(args)
        elif verb == "moves":
            await self.cmd_moves(args)
        elif verb == "odds":
            await self.cmd_odds(rest.strip())
        elif verb == "log":
            await self.cmd_log(args)
        elif verb == "map":
            await self.cmd_map(args)
        elif verb == "undo":
            await self.cmd_undo()
        elif verb == "export":
            await self.cmd_export(args)
        elif verb == "verify":
            await self.show(await self.ref.verify(self.me, self._gid))
        elif verb == "league":
            await self.cmd_league(args)
        elif verb == "mod":
            with self.out.busy("Moderator command"):
                replies = await self.ref.mod(self.me, self._gid, rest.strip())
            await self.show(replies)
        return False

    @property
    def _gid(self) -> str:
        assert self.gid is not None
        return self.gid

    # --- orders -----------------------------------------------------------------------
    async def cmd_orders(self, lines: Sequence[str]) -> None:
        side = await self.acting_side()
        g = await self.ref.game(self._gid)
        several = len(g.sides_of(self.me.id)) > 1
        block = "\n".join(_with_side(x, side) if several else x for x in lines)
        step = g.step_key()
        if self.confirm_done and several and self._ends_another_step(block, step):
            where = g.where()
            ask = f"`done` now ends {where}, a step after your last input. End it? [y/N] "
            if self.out.ask(ask).strip().lower() not in ("y", "yes"):
                raise Refusal("not sent: nothing was ended (type the order again to send it)")
        ai = bool(g.ai_sides())
        with self.out.busy("The opponent plays" if ai else "Refereeing"):
            replies = await self.ref.orders(self.me, self._gid, block)
        self.last_step = step
        await self.show(replies)

    def _ends_another_step(self, block: str, step: str) -> bool:
        """The block says `done` and the game has moved on (another phase, side or
        decision) since the person's last input: the hot-seat trap of a `done` meant for
        a step that already closed by itself (a set-up step, an Air Phase)."""
        if self.last_step is None or self.last_step == step:
            return False
        try:
            orders = [parse_order(x) for x in block.splitlines()]
        except NotationError:
            return False
        return any(o is not None and o.verb == "done" for o in orders)

    async def _nudge_opponent(self) -> None:
        """If the game awaits only the built-in opponent (a restart between an input and
        the opponent's answer), let it play now."""
        g = await self.ref.game(self._gid)
        awaited = g.awaited()
        if not g.ai_sides() or not awaited or any(s not in g.ai_sides() for s in awaited):
            return
        with self.out.busy("The opponent plays"):
            replies = await self.ref.nudge(self._gid)
        await self.show(replies)

    # --- looks ------------------------------------------------------------------------
    async def cmd_status(self, args: Sequence[str]) -> None:
        replies = await self.ref.status(self.me, self._gid)
        g = await self.ref.game(self._gid)
        for r in replies:
            lines = plain(r.text).splitlines()
            self.out.panel(lines[0] if lines else "status", lines[1:])
            for p in r.data.get("pending", []):
                self._decision(p.get("side", ""), p.get("kind", ""), p.get("rule", ""), p, g)

    async def cmd_legal(self) -> None:
        side = await self.acting_side()
        with self.out.busy("Listing what may be done"):
            la = await self.ref.legal(self.me, self._gid, side)
        if not la:
            self.out.line("nothing: it is not your turn to act", "warn")
            return
        self.out.line(f"What {side} may do now:", "head")
        g = await self.ref.game(self._gid)
        for d in la.get("decisions") or []:
            self._decision(d["side"], d["kind"], d.get("rule", ""), d, g)
        rows: list[list[str]] = []

        def add(what: str, text: str) -> None:
            rows.append([what, text])

        moves = la.get("moves") or {}
        if moves:
            add("move", f"{len(moves)} units: " + _clip(" ".join(sorted(moves))))
        for u, hexes in sorted((la.get("entries") or {}).items()):
            add("enter", f"{u}: {_clip(' '.join(hexes), 60)}")
        for a in la.get("attacks") or []:
            add("attack", f"attack {' '.join(a['units'])} -> {' '.join(a['hexes'])}")
        for key in ("fire", "barrage"):
            for h, units in sorted((la.get(key) or {}).items()):
                add(key, f"{key} {' '.join(units)} -> {h}")
        air = la.get("air") or {}
        if air:
            targets = air.get("targets") or {}
            add(
                "air",
                f"{air.get('sp', 0)} SPs; counters {', '.join(air.get('counters') or []) or '-'};"
                " missions: "
                + ", ".join(f"{m} ({len(targets.get(m) or [])} hexes)" for m in air["missions"]),
            )
        for u, modes in sorted((la.get("setup") or {}).items()):
            add("setup", f"setup {u} {'|'.join(modes)}")
        if la.get("place_if"):
            add("place-if", f"{len(la['place_if'])} hexes, e.g. {' '.join(la['place_if'][:8])}")
        for key in ("fortify", "strategic"):
            if la.get(key):
                add(key, _clip(" ".join(la[key])))
        if la.get("mask"):
            add("mask", f"{len(la['mask'])} hexes, e.g. " + _clip(_compact(la["mask"]), 60))
        bridge = la.get("bridge") or {}
        if bridge.get("destroy"):
            add("bridge", "destroy " + " ".join(bridge["destroy"]))
        for b in bridge.get("build") or []:
            add("bridge", f"bridge build {b.get('hq')} {b.get('hexside')}")
        for key in ("reinforce", "withdraw", "repair", "stars", "delay", "leave", "defend"):
            if la.get(key):
                add(key, _clip(_compact(la[key])))
        if la.get("pass"):
            add("pass", "pass (decline this optional step)")
        add("done", "yes" if la.get("done") else "not yet (duties or decisions left)")
        self.out.table("", ["order", "what"], rows)

    async def cmd_help(self, args: Sequence[str]) -> None:
        """`help`, or `help ORDER`: the order's form and an example with a unit of the side
        at the keyboard (issue #17)."""
        if not args:
            self.out.line(HELP)
            return
        what = args[0].lower()
        if what not in USAGE:
            close = difflib.get_close_matches(what, list(USAGE), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise Refusal(f"no order '{shown(what, 20)}'{hint}; the orders: {', '.join(USAGE)}")
        self.out.line(f"{what}: {USAGE[what]}")
        example = await self._example(what)
        if example:
            self.out.line(f"for example: {example}")

    async def _example(self, verb: str) -> str:
        """An example of `verb` with this game's own units, where one is easy to make."""
        g = await self.ref.game(self._gid)
        side = await self.acting_side() or next(iter(g.sides_of(self.me.id)), None)
        if side is None:
            return ""
        units = sorted(u.id for u in g.state.on_map(side))
        if verb in ("move", "moves") and units:
            for uid in units:
                reach = g.system.legal_moves(g.state, uid)
                if reach:
                    return f"move {uid} {min(reach, key=lambda h: (reach[h].cost, h))}"
            return f"move {units[0]} HEX (none of your units may move now)"
        if verb in ("fortify", "strategic") and units:
            return f"{verb} {units[0]}"
        if verb == "attack" and units:
            return f"attack {units[0]} -> HEX (an enemy hex next to it; `odds` first)"
        if verb in ("done", "pass", "hq"):
            return {"done": "done", "pass": "pass", "hq": "hq decline"}[verb]
        return ""

    async def cmd_league(self, args: Sequence[str]) -> None:
        """League commands (issue #20); at this terminal the person is the organiser."""
        from bot.service.league_commands import run

        out = await run(self.ref.leagues, dataclasses.replace(self.me, server_mod=True), args)
        if isinstance(out, str):
            self.out.line(out.rstrip("\n"))
        else:
            await self.show(out)

    async def cmd_undo(self) -> None:
        """Take back the last input; `SIDE: undo` only if that input was the side's."""
        if self.as_side is not None:
            g = await self.ref.game(self._gid)
            last = await self.ref.last_input(g)  # (before the game's snapshot too)
            if last is not None and last.side != self.as_side:
                raise Refusal(
                    f"the last input was {last.side}'s ({last.line}), not {self.as_side}'s: "
                    "undo takes back the last input only"
                )
        await self.show(await self.ref.undo(self.me, self._gid))

    async def cmd_decision(self) -> None:
        """The open decision of the side at the keyboard, as its prompt, again."""
        g = await self.ref.game(self._gid)
        sides = [self.as_side] if self.as_side else g.sides_of(self.me.id)
        mine = [d for d in g.state.pending if d.side in sides]
        if not mine:
            self.out.line("no decision of yours is open", "dim")
            return
        d = mine[0]
        self._decision(d.side, d.kind, d.rule, {"options": d.options, "info": d.info}, g)

    def _decision(
        self, side: str, kind: str, rule: str, d: dict[str, Any], g: LiveGame | None = None
    ) -> None:
        """A pending decision as a prompt (bot.describe): what it is about (as this
        person sees it), the answers numbered, the order form."""
        mine = g.sides_of(self.me.id) if g is not None else []
        viewer = side if side in mine else (mine[0] if len(mine) == 1 else SPECTATOR)
        describer = describe if g is None else bot_systems.describer(g.state)
        text = describer.decision(
            kind,
            rule,
            d.get("options"),
            d.get("info"),
            side=side,
            state=None if g is None else g.state,
            viewer=viewer,
        )
        self._prompt(text)

    def _prompt(self, text: str) -> None:
        lines = plain(text).splitlines() or [""]
        self.out.panel(lines[0], lines[1:], "warn")

    async def cmd_units(self, args: Sequence[str]) -> None:
        g = await self.ref.game(self._gid)
        side = args[0].lower() if args else await self.acting_side()
        if side is not None and side not in g.setup.sides:
            raise Refusal(f"'{args[0]}' is not a side; the sides are {', '.join(g.setup.sides)}")
        with self.out.busy("Looking"):
            v = await self.ref.view(self.me, self._gid)
        shown = [u for u in v.units if (side is None or u.side == side) and not u.eliminated]
        gone = sum(1 for u in v.units if (side is None or u.side == side) and u.eliminated)
        rows = [_unit_row(u) for u in sorted(shown, key=_unit_key)]
        title = f"{side or 'All'} units as {v.viewer} sees them ({len(shown)}"
        title += f", {gone} eliminated)" if gone else ")"
        self.out.table(
            title,
            ["hex", "unit", "type", "SP", "MP", "CEL", "notes"],
            rows,
            styles=[f"side:{u.side}" for u in sorted(shown, key=_unit_key)],
        )
        if v.vp:
            self.out.line("VPs: " + ", ".join(f"{k} {n}" for k, n in v.vp.items()))

    async def cmd_moves(self, args: Sequence[str]) -> None:
        if len(args) != 1:
            raise Refusal("moves UNIT, e.g. moves s-232")
        with self.out.busy(f"Where {args[0]} may go"):
            moves = await self.ref.moves(self.me, self._gid, args[0])
        if not moves:  # the unit is the caller's (moves refused it otherwise): say why
            g = await self.ref.game(self._gid)
            uid = next((u for u in g.state.units if u.lower() == args[0].lower()), args[0])
            why = g.system.why_immobile(g.state, uid) if uid in g.state.units else None
            self.out.line(f"{args[0]} cannot move now" + (f": {why[0]} ({why[1]})" if why else ""))
            return
        self.out.table(
            f"{args[0]} may move to ({len(moves)} hexes):",
            ["hex", "MP", "path", ""],
            [
                [m["hex"], m["mp"], " ".join(m["path"]), "stops: enemy ZoC" if m["stops"] else ""]
                for m in moves
            ],
        )

    async def cmd_odds(self, text: str) -> None:
        if not text:
            raise Refusal("odds ATTACK, e.g. odds attack s-232 s-180 -> 1619")
        first = text.split()[0].lower()
        if first not in USAGE and ":" not in first:  # `odds s-232 -> 1619` is an attack
            text = "attack " + text
        g = await self.ref.game(self._gid)
        if len(g.sides_of(self.me.id)) > 1:
            text = _with_side(text, await self.acting_side())
        with self.out.busy("Reckoning the odds"):
            r = await self.ref.odds(self.me, self._gid, text)
        lines = str(r.get("text") or "").splitlines()
        if "attack_sp" in r:
            lo, hi = (r.get("defence_range") or [r.get("defence_sp"), r.get("defence_sp")])[:2]
            dfn = f"{lo} SP" if lo == hi else f"{lo} to {hi} SP (counters not seen in full)"
            lines.append(f"attack {r['attack_sp']} SP against a defence of {dfn}")
        lines += [f"  {x}" for x in r.get("explanation") or []]
        lines += [f"  unknown: {x}" for x in r.get("unknown") or []]
        if r.get("may_support"):
            guns = " ".join(r["may_support"])
            lines.append(
                f"artillery that could also support it (6.3): {guns} -- add: support {guns}"
            )
        self.out.panel("Odds preview (nothing was declared)", lines)
        results = r.get("results") or []
        if results:
            self.out.table(
                "",
                ["result", "on a roll of", "chance", "the attacker", "the defender"],
                [
                    [
                        x.get("result"),
                        ",".join(map(str, x.get("rolls", []))),
                        f"{100 * float(x.get('p', 0)):.0f} %",
                        x.get("attacker"),
                        x.get("defender"),
                    ]
                    for x in results
                ],
            )

    async def cmd_log(self, args: Sequence[str]) -> None:
        new = bool(args) and args[0].lower() in ("new", "since")
        limit = 40
        if args and not new:
            try:
                limit = whole(args[0], "the number of log lines", 1, 10_000)
            except NumberError as e:
                raise Refusal(f"{e}: {ARITY['log'][2]}") from None
        replies = await self.ref.history(self.me, self._gid, since_last=new, limit=limit)
        for r in replies:
            lines = plain(r.text).splitlines()
            self.out.panel(lines[0] if lines else "log", lines[1:], "dim")

    async def cmd_map(self, args: Sequence[str]) -> None:
        supply = bool(args) and args[0].lower() == "supply"
        if supply:
            args = args[1:]
        if len(args) > 2:
            raise Refusal(f"usage: {ARITY['map'][2]}")
        around = args[0] if args else None
        if around is not None and around.lower() == "legend" and len(args) == 1:
            await self._write_picture(
                f"kessel-{self._gid}-legend.png", self.ref.legend_png(self.me, self._gid), "legend"
            )
            return
        radius = 4
        if len(args) == 2:
            try:
                radius = whole(args[1], "the radius (hexes)", 0, 40)
            except NumberError as e:
                raise Refusal(str(e)) from None
        if around is not None and not re.fullmatch(r"[0-9]{3,4}", around):
            raise Refusal(f"'{around}' is not a hex number (e.g. 1619)")
        g = await self.ref.game(self._gid)
        s = g.state
        number = g.system.phase(s).number  # the phase's printed number (2.2)
        name = f"kessel-{g.id}-t{s.turn}-p{number}" + (f"-{around}" if around else "")
        name += "-supply.png" if supply else ".png"
        # `SIDE: map` is that side's view; in hot seat a supply map is the side to act's
        hot = supply and len(g.sides_of(self.me.id)) > 1
        viewer = self.as_side or (await self.acting_side() if hot else None)
        drawing = self.ref.map_png(
            self.me, self._gid, around=around, radius=radius, supply=supply, as_viewer=viewer
        )
        await self._write_picture(name, drawing, "supply map" if supply else "map")

    async def _write_picture(self, name: str, drawing: Awaitable[bytes], what: str) -> None:
        with self.out.busy(f"Drawing the {what}"):
            png = await drawing
        try:
            path = write_file(name, png, stores=[self.db], what=f"{what} picture")
        except WriteRefused as e:
            raise Refusal(str(e)) from None
        self.out.line(f"{what} written to {path.resolve()} ({len(png) / 1024:.0f} KiB)", "good")

    async def cmd_export(self, args: Sequence[str]) -> None:
        force = len(args) == 2 and args[1].lower() in ("force", "--force")
        if len(args) == 2 and not force:
            raise Refusal(f"usage: {ARITY['export'][2]}")
        text = await self.ref.export(self.me, self._gid)
        try:
            write_file(args[0], text, force=force, stores=[self.db], what="game export")
        except WriteRefused as e:
            raise Refusal(str(e)) from None
        self.out.line(f"exported to {args[0]}; replay it with: kessel run {args[0]}", "good")

    # --- replies ----------------------------------------------------------------------
    async def show(self, replies: Sequence[Reply]) -> None:
        """The service's replies as the person at this terminal should read them: their
        own answers, their sides' news and decisions, and the public turn announcements
        (not the public copies of what they already read)."""
        gid = self.gid or next((r.game for r in replies if r.game), None)
        mine = set((await self.ref.game(gid)).sides_of(self.me.id)) if gid else set()
        told = {r.text for r in replies if r.to == "caller"}
        side_news = any(r.to == "side" and r.side in mine and r.kind == "info" for r in replies)
        shown: set[str] = set()
        for r in replies:
            text = r.text
            if text in shown:
                continue
            if r.to == "caller":
                style = "bad" if r.kind == "error" else ("good" if r.kind == "result" else "")
                self.out.line(text, style)
            elif r.to == "side":
                if r.side not in mine:
                    continue
                if r.kind == "decision":  # the service's prompt (bot.describe.decision)
                    self._prompt(text)
                elif r.kind in ("turn",):
                    # the channel's "awaiting ..." line says whose turn it is; what the
                    # notice announces (entries, duties, supply: issue #17) is shown
                    extra = text.splitlines()[1:]
                    if extra:
                        self.out.line("\n".join(extra), f"side:{r.side}")
                else:
                    self.out.line(text, f"side:{r.side}")
            elif r.to == "channel":
                if r.kind == "result" and told and not text.startswith(f"Game {r.game}"):
                    continue  # the public copy of the caller's own result
                if r.kind == "turn" and side_news and not text.startswith(f"Game {r.game}"):
                    continue  # the opponent's moves: read in the side's own view
                if text in told:
                    continue
                self.out.line(text, "head" if r.kind in ("turn", "announcement") else "")
            elif r.to == "moderators" or (r.to == "user" and r.user == self.me.id):
                self.out.line(text, "warn")
            shown.add(text)


# --- helpers ------------------------------------------------------------------------------


# The commands' numbers of words after the verb, and their usage (extra or missing words
# are refused with it, never ignored).
ARITY: dict[str, tuple[int, int, str]] = {
    "help": (0, 1, "help"),
    "?": (0, 1, "help"),
    "quit": (0, 0, "quit"),
    "exit": (0, 0, "quit"),
    "q": (0, 0, "quit"),
    "status": (0, 0, "status"),
    "legal": (0, 0, "legal"),
    "units": (0, 1, "units [SIDE]"),
    "moves": (1, 1, "moves UNIT, e.g. moves s-180"),
    "log": (
        0,
        1,
        "log [new|N]: the turn log, what is new since your last input, or the last N lines",
    ),
    "map": (0, 3, "map [supply] [HEX [RADIUS]] | map legend"),
    "undo": (0, 0, "undo (takes back your last input)"),
    "export": (1, 2, "export FILE [force]: force replaces a file that is not a Kessel export"),
    "league": (0, 40, "league COMMAND ... (league help lists them)"),
    "verify": (0, 0, "verify (the dice: the seed's commitment and every roll, once it ends)"),
    "orders": (0, 0, "orders"),
    "decision": (0, 0, "decision (shows your open decision again; answer it by number)"),
}


def _starts_a_game(ref: str) -> bool:
    """A shipped scenario id or a file (scenario or export): what starts a new game."""
    return ref in {x.id for x in list_scenarios()} or path_exists(ref)


def local_caller(name: str | None = None, *, organiser: bool = False) -> Caller:
    """The person at this machine (`name`: a named local player, `local:NAME`); an
    organiser holds the moderator's rights of the local "server" (leagues, issue #20)."""
    if name is None:
        return Caller(PLAYER_ID, _user_name(), server_mod=organiser, guild=GUILD, channel=CHANNEL)
    clean = " ".join(name.split())[:40]
    return Caller(f"local:{clean}", clean, server_mod=organiser, guild=GUILD, channel=CHANNEL)


def _user_name() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # pragma: no cover - no user database
        return "player"


def _game_of(replies: Sequence[Reply]) -> str:
    for r in replies:
        if r.game:
            return r.game
    raise Refusal("the service made no game")  # pragma: no cover


def _sides_of(scenario: str) -> list[str]:
    from scenarios import ScenarioError, load_scenario

    try:
        return list(load_scenario(scenario).sides)
    except ScenarioError:
        return []


def _with_side(line: str, side: str | None) -> str:
    """`line` with the acting side in front when it names none (hot seat, where one
    person holds every side)."""
    if side is None:
        return line
    try:
        order = parse_order(line)
    except NotationError:
        return line  # the service explains what is wrong with it
    if order is None or order.side is not None:
        return line
    return f"{side}: {line.strip()}"


def _short_where(where: str) -> str:
    """ "soviet's Movement Phase (phase 3, turn 1) (1944-01-24)" -> "soviet's Movement Phase" """
    return where.split(" (phase")[0]


def _clip(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _compact(value: Any) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_compact(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return " ".join(_compact(v) for v in value)
    return str(value)


def _unit_key(u: UnitView) -> tuple[str, str, int]:
    return (u.hex or "~", u.side, u.stack_pos)


def _unit_row(u: UnitView) -> list[str]:
    if u.known != "full":
        what = {"masked": "? (masked stack)"}.get(u.known, "?")
        return [
            u.hex or "off map",
            what,
            u.type or "",
            "",
            "",
            "" if u.cel is None else str(u.cel),
            u.side,
        ]
    sp = f"{u.art[0]}/{u.art[1]}" if u.art is not None else ("" if u.sp is None else str(u.sp))
    if u.sp_now is not None:  # K15: what it counts in combat now
        sp = f"{u.sp_now} (of {u.sp}, reduced)"
    notes = []
    if u.stars:
        notes.append("★" + ",".join(u.stars))
    if u.oos:
        notes.append(f"out of supply {u.oos}")
    if u.disorganized:
        notes.append("disorganized")
    if u.fortification:
        notes.append(f"fort {u.fortification}")
    if u.setup:
        notes.append(u.setup)
    if u.strategic:
        notes.append("strategic")
    if u.arrives:
        notes.append("arrives " + _compact(u.arrives))
    cel = f"{u.cel}/{u.max_cel}" if u.cel is not None else ""
    return [
        u.hex or "off map",
        u.id or "?",
        " ".join(x for x in (u.size, u.type) if x),
        sp,
        u.mp or "",
        cel,
        ", ".join(notes),
    ]


def _data_mark(path: Path) -> str:
    """The scenario menu's data column: "printed", or which data are not (issue #19:
    `RuleSystem.data_provenance`)."""
    from scenarios.provenance import data_tag

    try:
        return data_tag(path) or "printed"
    except Exception:  # a menu must not fail on one scenario
        return ""
