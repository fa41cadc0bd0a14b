"""Shared helpers: small hand-made scenarios built in the DESIGN §5 format; and the
hermetic test environment (issue #13): the tests never read or write the user's home,
cache or configuration, nor the working directory (a `kessel.db` or `.env` lying there)."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pg import pg_server, pg_url  # noqa: F401 (fixtures: a throw-away PostgreSQL server)

from engine.core import Applied, Rejection
from engine.model import Setup
from engine.notation import parse_order
from engine.record import GameRecord
from scenarios import load_scenario_data

# Set before any test module is imported: a home of the tests' own, with the XDG
# directories in it, and none of the referee's settings from the caller's environment.
TEST_HOME = Path(tempfile.mkdtemp(prefix="kessel-test-home-"))
os.environ["HOME"] = str(TEST_HOME)
for _var, _sub in (
    ("XDG_CACHE_HOME", ".cache"),
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_DATA_HOME", ".local/share"),
    ("XDG_STATE_HOME", ".local/state"),
):
    os.environ[_var] = str(TEST_HOME / _sub)
for _var in [v for v in os.environ if v.startswith("KESSEL_")]:
    del os.environ[_var]


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(TEST_HOME, ignore_errors=True)


@pytest.fixture(autouse=True)
def _root_logging_restored() -> Iterator[None]:
    """A test that starts `kessel bot` or `kessel mail` sets the root logger's handler to
    its captured stderr (bot/startup.py); put back after it, so a server thread that logs
    later (aiosmtpd) writes to no closed stream ("--- Logging error ---" in the output)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


@pytest.fixture(autouse=True)
def _in_a_temporary_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every test runs in an empty directory of its own: whatever it writes by a relative
    path (kessel.db, map.png, fuzz-failures/) stays there, and nothing the developer left
    in the checkout (kessel.db, .env, kessel.toml) is read."""
    old = Path.cwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))
    try:
        yield
    finally:
        os.chdir(old)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty game database on each backend (issue #21): an SQLite file, and a
    database of its own in the session's PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "kessel.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def another_store_url(request: pytest.FixtureRequest, store_url: str, tmp_path: Path) -> str:
    """A second new, empty database on the same backend as `store_url`."""
    if store_url.startswith("postgresql"):
        return str(request.getfixturevalue("pg_server").new_database())
    return str(tmp_path / "k2.db")


def scenario(
    units: list[dict[str, Any]],
    *,
    game: str = "korsun",
    cols: tuple[int, int] = (1, 10),
    rows: tuple[int, int] = (1, 8),
    terrain: dict[str, str] | None = None,
    hexsides: list[dict[str, Any]] | None = None,
    bridges: list[list[str]] | None = None,
    roads: list[dict[str, Any]] | None = None,
    start: dict[str, Any] | None = None,
    **extra: Any,
) -> Setup:
    """A 10x8 clear map by default, Soviet initiative, starting in the Soviet Movement Phase."""
    data: dict[str, Any] = {
        "id": "t-test",
        "system": "wb95",
        "game": game,
        "initiative": "soviet",
        "turns": 3,
        "start": start or {"turn": 1, "phase": "movement", "active": "soviet"},
        "map": {
            "layout": "even-q",
            "cols": list(cols),
            "rows": list(rows),
            "default": "clear",
            "terrain": terrain or {},
            "hexsides": hexsides or [],
            "bridges": bridges or [],
            "roads": roads or [],
        },
        "sides": {
            "soviet": {"nation": "soviet", "supply": [{"edge": "E"}]},
            "german": {"nation": "german", "supply": [{"edge": "W"}]},
        },
        "units": [_unit(u) for u in units],
    }
    data.update(extra)
    return load_scenario_data(data, name="test")


def _unit(u: dict[str, Any]) -> dict[str, Any]:
    out = {"name": u["id"], "sp": 4, "mp": 4, "type": "inf"}
    out.update(u)
    out.setdefault("side", "soviet" if u["id"].startswith("s") else "german")
    return out


def play(setup: Setup, *lines: str, seed: int = 0, dice: tuple[int, ...] = ()) -> GameRecord:
    """Apply order lines; every one must be accepted. `dice` forces the first d6 faces."""
    rec = GameRecord(setup, seed, dice)
    for line in lines:
        order = parse_order(line)
        assert order is not None
        r = rec.submit(None, order)
        assert isinstance(r, Applied), f"{line!r} rejected: {r}"
    return rec


def reject(rec: GameRecord, line: str) -> Rejection:
    """Apply one order that must be rejected, and check that nothing changed."""
    before = rec.state.snapshot()
    order = parse_order(line)
    assert order is not None
    r = rec.submit(None, order)
    assert isinstance(r, Rejection), f"{line!r} was accepted"
    assert rec.state.snapshot() == before
    return r
