"""The league commands as words (issue #20), for local play (`league ...`) and the command
line (`kessel league ...`); Discord's `/league` gives the same commands as options. Each
line is parsed here and carried out by `bot/service/leagues.py`."""

from __future__ import annotations

from collections.abc import Sequence

from bot.service.leagues import FORMATS, LeagueDesk
from bot.service.model import Caller, Refusal, Reply
from engine import numbers

USAGE = """League commands:
  league list                                  the leagues of this server and their seasons
  league new NAME [system ID] [scenarios A,B]  create a league (moderators); its seasons
                                               play only the scenarios listed, if given
  league set LEAGUE data NAME|shipped|default  the data set the league's new seasons play
                                               (organisers): one the referee's operator
                                               declared, Kessel's own files, or the default
  league season LEAGUE NAME [FORMAT] [SCENARIO] [rounds N] [unrated] [deadline HOURS]
               [forfeit N] [bids]              open a season; FORMAT: {formats}; a side
                                               forfeits after N deadlines missed in a game;
                                               bids: sides settled by sealed VP bids;
               [campaign ID]                   each pairing plays the campaign's chain
                                               (e.g. the-retreat-deblockade)
  league bid SEASON PAIRING SIDE VP            a sealed bid: the side you want, the VPs you
                                               would give your opponent for it
  league join SEASON [PLAYER]                  sign up (before the season starts); organisers
                                               may sign up others: a name, or ai:NAME for
                                               the built-in opponent
  league leave SEASON                          withdraw (before the season starts)
  league divide SEASON N                       N divisions by rating (organisers, before
                                               the start; 1: none)
  league start SEASON                          pair the first round and create its games
  league challenge SEASON PLAYER               a ladder game with a player up to 3 places up
  league close SEASON                          end a season (organisers; a ladder has no end)
  league pairings SEASON                       every pairing, its game and result
  league standings SEASON                      the table, with tie-breaks
  league player LEAGUE [USER]                  a player's rating and record
  league decide SEASON GAME SIDE|draw|forfeit SIDE|forfeit both [REASON...]
                                               an organiser's decision (audited)
  league export SEASON [csv|json]              the standings as CSV or JSON""".format(
    formats=", ".join(FORMATS)
)


async def run(desk: LeagueDesk, caller: Caller, words: Sequence[str]) -> list[Reply] | str:
    """One league command: replies for the person, or (export) the file's text."""
    if not words:
        return [Reply("caller", USAGE, kind="info")]
    verb, args = words[0].lower(), list(words[1:])
    if verb in ("help", "?"):
        return [Reply("caller", USAGE, kind="info")]
    if verb == "list":
        return await desk.list(caller)
    if verb == "new":
        _need(args, 1, "league new NAME [system ID] [scenarios ID,ID...]")
        words, system, allowed = list(args), "wb95", ""
        for key in ("system", "scenarios"):
            if key in words[:-1]:
                i = words.index(key)
                value = words[i + 1]
                del words[i : i + 2]
                system, allowed = (value, allowed) if key == "system" else (system, value)
        return await desk.create_league(
            caller, " ".join(words), system=system, scenarios=allowed.split(",")
        )
    if verb == "set":
        _need(args, 3, "league set LEAGUE data NAME|shipped|default", most=3)
        return await desk.set_league(caller, args[0], args[1], args[2])
    if verb == "season":
        _need(args, 2, "league season LEAGUE NAME [FORMAT] [SCENARIO] [rounds N]")
        return await _season(desk, caller, args)
    if verb == "join":
        _need(args, 1, "league join SEASON [PLAYER (organisers: e.g. ai:Manstein)]", most=2)
        return await desk.join(caller, args[0], args[1] if len(args) > 1 else None)
    if verb == "divide":
        _need(args, 2, "league divide SEASON N", most=2)
        return await desk.divide(caller, args[0], args[1])
    if verb == "bid":
        _need(args, 4, "league bid SEASON PAIRING SIDE VP", most=4)
        return await desk.bid(caller, args[0], args[1], args[2], args[3])
    if verb == "challenge":
        _need(args, 2, "league challenge SEASON PLAYER", most=2)
        return await desk.challenge(caller, args[0], args[1])
    if verb in ("leave", "start", "pairings", "standings", "close"):
        _need(args, 1, f"league {verb} SEASON", most=1)
        call = {
            "leave": desk.leave,
            "start": desk.start,
            "pairings": desk.pairings,
            "standings": desk.standings,
            "close": desk.close,
        }[verb]
        return await call(caller, args[0])
    if verb == "player":
        _need(args, 1, "league player LEAGUE [USER]", most=2)
        return await desk.player(caller, args[0], args[1] if len(args) > 1 else caller.id)
    if verb == "decide":
        _need(args, 3, "league decide SEASON GAME OUTCOME [REASON...]")
        outcome = args[2]
        rest = args[3:]
        if outcome.lower() == "forfeit" and rest:
            outcome, rest = f"forfeit {rest[0]}", rest[1:]
        return await desk.decide(caller, args[0], args[1], outcome, " ".join(rest))
    if verb == "export":
        _need(args, 1, "league export SEASON [csv|json]", most=2)
        fmt = args[1].lower() if len(args) > 1 else "csv"
        if fmt not in ("csv", "json"):
            raise Refusal("export as csv or json")
        return await desk.export(caller, args[0], fmt)
    raise Refusal(f"'{numbers.shown(verb, 20)}' is not a league command\n{USAGE}")


def _need(args: Sequence[str], least: int, usage: str, most: int = 999) -> None:
    if not least <= len(args) <= most:
        raise Refusal(f"usage: {usage}")


async def _season(desk: LeagueDesk, caller: Caller, args: list[str]) -> list[Reply]:
    league, rest = args[0], args[1:]
    name: list[str] = []
    fmt, scenario, rounds, rated, hours = "round-robin", "demo-steblev", None, True, None
    forfeit = 0
    bids = False
    campaign: str | None = None
    i = 0
    while i < len(rest):
        w = rest[i]
        low = w.lower()
        if low in FORMATS:
            fmt = low
        elif low == "rounds" and i + 1 < len(rest):
            rounds = _whole(rest[i + 1], "the number of rounds", 1, 20)
            i += 1
        elif low == "deadline" and i + 1 < len(rest):
            hours = float(_whole(rest[i + 1], "the deadline in hours", 1, 24 * 30))
            i += 1
        elif low == "forfeit" and i + 1 < len(rest):
            forfeit = _whole(rest[i + 1], "the deadlines missed before a forfeit", 1, 20)
            i += 1
        elif low == "unrated":
            rated = False
        elif low == "bids":
            bids = True
        elif low == "campaign" and i + 1 < len(rest):
            campaign = rest[i + 1]
            i += 1
        elif low in _scenario_ids() and name:  # the name's first word may be anything
            scenario = low
        else:
            name.append(w)
        i += 1
    return await desk.create_season(
        caller,
        league,
        " ".join(name) or "Season",
        format=fmt,
        scenario=scenario,
        rounds=rounds,
        rated=rated,
        deadline_hours=hours,
        forfeit_after=forfeit,
        bids=bids,
        campaign=campaign,
    )


def _scenario_ids() -> set[str]:
    from scenarios import list_scenarios

    return {s.id for s in list_scenarios()}


def _whole(text: str, what: str, lo: int, hi: int) -> int:
    try:
        return numbers.whole(text, what, lo, hi)
    except numbers.NumberError as e:
        raise Refusal(str(e)) from None
