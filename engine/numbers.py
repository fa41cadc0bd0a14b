"""Numbers typed by people: the one parsing path for every transport and the notation.

`str.isdigit()` is true for "²" and other Unicode digits that `int()` refuses, `int()`
takes Arabic-Indic digits and underscores, `float()` takes "nan", "inf" and "1e400", and a
5,000-digit number is refused by `int()` with a ValueError of its own. Here a whole number
is 1 to 18 ASCII digits and a decimal is ASCII digits with at most one point; anything
else is a `NumberError` whose message says what was expected, never a traceback.
"""

from __future__ import annotations

import re

MAX_DIGITS = 18  # below 2**63: fits SQLite's integers and the dice seeds
_WHOLE = re.compile(r"[0-9]{1,18}")
_DECIMAL = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,6})?|\.[0-9]{1,6}")


class NumberError(ValueError):
    """A number as typed is not one: the message is a sentence for the player."""


def shown(text: str, n: int = 24) -> str:
    """The text as quoted back in a refusal: cut, with control characters made visible."""
    out = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:n])
    return out + ("…" if len(text) > n else "")


def is_whole(text: str) -> bool:
    """1 to 18 ASCII digits (and nothing else)."""
    return _WHOLE.fullmatch(text) is not None


def is_snowflake(text: str) -> bool:
    """A Discord id (a "snowflake"): 1 to 20 ASCII digits, below 2^64."""
    return re.fullmatch(r"[0-9]{1,20}", text) is not None and int(text) < 2**64


def _range(lo: int | float | None, hi: int | float | None) -> str:
    if lo is not None and hi is not None:
        return f" from {lo:g} to {hi:g}"
    if lo is not None:
        return f" of at least {lo:g}"
    if hi is not None:
        return f" of at most {hi:g}"
    return ""


def whole(text: str, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """`text` as a whole number in [lo, hi], or a NumberError naming `what`."""
    if not is_whole(text.strip()):
        raise NumberError(f"{what} must be a whole number{_range(lo, hi)}, not '{shown(text)}'")
    n = int(text.strip())
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        raise NumberError(f"{what} must be a whole number{_range(lo, hi)}, not {n}")
    return n


def decimal(text: str, what: str, lo: float | None = None, hi: float | None = None) -> float:
    """`text` as a decimal number (e.g. 24 or 1.5) in [lo, hi], or a NumberError."""
    if _DECIMAL.fullmatch(text.strip()) is None:
        raise NumberError(f"{what} must be a number{_range(lo, hi)}, e.g. 24, not '{shown(text)}'")
    x = float(text.strip())
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        raise NumberError(f"{what} must be a number{_range(lo, hi)}, not {x:g}")
    return x


SEED_MAX = 2**63 - 1


def seed(value: object, what: str = "the seed") -> int:
    """A dice seed, typed or read from a file: a whole number from 0 to 2^63 - 1 (`true`,
    -1, 2^64 and 10^400 are not); the same check for `kessel run`, local play, the
    service and imported games."""
    if isinstance(value, bool):
        raise NumberError(f"{what} must be a whole number from 0 to 2^63 - 1, not {value}")
    if isinstance(value, int):
        if not 0 <= value <= SEED_MAX:
            said = shown(str(value)) if value.bit_length() < 1000 else "a number that large"
            raise NumberError(f"{what} must be a whole number from 0 to 2^63 - 1, not {said}")
        return value
    if isinstance(value, str):
        n = whole(value, what, 0, SEED_MAX) if is_whole(value.strip()) else None
        if n is not None:
            return n
    raise NumberError(
        f"{what} must be a whole number from 0 to 2^63 - 1, not '{shown(str(value))}'"
    )
