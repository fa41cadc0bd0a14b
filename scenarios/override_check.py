"""`kessel validate --data DIR` and taking a league's data directory into use (issue #19,
scenarios/overrides.py): every problem of the directory, each naming its file and key.

A league's directory is checked as a whole before Kessel reads any of it:
- each file replaces a shipped data file of the same name that a rule system's loaders
  read through the override path (`ScenarioSystem.overridable`; AGS: its tables, counters,
  map and scenario), and stays inside the directory (no link out of it);
- it says `provenance: league-supplied` everywhere it names a provenance, and
  `supplied_by:` (a league's transcription is not printed, nor the project's
  reconstruction);
- a scenario keeps the shipped one's `id` and `system` (games and seasons name it);
- then every shipped scenario of the system is loaded and checked with the league's files
  in place (the schemas, every value the rules need, the map's checks as for a shipped
  map: `ScenarioSystem.validate`, `validate_map`).
`activate` puts the directory in use only when nothing is wrong: a bad directory changes
nothing; `declare` does the same for the operator's named data sets (scenarios/data_sets.py),
each checked whole, none declared while one has a problem.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from scenarios import data_sets, overrides, systems
from scenarios.errors import ScenarioError
from scenarios.overrides import MAX_FILES, PACKAGE_DIR, inside, matches
from scenarios.yamlio import read_yaml_file


def activate(directory: str | os.PathLike[str] | None) -> list[str]:
    """Read the league's files in `directory` from now on, if it has no problem; the
    problems otherwise (and the shipped files stay in use). None: the shipped files."""
    if directory is None:
        overrides.use(None)
        return []
    found = problems(Path(directory))
    if not found:
        overrides.use(Path(directory))
    return found


def declare(sets: Mapping[str, str | os.PathLike[str]]) -> list[str]:
    """Declare the operator's named data sets (name -> directory) if none has a problem;
    every problem otherwise, each after the set's name (and nothing is declared)."""
    found = [
        f"data set {name}: {problem}" for name, d in sets.items() for problem in problems(Path(d))
    ]
    if not found:
        data_sets.declare({name: Path(d) for name, d in sets.items()})
    return found


def problems(directory: Path) -> list[str]:
    """Every problem of a league's data directory (empty: it may be used)."""
    d = Path(directory)
    if not d.is_dir():
        return [f"{d}: not a directory (a league's data directory, laid out like scenarios/)"]
    real, package = Path(os.path.realpath(d)), Path(os.path.realpath(PACKAGE_DIR))
    if real == package or package in real.parents or real in package.parents:
        return [f"{d}: is Kessel's own scenarios directory, or holds it: name the league's"]
    out: list[str] = []
    used: dict[str, systems.ScenarioSystem] = {}
    names, walked = _walk(d, out)
    for name in names:
        system = _file(d, name, out)
        if system is not None:
            used[name] = system
    if not names and not out:
        out.append(f"{d}: holds no data file: nothing would replace the shipped files")
    if walked > MAX_FILES:
        out.append(f"{d}: more than {MAX_FILES} entries; a league replaces a few data files")
    if out:
        return out  # the files themselves first: the scenarios would only repeat them
    with overrides.scoped(d):
        for system in {s.id: s for s in used.values()}.values():
            out += _loaded(d, system, [n for n, s in used.items() if s.id == system.id])
    return list(dict.fromkeys(out))


def _walk(d: Path, out: list[str]) -> tuple[list[str], int]:
    """The files' names relative to `d` (links to directories are refused, not followed)."""
    names: list[str] = []
    walked = 0
    for root, dirs, files in os.walk(d, followlinks=False):
        walked += len(dirs)  # a tree of empty directories is bounded too
        if walked > MAX_FILES:
            return names, walked
        for sub in sorted(dirs):
            at = Path(root) / sub
            if os.path.islink(at):
                out.append(f"{at}: a link to a directory: put the files here")
            elif (PACKAGE_DIR / at.relative_to(d)).is_file():
                out.append(f"{at}: a directory where a data file of that name is expected")
        dirs[:] = sorted(x for x in dirs if not os.path.islink(Path(root) / x))
        for f in sorted(files):
            walked += 1
            if walked > MAX_FILES:
                return names, walked
            names.append((Path(root) / f).relative_to(d).as_posix())
    return names, walked


def _file(d: Path, name: str, out: list[str]) -> systems.ScenarioSystem | None:
    path = d / name
    shown = str(path)
    if not inside(path, d):
        out.append(f"{shown}: (file): leaves the league's data directory {d}: refused")
        return None
    if not name.endswith(".yaml"):
        out.append(f"{shown}: (file): not a data file; a league's files are .yaml")
        return None
    system = next((s for s in systems.all_systems() if matches(name, s.overridable)), None)
    shipped = PACKAGE_DIR / name
    if system is None or not shipped.is_file():
        readable = sorted(p for s in systems.all_systems() for p in s.overridable)
        what = "replaces no shipped data file" if not shipped.is_file() else "is not read"
        out.append(
            f"{shown}: (file): {what}: a league's file has the name of a shipped file it "
            f"replaces, one of {', '.join(readable) or 'none'} (relative to scenarios/)"
        )
        return None
    try:
        data = read_yaml_file(path)
    except ScenarioError as e:
        out.append(str(e))
        return None
    for key, problem in overrides.declaration_problems(data):
        out.append(f"{shown}: {key}: {problem}")
    if system.shipped is not None and inside(shipped, system.shipped) and isinstance(data, dict):
        base = read_yaml_file(shipped)
        for key in ("id", "system"):
            if data.get(key) != base.get(key):
                out.append(
                    f"{shown}: {key}: is {data.get(key)!r}; the scenario it replaces is "
                    f"{base.get(key)!r} (games and seasons name it so)"
                )
    return system


def _loaded(d: Path, system: systems.ScenarioSystem, names: list[str]) -> list[str]:
    """The system's shipped scenarios and the league's maps, loaded and checked with the
    league's files in place."""
    from scenarios.loader import list_scenarios, load_scenario_data

    out: list[str] = []
    for name in names:
        if name.startswith("maps/") and system.validate_map is not None:
            try:
                data = overrides.read_data(d / name)
            except ScenarioError as e:
                out.append(str(e))
                continue
            if isinstance(data, dict):
                out += system.validate_map(data, str(d / name))
    try:
        infos = list_scenarios()
    except ScenarioError as e:
        return [*out, str(e)]
    for info in infos:
        try:
            data = overrides.read_data(info.path)
        except ScenarioError as e:
            out.append(str(e))
            continue
        if not isinstance(data, dict) or data.get("system") != system.id:
            continue
        if system.validate is not None:
            out += system.validate(data, info.path)
        else:
            try:
                load_scenario_data(data, str(info.path), info.path.parent)
            except ScenarioError as e:
                out.append(str(e))
    return out
