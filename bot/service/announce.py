"""What a side is told as its step of play begins (issue #17): its game's rule system
says (`RuleSystem.announcements`; WB-95's: engine/wb95/announce.py)."""

from __future__ import annotations

from engine import systems
from engine.state import GameState


def announcements(state: GameState, side: str) -> list[str]:
    """Lines for `side`'s turn notice; empty when there is nothing to announce."""
    return systems.of(state).announcements(state, side)
