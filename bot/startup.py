"""The start of a long-running transport (`kessel bot`, `kessel mail`): logs as one JSON
object per line on stderr, its settings loaded or one sentence on stderr saying why not."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and any `extra` fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        out |= {k: v for k, v in record.__dict__.items() if k not in _STANDARD}
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


def setup_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def settings(
    command: str,
    log_level: str,
    load: Callable[[], T | None],
    refused: tuple[type[Exception], ...],
    missing: str,
) -> T | None:
    """Logging set up and the transport's settings loaded; None (and why, on stderr, as
    "kessel COMMAND: ...") when they are refused or when what it needs is not set."""
    setup_logging(log_level)
    try:
        cfg = load()
    except refused as e:
        print(f"kessel {command}: {e}", file=sys.stderr)
        return None
    if cfg is None:
        print(f"kessel {command}: {missing}", file=sys.stderr)
    return cfg
