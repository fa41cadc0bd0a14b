"""`kessel bot` settings: the token from the environment, `kessel.toml` or a `.env` file.

    KESSEL_DISCORD_TOKEN   the bot token (required)
    KESSEL_DB              the game database: a file (default kessel.db) or a
                           postgresql://user:password@host/db URL (docs/deploy.md)
    KESSEL_GUILD           a guild id to sync commands to (development)
    KESSEL_SHARD_COUNT     how many shards the bot runs as, in all (default: not sharded)
    KESSEL_SHARD_IDS       the shards this process runs: "0,1", "0-3" (default: all of them)

`kessel.toml` may hold the same under `[discord]`: `token`, `db`, `guild`, `shard_count`,
`shard_ids` (or the variables' own names, `KESSEL_SHARD_COUNT` ...; bot/discord/shards.py,
docs/discord.md "Shards").
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from bot.discord.shards import Shards, shards_from
from bot.dotenv import read_dotenv

TOKEN_ENV = "KESSEL_DISCORD_TOKEN"


@dataclass(frozen=True)
class BotConfig:
    token: str
    db: str = "kessel.db"
    guild: str = ""
    shards: Shards | None = None  # None: one process, not sharded


def _toml(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8")).get("discord", {})
    return {_env_key(k): str(v) for k, v in data.items() if v is not None}


def _env_key(key: str) -> str:
    """`shard_count` (or the variable's own name, `KESSEL_SHARD_COUNT`) -> its variable."""
    if key == "token":
        return TOKEN_ENV
    upper = key.upper()
    return upper if upper.startswith("KESSEL_") else f"KESSEL_{upper}"


def load_config(directory: str | Path = ".", env: dict[str, str] | None = None) -> BotConfig | None:
    """The settings, environment first, then `kessel.toml`, then `.env`; None without a
    token. A shard setting that cannot be used raises ShardError (its message says why)."""
    base = Path(directory)
    merged = (
        read_dotenv(base / ".env")
        | _toml(base / "kessel.toml")
        | dict(os.environ if env is None else env)
    )
    token = merged.get(TOKEN_ENV, "").strip()
    if not token:
        return None
    return BotConfig(
        token=token,
        db=merged.get("KESSEL_DB", "kessel.db") or "kessel.db",
        guild=merged.get("KESSEL_GUILD", ""),
        shards=shards_from(
            merged.get("KESSEL_SHARD_COUNT", ""), merged.get("KESSEL_SHARD_IDS", "")
        ),
    )
