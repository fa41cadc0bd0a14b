"""Issue #14: every file a user can hand Kessel is refused with one clear line -- never a
traceback, a hang or exhausted memory. tests/corpus/yaml/ holds the hostile files (alias
bombs, deep nesting, unsafe tags, binary and non-UTF-8 text, wrong shapes, exports naming
/dev/zero, a directory or themselves, unit ids no order can name; its README lists
them); special files (a FIFO, a socket, a sparse file over the size limit, links to
devices) are made here.

Each file goes through `load_scenario`, `load_source`, `validate` and the CLI (`kessel run
FILE`, `kessel validate FILE`), and what parses is written as JSON (as the service stores
a scenario). The whole corpus runs once in a child process with limits
on its memory (RLIMIT_AS) and CPU time (RLIMIT_CPU), so that a regression -- an alias bomb
expanded, /dev/zero read to the end -- fails the test instead of hanging the suite; the
non-bomb files also run in this process, with capsys. No timing is asserted: the bound is
the child's limits, and `test_parsed_data_stays_within_the_node_limit` counts nodes."""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import socket
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.script import SourceError, load_source
from scenarios import ScenarioError, load_scenario
from scenarios.validate import validate
from scenarios.yamlio import MAX_BYTES, MAX_NODES, parse_yaml, read_text

CORPUS = Path(__file__).parent / "corpus" / "yaml"
FILES = sorted(CORPUS.glob("*.yaml"))
# Odd but harmless: loads (a note key `special.surrounded` that is not a list).
LOADS = {"special-surrounded-number.yaml"}
# Files that would take minutes or gigabytes if a limit regressed: only in the child.
BOMBS = ("bomb-", "recursive-", "deep-", "huge-", "long-", "export-bomb-")
CHILD_MEMORY = 1 << 30  # bytes of address space (the corpus needs ~100 MB)
CHILD_CPU = 120  # seconds of CPU (the corpus needs a few)
ENTRIES = (
    "json",
    "load_scenario",
    "load_source",
    "validate",
    "kessel run",
    "kessel validate",
    "kessel play",  # local play on the service: new_game for a scenario, import for an export
)


def _is_bomb(path: Path) -> bool:
    return path.name.startswith(BOMBS)


# --- one file through every entry point -----------------------------------------------------
def check_file(path: Path, entries: tuple[str, ...] = ENTRIES) -> list[dict[str, Any]]:
    """What each entry point did with `path`: `ok` (loaded), `refused` (a documented
    error, one line) or `crash` (anything else), with the CLI's exit status and stderr."""
    out: list[dict[str, Any]] = []
    for entry in entries:
        result: dict[str, Any] = {"file": path.name, "entry": entry}
        stdout, stderr = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                result.update(_call(entry, path))
        except (ScenarioError, SourceError) as e:
            one = "\n" not in str(e)
            result.update(outcome="refused" if one else "crash", message=str(e))
        except Exception as e:  # what the test is looking for
            result.update(outcome="crash", message=f"{type(e).__name__}: {e}"[:500])
        result["stderr"] = stderr.getvalue().splitlines()
        out.append(result)
    return out


def _call(entry: str, path: Path) -> dict[str, Any]:
    if entry == "json":  # what the service does with a scenario file: store it as JSON
        json.dumps(parse_yaml(read_text(path), str(path)))
        return {"outcome": "ok"}
    if entry == "load_scenario":
        load_scenario(path)
        return {"outcome": "ok"}
    if entry == "load_source":
        load_source(str(path))
        return {"outcome": "ok"}
    if entry == "validate":
        report = validate(str(path))
        if report.ok:
            return {"outcome": "ok"}
        one = all("\n" not in p for p in report.problems)
        return {"outcome": "refused" if one else "crash", "message": report.problems[0]}
    if entry == "kessel play":
        return _play(path)
    rc = main([entry.split()[1], str(path)])
    return {"outcome": "cli", "rc": rc}


def _play(path: Path) -> dict[str, Any]:
    """`kessel play FILE` in a database of its own, the player typing nothing (end of
    input): what it printed, its exit status, and how many games it stored."""
    from bot.local import play

    said: list[str] = []

    def nothing(prompt: str) -> str:
        raise EOFError

    with tempfile.TemporaryDirectory(prefix="kessel-play-") as tmp:
        db = Path(tmp) / "k.db"
        rc = play(str(path), nothing, said.append, db=db, hotseat=True)
        games = 0
        if db.exists():
            con = sqlite3.connect(db)
            try:
                games = con.execute("SELECT count(*) FROM games").fetchone()[0]
            finally:
                con.close()
    return {"outcome": "play", "rc": rc, "said": said, "games": games}


