"""Swiss pairing: the Dutch system (FIDE Handbook C.04.3), simplified.

What is kept of the Dutch system:
- players are ranked by points, then rating, then id (a fixed order for equal ratings);
- each score group is split in a top half S1 and a bottom half S2, and S1's first player
  meets S2's first, the second the second, and so on;
- nobody meets the same opponent twice; when a group cannot be paired so, the players
  left over float down into the next group, where they meet its highest players;
- sides follow the colour rules: a player who has played one side more often gets the
  other; with equal counts, the side it did not play last; when both players want the
  same side, the stronger preference wins, then the bigger imbalance, then the higher
  ranked player; in round 1 the higher ranked player of board 1 plays `initial_side`
  and the boards alternate;
- with an odd number of players the lowest ranked player who has not had one gets the
  bye (a win, 2 points, never rated); nobody gets two.

What is simplified: instead of the Dutch system's long list of ordered criteria, the
pairing is the first one found, in Dutch order (S2 in order, then exchanges with S1,
then lower groups), by a search that backtracks over the whole field, under the
strictest side rule that still has a pairing:
1. "balanced": after the round nobody has played one side more than once more than the
   other (stricter than FIDE's limit of two, because a wargame's sides differ far more
   than chess colours);
2. FIDE's absolute rule: never two more, never three in a row;
3. sides free.
Rematches are never allowed; a round that cannot avoid one raises ValueError.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bot.league.pairing_model import Pairing, bye_pairing
from bot.league.results import GameResult
from bot.league.scoring import POINTS

BALANCED, ABSOLUTE, FREE = 0, 1, 2  # the side rules, strictest first


@dataclass
class _Player:
    id: str
    points: int = 0
    rating: float = 0.0
    opponents: set[str] = field(default_factory=set)
    colours: list[int] = field(default_factory=list)  # +1 first side, -1 second
    had_bye: bool = False

    @property
    def imbalance(self) -> int:
        return sum(self.colours)

    def preference(self) -> tuple[int, int]:
        """(side wanted: +1/-1/0, strength: 3 absolute, 2 strong, 1 mild, 0 none)."""
        cd, last = self.imbalance, self.colours[-2:]
        if not self.colours:
            return 0, 0
        if cd <= -2 or last == [-1, -1]:
            return 1, 3
        if cd >= 2 or last == [1, 1]:
            return -1, 3
        if cd != 0:
            return -cd, 2
        return -self.colours[-1], 1


def _records(
    players: Sequence[str], results: Sequence[GameResult], sides: tuple[str, str]
) -> dict[str, _Player]:
    recs = {p: _Player(p) for p in players}
    for r in sorted(results, key=lambda r: (r.round, r.finished, r.game)):
        for p in r.players:
            if p not in recs:
                continue  # a player who has left the event
            rec = recs[p]
            rec.points += POINTS[r.score[p]]
            if r.how == "bye":
                rec.had_bye = True
                continue
            opp = r.opponent(p)
            assert opp is not None
            rec.opponents.add(opp)
            side = r.side_of(p)
            if side in sides:
                rec.colours.append(1 if side == sides[0] else -1)
    return recs


def _compatible(a: _Player, b: _Player, rule: int) -> bool:
    if b.id in a.opponents:
        return False
    (ca, sa), (cb, sb) = a.preference(), b.preference()
    if rule == BALANCED:
        return not (ca == cb != 0 and sa >= 2 and sb >= 2)
    if rule == ABSOLUTE:
        return not (ca == cb != 0 and sa == 3 and sb == 3)
    return True


def _first_side_for_higher(high: _Player, low: _Player, board: int, initial: int) -> int:
    """+1 when the higher ranked player gets the first side (FIDE C.04.3 colour rules)."""
    (ch, sh), (cl, sl) = high.preference(), low.preference()
    if sh == 0 and sl == 0:
        return initial if board % 2 == 1 else -initial
    if sl == 0 or (sh and ch != cl):
        return ch
    if sh == 0:
        return -cl
    if sh != sl:  # the stronger preference wins
        return ch if sh > sl else -cl
    if abs(high.imbalance) != abs(low.imbalance):
        return ch if abs(high.imbalance) > abs(low.imbalance) else -cl
    # Alternate from the latest round in which the two played different sides.
    for x, y in zip(reversed(high.colours), reversed(low.colours), strict=False):
        if x != y:
            return -x
    return ch


def _pair(ranked: list[_Player], rule: int) -> list[tuple[_Player, _Player]] | None:
    """The first pairing of `ranked` in Dutch order with no rematch under `rule`."""
    failed: set[frozenset[str]] = set()

    def candidates(left: list[_Player]) -> list[_Player]:
        top, rest = left[0], left[1:]
        group = [p for p in rest if p.points == top.points]
        if not group:  # a floater meets the next group from its top
            return rest
        bracket = [top, *group]
        half = len(bracket) // 2
        s2, s1 = bracket[half:], bracket[1:half]
        lower = [p for p in rest if p.points != top.points]
        return [*s2, *reversed(s1), *lower]

    def search(left: list[_Player]) -> list[tuple[_Player, _Player]] | None:
        if not left:
            return []
        key = frozenset(p.id for p in left)
        if key in failed:
            return None
        for q in candidates(left):
            if _compatible(left[0], q, rule):
                sub = search([p for p in left[1:] if p is not q])
                if sub is not None:
                    return [(left[0], q), *sub]
        failed.add(key)
        return None

    return search(ranked)


def swiss_round(
    round_no: int,
    players: Sequence[str],
    results: Sequence[GameResult],
    *,
    sides: tuple[str, str],
    ratings: Mapping[str, float] | None = None,
    initial_side: str | None = None,
) -> list[Pairing]:
    """The pairings of round `round_no` among `players` (those still in the event),
    from the `results` of the earlier rounds (byes included). `initial_side` is the
    side of board 1's higher player in round 1 (drawn by lot by the caller if wanted;
    default the first side)."""
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    recs = _records(players, results, sides)
    for p in recs.values():
        p.rating = (ratings or {}).get(p.id, 0.0)
    ranked = sorted(recs.values(), key=lambda p: (-p.points, -p.rating, p.id))
    initial = -1 if initial_side == sides[1] else 1
    sitters: list[_Player | None] = [None]
    if len(ranked) % 2:
        sitters = [p for p in reversed(ranked) if not p.had_bye]
        if not sitters:
            raise ValueError("every player has had a bye; no one can sit out again")
    for rule in (BALANCED, ABSOLUTE, FREE):
        for sitter in sitters:
            pairs = _pair([p for p in ranked if p is not sitter], rule)
            if pairs is not None:
                return _boards(round_no, pairs, sitter, ranked, sides, initial)
    raise ValueError(f"round {round_no} cannot be paired without a rematch")


def _boards(
    round_no: int,
    pairs: list[tuple[_Player, _Player]],
    sitter: _Player | None,
    ranked: list[_Player],
    sides: tuple[str, str],
    initial: int,
) -> list[Pairing]:
    rank = {p.id: i for i, p in enumerate(ranked)}
    ordered = sorted(
        (sorted(pair, key=lambda p: rank[p.id]) for pair in pairs), key=lambda pr: rank[pr[0].id]
    )
    out: list[Pairing] = []
    for board, (high, low) in enumerate(ordered, start=1):
        first, second = (high, low)
        if _first_side_for_higher(high, low, board, initial) < 0:
            first, second = low, high
        out.append(
            Pairing(round_no, f"r{round_no}.{board}", {sides[0]: first.id, sides[1]: second.id})
        )
    if sitter is not None:
        out.append(bye_pairing(round_no, sitter.id))
    return out
