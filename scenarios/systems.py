"""Scenario loading per rule system, keyed by a scenario's `system:`.

Each system reads its own scenario files into its `engine.model.Setup` (its schema, its
tables) and ships its scenarios in `scenarios/<system>/`. The WB-95 builder is
`scenarios.loader` (maps, countersheets and tables are shared with it); another system
registers its own, e.g. `register(ScenarioSystem("ags", build, PACKAGE_DIR / "ags"))`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.model import Setup
from engine.registry import Registry
from scenarios.errors import ScenarioError

PACKAGE_DIR = Path(__file__).parent

# A scenario's parsed YAML mapping, its file name for messages, the directory its maps
# and countersheets are looked for in first -> the setup.
Builder = Callable[[dict[str, Any], str, Path | None], Setup]


# `kessel validate`: a scenario's parsed YAML and its path -> every problem found; a map
# file's parsed YAML and its name -> every problem found (scenarios/validate.py).
ScenarioChecks = Callable[[dict[str, Any], Path], list[str]]
MapChecks = Callable[[dict[str, Any], str], list[str]]


@dataclass(frozen=True)
class ScenarioSystem:
    id: str
    build: Builder
    shipped: Path | None = None  # the shipped scenarios' directory (None: none shipped)
    validate: ScenarioChecks | None = None  # None: scenarios/validate.py's WB-95 checks
    validate_map: MapChecks | None = None  # for map files whose `game:` is `map_game`
    map_game: str | None = None
    # the data files (relative to scenarios/, glob patterns) its loaders read through
    # scenarios/overrides.py, which a league's data directory may replace (issue #19)
    overridable: tuple[str, ...] = ()


# system id -> the module whose `SCENARIO_SYSTEM` builds its scenarios (loaded on first use)
BUILTIN: dict[str, str] = {"wb95": "scenarios.loader", "ags": "scenarios.ags.build"}


def _unknown(system_id: str, known: list[str]) -> Exception:
    return KeyError(f"unknown rule system '{system_id}'; Kessel plays {', '.join(known)}")


_REGISTRY: Registry[ScenarioSystem] = Registry(BUILTIN, "SCENARIO_SYSTEM", _unknown)
register = _REGISTRY.register
unregister = _REGISTRY.unregister
ids = _REGISTRY.ids
get = _REGISTRY.get


def all_systems() -> list[ScenarioSystem]:
    return [get(s) for s in ids()]


def of(data: dict[str, Any], file: str) -> ScenarioSystem:
    """The system that reads the scenario `data`: its `system:` key, which must name one
    Kessel plays."""
    known = " or ".join(f"'{s}'" for s in ids())
    system = data.get("system")
    if system is None:
        raise ScenarioError(file, "system", f"missing: the scenario's rule system ({known})")
    if not isinstance(system, str) or system not in ids():
        raise ScenarioError(file, "system", f"unknown rule system {system!r}: Kessel plays {known}")
    return get(system)