def problems(results: list[dict[str, Any]], loads: bool) -> list[str]:
    """Every result that is not what a hostile file must give."""
    bad: list[str] = []
    for r in results:
        where = f"{r['file']} {r['entry']}"
        err = r["stderr"]
        if any("Traceback" in line or "went wrong" in line for line in err):
            bad.append(f"{where}: {err}")
        elif r["outcome"] == "crash":
            bad.append(f"{where}: {r['message']}")
        elif r["outcome"] == "play":
            said = [x.removeprefix("! ") for line in r["said"] for x in line.splitlines()]
            if any("Traceback" in x or "went wrong" in x for x in said):
                bad.append(f"{where}: {said}")
            elif not loads and (r["rc"] != 1 or r["games"] or not _one_kessel_line(said)):
                bad.append(f"{where}: exit {r['rc']}, {r['games']} games stored, said {said}")
            elif loads and (r["rc"] != 0 or r["games"] != 1):
                bad.append(f"{where}: exit {r['rc']}, {r['games']} games stored")
        elif r["outcome"] == "cli":
            if r["entry"] == "kessel run":
                want = 0 if loads else 1
                if r["rc"] != want or (not loads and not _one_kessel_line(err)):
                    bad.append(f"{where}: exit {r['rc']} (want {want}), stderr {err}")
            elif loads != (r["rc"] == 0) or (not loads and not _validate_lines(err)):
                bad.append(f"{where}: exit {r['rc']}, stderr {err}")
        elif (r["outcome"] == "ok") != loads and r["entry"] != "json":
            bad.append(f"{where}: {r['outcome']} {r.get('message', '')}")
    return bad


def _one_kessel_line(err: list[str]) -> bool:
    return len(err) == 1 and err[0].startswith("kessel: ")


def _validate_lines(err: list[str]) -> bool:
    """`kessel validate` lists its problems, one a line, then `FILE: N problem(s)`; a file
    it cannot even name is `kessel: ...`."""
    return _one_kessel_line(err) or (len(err) >= 2 and err[-1].endswith(" problem(s)"))


# --- the corpus -----------------------------------------------------------------------------
def test_the_corpus_covers_the_attack() -> None:
    names = {p.name for p in FILES}
    assert len(FILES) >= 40
    for must in (
        "bomb-export-orders.yaml",
        "bomb-export-inline-scenario.yaml",
        "bomb-in-special.yaml",
        "deep-flow.yaml",
        "export-dev-zero.yaml",
        "export-directory.yaml",
        "export-self.yaml",
        "utf16-le-bom.yaml",
        "latin1.yaml",
        "nul-byte.yaml",
        "unsafe-python-object.yaml",
        "unit-id-space.yaml",
    ):
        assert must in names


@pytest.mark.parametrize("path", [p for p in FILES if not _is_bomb(p)], ids=lambda p: p.name)
def test_a_hostile_file_is_refused_in_one_line(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = check_file(path)
    assert not problems(results, path.name in LOADS)
    for entry in ("kessel run", "kessel validate"):  # and through capsys, as a user sees it
        rc = main([entry.split()[1], str(path)])
        err = capsys.readouterr().err.splitlines()
        if path.name not in LOADS:
            assert rc == 1
            assert _one_kessel_line(err) if entry == "kessel run" else _validate_lines(err)
        assert not any("Traceback" in line for line in err)


def test_the_whole_corpus_within_memory_and_cpu_limits(tmp_path: Path) -> None:
    """Every corpus file (the bombs too) and the special files, in a child process that
    may use at most CHILD_MEMORY of memory and CHILD_CPU seconds of CPU: a bomb that
    expands dies there (MemoryError or SIGXCPU) and fails this test."""
    out = tmp_path / "results.json"

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))
        resource.setrlimit(resource.RLIMIT_CPU, (CHILD_CPU, CHILD_CPU))

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    child = subprocess.run(
        [sys.executable, __file__, "--child", str(out), str(tmp_path)],
        cwd=tmp_path,
        env=env,
        preexec_fn=limits,
        capture_output=True,
        text=True,
        # not a timing assertion: RLIMIT_CPU bounds the work; this only stops a child
        # blocked without using CPU (a regression that opens a FIFO and waits)
        timeout=600,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    data = json.loads(out.read_text(encoding="utf-8"))
    names = {r["file"] for r in data["results"]}
    assert {p.name for p in FILES} <= names
    assert data["special"] >= 8
    bad = [b for name in sorted(names) for b in problems(
        [r for r in data["results"] if r["file"] == name], name in LOADS
    )]  # fmt: skip
    assert not bad, "\n".join(bad)


def _special_files(where: Path) -> list[Path]:
    """Files that cannot be committed: a FIFO, a socket, a sparse file over the limit,
    links to devices, a directory named like a scenario, exports naming them."""
    made: list[Path] = []
    fifo = where / "fifo.yaml"
    os.mkfifo(fifo)
    made.append(fifo)
    sock = where / "socket.yaml"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(sock))  # left bound: the child exits soon
    made.append(sock)
    big = where / "sparse-too-large.yaml"
    with big.open("wb") as f:
        f.truncate(MAX_BYTES + 1)
    made.append(big)
    for name, device in (("link-dev-zero.yaml", "/dev/zero"), ("link-tty.yaml", "/dev/tty")):
        (where / name).symlink_to(device)
        made.append(where / name)
    folder = where / "folder.yaml"
    folder.mkdir()
    made.append(folder)
    nodes = where / "too-many-nodes.yaml"
    nodes.write_text("a: [" + ",".join(["0"] * (MAX_NODES + 10)) + "]\n", encoding="utf-8")
    made.append(nodes)
    for target in (fifo, sock, big, folder):
        export = where / f"export-{target.stem}.yaml"
        export.write_text(
            f"kessel: game-export\nscenario: {target.name}\nseed: 1\norders: ''\n",
            encoding="utf-8",
        )
        made.append(export)
    return made


