"""render/: the "what happened" overlays of issue 6 (moves, retreats, combats, decisions)."""

from __future__ import annotations

from pathlib import Path

from conftest import play, scenario
from PIL import Image

from bot.cli import main
from engine.core import Event
from engine.view import visible_events
from render import snapshot, style
from render.snapshot import last_phase_events, locate

GERMAN_COMBAT = {"turn": 1, "phase": "combat", "active": "german"}


def _px(img: Image.Image, xy: tuple[float, float]) -> tuple[int, int, int]:
    p = img.getpixel((round(xy[0]), round(xy[1])))
    assert isinstance(p, tuple)
    return (p[0], p[1], p[2])


def _near(img: Image.Image, xy: tuple[float, float], colour: tuple[int, int, int]) -> bool:
    x, y = round(xy[0]), round(xy[1])
    return any(_px(img, (x + dx, y + dy)) == colour for dx in (-1, 0, 1) for dy in (-1, 0, 1))


def test_move_arrow_runs_between_start_and_end_hex_centres() -> None:
    setup = scenario([{"id": "s1", "hex": "0202"}, {"id": "g1", "hex": "0808"}])
    rec = play(setup, "move s1 0203 0204")
    plain = snapshot(rec.state, "soviet")
    img = snapshot(rec.state, "soviet", events=visible_events(rec.events, "soviet"))
    assert img.size == plain.size
    (ax, ay), (bx, by) = locate(setup.map, img, "0202"), locate(setup.map, img, "0203")
    for t in (0.4, 0.5, 0.6):  # the pixels between two path hexes, away from counters
        p = (ax + (bx - ax) * t, ay + (by - ay) * t)
        assert _near(img, p, style.MOVE_ARROW), t
        assert not _near(plain, p, style.MOVE_ARROW), t


def test_5_2_combat_label_at_the_defending_hex() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "type": "arm", "sp": 6},
        {"id": "g-b", "hex": "0605", "type": "arm", "sp": 6},
        {"id": "s-cav1", "hex": "0505", "type": "cav", "sp": 4},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    rec = play(setup, "attack g-a g-b -> 0505", dice=(3, 4))
    evs = visible_events(rec.events, "moderator")
    last = last_phase_events(evs, rec.state.turn)
    assert [e.kind for e in last if e.kind == "combat_resolved"] == ["combat_resolved"]
    plain = snapshot(rec.state, "moderator")
    img = snapshot(rec.state, "moderator", events=evs)
    x, y = locate(setup.map, img, "0505")
    r = style.BASE_RADIUS
    box = (x - r, y - r, x + r, y - 0.3 * r)  # the label sits above the hex centre
    bg = style.COMBAT_LABEL[0]
    colours = img.crop(tuple(round(v) for v in box)).getcolors(100000) or []
    assert any(c == bg for _, c in colours)
    assert not any(
        c == bg for _, c in plain.crop(tuple(round(v) for v in box)).getcolors(100000) or []
    )


def test_only_the_last_phase_of_the_current_turn_is_drawn() -> None:
    def ev(seq: int, kind: str, **data: object) -> Event:
        return Event(seq, kind, dict(data))

    evs = [
        ev(1, "phase_started", turn=1, index=0),
        ev(2, "moved", path=["0101", "0102"]),
        ev(3, "phase_started", turn=1, index=1),
        ev(4, "moved", path=["0202", "0203"]),
        ev(5, "phase_started", turn=1, index=2),
        ev(6, "supply_traced"),
    ]
    assert [e.seq for e in last_phase_events(evs, 1)] == [4]
    assert last_phase_events(evs, 2) == []


def test_leak_a_hidden_enemy_move_does_not_change_the_picture() -> None:
    """The Soviet picture of a German stack's move is the same whatever the stack hides;
    a sealed submission's content (redacted by visible_events) draws nothing."""

    def picture(second: dict[str, object], extra: list[Event]) -> bytes:
        setup = scenario(
            [
                {"id": "s1", "hex": "0202"},
                {"id": "g1", "hex": "0808", "type": "arm", "sp": 6, "mp": 8},
                {"id": "g2", "hex": "0808", **second},
            ],
            start={"turn": 1, "phase": "movement", "active": "german"},
        )
        rec = play(setup, "move g1 0807", "move g2 0807")
        evs = visible_events([*rec.events, *extra], "soviet")
        return snapshot(rec.state, "soviet", events=evs).tobytes()

    base = picture({"type": "inf", "sp": 3, "mp": 4}, [])
    hidden = Event(
        999,
        "sealed_submitted",
        {
            "side": "german",
            "group": "x",
            "must": [],
            "reveal": "phase_end",
            "items": [{"kind": "moved", "path": ["0808", "0707"]}],
        },
    )
    assert picture({"type": "mech", "sp": 5, "mp": 6, "size": "D"}, [hidden]) == base


def test_pending_retreat_hexes_are_highlighted_for_the_deciding_side() -> None:
    units = [
        {"id": "g-a", "hex": "0604", "type": "arm", "sp": 6},
        {"id": "g-b", "hex": "0605", "type": "arm", "sp": 6},
        {"id": "s-cav1", "hex": "0505", "type": "cav", "sp": 4},
        {"id": "s-cav2", "hex": "0505", "type": "cav", "sp": 4},
    ]
    setup = scenario(units, start=GERMAN_COMBAT)
    rec = play(setup, "attack g-a g-b -> 0505", dice=(6, 6))
    (d,) = rec.state.pending
    assert (d.kind, d.side) == ("losses", "german")
    for viewer, shown in (("german", True), ("moderator", True), ("soviet", False)):
        img = snapshot(rec.state, viewer)
        for h in ("0604", "0605"):
            x, y = locate(setup.map, img, h)
            ring = [(x + dx, y + dy) for dx in range(-22, 23) for dy in range(-22, 23)]
            assert any(_px(img, p) == style.PENDING for p in ring) is shown, (viewer, h)


def test_cli_render_with_events(tmp_path: Path) -> None:
    out = tmp_path / "m.png"
    code = main(
        [
            "render",
            "demo-steblev",
            "--events",
            "--control",
            "--hq-range",
            "3",
            "--view",
            "soviet",
            "--out",
            str(out),
        ]
    )
    assert code == 0 and out.stat().st_size > 1000
