"""Local play on the referee service (issue #7, "Local play — the embedded default"):
`kessel play` driven through injected read/write. Two people play a full turn of
korsun-1944 at one terminal, quit, start again on the same db file and continue exactly
where they were; a game against the built-in opponent goes past its phases; bad input
changes nothing and explains itself."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.cli import main
from bot.local import LocalPlay, play
from bot.terminal import PlainOut
from engine.notation import format_order
from engine.wb95 import defaults, flow
from engine.wb95.game import legal_actions

Brain = Callable[[LocalPlay], str]


class Terminal:
    """A person at the keyboard: each prompt is answered by `brain(session)`, or by the
    next scripted line; what the program writes is kept."""

    def __init__(self, lines: list[str] | None = None, brain: Brain | None = None) -> None:
        self.lines = list(lines or [])
        self.brain = brain
        self.out: list[str] = []
        self.prompts: list[str] = []
        self.session: LocalPlay | None = None

    def read(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.lines:
            line = self.lines.pop(0)
        elif self.brain is not None and self.session is not None:
            line = self.brain(self.session)
        else:
            raise EOFError
        self.out.append(f"{prompt}{line}")
        return line

    def write(self, text: str) -> None:
        self.out.append(text)

    def run(self, db: Path, scenario: str | None = None, **kw: object) -> int:
        vs = kw.pop("vs", None)
        seed = kw.pop("seed", None)
        self.session = LocalPlay(PlainOut(self.read, self.write), db, **kw)
        return asyncio.run(self.session.main(scenario, vs=vs, seed=seed))  # type: ignore[arg-type]

    @property
    def text(self) -> str:
        return "\n".join(self.out)


def _state(session: LocalPlay):  # type: ignore[no-untyped-def]
    assert session.live is not None
    return session.live.state


class HotSeat:
    """Two players at one screen, giving real orders: in each Movement Phase a move (after
    asking `moves`), in each Combat Phase an attack (after an `odds` preview) with its
    decisions, in each Air Phase a mission where one may be flown; what a phase still
    requires (duties, decisions) as a player would answer it; then `done`. Quits when
    turn 2 begins."""

    def __init__(self, until_turn: int = 2) -> None:
        self.until_turn = until_turn
        self.phases: set[tuple[str, str]] = set()  # (side, phase kind) that gave input
        self.did: dict[tuple[int, int, str], set[str]] = {}
        self.orders: list[str] = []
        self.queue: list[str] = []

    def __call__(self, session: LocalPlay) -> str:
        if self.queue:
            self.orders.append(self.queue[0])
            return self.queue.pop(0)
        s = _state(session)
        if s.turn >= self.until_turn or s.over:
            return "quit"
        side = flow.awaited_sides(s)[0]
        kind = flow.current_phase(s).kind
        self.phases.add((side, kind))
        done = self.did.setdefault((s.turn, s.phase, side), set())
        la = legal_actions(s, side)
        line = None
        if not la["decisions"]:
            if kind == "movement" and "move" not in done and la["moves"]:
                unit = sorted(la["moves"])[0]
                done.add("move")
                self.queue.append(f"move {unit} {la['moves'][unit][-1]}")
                return f"moves {unit}"
            if kind == "combat" and "attack" not in done and la["attacks"]:
                a = la["attacks"][0]
                done.add("attack")
                line = f"attack {' '.join(a['units'])} -> {' '.join(a['hexes'])}"
                self.queue.append(line)
                return f"odds {line}"
            if kind == "air" and "air" not in done and la["air"]:
                done.add("air")
                air = la["air"]
                for mission in ("attack", "support-attack", "support-defence"):
                    hexes = (air.get("targets") or {}).get(mission) or []
                    if hexes and air.get("sp"):
                        line = f"air 1 {mission} {hexes[0]}"
                        break
        if line is None:
            order = defaults.next_default(s, side)
            assert order is not None
            line = format_order(order)
        self.orders.append(line)
        return line


def test_two_players_play_a_full_turn_of_korsun_quit_and_continue(tmp_path: Path) -> None:
    db = tmp_path / "kessel.db"
    brain = HotSeat()
    t = Terminal(brain=brain)
    assert t.run(db, "korsun-1944", seed=7) == 0
    session = t.session
    assert session is not None and session.live is not None
    gid = session.gid
    state = session.live.state
    assert state.turn == 2
    # every phase of turn 1 that takes input, for both sides, with real orders
    assert {("german", "air"), ("soviet", "air"), ("soviet", "movement")} <= brain.phases
    assert {("soviet", "combat"), ("german", "movement"), ("german", "combat")} <= brain.phases
    assert any(x.startswith("move ") for x in brain.orders)
    assert any(x.startswith("attack ") for x in brain.orders)
    assert any(x.startswith("air ") for x in brain.orders)
    assert any(x.split()[0] in ("retreat", "losses", "pass", "defend") for x in brain.orders)
    assert "may move to" in t.text and "Odds preview" in t.text
    assert "must decide" in t.text  # decisions are shown with their answers
    snap = state.snapshot()
    awaited = flow.awaited_sides(state)
    last_prompt = t.prompts[-1]

    # start again on the same file: the menu offers the unfinished game
    again = Terminal([gid or "", "status", "quit"])
    assert again.run(db) == 0
    assert gid in again.text and "korsun-1944" in again.text
    s2 = again.session
    assert s2 is not None and s2.live is not None
    assert s2.live.state.snapshot() == snap
    assert flow.awaited_sides(s2.live.state) == awaited
    assert again.prompts[1] == last_prompt  # the same step, the same side awaited

    # and play goes on from there
    more = HotSeat(until_turn=3)
    third = Terminal([gid or ""], brain=more)
    more.until_turn = 2  # one more input, then quit
    third.lines.append("done")
    assert third.run(db) == 0
    s3 = third.session
    assert s3 is not None and s3.live is not None
    assert s3.live.state.seq > state.seq


def test_against_the_built_in_opponent_play_goes_past_its_phases(tmp_path: Path) -> None:
    pytest.importorskip("bot.systems.wb95.opponent")
    db = tmp_path / "kessel.db"
    brain = HotSeat(until_turn=2)
    t = Terminal(brain=brain)
    assert t.run(db, "demo-steblev", vs="german", seed=3) == 0
    s = t.session
    assert s is not None and s.live is not None
    assert s.live.state.turn == 2
    assert s.live.ai_sides() == ["german"]
    # the player only ever acted for the Soviets; the opponent played the German phases
    assert {side for side, _ in brain.phases} == {"soviet"}
    assert "german" in t.text
    # the player sees the Soviet view, not everything
    assert "as soviet sees them" in _units(db, s.gid or "")


def _units(db: Path, gid: str) -> str:
    t = Terminal([gid, "units german", "quit"])
    assert t.run(db) == 0
    return t.text


def test_bad_input_changes_nothing_and_explains(tmp_path: Path) -> None:
    db = tmp_path / "kessel.db"
    bad = [
        "march on kiev",
        "move s-nope 0101",
        "move s-180 9999",
        "german: done",
        "moves",
        "moves g-nope",
        "units martians",
        "map 99999",
        "map 0207 x",
        "odds move s-180 0208",
        "export",
        "undo",
        "log",
    ]
    t = Terminal(["status", *bad, "quit"])
    snaps = []

    def read(prompt: str) -> str:
        if t.session is not None and t.session.live is not None:
            snaps.append(t.session.live.state.snapshot())
        return Terminal.read(t, prompt)

    t.read = read  # type: ignore[method-assign]
    assert t.run(db, "demo-steblev", seed=3) == 0
    assert len(snaps) == len(bad) + 2
    assert all(x == snaps[0] for x in snaps)
    text = t.text
    assert "'march' is not an order" in text
    assert "not a side" in text
    assert "moves UNIT" in text
    assert "you have no unit 'g-nope'" not in text or "refused" in text
    assert "not a hex number" in text
    assert "odds are for an attack" in text
    assert "export FILE" in text
    assert "nothing to undo" in text
    assert text.count("refused:") >= 10


def test_blocks_are_all_or_nothing_and_sides_are_named_in_hot_seat(tmp_path: Path) -> None:
    db = tmp_path / "kessel.db"
    t = Terminal(["move s-180 0208\nmove s-nope 0101", "legal", "quit"])
    assert t.run(db, "demo-steblev", seed=3) == 0
    assert "Nothing of this block was applied" in t.text
    assert t.session is not None and t.session.live is not None
    assert t.session.live.state.units["s-180"].hex == "0207"


def test_map_export_and_log_write_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    t = Terminal(["map 0207 2", "export game.yaml", "done", "log new", "log 5", "quit"])
    assert t.run(tmp_path / "k.db", "demo-steblev", seed=3) == 0
    pngs = list(tmp_path.glob("kessel-*-0207.png"))
    assert pngs and pngs[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "map written to" in t.text
    assert (tmp_path / "game.yaml").read_text().startswith("kessel: game-export")
    # the export replays with `kessel run`
    assert main(["run", str(tmp_path / "game.yaml")]) == 0


def test_map_legend_writes_the_maps_legend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #18 item 11: `map legend` writes the map's full legend as its own picture."""
    monkeypatch.chdir(tmp_path)
    t = Terminal(["map legend", "quit"])
    assert t.run(tmp_path / "k.db", "demo-steblev", seed=3) == 0
    (png,) = tmp_path.glob("kessel-*-legend.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "legend written to" in t.text


def test_eof_at_the_menu_and_in_the_game_ends_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "kessel.db"
    t = Terminal([])
    assert t.run(db) == 0
    assert "korsun-1944" in t.text  # the scenarios were offered
    out: list[str] = []
    lines = iter(["help"])

    def read(_p: str) -> str:
        return next(lines)  # StopIteration -> EOF below

    def reader(p: str) -> str:
        try:
            return read(p)
        except StopIteration:
            raise EOFError from None

    assert play("demo-steblev", reader, out.append, db=db, hotseat=True, seed=1) == 0
    assert any("Type orders" in x for x in out)
    assert any("saved in" in x for x in out)


def test_default_command_starts_local_play_without_a_discord_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bot.cli as cli

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KESSEL_DISCORD_TOKEN", raising=False)
    called: list[tuple[object, ...]] = []
    monkeypatch.setattr("bot.local.play", lambda *a, **k: called.append(a) or 0)
    assert cli.main([]) == 0
    assert called == [()]
    # with a token: the bot if `kessel bot` exists, else a clear note and local play
    monkeypatch.setenv("KESSEL_DISCORD_TOKEN", "x")
    if "bot" in cli._commands():
        monkeypatch.setattr(cli, "main", lambda argv=None: 7 if argv == ["bot"] else 0)
        assert cli._default() == 7
    else:
        assert cli.main([]) == 0
        assert len(called) == 2


def test_rich_output_draws_tables_panels_and_spinners() -> None:
    import io

    from rich.console import Console

    from bot.terminal import RichOut

    out = RichOut(["soviet", "german"])
    buf = io.StringIO()
    out.console = Console(file=buf, force_terminal=True, width=100)
    out.line("[turn 1] **bold** `move s-232 0434`", "head")
    out.line("refused: x [5.1]", "bad")
    out.table("Units", ["hex", "unit"], [["0207", "s-180"], ["0508", None]], ["side:soviet"])
    out.panel("soviet must decide: retreat (5.3)", ["paths s-31: 5819 | 5920"], "warn")
    with out.busy("Drawing the map"):
        pass
    import re

    raw = buf.getvalue()
    assert "\x1b[" in raw  # colour
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", raw)
    assert "[turn 1]" in text and "s-180" in text and "retreat" in text


def test_16_6_a_map_file_is_named_with_the_printed_phase_number(tmp_path: Path) -> None:
    """Issue #16: in the Soviet Movement Phase (phase 3) the picture is `...-t1-p3.png`."""
    import os

    os.chdir(tmp_path)
    term = Terminal(["map", "quit"])
    assert term.run(tmp_path / "k.db", "demo-steblev", seed=3) == 0
    assert [p.name.split("-")[-1] for p in tmp_path.glob("kessel-*.png")] == ["p3.png"]


def test_17_hot_seat_a_done_for_a_step_that_moved_on_asks_first(tmp_path: Path) -> None:
    """Issue #17: at one keyboard, a `done` typed for a step that already ended (a set-up
    step, an Air Phase) would end the next one; it asks first, and "n" sends nothing."""
    db = tmp_path / "k.db"
    lines = ["move s-180 0208", "done", "done", "n", "quit"]
    term = Terminal(lines)
    assert term.run(db, "demo-steblev", seed=3, confirm_done=True) == 0
    assert sum("a step after your last input. End it?" in x for x in term.prompts) == 1
    assert "refused: not sent: nothing was ended" in term.text
    assert term.prompts[-1] == term.prompts[-3]  # still the step the refused `done` meant
    g = term.session.live if term.session else None
    assert g is not None
    term = Terminal(["done", "quit"])  # a new session: no last input, no question
    assert term.run(db, g.id, confirm_done=True) == 0
    assert not any("End it?" in x for x in term.prompts)


def test_17_help_order_shows_an_example_with_the_games_units_and_typos_get_a_hint(
    tmp_path: Path,
) -> None:
    term = Terminal(["help move", "help atack", "hlep", "quit"])
    assert term.run(tmp_path / "k.db", "demo-steblev", seed=3) == 0
    assert "move: move UNIT" in term.text and "for example: move s-" in term.text
    assert "no order 'atack' (did you mean attack?)" in term.text
    assert "'hlep' is not a command: did you mean help?" in term.text


def test_17_map_supply_draws_the_side_to_acts_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #17: `map supply` writes the map with the overlay of the side at the keyboard
    (hot seat: the side to act), in both hot seat and against the opponent."""
    monkeypatch.chdir(tmp_path)
    t = Terminal(["map supply 0207 3", "map supply", "map supply 0207 3 9", "quit"])
    assert t.run(tmp_path / "k.db", "demo-steblev", seed=3) == 0
    assert len(list(tmp_path.glob("kessel-*-0207-supply.png"))) == 1
    assert len(list(tmp_path.glob("kessel-*-supply.png"))) == 2
    assert "supply map written to" in t.text
    assert "usage: map [supply] [HEX [RADIUS]] | map legend" in t.text
    t = Terminal(["map supply", "quit"])
    assert t.run(tmp_path / "k2.db", "demo-steblev", vs="german", seed=3) == 0
    assert t.text.count("supply map written to") == 1


def test_17_every_side_prefix_works_with_every_command_in_hot_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #17: `soviet: undo` (only the side's own last input), `german: units`,
    `soviet: legal`, `soviet: map`, `german: decision`, `soviet: status` all work."""
    monkeypatch.chdir(tmp_path)
    lines = [
        "move s-180 0307",
        "german: undo",
        "soviet: undo",
        "german: units",
        "soviet: legal",
        "soviet: moves s-180",
        "soviet: map 0207 2",
        "german: decision",
        "soviet: status",
        "soviet: log 3",
        "quit",
    ]
    t = Terminal(lines)
    assert t.run(tmp_path / "k.db", "demo-steblev", seed=1) == 0
    text = t.text
    assert "is not an order" not in text
    assert "the last input was soviet's (soviet: move s-180 0307), not german's" in text
    assert "german units as" in text and "What soviet may do now:" in text
    assert "no decision of yours is open" in text
    assert t.session is not None and t.session.live is not None
    assert t.session.live.state.units["s-180"].hex == "0207"  # soviet: undo took it back
    assert list(tmp_path.glob("kessel-*-0207.png"))


def test_17_moves_says_why_a_unit_cannot_move(tmp_path: Path) -> None:
    """Issue #17: `moves X` gives the reason, not only 'cannot move now'."""
    t = Terminal(["moves g-88-245", "quit"])
    assert t.run(tmp_path / "k.db", "demo-steblev", seed=1) == 0  # hot seat, Soviet phase
    assert "g-88-245 cannot move now: it is soviet's Movement Phase" in t.text


def test_20_league_commands_in_local_play(tmp_path: Path) -> None:
    """Issue #20: local play has the league commands (the person at the terminal organises)."""
    t = Terminal(["league", "league new Home Cup", "league list", "league bogus", "quit"])
    assert t.run(tmp_path / "k.db", "demo-steblev", seed=1) == 0
    text = t.text
    assert "league season LEAGUE NAME" in text  # the usage
    assert "League **Home Cup**" in text or "League Home Cup" in text
    assert "Home Cup (wb95)" in text
    assert "'bogus' is not a league command" in text


def test_a_database_server_that_cannot_be_reached_is_said_once() -> None:
    """`kessel play --db postgresql://...` with no server there: one sentence naming the
    database and why, exit 1, not "cannot open X: cannot open the game database X"."""
    said: list[str] = []

    def nothing(prompt: str) -> str:
        raise EOFError

    url = "postgresql://kessel@127.0.0.1:1/none"  # port 1: nothing listens
    rc = play("demo-steblev", nothing, said.append, db=url, hotseat=True)
    assert rc == 1 and len(said) == 1, said
    assert said[0].startswith(f"! kessel: cannot open the game database {url}: ")
    assert said[0].count("cannot open") == 1 and "cannot be reached" in said[0]
