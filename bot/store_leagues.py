"""The league tables of the store (issue #20): leagues, seasons, entrants, pairings and
the audit of moderators' decisions. A mixin of `bot.store.Store`: the same connection,
lock and transactions. Results are kept as written when a game ends or a moderator
decides; standings and ratings are recomputed from them (bot/league), never stored."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LeagueRow:
    id: str
    guild: str
    name: str
    system: str
    settings: dict[str, Any]
    created_by: str
    created_at: float


@dataclass(frozen=True)
class SeasonRow:
    id: str
    league: str
    name: str
    format: str
    status: str  # signup | running | over
    channel: str  # where its games are played and announced
    settings: dict[str, Any]
    created_at: float


@dataclass(frozen=True)
class EntrantRow:
    season: str
    user_id: str
    display: str
    joined_at: float
    division: str = ""  # "" when the season has no divisions


@dataclass(frozen=True)
class PairingRow:
    season: str
    key: str
    round: int
    sides: dict[str, str]
    scenario: str
    game: str | None
    result: dict[str, Any] | None


class LeagueTables:
    """Store methods for the league tables (`self._write`, `self._all` are the Store's)."""

    # what orders the audit as written (SQLite: its rowid; PostgreSQL: a serial column)
    _AUDIT_ORDER = "rowid"

    async def _write(self, steps: Sequence[tuple[str, Sequence[Any]]]) -> None:
        raise NotImplementedError  # pragma: no cover - the Store's

    async def _all(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError  # pragma: no cover - the Store's

    # --- leagues and seasons ---------------------------------------------------------
    async def create_league(self, row: LeagueRow) -> None:
        await self._write(
            [
                (
                    "INSERT INTO leagues VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (row.id, row.guild, row.name, row.system, json.dumps(row.settings),
                     row.created_by, row.created_at),
                )
            ]
        )  # fmt: skip

    async def leagues(self, guild: str) -> list[LeagueRow]:
        rows = await self._all(
            "SELECT * FROM leagues WHERE guild = ? ORDER BY created_at", (guild,)
        )
        return [_league(r) for r in rows]

    async def league(self, league_id: str) -> LeagueRow | None:
        rows = await self._all("SELECT * FROM leagues WHERE id = ?", (league_id,))
        return _league(rows[0]) if rows else None

    async def set_league(self, league_id: str, *, settings: dict[str, Any]) -> None:
        await self._write(
            [("UPDATE leagues SET settings = ? WHERE id = ?", (json.dumps(settings), league_id))]
        )

    async def create_season(self, row: SeasonRow) -> None:
        await self._write([(_SEASON_INSERT, _season_args(row))])

    async def seasons(self, league_id: str) -> list[SeasonRow]:
        rows = await self._all(
            "SELECT * FROM seasons WHERE league = ? ORDER BY created_at", (league_id,)
        )
        return [_season(r) for r in rows]

    async def season(self, season_id: str) -> SeasonRow | None:
        rows = await self._all("SELECT * FROM seasons WHERE id = ?", (season_id,))
        return _season(rows[0]) if rows else None

    async def set_season(self, season_id: str, *, status: str, settings: dict[str, Any]) -> None:
        await self._write(
            [
                (
                    "UPDATE seasons SET status = ?, settings = ? WHERE id = ?",
                    (status, json.dumps(settings), season_id),
                )
            ]
        )

    # --- entrants --------------------------------------------------------------------
    async def entrants(self, season_id: str) -> list[EntrantRow]:
        rows = await self._all(
            "SELECT * FROM entrants WHERE season = ? ORDER BY joined_at, user_id", (season_id,)
        )
        return [EntrantRow(str(r[0]), str(r[1]), str(r[2]), float(r[3]), str(r[4])) for r in rows]

    async def enter(self, row: EntrantRow) -> None:
        await self._write(
            [
                (
                    "INSERT INTO entrants VALUES (?, ?, ?, ?, ?)",
                    (row.season, row.user_id, row.display, row.joined_at, row.division),
                )
            ]
        )

    async def set_divisions(self, season_id: str, divisions: dict[str, str]) -> None:
        """Each entrant's division (user id -> name), in one transaction."""
        await self._write(
            [
                (
                    "UPDATE entrants SET division = ? WHERE season = ? AND user_id = ?",
                    (d, season_id, u),
                )
                for u, d in divisions.items()
            ]
        )

    async def withdraw(self, season_id: str, user_id: str) -> None:
        await self._write(
            [("DELETE FROM entrants WHERE season = ? AND user_id = ?", (season_id, user_id))]
        )

    # --- pairings and results --------------------------------------------------------
    async def add_pairings(
        self,
        rows: Sequence[PairingRow],
        *,
        season: SeasonRow | None = None,
        audit: tuple[str, float, str, str, dict[str, Any]] | None = None,
    ) -> None:
        """New pairings (and the season's new status/settings, and an audit line) in one
        transaction: a crash leaves a round whole or not paired at all."""
        steps: list[tuple[str, Sequence[Any]]] = [
            (
                "INSERT INTO pairings VALUES (?, ?, ?, ?, ?, ?, ?)",
                (p.season, p.key, p.round, json.dumps(p.sides), p.scenario, p.game,
                 None if p.result is None else json.dumps(p.result)),
            )
            for p in rows
        ]  # fmt: skip
        if season is not None:
            steps.append(
                (
                    "UPDATE seasons SET status = ?, settings = ? WHERE id = ?",
                    (season.status, json.dumps(season.settings), season.id),
                )
            )
        if audit is not None:
            steps.append(_audit_step(*audit))
        await self._write(steps)

    async def pairings(self, season_id: str) -> list[PairingRow]:
        rows = await self._all(
            "SELECT * FROM pairings WHERE season = ? ORDER BY round, key", (season_id,)
        )
        return [_pairing(r) for r in rows]

    async def pairing_of_game(self, game_id: str) -> PairingRow | None:
        rows = await self._all("SELECT * FROM pairings WHERE game = ?", (game_id,))
        return _pairing(rows[0]) if rows else None

    async def set_pairing(
        self,
        season_id: str,
        key: str,
        *,
        game: str | None,
        result: dict[str, Any] | None,
        audit: tuple[str, float, str, str, dict[str, Any]] | None = None,
    ) -> None:
        steps: list[tuple[str, Sequence[Any]]] = [
            (
                "UPDATE pairings SET game = ?, result = ? WHERE season = ? AND key = ?",
                (game, None if result is None else json.dumps(result), season_id, key),
            )
        ]
        if audit is not None:
            steps.append(_audit_step(*audit))
        await self._write(steps)

    async def set_pairing_sides(self, season_id: str, key: str, sides: dict[str, str]) -> None:
        """The sides of a pairing settled by bids (before its game exists)."""
        await self._write(
            [
                (
                    "UPDATE pairings SET sides = ? WHERE season = ? AND key = ? AND game IS NULL",
                    (json.dumps(sides), season_id, key),
                )
            ]
        )

    async def league_audit(self, season_id: str) -> list[tuple[float, str, str, dict[str, Any]]]:
        rows = await self._all(
            "SELECT ts, actor, kind, body FROM league_audit WHERE season = ? ORDER BY "
            + self._AUDIT_ORDER,
            (season_id,),
        )
        return [(float(r[0]), str(r[1]), str(r[2]), json.loads(r[3])) for r in rows]


_SEASON_INSERT = "INSERT INTO seasons VALUES (?, ?, ?, ?, ?, ?, ?, ?)"


def _season_args(row: SeasonRow) -> tuple[Any, ...]:
    return (row.id, row.league, row.name, row.format, row.status, row.channel,
            json.dumps(row.settings), row.created_at)  # fmt: skip


def _audit_step(
    season: str, ts: float, actor: str, kind: str, body: dict[str, Any]
) -> tuple[str, Sequence[Any]]:
    return (
        "INSERT INTO league_audit VALUES (?, ?, ?, ?, ?)",
        (season, ts, actor, kind, json.dumps(body)),
    )


def _league(r: Sequence[Any]) -> LeagueRow:
    return LeagueRow(str(r[0]), str(r[1]), str(r[2]), str(r[3]), json.loads(r[4]), str(r[5]),
                     float(r[6]))  # fmt: skip


def _season(r: Sequence[Any]) -> SeasonRow:
    return SeasonRow(str(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]),
                     json.loads(r[6]), float(r[7]))  # fmt: skip


def _pairing(r: Sequence[Any]) -> PairingRow:
    return PairingRow(
        str(r[0]),
        str(r[1]),
        int(r[2]),
        {str(k): str(v) for k, v in json.loads(r[3]).items()},
        str(r[4]),
        None if r[5] is None else str(r[5]),
        None if r[6] is None else json.loads(r[6]),
    )
