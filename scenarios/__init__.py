"""Scenario data (maps, countersheets, scenarios, game tables) and its loader (DESIGN §5).

Everything here turns YAML into the already-validated `engine.model` objects the engine
plays with; a bad file raises `ScenarioError` naming the file, the key and the problem.
"""

from __future__ import annotations

from scenarios.errors import ScenarioError
from scenarios.loader import (
    ScenarioInfo,
    list_scenarios,
    load_scenario,
    load_scenario_data,
    load_scenario_text,
)
from scenarios.tables import load_morale, load_table

__all__ = [
    "ScenarioError",
    "ScenarioInfo",
    "list_scenarios",
    "load_morale",
    "load_scenario",
    "load_scenario_data",
    "load_scenario_text",
    "load_table",
]
