"""The league desk's shared part (issue #20, bot/service/leagues.py): finding leagues
and seasons, organisers' rights, the game a pairing plays and its result, and the helpers
every part uses."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.league.ratings import recompute
from bot.league.results import GameResult
from bot.service.model import Caller, Refusal, Reply
from bot.store_leagues import LeagueRow, PairingRow, SeasonRow
from engine import numbers
from engine.digest import setup_digest
from scenarios import data_sets, overrides
from scenarios.loader import scenario_data

if TYPE_CHECKING:
    from bot.service.game import LiveGame
    from bot.service.referee import Referee


FORMATS = ("round-robin", "double-round-robin", "two-game-sets", "swiss", "ladder")
SCORING_FORMAT = {  # the tie-break order each format uses (bot/league/scoring.py)
    "round-robin": "round-robin",
    "double-round-robin": "round-robin",
    "two-game-sets": "round-robin",
    "swiss": "swiss",
    "ladder": "round-robin",  # its table is the ladder; points are shown beside it
}
MIN_PLAYERS = 2


class LeagueBase:
    """What every part of the league desk shares: the referee and its store, finding
    leagues and seasons, who organises, a game created for a pairing and its result."""

    def __init__(self, ref: Referee) -> None:
        self.ref = ref

    @property
    def store(self) -> Any:
        return self.ref.store

    # --- finding ---------------------------------------------------------------------
    async def _league(self, caller: Caller, league_id: str) -> LeagueRow:
        row: LeagueRow | None = await self.store.league(league_id.strip().lower())
        if row is None or row.guild != caller.guild:
            raise Refusal(
                f"there is no league '{numbers.shown(league_id)}' in this server: "
                "`league list` shows them"
            )
        return row

    async def _season(self, caller: Caller, season_id: str) -> tuple[LeagueRow, SeasonRow]:
        row = await self.store.season(season_id.strip().lower())
        league = None if row is None else await self.store.league(row.league)
        if row is None or league is None or league.guild != caller.guild:
            raise Refusal(
                f"there is no season '{numbers.shown(season_id)}' in this server: "
                "`league seasons LEAGUE` lists them"
            )
        return league, row

    @staticmethod
    def _organiser(league: LeagueRow, caller: Caller) -> None:
        if not (caller.server_mod or caller.id == league.created_by):
            raise Refusal(
                f"only the league's organisers (its creator, {league.created_by}, and the "
                "server's moderators) may do that"
            )

    async def _new_id(self, prefix: str) -> str:
        rng = random.Random(f"{prefix}:{self.ref.clock()}")
        for _ in range(1000):
            candidate = prefix + "".join(
                rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(4)
            )
            if (
                await self.store.league(candidate) is None
                and await self.store.season(candidate) is None
            ):
                return candidate
        raise Refusal("no free id: try again")  # pragma: no cover

    # --- rounds ----------------------------------------------------------------------
    async def _sides(self, season: SeasonRow) -> tuple[str, str]:
        from scenarios import load_scenario

        with overrides.scoped(_data_dir(season)):
            setup = load_scenario(str(season.settings["scenario"]))
        first, second = list(setup.sides)[:2]
        return (first, second)

    async def _create_game(
        self,
        league: LeagueRow,
        season: SeasonRow,
        p: PairingRow,
        caller: Caller,
        names: dict[str, str],
        *,
        stage_data: dict[str, Any] | None = None,
        stage_name: str = "",
    ) -> tuple[str, list[Reply]]:
        from bot.store import Store

        ref = self.ref
        organiser = Caller(league.created_by, "league", guild=league.guild, channel=season.channel)
        settings: dict[str, Any] = {}
        if season.settings.get("deadline_hours"):
            settings["deadline_hours"] = season.settings["deadline_hours"]
            # a missed deadline plays the absent side's default input (docs/deadlines.md);
            # `forfeit_after` of them forfeit the game
            settings["policy"] = "default"
        # the seed: 63 secure random bits, never a moderator's (seed=None, engine/dice.py)
        handicap = (season.settings.get("handicaps") or {}).get(p.key)
        data = None
        if stage_data is not None:  # a campaign's next game, with what carried over
            data = stage_data
        elif handicap:  # a VP bid paid: the scenario with its victory handicap (K134)
            with overrides.scoped(_data_dir(season)):
                data = scenario_data(p.scenario)
        if handicap and data is not None:
            data.setdefault("victory", {})["handicap"] = dict(handicap)
        scen = p.scenario if data is None else "inline"
        title = f"{season.name} {p.key}" + (f" ({stage_name})" if stage_name else "")
        # the data set the season was opened with (the league's choice then), recorded
        # in the game so that it loads with it whatever the process's default (issue #19)
        named = season.settings.get("data")
        row = await ref._new_row(organiser, scen, title, None, settings, data, named)
        seats = [Store.seat_join(row.id, league.created_by, "league", "moderator", "", 0)]
        for side, user in p.sides.items():
            seats.append(Store.seat_join(row.id, user, names.get(user, user), "player", side, 0))
        setup = ref._setup(row)
        want = season.settings.get("data_digest")
        if want and data is None and setup_digest(setup) != want:
            # a rated season plays the data it began with (issue #19): not other data
            raise Refusal(
                f"{p.key}: the data of {p.scenario} are not the season's ({want[:19]}..., now "
                f"{setup_digest(setup)[:19]}...): an organiser decides the pairing or closes "
                "the season"
            )
        made = ref._created_record(organiser, row, None, setup)
        g = await ref._create(row, [made], seats)
        await self.store.set_pairing(season.id, p.key, game=g.id, result=None)
        return g.id, await ref._maybe_start(g, organiser)

    async def _result(
        self,
        league: LeagueRow,
        season: SeasonRow,
        p: PairingRow,
        g: LiveGame | None,
        winner: str | None,
        how: str,
    ) -> GameResult:
        loser = None if winner is None else next(s for s in p.sides if s != winner)
        score = {
            u: (0.5 if winner is None else 1.0 if s == winner else 0.0) for s, u in p.sides.items()
        }
        if how == "forfeit-both":
            score = dict.fromkeys(p.sides.values(), 0.0)
            how = "forfeit"
        margin = 0.0
        started = True
        if g is not None:
            vp = g.system.victory_points(g.state) or {}
            if winner is not None and loser is not None:
                margin = max(0.0, float(vp.get(winner, 0)) - float(vp.get(loser, 0)))
            started = len(await self.ref.played_sides(g)) >= 2  # (read back past snapshots)
        return GameResult(
            game=g.id if g is not None else f"{season.id}.{p.key}",
            system=league.system,
            scenario=p.scenario,
            finished=self.ref.clock(),
            sides=dict(p.sides),
            score=score,
            margin=margin,
            how=how,
            rated=bool(season.settings.get("rated", True)),
            started=started,
            round=p.round,
        )

    # --- reading ---------------------------------------------------------------------
    async def _results(self, season: SeasonRow) -> list[GameResult]:
        return [_result_from(p.result) for p in await self.store.pairings(season.id) if p.result]

    async def _league_results(self, league: LeagueRow) -> list[GameResult]:
        out: list[GameResult] = []
        for s in await self.store.seasons(league.id):
            out += await self._results(s)
        return out

    @staticmethod
    def _ratings_of(league: LeagueRow, results: Sequence[GameResult]) -> dict[str, float]:
        rated = recompute(results)
        return {p: rated.of(league.system, p).mu for p in rated.players(league.system)}

    async def _names(self, league: LeagueRow) -> dict[str, str]:
        out: dict[str, str] = {}
        for s in await self.store.seasons(league.id):
            out.update({e.user_id: e.display for e in await self.store.entrants(s.id)})
        return out

    async def _round_complete(self, league: LeagueRow, season: SeasonRow) -> list[Reply]:
        raise NotImplementedError  # pragma: no cover - LeagueDesk's (bot/service/leagues.py)


def _data_dir(season: SeasonRow) -> Path | None:
    """The directory of the data set a season plays (scenarios/data_sets.py); refused,
    said, when the operator no longer declares it."""
    try:
        return data_sets.directory(season.settings.get("data"))
    except data_sets.Undeclared as e:
        raise Refusal(f"season {season.id}: {e}") from None


def _announce(text: str, channel: str) -> Reply:
    """A league announcement in `channel` (a league's reply belongs to no one game)."""
    return Reply("channel", text, kind="announcement", data={"channel": channel})


def _system_of(info: Any) -> str:
    """A shipped scenario's rule system: the folder it ships in (scenarios/<system>/)."""
    return str(info.path.parent.name)


def _result_json(r: GameResult) -> dict[str, Any]:
    return {
        "game": r.game, "system": r.system, "scenario": r.scenario, "finished": r.finished,
        "sides": dict(r.sides), "score": dict(r.score), "margin": r.margin, "how": r.how,
        "bid": r.bid, "rated": r.rated, "started": r.started, "round": r.round,
    }  # fmt: skip


def _result_from(d: dict[str, Any]) -> GameResult:
    return GameResult(
        game=str(d["game"]), system=str(d["system"]), scenario=str(d["scenario"]),
        finished=float(d["finished"]), sides=dict(d["sides"]),
        score={str(k): float(v) for k, v in d["score"].items()}, margin=float(d["margin"]),
        how=str(d["how"]), bid=float(d.get("bid", 0)), rated=bool(d.get("rated", True)),
        started=bool(d.get("started", True)), round=int(d.get("round", 0)),
    )  # fmt: skip
