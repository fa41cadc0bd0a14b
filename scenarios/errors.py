"""The one error every bad data file turns into (DESIGN §5: name the file, the key and
the problem)."""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails


class ScenarioError(Exception):
    """A scenario, map, countersheet or table file that cannot be used.

    `str(e)` is `"{file}: {key}: {problem}"`, e.g.
    `t.yaml: units[2].hex: 9999 is not on the map (columns 1-10, rows 1-8)`, always one
    line: a control character (a newline in a file name) is shown escaped."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        super().__init__(one_line(f"{file}: {key}: {problem}"))
        self.file = file
        self.key = key
        self.problem = problem

    def __reduce__(self) -> tuple[type[ScenarioError], tuple[str, str, str]]:
        return (type(self), (self.file, self.key, self.problem))


def one_line(text: str) -> str:
    """`text` with every unprintable character (newline, NUL, bidi control ...) escaped."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


Loc = Sequence[int | str]


def key_path(loc: Loc) -> str:
    """`("units", 3, "cel")` -> `units[3].cel`; `()` -> `(top level)`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part == "[key]":
            continue
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 6


def _short(value: object) -> str:
    """A value in an error message, cut short: `reprlib` looks at no more than it shows,
    whatever the size of the value (a plain repr() of shared lists is exponential)."""
    text = _REPR.repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _problem(err: ErrorDetails) -> str:
    kind = err["type"]
    loc = err["loc"]
    if kind == "extra_forbidden":
        return f"unknown key '{loc[-1]}'" if loc else "unknown key"
    if kind == "missing":
        return "missing (required)"
    msg = err["msg"]
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            return msg[len(prefix) :]
    if loc and loc[-1] == "[key]":
        msg = f"bad key: {msg}"
    if "input" in err and kind not in ("value_error",):
        msg += f" (got {_short(err['input'])})"
    return msg


M = TypeVar("M", bound=BaseModel)


def from_validation(exc: ValidationError, file: str, prefix: Loc = ()) -> ScenarioError:
    """The first problem of a pydantic ValidationError as a ScenarioError (with the number
    of further problems, if any)."""
    errors = exc.errors()
    first = errors[0]
    problem = _problem(first)
    if len(errors) > 1:
        others = ", ".join(key_path([*prefix, *e["loc"]]) for e in errors[1:4])
        more = "..." if len(errors) > 4 else ""
        problem += f" (and {len(errors) - 1} more: {others}{more})"
    return ScenarioError(file, key_path([*prefix, *first["loc"]]), problem)


def validated(model: type[M], data: object, file: str, prefix: Loc = ()) -> M:
    """`model.model_validate(data)`, with a ValidationError turned into a ScenarioError."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise from_validation(e, file, prefix) from None
