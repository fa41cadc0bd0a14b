"""A league's own data files in place of the shipped ones (issue #19, docs/ags.md "A
league's data"): an override directory laid out like `scenarios/` -- `tables/ags-results.yaml`
replaces `scenarios/tables/ags-results.yaml`, `maps/ags/ags-korsun.yaml` the map,
`ags/ags-korsun.yaml` the scenario. The loaders find every data file through `locate`, and
`read_data` holds an override file to what it must say about itself: `provenance:
league-supplied` (here and on every part that names one) and `supplied_by:`.

The directory in use is the process's default (`use`, set by `kessel --data DIR`,
`KESSEL_DATA` or `kessel.toml`, after `scenarios/override_check.py` found no problem in it),
or, inside `scoped`, another: a game's own data set (scenarios/data_sets.py, the referee
loads each game inside its set's scope), or a candidate directory being checked."""

from __future__ import annotations

import contextvars
import fnmatch
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from scenarios.errors import ScenarioError
from scenarios.yamlio import read_yaml_file

PACKAGE_DIR = Path(__file__).parent
LEAGUE_SUPPLIED = "league-supplied"
MAX_FILES = 200  # an override replaces a few files; a directory of thousands is a mistake

_process: Path | None = None  # the override directory of this process (resolved), if any
# inside `scoped`: (the directory or None); outside: None, the process's directory applies
_scoped: contextvars.ContextVar[tuple[Path | None] | None] = contextvars.ContextVar(
    "kessel_data", default=None
)


def current() -> Path | None:
    """The override directory the loaders read now, or None (the shipped files only)."""
    scoped = _scoped.get()
    return _process if scoped is None else scoped[0]


def process() -> Path | None:
    """The process's default override directory (`use`), whatever a scope says."""
    return _process


def key() -> str:
    """The override directory's identity, for caches of loaded scenarios."""
    d = current()
    return "" if d is None else str(d)


def use(directory: Path | None) -> None:
    """Make `directory` (already checked, `override_check.activate`) this process's
    override directory; None goes back to the shipped files."""
    global _process
    _process = None if directory is None else Path(directory).resolve()


@contextmanager
def scoped(directory: Path | None) -> Iterator[None]:
    """Load with `directory` as the override (None: the shipped files) inside the block."""
    token = _scoped.set((None if directory is None else Path(directory).resolve(),))
    try:
        yield
    finally:
        _scoped.reset(token)


def relative(path: Path) -> str | None:
    """A shipped data file's name relative to `scenarios/` ("tables/ags-results.yaml")."""
    try:
        return path.resolve().relative_to(PACKAGE_DIR.resolve()).as_posix()
    except ValueError:
        return None


def locate(name: str) -> Path:
    """The file the loaders read for the shipped data file `name` (relative to
    `scenarios/`): the override directory's of the same name when it has one, else the
    shipped one. An override that leaves its directory (a symbolic link out of it) is
    refused, never followed."""
    d = current()
    shipped = PACKAGE_DIR / name
    if d is None:
        return shipped
    candidate = d / name
    if not os.path.lexists(candidate):
        return shipped
    if not inside(candidate, d):
        raise ScenarioError(
            str(candidate), "(file)", f"leaves the league's data directory {d}: refused"
        )
    return candidate


def inside(path: Path, directory: Path) -> bool:
    """Whether `path`, every link followed, stays inside `directory`."""
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(directory))
    except ValueError:
        return False
    return True


def is_override(path: Path) -> bool:
    d = current()
    return d is not None and inside(path, d)


def stamp(path: Path) -> tuple[str, int, int, bool]:
    """A loaded file's identity for the loaders' caches: the same file read again after
    a change, or read as a league's file rather than a user's, is parsed again."""
    try:
        st = path.stat()
    except OSError:
        return (str(path), 0, 0, is_override(path))
    return (str(path), st.st_mtime_ns, st.st_size, is_override(path))


def supplier(path: Path) -> str:
    """Who supplied a league's file (its `supplied_by:`); empty for a shipped file."""
    return _supplier(path, stamp(path)) if is_override(path) else ""


@cache
def _supplier(path: Path, _stamp: tuple[str, int, int, bool]) -> str:
    data = read_data(path)
    return said_by(data.get("supplied_by", ""))


def said_by(text: object) -> str:
    """A `supplied_by:` as players read it: one line of printable characters, cut."""
    kept = "".join(c if c.isprintable() else " " for c in str(text))
    return " ".join(kept.split())[:80]


def label(path: Path) -> str:
    """How messages name a data file: a shipped one by its name, a league's by its path."""
    return str(path) if is_override(path) else path.name


def read_data(path: Path) -> Any:
    """A data file's parsed YAML; a league's file must say it is the league's (refused
    otherwise, naming the file and the key)."""
    data = read_yaml_file(path)
    if is_override(path):
        declared_problems = declaration_problems(data)
        if declared_problems:
            key_, problem = declared_problems[0]
            raise ScenarioError(str(path), key_, problem)
    return data


def declaration_problems(data: Any) -> list[tuple[str, str]]:
    """What a league's file must say about itself, (key, problem) for each thing missing:
    `provenance: league-supplied` at the top and on every part or unit that names a
    provenance (a league's transcription is neither printed nor the project's
    reconstruction), and `supplied_by:` naming who supplied it."""
    if not isinstance(data, dict):
        return [("(top level)", "must be a mapping")]
    out: list[tuple[str, str]] = []
    if data.get("provenance") != LEAGUE_SUPPLIED:
        out.append(("provenance", _claim(data.get("provenance"))))
    who = data.get("supplied_by")
    if not isinstance(who, str) or not who.strip():
        out.append(("supplied_by", "missing: who supplied the file (the league, the person)"))
    for where, value in _provenances(data, ""):
        if where != "provenance" and value != LEAGUE_SUPPLIED:
            out.append((where, _claim(value)))
    return out


def _claim(value: object) -> str:
    said = "missing" if value is None else f"says {value!r}"
    return f"{said}: a league's file must say provenance: {LEAGUE_SUPPLIED}"


def _provenances(value: Any, at: str) -> Iterator[tuple[str, object]]:
    if isinstance(value, dict):
        for k, v in value.items():
            where = f"{at}.{k}" if at else str(k)
            if k == "provenance" and not isinstance(v, dict):
                yield where, v
            else:
                yield from _provenances(v, where)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            item = v.get("id") if isinstance(v, dict) else None
            yield from _provenances(v, f"{at}[{item if isinstance(item, str) else i}]")


def matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)
