"""Seeded dice (DESIGN §2, 1.8).

The generator is counter-based: face number i of a game is derived from (seed, i) alone,
so the dice state is two integers plus the queue of forced faces, serialises trivially
and never depends on Python's `random` internals. Forced faces (tests, `kessel run
--dice`) are used first, in order; when they run out the seeded sequence goes on.
A 2K6 roll consumes two single faces.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from engine.numbers import shown


def seeded_face(seed: int, index: int) -> int:
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % 6 + 1


@dataclass
class DiceState:
    seed: int
    index: int = 0  # seeded faces drawn so far
    forced: list[int] = field(default_factory=list)

    def clone(self) -> DiceState:
        return DiceState(self.seed, self.index, list(self.forced))

    def draw(self, n: int) -> tuple[list[int], int, int]:
        """Faces for n dice without changing the state: (faces, forced used, seeded used)."""
        faces: list[int] = []
        used_forced = 0
        used_seeded = 0
        for _ in range(n):
            if used_forced < len(self.forced):
                faces.append(self.forced[used_forced])
                used_forced += 1
            else:
                faces.append(seeded_face(self.seed, self.index + used_seeded))
                used_seeded += 1
        return faces, used_forced, used_seeded

    def consume(self, used_forced: int, used_seeded: int) -> None:
        del self.forced[:used_forced]
        self.index += used_seeded

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "index": self.index, "forced": list(self.forced)}


def parse_faces(text: str) -> list[int]:
    """`"3,4,6,1"` -> [3, 4, 6, 1]; every face must be 1..6."""
    out: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if part not in ("1", "2", "3", "4", "5", "6"):
            raise ValueError(f"'{shown(part)}' is not a die face (1-6)")
        out.append(int(part))
    return out
