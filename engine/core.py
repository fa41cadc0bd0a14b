"""Events, rejections and the context in which rules turn an input into events.

Rules never change a state directly: they `emit` events, and each event is applied to a
working copy by the system's reducer as it is emitted, so later steps of the same input
see its effects. A rejection raised anywhere discards the working copy: the caller's
state is untouched (DESIGN §2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.state import GameState


@dataclass(frozen=True)
class Event:
    seq: int
    kind: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, **self.data}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Event:
        data = {k: v for k, v in obj.items() if k not in ("seq", "kind")}
        return Event(int(obj["seq"]), str(obj["kind"]), data)


@dataclass(frozen=True)
class Rejection:
    """Why an input was refused: a message a player understands, the rule case it rests
    on and, where one applies, the project ruling."""

    message: str
    rule: str = ""
    ruling: str = ""

    def __str__(self) -> str:
        cite = ", ".join(x for x in (self.rule, self.ruling) if x)
        return (
            f"{self.message} ({cite})" if cite and f"({cite})" not in self.message else self.message
        )

    def to_json(self) -> dict[str, Any]:
        return {"message": str(self), "rule": self.rule, "ruling": self.ruling}


@dataclass(frozen=True)
class Applied:
    events: list[Event]
    state: GameState


class Rejected(Exception):
    def __init__(self, message: str, rule: str = "", ruling: str = "") -> None:
        super().__init__(message)
        self.rejection = Rejection(message, rule, ruling)


Reducer = Callable[[GameState, Event], None]


class Ctx:
    """A working copy of the state and the events emitted so far."""

    def __init__(self, state: GameState, reducer: Reducer) -> None:
        self.before = state  # the state the input was given in (never changed: a copy works)
        self.state = state.clone()
        self.events: list[Event] = []
        self._reduce = reducer

    def emit(self, kind: str, /, **data: Any) -> Event:
        # "seq" and "kind" are the event's own keys in its JSON form (DESIGN §6)
        assert "kind" not in data and "seq" not in data, f"{kind}: data may not use seq/kind"
        ev = Event(self.state.seq + 1, kind, data)
        self._reduce(self.state, ev)
        self.events.append(ev)
        return ev

    def roll(self, n: int, reason: str, /, **info: Any) -> list[int]:
        """Roll n six-sided dice (nK6, 1.8); the faces are logged as an event."""
        faces, used_forced, used_seeded = self.state.dice.draw(n)
        self.emit(
            "dice_rolled",
            faces=faces,
            total=sum(faces),
            reason=reason,
            forced=used_forced,
            seeded=used_seeded,
            **info,
        )
        return faces

    def done(self) -> Applied:
        return Applied(self.events, self.state)
