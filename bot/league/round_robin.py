"""Round robins with Berger tables, sides balanced, and AHIKS two-game sets.

Berger tables (FIDE Handbook C.05, Annex 1) fix who meets whom in which round and who
plays the first side: with an even number of players each plays the first side n/2 or
n/2 - 1 times, so the two sides differ by at most one game. With an odd number one
player sits out each round (the Berger table's dummy), and the dummy's alternation
would leave some players two games apart; there the first side goes to the player for
whom the other is 1 to (n-1)/2 places further round the circle of seeds, which gives
everyone each side exactly (n-1)/2 times. In a round each player plays one game, so
nobody plays the same side in two games at once (Rally the Troops's rule).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.league.pairing_model import Pairing, bye_pairing


def berger_table(n: int) -> list[list[tuple[int, int]]]:
    """Rounds of games (first side, second side) between seeds 0..n-1; an odd n adds the
    dummy seed n, whose opponent sits out. Round 1 is 1-n, 2-(n-1), ... as FIDE prints it;
    each round the circle turns by n/2 and the last seed alternates sides."""
    if n < 2:
        raise ValueError("a round robin needs two players")
    m = n + n % 2
    rounds: list[list[tuple[int, int]]] = []
    for r in range(m - 1):
        s = r * (m // 2) % (m - 1)  # the seed meeting the last seed this round
        games = [(s, m - 1) if r % 2 == 0 else (m - 1, s)]
        games += [((s + k) % (m - 1), (s - k) % (m - 1)) for k in range(1, m // 2)]
        rounds.append(games)
    if n % 2:
        rounds = [[_circle_sides(a, b, n) for a, b in games] for games in rounds]
    return rounds


def _circle_sides(a: int, b: int, n: int) -> tuple[int, int]:
    if n in (a, b):
        return (a, b)  # the dummy: a player sitting out
    return (a, b) if 1 <= (b - a) % n <= (n - 1) // 2 else (b, a)


def round_robin(
    players: Sequence[str],
    sides: tuple[str, str],
    *,
    double: bool = False,
    first_round: int = 1,
) -> list[Pairing]:
    """Every round of a round robin among `players`, given in seed order (Berger number
    1 first). `double` plays the whole table again with the sides switched, so each
    pair meets once on each side. A player sitting out a round gets a bye pairing."""
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    table = berger_table(len(players))
    legs = [table, [[(b, a) for a, b in games] for games in table]] if double else [table]
    out: list[Pairing] = []
    rnd = first_round
    for leg in legs:
        for games in leg:
            board = 0
            for a, b in games:
                if len(players) in (a, b):
                    out.append(bye_pairing(rnd, players[min(a, b)]))
                    continue
                board += 1
                out.append(
                    Pairing(rnd, f"r{rnd}.{board}", {sides[0]: players[a], sides[1]: players[b]})
                )
            rnd += 1
    return out


def two_game_sets(pairings: Sequence[Pairing]) -> list[Pairing]:
    """AHIKS's two-game set: each pairing becomes two games in the same round, keys
    suffixed "a" and "b", the second with the sides switched; each player plays each
    side once against the same opponent. Byes stay byes."""
    out: list[Pairing] = []
    for p in pairings:
        if p.is_bye:
            out.append(p)
            continue
        (s1, a), (s2, b) = p.sides.items()
        out.append(Pairing(p.round, f"{p.game_key}a", {s1: a, s2: b}))
        out.append(Pairing(p.round, f"{p.game_key}b", {s1: b, s2: a}))
    return out
