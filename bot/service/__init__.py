"""The referee service: transport-agnostic games, seats, orders, moderators and deadlines
over the engine and the store (DESIGN §1). The CLI and the Discord cogs are adapters."""

from bot.service.model import DEFAULT_SETTINGS, Caller, Refusal, Reply
from bot.service.referee import Referee

__all__ = ["DEFAULT_SETTINGS", "Caller", "Referee", "Refusal", "Reply"]
