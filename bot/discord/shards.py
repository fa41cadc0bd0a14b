"""The bot run as shards (issue #21): which shards this process runs, and which games it
does the per-process work for.

Discord sends a server's events to shard `(guild_id >> 22) % shard_count`, and direct
messages to shard 0. Several bot processes, each running a range of the shards, share one
game database; what no interaction asks for -- the deadline clock (reminders, expiries)
and the built-in opponents' moves after a restart -- each process does only for the games
whose server falls in its shards, and for the games of no server (direct messages) the
process running shard 0. So no such work is done twice. Games made by mail or in local play
are never the bot's: their own transport's process ticks them (it alone can deliver).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.numbers import is_snowflake

MAX_SHARDS = 4096  # far beyond Discord's need (2,500 servers a shard at most)


class ShardError(ValueError):
    """A shard setting that cannot be used; the message says why, in words."""


@dataclass(frozen=True)
class Shards:
    count: int
    ids: tuple[int, ...]  # the shards this process runs, ascending

    def of_guild(self, guild: str) -> int:
        """The shard Discord sends `guild`'s events to; 0 for no server (a direct
        message, local play, mail)."""
        return (int(guild) >> 22) % self.count if is_snowflake(guild) else 0

    def owns(self, guild: str) -> bool:
        """Whether this process does the per-process work of `guild`'s games."""
        return of_discord(guild) and self.of_guild(guild) in self.ids

    @property
    def runs_all(self) -> bool:
        return len(self.ids) == self.count


def of_discord(guild: str) -> bool:
    """Whether a game of `guild` is the Discord bot's: made on a server (a snowflake) or in
    a direct message (no server). Games of other transports (mail, local play) are left to
    their own processes, which alone can deliver their reminders."""
    return guild == "" or is_snowflake(guild)


def parse_count(text: str) -> int:
    word = text.strip()
    if not word.isascii() or not word.isdigit() or not 1 <= int(word) <= MAX_SHARDS:
        raise ShardError(
            f"KESSEL_SHARD_COUNT must be a whole number from 1 to {MAX_SHARDS}, not '{word}'"
        )
    return int(word)


def parse_ids(text: str, count: int) -> tuple[int, ...]:
    """`0,1`, `0-3`, `0-1,4` (a TOML list `[0, 1]` too): the shards of `count` this process
    runs."""
    body = text.strip().removeprefix("[").removesuffix("]")
    ids: set[int] = set()
    for part in (p.strip() for p in body.split(",")):
        low, dash, high = part.partition("-")
        words = [low.strip(), high.strip()] if dash else [low.strip()]
        if not all(w.isascii() and w.isdigit() for w in words):
            raise ShardError(
                f"KESSEL_SHARD_IDS lists shard numbers and ranges, e.g. '0,1' or '0-3', "
                f"not '{text.strip()}'"
            )
        a, b = int(words[0]), int(words[-1])
        if a > b or b >= count:
            raise ShardError(
                f"KESSEL_SHARD_IDS: '{part}' is not a range of shards 0 to {count - 1} "
                f"(KESSEL_SHARD_COUNT is {count})"
            )
        ids.update(range(a, b + 1))
    return tuple(sorted(ids))


def shards_from(count: str, ids: str) -> Shards | None:
    """The settings' shards (None: not sharded: one process, Discord's own shard count)."""
    if not count.strip():
        if ids.strip():
            raise ShardError("KESSEL_SHARD_IDS needs KESSEL_SHARD_COUNT (how many shards in all)")
        return None
    n = parse_count(count)
    return Shards(n, parse_ids(ids, n) if ids.strip() else tuple(range(n)))