def _child(out: Path, where: Path) -> None:
    results: list[dict[str, Any]] = []
    special = _special_files(where)
    for path in [*FILES, *special]:
        # the largest parse allowed takes about a second: once as JSON, once by the CLI
        slow = path.name == "too-many-nodes.yaml"
        results.extend(check_file(path, ("json", "kessel run") if slow else ENTRIES))
    out.write_text(json.dumps({"results": results, "special": len(special)}), encoding="utf-8")


# --- counting: nothing parsed expands past the limit ----------------------------------------
def expanded_size(data: object, cap: int) -> int:
    """The number of values in `data` counting shared lists and dicts at every place they
    appear (as json.dumps would write them), stopping once past `cap`."""
    n = 0
    todo = [data]
    while todo and n <= cap:
        x = todo.pop()
        n += 1
        if isinstance(x, dict):
            todo.extend(x.keys())
            todo.extend(x.values())
        elif isinstance(x, list | tuple):
            todo.extend(x)
    return n


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_parsed_data_stays_within_the_node_limit(path: Path) -> None:
    try:
        data = parse_yaml(read_text(path), str(path))
    except ScenarioError as e:
        assert "\n" not in str(e)
        return
    assert expanded_size(data, MAX_NODES) <= MAX_NODES
    json.dumps(data)  # JSON types only


# --- read_text ------------------------------------------------------------------------------
def test_read_text_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"\(file\): is a directory; the orders file must be"):
        read_text(tmp_path, "orders file")
    with pytest.raises(ScenarioError, match="is not a regular file"):
        read_text("/dev/zero")
    with pytest.raises(ScenarioError, match="file not found"):
        read_text(tmp_path / "nope.txt")
    with pytest.raises(ScenarioError, match="cannot be opened"):
        read_text("a\0b")


def test_read_text_refuses_a_file_over_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("x" * 101, encoding="utf-8")
    assert read_text(path, max_bytes=101) == "x" * 101
    with pytest.raises(
        ScenarioError, match=r"the file is too large: 101 bytes \(the limit is 100\)"
    ):
        read_text(path, max_bytes=100)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ("Korsuń\n".encode("iso8859-2"), "not UTF-8 text (byte 0xf1 on line 1)"),
        (b"a\nb\n\xff", "not UTF-8 text (byte 0xff on line 3)"),
        ("\ufeffmove s-1 0101".encode("utf-16"), "is UTF-16 text; save it as UTF-8"),
        ("move".encode("utf-32"), "is UTF-32 text"),
        (b"move\n\0", "not a text file (a NUL byte on line 2)"),
    ],
)
def test_read_text_names_text_that_is_not_utf8(tmp_path: Path, data: bytes, problem: str) -> None:
    path = tmp_path / "orders.txt"
    path.write_bytes(data)
    with pytest.raises(ScenarioError) as e:
        read_text(path, "orders file")
    assert problem in e.value.problem
    assert str(e.value).startswith(f"{path}: (file): ")


def test_read_text_reads_utf8_and_drops_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "orders.txt"
    path.write_bytes("\ufeffsoviet: move s-232 0434 # Korsuń\n".encode())
    assert read_text(path) == "soviet: move s-232 0434 # Korsuń\n"


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    _child(Path(sys.argv[2]), Path(sys.argv[3]))
