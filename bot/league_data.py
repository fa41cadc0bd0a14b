"""Which league data directory a `kessel` command reads (issue #19, docs/ags.md "A league's
data"): `--data DIR`, else `KESSEL_DATA`, else `data = "DIR"` under `[league]` in
`kessel.toml` (relative to the file's directory); none of them: the shipped files only.
That is the process's default; the operator's named data sets, which leagues choose by
name, are the `[data.NAME]` tables of the same file (`sets`, scenarios/data_sets.py).
Only the standard library here: `kessel --help` stays quick (issue #13)."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ENV = "KESSEL_DATA"


class ConfigError(Exception):
    """kessel.toml cannot be read: a sentence naming the file and the key."""


def configured(
    option: str | None, directory: str | Path = ".", env: Mapping[str, str] | None = None
) -> str | None:
    """The data directory the command names (option, environment, kessel.toml), or None."""
    if option:
        return option
    value = (os.environ if env is None else env).get(ENV, "").strip()
    if value:
        return value
    return _toml(Path(directory) / "kessel.toml")


def sets(directory: str | Path = ".") -> dict[str, str]:
    """The operator's named data sets in `kessel.toml` (`[data.NAME]`, `dir = "DIR"`
    relative to the file's directory): name -> directory; none without the file."""
    path = Path(directory) / "kessel.toml"
    data = _read(path)
    if data is None or "data" not in data:
        return {}
    table = data["data"]
    example = '[data.ostfront] dir = "ostfront-data"'
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: data: must be tables of data sets, e.g. {example}")
    out: dict[str, str] = {}
    for name, entry in table.items():
        if not (_NAME.fullmatch(name) and name not in ("shipped", "default")):
            raise ConfigError(
                f"{path}: data.{name}: a data set's name is 1-32 lowercase letters, digits, "
                "- or _ (and not shipped or default), e.g. ostfront"
            )
        if not isinstance(entry, dict):
            raise ConfigError(f"{path}: data.{name}: must be a table, e.g. {example}")
        extra = sorted(set(entry) - {"dir"})
        if extra:
            raise ConfigError(f"{path}: data.{name}.{extra[0]}: unknown key (a data set has dir)")
        value = entry.get("dir")
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(
                f'{path}: data.{name}.dir: must be the path of a directory, e.g. dir = "ours"'
            )
        out[name] = str(path.parent / value.strip())
    return out


_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")  # scenarios.data_sets.NAME (kept light)


def _read(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: cannot be read ({e})") from None


def _toml(path: Path) -> str | None:
    data = _read(path)
    if data is None:
        return None
    league = data.get("league", {})
    value = league.get("data") if isinstance(league, dict) else None
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(
            f'{path}: league.data: must be the path of a directory, e.g. data = "ours"'
        )
    return str(path.parent / value.strip())
