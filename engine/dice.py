"""Seeded dice (DESIGN §2, 1.8).

The generator is counter-based: face number i of a game is derived from (seed, i) alone,
so the dice state is two integers plus the queue of forced faces, serialises trivially
and never depends on Python's `random` internals. Forced faces (tests, `kessel run
--dice`) are used first, in order; when they run out the seeded sequence goes on.
A 2K6 roll consumes two single faces.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
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


# --- verifiable dice (issue #20): commit to the seed at the start, reveal it at the end ---

COMMIT_PREFIX = "sha256:"


def commitment(seed: int) -> str:
    """The published commitment to a game's seed: anyone holding the seed revealed at the
    end checks it against what was published at the start. A referee-chosen seed is 63
    random bits, out of reach of a search through candidate seeds."""
    return COMMIT_PREFIX + hashlib.sha256(f"kessel-dice-v1:{seed}".encode()).hexdigest()


@dataclass(frozen=True)
class DiceAudit:
    """What `audit` found: rolls and faces checked, faces forced (not from the seed), and
    the first rolls that do not match (event seq, a sentence)."""

    rolls: int
    faces: int
    forced: int
    wrong: tuple[tuple[int, str], ...]

    @property
    def ok(self) -> bool:
        return not self.wrong


def audit(seed: int, forced: Sequence[int], events: Iterable[Any]) -> DiceAudit:
    """Recompute every logged roll (`dice_rolled` events, `Ctx.roll`) from the seed and
    the game's forced faces, in order: each face must be the next forced face or the next
    face of the seed's sequence, as `DiceState.draw` takes them."""
    queue = list(forced)
    index = rolls = faces = used_forced = 0
    wrong: list[tuple[int, str]] = []
    for e in events:
        if getattr(e, "kind", None) != "dice_rolled":
            continue
        rolls += 1
        data = e.data
        got = [int(x) for x in data.get("faces") or []]
        n_forced, n_seeded = int(data.get("forced", 0)), int(data.get("seeded", len(got)))
        if n_forced + n_seeded != len(got):
            wrong.append((e.seq, f"{len(got)} faces logged for {n_forced + n_seeded} dice"))
            continue
        want = queue[:n_forced] + [seeded_face(seed, index + k) for k in range(n_seeded)]
        del queue[:n_forced]
        index += n_seeded
        faces += len(got)
        used_forced += n_forced
        if got != want:
            shown_got = "+".join(map(str, got))
            wrong.append((e.seq, f"logged {shown_got}, the seed gives {'+'.join(map(str, want))}"))
    return DiceAudit(rolls, faces, used_forced, tuple(wrong[:10]))
