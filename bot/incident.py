"""Incidents: an unexpected error at an entry point, told to the user in one sentence.

Each entry point (a `kessel` command, a line of local play, a call of the referee
service, a Discord interaction) catches what it did not foresee, records it here with its
traceback under a short incident id, and tells the user that id instead of a traceback.
The record goes to the `kessel.incident` logger (the bot's JSON log) and, for the
terminal, to `incidents.log` in Kessel's state directory
($XDG_STATE_HOME/kessel, default ~/.local/state/kessel), so a user can send it along.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import secrets
import traceback
from pathlib import Path

log = logging.getLogger("kessel.incident")


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kessel"


def log_file() -> Path:
    return state_dir() / "incidents.log"


class _FileHandler(logging.Handler):
    """Appends each incident, with its traceback, to `log_file()`; opened per record and
    best effort (a read-only home must not turn an incident into a second one)."""

    def emit(self, rec: logging.LogRecord) -> None:
        stamp = dt.datetime.fromtimestamp(rec.created, dt.UTC).isoformat(timespec="seconds")
        text = f"--- {stamp} {rec.getMessage()}\n"
        if rec.exc_info and rec.exc_info[1] is not None:
            text += "".join(traceback.format_exception(rec.exc_info[1]))
        try:
            state_dir().mkdir(parents=True, exist_ok=True)
            with log_file().open("a", encoding="utf-8") as f:
                f.write(text + "\n")
        except OSError:
            pass


def to_file() -> None:
    """At the terminal (`kessel` commands, local play): incidents go to `log_file()` and
    nowhere else -- not to the screen, where logging's last resort would print them."""
    if not any(isinstance(h, _FileHandler) for h in log.handlers):
        log.addHandler(_FileHandler())
        log.propagate = False


def record(exc: BaseException, where: str) -> str:
    """Record `exc` (with its traceback) under a new incident id; the id."""
    iid = secrets.token_hex(4)
    log.error("incident %s in %s", iid, where, exc_info=exc, extra={"incident": iid})
    return iid


def sentence(iid: str, *, changed: str = "nothing was changed", where: bool = False) -> str:
    """What the user reads."""
    text = f"something went wrong inside Kessel (incident {iid}); {changed}."
    if where:
        text += f" The details are in {log_file()}."
    return text
