"""`kessel bot`: run the Discord referee.

    kessel bot [--db FILE] [--sync global | --sync guild [ID]] [--log-level INFO]

The token comes from KESSEL_DISCORD_TOKEN, `kessel.toml` ([discord] token = ...) or `.env`
(bot.discord.config). KESSEL_SHARD_COUNT and KESSEL_SHARD_IDS run the bot as shards, this
process running some of them (docs/discord.md, "Shards"). The slash commands are uploaded
on the first start and whenever they changed (to KESSEL_GUILD if set, else globally), or
when asked (`--sync`): guild commands update at once (development); global ones may take
a while to show. Run as shards, only the process running shard 0 uploads them.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from typing import TYPE_CHECKING

from bot.startup import JsonFormatter, settings, setup_logging
from engine.numbers import is_snowflake

if TYPE_CHECKING:
    from bot.discord.shards import Shards

__all__ = ["JsonFormatter", "main", "setup_logging", "sync_target"]


def sync_target(words: list[str] | None, default_guild: str) -> str | None:
    """`global`, a guild id, or None (no sync)."""
    if not words:
        return None
    if words[0] == "global":
        return "global"
    if words[0] == "guild":
        gid = words[1] if len(words) > 1 else default_guild
        if not is_snowflake(gid):
            raise SystemExit("kessel bot: --sync guild needs a guild id (or KESSEL_GUILD)")
        return gid
    if is_snowflake(words[0]):
        return words[0]
    raise SystemExit("kessel bot: --sync global, or --sync guild ID")


async def _serve(
    token: str, db: str, sync: str | None, guild: str, shards: Shards | None = None
) -> None:
    from bot.discord.client import make_bot
    from bot.service import Referee

    log = logging.getLogger("kessel.discord")
    ref = await Referee.open(db)
    bot = make_bot(ref, shards)
    try:
        async with bot:
            await bot.login(token)
            if sync is not None:
                count = await bot.sync(sync)
                log.info("commands synced", extra={"where": sync, "count": count})
            elif bot.syncs_commands:  # first start, or the commands changed: upload them once
                where = guild or "global"
                synced = await bot.sync_if_changed(where)
                if synced is not None:
                    log.info("commands synced", extra={"where": where, "count": synced})
            ran: dict[str, object] = {"db": ref.store.path}  # (a URL without its password)
            if shards is not None:
                ran |= {"shards": list(shards.ids), "shard_count": shards.count}
            log.info("starting", extra=ran)
            await bot.connect()
    finally:
        await ref.close()


def main(args: argparse.Namespace) -> int:
    from bot.discord.config import load_config
    from bot.discord.shards import ShardError

    cfg = settings(
        "bot",
        args.log_level,
        load_config,
        (ShardError,),
        'no token. Set KESSEL_DISCORD_TOKEN, or put `token = "..."` under [discord] in '
        "kessel.toml, or KESSEL_DISCORD_TOKEN=... in .env",
    )
    if cfg is None:
        return 1
    db = args.db or cfg.db
    try:
        target = sync_target(args.sync, cfg.guild)
        asyncio.run(_serve(cfg.token, db, target, cfg.guild, cfg.shards))
    except KeyboardInterrupt:
        return 0
    return 0
