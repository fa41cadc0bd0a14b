"""`/map` on a phone (issue #18, items 11-12): a crop by default, the whole map on request,
the map's legend as its own picture."""

from __future__ import annotations

import io

from harness import ALICE, BOB, Harness, h
from PIL import Image

__all__ = ["h"]  # the fixture


def _size(data: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(data)).size


async def test_map_is_phone_sized_by_default_whole_on_request_and_legend(h: Harness) -> None:
    await h.command(ALICE, "game new", scenario="korsun-1944", side="soviet", seed=3)
    await h.command(BOB, "game join", side="german")
    crop = (await h.command(ALICE, "map"))[-1].data[0]
    whole = (await h.command(ALICE, "map", whole=True))[-1].data[0]
    assert _size(crop)[0] <= 800 < _size(whole)[0]  # a radius-4 crop fits a phone's width
    legend = (await h.command(ALICE, "map", legend=True))[-1]
    assert legend.files and _size(legend.data[0]) != _size(crop)
    typed = (await h.command(ALICE, "map", around="legend"))[-1]
    assert typed.data == legend.data
