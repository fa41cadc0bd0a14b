"""A `.env` file's settings (KEY=value lines), as `kessel bot` and `kessel mail` read them
beside the environment and kessel.toml."""

from __future__ import annotations

from pathlib import Path


def read_dotenv(path: Path) -> dict[str, str]:
    """KEY=value per line; blank lines, `#` comments and lines without `=` are skipped, an
    `export ` prefix and quotes around the value are dropped. No file: nothing."""
    out: dict[str, str] = {}
    if not path.is_file():
        return out
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        out[key.strip()] = value.strip().strip("'\"")
    return out
