"""1.8 and DESIGN §2: seeded dice with a forced-faces mode."""

from __future__ import annotations

import pytest

from engine.dice import DiceState, parse_faces, seeded_face


def test_seeded_faces_are_deterministic_and_fair_enough() -> None:
    faces = [seeded_face(7, i) for i in range(6000)]
    assert faces == [seeded_face(7, i) for i in range(6000)]
    for f in range(1, 7):
        assert 850 < faces.count(f) < 1150


def test_forced_faces_come_first_then_the_seeded_sequence() -> None:
    d = DiceState(seed=3, forced=[6, 6])
    faces, forced, seeded = d.draw(3)
    assert faces[:2] == [6, 6] and faces[2] == seeded_face(3, 0)
    assert (forced, seeded) == (2, 1)
    d.consume(forced, seeded)
    assert d.forced == [] and d.index == 1


def test_parse_faces() -> None:
    assert parse_faces("3,4, 6,1") == [3, 4, 6, 1]
    with pytest.raises(ValueError, match="not a die face"):
        parse_faces("3,7")
