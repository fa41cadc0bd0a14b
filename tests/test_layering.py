"""The layers (docs/architecture.md, issue #19): bot/, render/ and scenarios/ speak to a
rule system only through `engine.system.RuleSystem` (and bot/systems for describers and
opponents); only a system's registered adapters import its engine package; the engine's
core imports no system at all. Read from the source, so a lazy import counts too."""

from __future__ import annotations

import ast
from pathlib import Path

from bot import systems as bot_systems
from engine import systems

ROOT = Path(__file__).parents[1]
SYSTEM_PACKAGES = tuple(f"engine.{s}" for s in systems.BUILTIN)


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def _system_imports(path: Path) -> list[str]:
    return sorted(
        m for m in _imports(path) for p in SYSTEM_PACKAGES if m == p or m.startswith(p + ".")
    )


def _adapters() -> set[str]:
    return {m for s in systems.BUILTIN for m in bot_systems.get(s).adapters}


def test_bot_render_and_scenarios_use_the_interface_not_a_systems_package() -> None:
    allowed = _adapters()
    found = {
        _module(p): used
        for layer in ("bot", "render", "scenarios")
        for p in sorted((ROOT / layer).rglob("*.py"))
        if (used := _system_imports(p)) and _module(p) not in allowed
    }
    assert not found, f"import a system's engine package; go through engine.system: {found}"


def test_the_engine_core_imports_no_system() -> None:
    core = sorted((ROOT / "engine").glob("*.py"))
    found = {_module(p): used for p in core if (used := _system_imports(p))}
    assert not found, found


def test_every_adapter_exists_and_belongs_to_its_system() -> None:
    for s in systems.BUILTIN:
        for m in bot_systems.get(s).adapters:
            path = ROOT / Path(*m.split("."))
            assert path.with_suffix(".py").exists() or (path / "__init__.py").exists(), m
