"""Which league data directory a `kessel` command reads (issue #19, docs/ags.md "A league's
data"): `--data DIR`, else `KESSEL_DATA`, else `data = "DIR"` under `[league]` in
`kessel.toml` (relative to the file's directory); none of them: the shipped files only.
Only the standard library here: `kessel --help` stays quick (issue #13)."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

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


def _toml(path: Path) -> str | None:
    if not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: cannot be read ({e})") from None
    league = data.get("league", {})
    value = league.get("data") if isinstance(league, dict) else None
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(
            f'{path}: league.data: must be the path of a directory, e.g. data = "ours"'
        )
    return str(path.parent / value.strip())
