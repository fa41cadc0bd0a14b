"""Named data sets (issue #19, docs/leagues.md "A league's own data"): league data
directories the referee's operator declares (`[data.NAME] dir = "..."` in kessel.toml,
checked whole at start-up by `scenarios/override_check.py` `declare`). A league chooses
one by its NAME, and each game records the name it was created with (its row's
`settings["data"]`): the referee loads the game inside that set's scope, whatever the
process's default directory (`overrides.use`) is. Users only ever give a name declared
here, never a path: the directories are the operator's, on the referee's machine."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from scenarios import overrides

SHIPPED = "shipped"  # Kessel's own files, whatever the process's default directory
DEFAULT = "default"  # (a league's choice only) the process's default data: no choice kept
RESERVED = frozenset({SHIPPED, DEFAULT})
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")

_declared: dict[str, Path] = {}  # name -> directory (resolved), as the operator declared


class Undeclared(Exception):
    """A game or league names a data set the operator no longer declares."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return (
            f"it plays the data set '{self.name}', which the referee's operator no longer "
            f"declares: the operator must declare it again ([data.{self.name}] in kessel.toml, "
            "docs/leagues.md)"
        )


def valid_name(name: str) -> bool:
    """Whether `name` may name a declared set (not `shipped` or `default`)."""
    return NAME.fullmatch(name) is not None and name not in RESERVED


def declare(sets: Mapping[str, Path]) -> None:
    """The operator's sets from now on (already checked: `override_check.declare`)."""
    _declared.clear()
    _declared.update({name: Path(d).resolve() for name, d in sets.items()})


def declared() -> dict[str, Path]:
    return dict(_declared)


def directory(name: str | None) -> Path | None:
    """The directory a recorded choice loads with: None (no choice recorded) the process's
    default, `shipped` none at all, a declared name its directory (`Undeclared` when the
    operator no longer declares it)."""
    if name is None:
        return overrides.process()
    if name == SHIPPED:
        return None
    found = _declared.get(name)
    if found is None:
        raise Undeclared(name)
    return found


@contextmanager
def scope(name: str | None) -> Iterator[None]:
    """Load inside the block with the data of the recorded choice `name` (`directory`)."""
    with overrides.scoped(directory(name)):
        yield


def known(name: str) -> bool:
    """Whether a recorded choice loads here: `shipped`, or a name the operator declares."""
    return name == SHIPPED or name in _declared


def choices() -> str:
    """The names a league may choose, as a sentence's end."""
    names = sorted(_declared)
    sets = f"the data sets declared: {', '.join(names)}" if names else "no data set declared"
    return f"{sets}; or {SHIPPED} (Kessel's own files) or {DEFAULT} (the referee's default data)"
