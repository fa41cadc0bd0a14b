"""Running a message's commands on the referee service: each command, or the one block
of orders, is one service call made as the sender (`Caller` mail:ADDRESS). Who may act
for a seat was settled before (desk.py); the service decides everything else."""

from __future__ import annotations

from dataclasses import replace

from bot.mail.commands import HELP, Plan, PlanError, Step, map_args
from bot.mail.parse import Inbound
from bot.odds_words import format_odds
from bot.service import Caller, Referee, Refusal, Reply
from engine.notation import USAGE
from engine.numbers import NumberError, shown, whole


async def run_step(
    ref: Referee, step: Step, p: Plan, msg: Inbound, caller: Caller, gid: str | None
) -> list[Reply]:
    v, args = step.verb, step.args
    if v == "help":
        if args and args[0].lower() in USAGE:
            return [Reply("caller", f"{args[0].lower()}: {USAGE[args[0].lower()]}", game=gid)]
        return [Reply("caller", HELP, game=None)]
    if v == "orders":
        return [Reply("caller", "\n".join(USAGE.values()), game=gid)]
    if v == "games":
        found = await ref.games(caller, mine=True)
        lines = [
            f"{x['id']}: {x['name']}, {x['where']} (you: {', '.join(x['mine']) or 'watch'})"
            for x in found
        ]
        return [Reply("caller", "Your games:\n" + ("\n".join(lines) or "none yet"))]
    if v == "new":
        return await new_game(ref, args, caller)
    if v in ("join", "watch"):
        if v == "watch":
            args = [*args[:1], "spectator"]
        if len(args) != 2:
            raise PlanError("join GAME SIDE, or join GAME spectator")
        out = await ref.join(caller, args[0].lower(), args[1].lower())
        return [welcome(r) for r in out]
    if gid is None:
        raise Refusal(
            "which game? Reply to a mail of the game, or write a line `game GAME` "
            "(`games` lists yours)"
        )
    if v == "orders-block":
        return await ref.orders(caller, gid, p.block, key="mail:" + msg.message_id, expect=p.expect)
    if v == "status":
        return await ref.status(caller, gid)
    if v == "decision":
        return await ref.decision(caller, gid)
    if v == "odds":  # a what-if in the sender's own view (RuleSystem.preview): a look
        line = " ".join(args)
        if not line:
            raise PlanError("odds UNITS -> HEX, e.g. odds s-337 s-20tb -> 0306")
        if line.split()[0].lower() != "attack":
            line = "attack " + line
        text = format_odds(await ref.odds(caller, gid, line), limit=None)
        return [Reply("caller", f"Odds preview (nothing was declared): {line}\n{text}", game=gid)]
    if v == "log":
        new = bool(args) and args[0].lower() in ("new", "since")
        limit = 40
        if args and not new:
            try:
                limit = whole(args[0], "the number of log lines", 1, 1000)
            except NumberError as e:
                raise PlanError(str(e)) from None
        return await ref.history(caller, gid, since_last=new, limit=limit)
    if v == "map":
        around, radius = map_args(args)
        g = await ref.reach(caller, gid)
        where = f"around {around}" if around else "where your counters are"
        return [
            Reply(
                "caller",
                f"The map of game {g.id} as you see it ({where}) is attached.",
                game=g.id,
                map_viewer="own",
                data={"map_around": around, "map_radius": radius} if around else {},
            )
        ]
    if v == "opponent":
        if len(args) != 1:
            raise PlanError("opponent SIDE, e.g. opponent german")
        return await ref.seat_ai(caller, gid, args[0])
    if v == "undo":
        return await ref.undo(caller, gid)
    if v == "resign":
        return await ref.resign(caller, gid)
    if v == "leave":
        return await ref.leave(caller, gid)
    if v == "mod":
        return await ref.mod(caller, gid, " ".join(args), key="mail:" + msg.message_id)
    raise PlanError(f"'{shown(v, 20)}' is not a command (`help` lists them)")


async def new_game(ref: Referee, args: list[str], caller: Caller) -> list[Reply]:
    scenario, rest = args[0], [a.lower() for a in args[1:]]
    seed: int | None = None
    side: str | None = None
    while rest:
        word = rest.pop(0)
        if word == "seed" and rest:
            try:
                seed = whole(rest.pop(0), "the seed", 0, 2**63 - 1)
            except NumberError as e:
                raise PlanError(str(e)) from None
        elif side is None:
            side = word
        else:
            raise PlanError("game new SCENARIO [SIDE] [seed N]")
    out = await ref.new_game(caller, scenario, seed=seed, side=side)
    return [welcome(r) for r in out]


def welcome(r: Reply) -> Reply:
    return replace(r, data=r.data | {"welcome": True}) if r.to == "caller" else r


def refusal_text(step: Step, e: Refusal) -> str:
    text = str(e)
    if e.rule and e.rule not in text:
        text += f" ({e.rule})"
    if step.verb == "orders-block":
        if "applied" not in text.lower():
            text += " Nothing of this block was applied."
        return f"Not applied: {text}"
    return f"{step.verb}: {text}"
