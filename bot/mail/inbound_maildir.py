"""Reading a Maildir (for people whose own mail server delivers into one, and the queue
of the SMTP receiver): each file of `new/` is handled, oldest first, then moved to
`cur/` flagged seen (Maildir's own rename, atomic)."""

from __future__ import annotations

import os
from pathlib import Path

MAX_READ = 64 * 1024 * 1024  # a file larger than this is read only in part (and refused)


def ensure(path: str | Path) -> Path:
    base = Path(path)
    for sub in ("tmp", "new", "cur"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    return base


def waiting(path: str | Path, limit: int = 100) -> list[Path]:
    new = ensure(path) / "new"
    names = sorted(n for n in os.listdir(new) if not n.startswith("."))[:limit]
    return [new / n for n in names if (new / n).is_file()]


def read(file: Path, limit: int) -> bytes:
    """The message, or its first `limit + 1` bytes when larger (parse.py refuses it)."""
    with open(file, "rb") as f:
        return f.read(min(limit + 1, MAX_READ))


def done(file: Path) -> None:
    """Into cur/, flagged seen (Maildir: NAME:2,S)."""
    name = file.name.split(":2,")[0]
    os.replace(file, file.parent.parent / "cur" / f"{name}:2,S")


def deliver(path: str | Path, raw: bytes, unique: str) -> Path:
    """Put a message into new/ the Maildir way: written in tmp/, then renamed."""
    base = ensure(path)
    tmp = base / "tmp" / unique
    with open(tmp, "wb") as f:
        f.write(raw)
        f.flush()
        os.fsync(f.fileno())
    final = base / "new" / unique
    os.replace(tmp, final)
    return final
