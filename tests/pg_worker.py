"""A second (and third) bot process for tests/test_pg_shared.py: a referee of its own on
the shared PostgreSQL database, sending the orders it is given, and printing each one's
answer as a JSON line: {"key", "accepted", "text"}.

    python tests/pg_worker.py URL GAME ORDERS_JSON
"""

from __future__ import annotations

import asyncio
import json
import sys

from bot.service import Caller, Referee, Refusal

ALICE = Caller("u-alice", "Alice", guild="g1", channel="c1")


async def main(url: str, game: str, orders: list[list[str]]) -> None:
    ref = await Referee.open(url, opponents=None)
    try:
        await ref.game(game)  # held in memory before the others play: must catch up
        print(json.dumps({"ready": True}), flush=True)
        sys.stdin.readline()  # the test starts every process at once
        for key, line in orders:
            try:
                out = await ref.orders(ALICE, game, line, key=key)
                text = "\n".join(r.text for r in out if r.to == "caller")
                print(json.dumps({"key": key, "accepted": True, "text": text}), flush=True)
            except Refusal as e:
                print(json.dumps({"key": key, "accepted": False, "text": str(e)}), flush=True)
    finally:
        await ref.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))
