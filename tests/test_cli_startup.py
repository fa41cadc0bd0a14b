"""Issue #13: a quick command line. `kessel --help`, `kessel scenarios` and `kessel run`
load neither discord.py, the renderer nor the store (nor asyncio, Pillow or rich); the
start-up time itself is measured by `kessel bench` as a ratio, never in a timed test."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot import cli
from engine.view import MODERATOR

HEAVY = ("discord", "render", "bot.store", "bot.service", "bot.discord.run", "aiosqlite")
HEAVY += ("PIL", "rich", "asyncio", "pydantic")

PROBE = """
import contextlib, io, json, sys
from bot.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as e:
        code = e.code
print(json.dumps({"code": code, "modules": sorted(sys.modules), "out": out.getvalue()}))
"""


def _loaded(*argv: str) -> tuple[int, set[str], str]:
    p = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True
    )
    data = json.loads(p.stdout.splitlines()[-1])
    return data["code"], set(data["modules"]), data["out"]


def _heavy(modules: set[str], allowed: tuple[str, ...] = ()) -> list[str]:
    return sorted(
        m
        for m in modules
        if any(m == h or m.startswith(h + ".") for h in HEAVY)
        and not any(m == a or m.startswith(a + ".") for a in allowed)
    )


def test_help_loads_only_the_standard_library() -> None:
    code, modules, out = _loaded("--help")
    assert code == 0 and "scenarios" in out and "bench" in out
    assert _heavy(modules) == []
    assert not any(m.startswith(("engine", "scenarios")) for m in modules)


@pytest.mark.parametrize(
    "argv",
    [
        ("scenarios",),
        ("run", "demo-steblev", "--json"),
        ("run", "demo-steblev", "--view", "soviet"),
        ("moves", "demo-steblev", "s-180"),
    ],
    ids=lambda a: " ".join(a),
)
def test_quick_commands_load_no_transport_renderer_or_store(argv: tuple[str, ...]) -> None:
    code, modules, _ = _loaded(*argv)
    assert code == 0
    assert _heavy(modules, allowed=("pydantic",)) == []  # the scenario schema is pydantic


def test_the_view_default_is_the_engines_moderator() -> None:
    assert cli.MODERATOR == MODERATOR
