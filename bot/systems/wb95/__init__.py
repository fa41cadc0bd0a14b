"""WB-95 in the bot: its describer (bot/describe.py) and its built-in opponent
(bot/systems/wb95/ai/, issue #23; the opponent of issue 7, bot/systems/wb95/opponent.py,
stays as the baseline that `kessel duel` measures it against)."""

from __future__ import annotations

from bot import describe
from bot.systems import BotSystem, Chooser

# The strength of the built-in opponent this process seats (`kessel play --level`): 1-3
# trade thinking time for quality (bot/systems/wb95/ai/opponent.py), 0 is the baseline.
_level: int | None = None


def set_level(level: int | None) -> None:
    """`kessel play --level L`: 0 the baseline, 1-3 the opponent's levels, None its default."""
    global _level
    if level is not None and level not in (0, 1, 2, 3):
        raise ValueError(f"level {level}: 0 (the baseline) or 1-3")
    _level = level


def _own_modules() -> tuple[str, ...]:
    """This package and its modules, the AI's included: the adapters that may read the
    WB-95 engine package (tests/test_layering.py)."""
    import pkgutil

    return (__name__, *(m.name for m in pkgutil.walk_packages(__path__, f"{__name__}.")))


def _opponent(side: str, seed: int) -> Chooser:
    if _level == 0:
        from bot.systems.wb95.opponent import Opponent as Baseline

        return Baseline(side, seed).choose
    from bot.systems.wb95.ai.opponent import DEFAULT_LEVEL, Opponent

    return Opponent(side, seed, _level or DEFAULT_LEVEL).choose


BOT_SYSTEM = BotSystem(
    "wb95",
    describer=describe,
    opponent=_opponent,
    # bot/describe.py is WB-95's describer (its event kinds, decisions and answers); every
    # module of this package (the opponents, their checks, the duel) is WB-95's own
    adapters=("bot.describe", *_own_modules()),
)
