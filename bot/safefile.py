"""Writing the files a user names (game exports, `--save`, map pictures) safely.

The one path for every file Kessel writes at a user's request:
- never onto a game database or its journal (an SQLite file, or a `-wal`, `-shm` or
  `-journal` file beside one), whatever the options: the store is never overwritten;
- an existing file only when it is of the kind being written (a Kessel game export, a
  PNG picture) or when the user says `force`: another file is not replaced by accident;
- atomically: into a temporary file in the same directory, flushed, then renamed over the
  target, so a crash leaves the old file or the new one, never half of one;
- every refusal and every OS error (no such directory, a NUL in the name, a name too
  long, a full disk, permissions) is a `WriteRefused` with a sentence for the user.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
JOURNALS = ("-wal", "-shm", "-journal")
WAL_MAGIC = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
EXPORT_MARK = b"kessel: game-export"


class WriteRefused(Exception):
    """The file was not written; the message says why."""


def _head(path: Path, n: int = 4096) -> bytes:
    try:
        with path.open("rb") as f:
            return f.read(n)
    except OSError:
        return b""


def _is_database(path: Path) -> bool:
    return path.is_file() and _head(path, 16) == SQLITE_MAGIC


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def store_file(path: Path, stores: Iterable[str | Path] = ()) -> bool:
    """Whether writing `path` would write over a game database or one of its journals:
    one of `stores` (the open databases) or their journals, an SQLite file, or a journal
    name beside an SQLite file."""
    for s in stores:
        base = Path(s)
        for p in (base, *(Path(f"{base}{j}") for j in JOURNALS)):
            if _same(path, p):
                return True
    if _is_database(path):
        return True
    if _head(path, 4) in WAL_MAGIC:
        return True
    name = str(path)
    return any(name.endswith(j) and _is_database(Path(name[: -len(j)])) for j in JOURNALS)


def _kind_of(data: bytes) -> bytes | None:
    if data.startswith(PNG_MAGIC):
        return PNG_MAGIC
    if EXPORT_MARK in data[:4096]:
        return EXPORT_MARK
    return None


def _check_name(name: str) -> Path:
    if not name or not name.strip():
        raise WriteRefused("give a file name")
    if "\x00" in name:
        raise WriteRefused("a file name cannot contain a NUL character")
    if len(name.encode("utf-8", "surrogateescape")) > 4096:
        raise WriteRefused("that file name is too long")
    return Path(name)


def write_file(
    name: str | Path,
    data: str | bytes,
    *,
    force: bool = False,
    stores: Iterable[str | Path] = (),
    what: str = "file",
) -> Path:
    """Write `data` to the file `name` as described in the module docstring; the path
    written. `stores`: the game databases open now (never written over)."""
    path = _check_name(str(name))
    raw = data.encode("utf-8") if isinstance(data, str) else data
    shown = str(name) if len(str(name)) <= 80 else str(name)[:77] + "..."
    try:
        if store_file(path, stores):
            raise WriteRefused(
                f"{shown} is a game database (or its journal): Kessel never writes a {what} "
                "over one; choose another name"
            )
        if path.is_dir():
            raise WriteRefused(f"{shown} is a directory; give a file name")
        if path.exists() and not force:
            mine = _kind_of(raw)
            theirs = _kind_of(_head(path))
            if path.is_symlink() or not path.is_file() or mine is None or theirs != mine:
                raise WriteRefused(
                    f"{shown} exists and is not a {what} Kessel wrote: choose another name, "
                    "or add `force` to replace it"
                )
    except OSError as e:  # e.g. a name too long for the file system
        raise WriteRefused(f"cannot write {shown}: {e.strerror or e}") from None
    parent = path.parent if str(path.parent) else Path(".")
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=parent)
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        reason = e.strerror or str(e)
        if isinstance(e, FileNotFoundError):
            reason = f"the directory {parent} does not exist"
        raise WriteRefused(f"cannot write {shown}: {reason}") from None
    except ValueError as e:  # e.g. an embedded NUL that slipped through a path object
        raise WriteRefused(f"cannot write {shown}: {e}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return path


def is_file(name: str) -> bool:
    """Whether `name` names an existing regular file; False (never an error) for a name
    with a NUL, one too long for the file system, or one that cannot be looked at."""
    if not name or "\x00" in name or len(name) > 4096:
        return False
    try:
        return Path(name).is_file()
    except (OSError, ValueError):
        return False
