"""A league's settings, changed by its organisers (`league set LEAGUE KEY VALUE`): for now
`data`, the data set its seasons play (issue #19, scenarios/data_sets.py). A league names
one of the sets the referee's operator declared, never a directory: the directories are on
the referee's machine, which an organiser on Discord can neither fill nor should name."""

from __future__ import annotations

from bot.service.league_base import LeagueBase, _announce
from bot.service.model import Caller, Refusal, Reply
from engine import numbers
from scenarios import data_sets

SETTINGS = ("data",)


class LeagueSettings(LeagueBase):
    async def set_league(self, caller: Caller, league_id: str, key: str, value: str) -> list[Reply]:
        """An organiser changes a league setting: `data NAME` (a declared data set),
        `data shipped` (Kessel's own files) or `data default` (the referee's default)."""
        league = await self._league(caller, league_id)
        self._organiser(league, caller)
        if key.strip().lower() not in SETTINGS:
            raise Refusal(
                f"a league's settings: {', '.join(SETTINGS)}; not '{numbers.shown(key, 20)}'"
            )
        name = value.strip().lower()
        settings = dict(league.settings)
        if name == data_sets.DEFAULT:
            settings.pop("data", None)
            what = "the referee's default data"
        elif name == data_sets.SHIPPED:
            settings["data"] = name
            what = "Kessel's own data files (shipped)"
        elif name in data_sets.declared():
            settings["data"] = name
            what = f"the data set {name}"
        elif any(c in value for c in "/\\~."):  # a path, or the start of one
            raise Refusal(
                "a league names one of the data sets the referee's operator declared, never "
                f"a directory: {data_sets.choices()}"
            )
        else:
            raise Refusal(
                f"there is no data set '{numbers.shown(value, 40)}': {data_sets.choices()}"
            )
        await self.store.set_league(league.id, settings=settings)
        text = (
            f"League **{league.name}** ({league.id}) plays {what}: its seasons opened from now on "
            "play it; seasons already open keep the data they were opened with."
        )
        return [Reply("caller", text, kind="result"), _announce(text, caller.channel)]
