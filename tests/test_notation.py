"""The order notation parser and formatter (DESIGN §4)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.notation import NotationError, format_order, parse_order, parse_orders
from engine.orders import (
    Air,
    Attack,
    Barrage,
    Bridge,
    Defend,
    Done,
    Enter,
    Fire,
    Fortify,
    Losses,
    Mask,
    Mod,
    Move,
    Order,
    Pass,
    Pursue,
    Retreat,
    SetupChange,
    Strategic,
)

# Copied verbatim from DESIGN.md §4.
DESIGN_BLOCK = """\
soviet: move s-232 0334 0434            # path of adjacent hexes (or just the destination:
soviet: move @0531 0632                 #   the engine takes the cheapest legal path)
german: attack g-88a g-88b -> 1619 support g-art7 air g-air1
german: fire g-art7 g-art11 -> 1722     # artillery ranged attack (6.4)
german: barrage g-art7 g-art11 -> 1722  # 6.5
german: fortify g-88a                   # build field fortifications (7.1)
german: setup g-art7 transport          # artillery combat/transport setup (6.2)
german: strategic g-5ss-1               # mark for strategic movement (12.0)
german: enter g-24pz-1 C                # reinforcement entry by zone or hex (11.0)
german: air g-air1 support-attack 1619  # secret, sealed until revealed (8.0); a counter
german: air 4 attack 1619               #   (Kursk) or an SP amount (Korsun)
german: mask 1618 on                    # 16.1.2
german: bridge destroy 1618/1619        # 14.0 ; bridge build HQ HEX/HEX
soviet: losses s-232 s-232              # answer a pending decision: one CEL per listing
soviet: retreat s-232 0335 0336         # retreat path (shorter = sustained retreat 5.3.7)
german: pursue g-88a 0334 0335
german: done                            # end my part of the current phase
"""

S, G = "soviet", "german"


def test_design_block_parses_to_the_right_orders() -> None:
    expected: list[Order] = [
        Move(units=("s-232",), path=("0334", "0434"), side=S, line=1),
        Move(units=("@0531",), path=("0632",), side=S, line=2),
        Attack(
            units=("g-88a", "g-88b"),
            target="1619",
            support=("g-art7",),
            air=("g-air1",),
            side=G,
            line=3,
        ),
        Fire(units=("g-art7", "g-art11"), target="1722", side=G, line=4),
        Barrage(units=("g-art7", "g-art11"), target="1722", side=G, line=5),
        Fortify(units=("g-88a",), side=G, line=6),
        SetupChange(units=("g-art7",), mode="transport", side=G, line=7),
        Strategic(units=("g-5ss-1",), side=G, line=8),
        Enter(units=("g-24pz-1",), where="C", side=G, line=9),
        Air(mission="support-attack", hex="1619", counter="g-air1", side=G, line=10),
        Air(mission="attack", hex="1619", amount=4, side=G, line=11),
        Mask(hex="1618", on=True, side=G, line=12),
        Bridge(action="destroy", hexside=("1618", "1619"), side=G, line=13),
        Losses(units=("s-232", "s-232"), side=S, line=14),
        Retreat(unit="s-232", path=("0335", "0336"), side=S, line=15),
        Pursue(unit="g-88a", path=("0334", "0335"), side=G, line=16),
        Done(side=G, line=17),
    ]
    orders = parse_orders(DESIGN_BLOCK)
    assert orders == expected
    # Every order keeps its line's text, without the comment.
    assert orders[0].text == "soviet: move s-232 0334 0434"
    assert orders[2].text == "german: attack g-88a g-88b -> 1619 support g-art7 air g-air1"
    assert [o.verb for o in orders][:3] == ["move", "move", "attack"]


def test_design_block_round_trips_through_format() -> None:
    for order in parse_orders(DESIGN_BLOCK):
        again = parse_order(format_order(order), order.line)
        assert again == order


# --- the forms not in the DESIGN block -----------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("pass", Pass()),
        ("done", Done()),
        ("retreat s-232", Retreat(unit="s-232")),
        ("bridge build g-hq1 1618/1619", Bridge("build", ("1618", "1619"), hq="g-hq1")),
        ("mask 1618 off", Mask(hex="1618", on=False)),
        ("setup g-art7 g-art8 combat", SetupChange(("g-art7", "g-art8"), "combat")),
        ("enter s-1 s-2 0101 0102 0103", Enter(("s-1", "s-2"), "0101", ("0102", "0103"))),
        ("enter s-1 b 0102", Enter(("s-1",), "B", ("0102",))),
        ("attack s-1 -> 0101", Attack(("s-1",), "0101")),
        ("attack s-1 -> 0101 air 2 3", Attack(("s-1",), "0101", air=("2", "3"))),
        (
            "attack s-1 -> 0101 air g-a1 support s-2 @0102",
            Attack(("s-1",), "0101", support=("s-2", "@0102"), air=("g-a1",)),
        ),
        ("move s-1 @0102 0103", Move(("s-1", "@0102"), ("0103",))),
        ("fortify s-1 s-2", Fortify(("s-1", "s-2"))),
        ("losses s-1", Losses(("s-1",))),
        ("strategic @0505", Strategic(("@0505",))),
    ],
)
def test_other_forms(line: str, expected: Order) -> None:
    order = parse_order(line, 1)
    assert order == replace_line(expected, 1)
    assert order is not None and order.side is None


def replace_line(order: Order, line: int) -> Order:
    return replace(order, line=line)


def test_mod_lines_keep_every_word() -> None:
    order = parse_order("mod: Move s-232 0334   whatever -> 12 # note", 4)
    assert order == Mod(words=("Move", "s-232", "0334", "whatever", "->", "12"), side="mod", line=4)
    assert order.text == "mod: Move s-232 0334   whatever -> 12"
    assert parse_order("MOD: undo", 1) == Mod(words=("undo",), side="mod", line=1)


# --- side prefixes, comments, case, hexes ----------------------------------------------------


def test_side_prefix_is_lowercased_and_optional() -> None:
    assert parse_order("Soviet: move s-1 0101") == Move(("s-1",), ("0101",), side="soviet", line=1)
    assert parse_order("german:move g-1 0101") == Move(("g-1",), ("0101",), side="german", line=1)
    assert parse_order("german :  move g-1 0101") == Move(
        ("g-1",), ("0101",), side="german", line=1
    )
    no_side = parse_order("move s-1 0101", 9)
    assert no_side == Move(("s-1",), ("0101",), line=9)
    assert no_side is not None and no_side.side is None


def test_blank_and_comment_lines() -> None:
    assert parse_order("") is None
    assert parse_order("    ") is None
    assert parse_order("# just a note") is None
    assert parse_order("   # indented note") is None
    text = "\n# header\n\nsoviet: done   # over to you\n\n  \ngerman: pass\n"
    orders = parse_orders(text)
    assert orders == [Done(side="soviet", line=4), Pass(side="german", line=7)]
    assert orders[0].text == "soviet: done"
    assert parse_orders("") == []


def test_verbs_and_keywords_are_case_insensitive_ids_are_kept() -> None:
    order = parse_order("ATTACK G-88A -> 1619 SUPPORT g-Art7 AIR 2")
    assert order == Attack(("G-88A",), "1619", support=("g-Art7",), air=("2",), line=1)
    assert parse_order("Setup g-art7 COMBAT") == SetupChange(("g-art7",), "combat", line=1)
    assert parse_order("mask 1618 ON") == Mask("1618", True, line=1)
    assert parse_order("Bridge Destroy 1618/1619") == Bridge("destroy", ("1618", "1619"), line=1)
    assert parse_order("air 2 Support-Attack 1619") == Air(
        "support-attack", "1619", amount=2, line=1
    )


def test_three_digit_hexes_are_normalised() -> None:
    assert parse_order("move @531 535 636") == Move(("@0531",), ("0535", "0636"), line=1)
    assert parse_order("attack s-1 -> 619") == Attack(("s-1",), "0619", line=1)
    assert parse_order("fire s-1 -> 722") == Fire(("s-1",), "0722", line=1)
    assert parse_order("enter s-1 101 102") == Enter(("s-1",), "0101", ("0102",), line=1)
    assert parse_order("air 4 attack 619") == Air("attack", "0619", amount=4, line=1)
    assert parse_order("mask 618 off") == Mask("0618", False, line=1)
    assert parse_order("bridge destroy 618/619") == Bridge("destroy", ("0618", "0619"), line=1)
    assert parse_order("retreat s-1 335") == Retreat("s-1", ("0335",), line=1)
    assert parse_order("pursue s-1 335") == Pursue("s-1", ("0335",), line=1)
    # issue #17: a stack pursues in one order
    assert parse_order("pursue s-1 @0334 0335") == Pursue("s-1", ("0335",), also=("@0334",), line=1)


@pytest.mark.parametrize(
    "line",
    [
        "attack g-88a->1619",
        "attack g-88a ->1619",
        "attack g-88a-> 1619",
        "attack g-88a -> 1619",
        "attack g-88a→1619",
    ],
)
def test_arrow_with_or_without_spaces(line: str) -> None:
    assert parse_order(line) == Attack(("g-88a",), "1619", line=1)


def test_arrow_without_spaces_other_verbs() -> None:
    assert parse_order("fire g-art7 g-art11->1722") == Fire(("g-art7", "g-art11"), "1722", line=1)
    assert parse_order("barrage g-art7->722") == Barrage(("g-art7",), "0722", line=1)


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "words"),
    [
        # unknown verb, with a suggestion and the list of verbs
        ("atack s-1 -> 0101", ["'atack' is not an order", "did you mean 'attack'", "move, attack"]),
        ("soviet move s-1 0101", ["'soviet' is not an order", "soviet: move"]),
        ("mod undo", ["mod:"]),
        # side prefixes
        (": move s-1 0101", ["side prefix is empty"]),
        ("soviet:", ["not followed by an order"]),
        ("soviet: # nothing", ["not followed by an order"]),
        ("1x: move s-1 0101", ["'1x' is not a side name"]),
        ("soviet: german: move s-1 0101", ["two side prefixes"]),
        ("mod:", ["not followed by an order"]),
        # move
        ("move", ["move needs at least one unit and a destination hex", "move UNIT [UNIT...]"]),
        ("move s-1", ["move needs a destination hex"]),
        ("move 0531 0632", ["at least one unit", "@0531"]),
        ("move s-1 0101 s-2", ["'s-2' comes after the hexes"]),
        ("move s-1 12345", ["'12345' is not a hex number"]),
        ("move s-1 53", ["'53' is not a hex number"]),
        ("move s-1 05a3", ["'05a3' is not a hex number"]),
        ("move @53 0101", ["'@53' is not a hex reference"]),
        ("move s-1 0101 @0102", ["'@0102' comes after the hexes"]),
        ("move s-1 @0102", ["move needs a destination hex"]),
        ("move s-1, 0102", ["'s-1,' is not a unit"]),
        # attack
        ("attack g-1 1619", ["attack needs '->'"]),
        ("attack -> 1619", ["attack needs at least one unit"]),
        ("attack g-1 ->", ["attack needs a target hex"]),
        ("attack g-1 -> 1619 foo", ["extra words after the target hex 1619", "'foo'"]),
        ("attack g-1 -> 1619 -> 1620", ["more than one '->'"]),
        ("attack g-1 -> s-2", ["expected a hex number but found 's-2'"]),
        ("attack g-1 -> 16190", ["'16190' is not a hex number"]),
        ("attack g-1 -> 1619 support", ["'support' is not followed by any unit"]),
        ("attack g-1 -> 1619 air", ["'air' is not followed by any air counter"]),
        ("attack g-1 -> 1619 support g-2 support g-3", ["lists 'support' twice"]),
        ("attack g-1 -> 1619 air g-air1 air g-air2", ["lists 'air' twice"]),
        ("attack 0531 -> 1619", ["'0531' is a hex number where a unit was expected", "@0531"]),
        ("attack g-1 -> 1619 air !x", ["'!x' is not an air counter id or SP amount"]),
        # fire / barrage
        ("fire g-art7 1722", ["fire needs '->'"]),
        ("barrage g-art7 -> 1722 1723", ["extra words after the target hex 1722"]),
        ("fire -> 1722", ["fire needs at least one unit"]),
        # unit-list orders
        ("fortify", ["fortify needs at least one unit"]),
        ("strategic", ["strategic needs at least one unit"]),
        ("losses", ["losses needs at least one unit"]),
        ("fortify 0101", ["'0101' is a hex number where a unit was expected"]),
        # setup
        ("setup g-art7 attack", ["setup ends with the mode", "not 'attack'"]),
        ("setup g-art7", ["setup needs at least one unit and then the mode"]),
        ("setup combat", ["setup needs at least one unit before the mode"]),
        ("setup", ["setup needs"]),
        # enter
        ("enter", ["enter needs at least one unit and an entry zone"]),
        ("enter s-1", ["enter needs an entry zone"]),
        ("enter C", ["enter needs at least one unit before the entry zone"]),
        ("enter s-1 C s-2", ["'s-2' comes after the hexes"]),
        ("enter s-1 C 99", ["'99' is not a hex number"]),
        # air
        ("air g-air1 1619", ["air needs three words"]),
        ("air g-air1 attack 1619 extra", ["air needs three words"]),
        ("air 0 attack 1619", ["at least 1 SP"]),
        ("air g-air1 1619 attack", ["'1619' is not an air mission"]),
        ("air g-air1 attack x-1", ["expected a hex number but found 'x-1'"]),
        ("air !! attack 1619", ["'!!' is not an air counter id or SP amount"]),
        # mask
        ("mask 1618", ["mask needs a hex and then on or off"]),
        ("mask 1618 maybe", ["mask ends with 'on' or 'off', not 'maybe'"]),
        ("mask 1618 on now", ["extra words after 'on'"]),
        ("mask 16 on", ["'16' is not a hex number"]),
        # bridge
        ("bridge", ["bridge is followed by 'destroy' or 'build'"]),
        ("bridge blow 1618/1619", ["'destroy' or 'build', not 'blow'"]),
        ("bridge destroy", ["bridge needs the hexside"]),
        ("bridge destroy 1618", ["'1618' is not a hexside"]),
        ("bridge destroy 1618/1618", ["the two hexes must differ"]),
        ("bridge destroy 1618/16", ["'16' is not a hex number"]),
        ("bridge destroy 1618/1619 now", ["extra words after the hexside 1618/1619"]),
        ("bridge build 1618/1619", ["bridge needs the building HQ"]),
        ("bridge build 0101 1618/1619", ["'0101' is a hex number where a unit id was expected"]),
        ("bridge build @0101 1618/1619", ["'@0101' is not a unit id"]),
        ("bridge build g-hq 1618/1619 x", ["extra words after the hexside"]),
        # retreat / pursue
        ("retreat", ["retreat needs a unit"]),
        ("retreat s-1 s-2 0335", ["retreat takes one unit"]),
        ("retreat s-1 0335 x", ["'x' comes after the hexes"]),
        ("pursue", ["pursue needs a unit"]),
        ("pursue g-88a", ["pursue needs at least one hex"]),
        ("pursue 0334", ["pursue needs at least one unit before the hexes"]),
        # pass / done
        ("pass now", ["extra words after 'pass'", "'now'"]),
        ("done s-1", ["extra words after 'done'"]),
    ],
)
def test_errors_name_the_line_and_the_problem(line: str, words: list[str]) -> None:
    with pytest.raises(NotationError) as info:
        parse_order(line + "  # a comment", 7)
    err = info.value
    assert err.line == 7
    assert err.text == line.split("#")[0].strip()
    assert err.message.startswith("line 7: ")
    assert str(err) == err.message
    for word in words:
        assert word in err.message


def test_parse_orders_reports_the_first_bad_line() -> None:
    text = "# turn 3\nsoviet: move s-1 0101\n\ngerman: atack g-1 -> 0102\ngerman: moov g-2 0103\n"
    with pytest.raises(NotationError) as info:
        parse_orders(text)
    assert info.value.line == 4
    assert info.value.text == "german: atack g-1 -> 0102"
    assert info.value.message.startswith("line 4: 'atack' is not an order")


def test_notation_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="line 2: move needs"):
        parse_orders("done\nmove\n")


# --- format_order -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("order", "text"),
    [
        (
            Move(("s-1", "@0102"), ("0103", "0104"), side="soviet"),
            "soviet: move s-1 @0102 0103 0104",
        ),
        (Attack(("g-1",), "1619"), "attack g-1 -> 1619"),
        (
            Attack(("g-1",), "1619", support=("g-2",), air=("g-a1", "3")),
            "attack g-1 -> 1619 support g-2 air g-a1 3",
        ),
        (Attack(("g-1",), "1619", air=("3",)), "attack g-1 -> 1619 air 3"),
        (Fire(("g-1", "g-2"), "1722"), "fire g-1 g-2 -> 1722"),
        (Barrage(("g-1",), "1722"), "barrage g-1 -> 1722"),
        (Fortify(("g-1",)), "fortify g-1"),
        (SetupChange(("g-1", "g-2"), "combat"), "setup g-1 g-2 combat"),
        (Strategic(("g-1",)), "strategic g-1"),
        (Enter(("g-1",), "C"), "enter g-1 C"),
        (Enter(("g-1",), "0101", ("0102",)), "enter g-1 0101 0102"),
        (Air("support-attack", "1619", counter="g-air1"), "air g-air1 support-attack 1619"),
        (Air("attack", "1619", amount=4), "air 4 attack 1619"),
        (Mask("1618", True), "mask 1618 on"),
        (Mask("1618", False), "mask 1618 off"),
        (Bridge("destroy", ("1618", "1619")), "bridge destroy 1618/1619"),
        (Bridge("build", ("1618", "1619"), hq="g-hq"), "bridge build g-hq 1618/1619"),
        (Losses(("s-1", "s-1")), "losses s-1 s-1"),
        (Retreat("s-1"), "retreat s-1"),
        (Retreat("s-1", ("0335", "0336")), "retreat s-1 0335 0336"),
        (Pursue("g-1", ("0334",)), "pursue g-1 0334"),
        (Pursue("g-1", ("0334", "0335"), also=("g-2",)), "pursue g-1 g-2 0334 0335"),
        (Pass(side="german"), "german: pass"),
        (Done(), "done"),
        (Mod(("undo", "3"), side="mod"), "mod: undo 3"),
    ],
)
def test_format_order_every_type(order: Order, text: str) -> None:
    assert format_order(order) == text
    assert parse_order(text, order.line) == order


# --- properties ---------------------------------------------------------------------------

hexes = st.builds(lambda c, r: f"{c:02d}{r:02d}", st.integers(0, 99), st.integers(0, 99))
ids = st.builds(
    lambda side, n, suffix: f"{side}-{n}{suffix}",
    st.sampled_from(["s", "g"]),
    st.integers(1, 999),
    st.sampled_from(["", "a", "b", "ss", "ss-1", "pz-2"]),
)
refs = st.one_of(ids, hexes.map(lambda h: "@" + h))
unit_lists = st.lists(refs, min_size=1, max_size=4).map(tuple)
paths = st.lists(hexes, min_size=1, max_size=5).map(tuple)
sides = st.sampled_from([None, "soviet", "german"])
lines = st.integers(1, 500)


def _common(cls: type[Order], **fields: st.SearchStrategy[object]) -> st.SearchStrategy[Order]:
    return st.builds(cls, side=sides, line=lines, **fields)


all_orders: st.SearchStrategy[Order] = st.one_of(
    _common(Move, units=unit_lists, path=paths),
    _common(
        Attack,
        units=unit_lists,
        target=hexes,
        support=st.lists(refs, max_size=3).map(tuple),
        air=st.lists(st.one_of(ids, st.integers(1, 20).map(str)), max_size=3).map(tuple),
    ),
    _common(Fire, units=unit_lists, target=hexes),
    _common(Barrage, units=unit_lists, target=hexes),
    _common(Fortify, units=unit_lists),
    _common(SetupChange, units=unit_lists, mode=st.sampled_from(["combat", "transport"])),
    _common(Strategic, units=unit_lists),
    _common(
        Enter,
        units=unit_lists,
        where=st.one_of(st.sampled_from("ABCDXYZ"), hexes),
        path=st.lists(hexes, max_size=4).map(tuple),
    ),
    _common(
        Air,
        mission=st.sampled_from(["attack", "support-attack", "interdiction"]),
        hex=hexes,
        counter=ids,
        amount=st.none(),
    ),
    _common(
        Air,
        mission=st.sampled_from(["attack", "support-attack"]),
        hex=hexes,
        counter=st.none(),
        amount=st.integers(1, 30),
    ),
    _common(Mask, hex=hexes, on=st.booleans()),
    _common(
        Bridge,
        action=st.just("destroy"),
        hexside=st.tuples(hexes, hexes).filter(lambda s: s[0] != s[1]),
    ),
    _common(
        Bridge,
        action=st.just("build"),
        hexside=st.tuples(hexes, hexes).filter(lambda s: s[0] != s[1]),
        hq=ids,
    ),
    _common(Losses, units=unit_lists),
    _common(Retreat, unit=refs, path=st.lists(hexes, max_size=4).map(tuple)),
    _common(Pursue, unit=refs, path=paths),
    _common(Pass),
    _common(Done),
    st.builds(
        Mod,
        words=st.lists(
            st.text("abcxyz0123456789-_:>@/", min_size=1, max_size=8), min_size=1, max_size=5
        ).map(tuple),
        side=st.just("mod"),
        line=lines,
    ),
)


@given(side=sides, units=unit_lists, path=paths, lineno=lines)
def test_move_round_trip(
    side: str | None, units: tuple[str, ...], path: tuple[str, ...], lineno: int
) -> None:
    order = Move(units=units, path=path, side=side, line=lineno)
    text = format_order(order)
    parsed = parse_order(text, lineno)
    assert parsed == order
    assert parsed is not None and parsed.text == text


@given(units=unit_lists, path=paths)
def test_move_with_three_digit_hexes_normalises(
    units: tuple[str, ...], path: tuple[str, ...]
) -> None:
    def short(h: str) -> str:
        return h[1:] if h.startswith("0") else h

    written_units = [("@" + short(u[1:])) if u.startswith("@") else u for u in units]
    line = " ".join(["move", *written_units, *(short(h) for h in path)])
    assert parse_order(line) == Move(units=units, path=path, line=1)


@given(all_orders)
def test_every_order_type_round_trips(order: Order) -> None:
    text = format_order(order)
    assert parse_order(text, order.line) == order
    # ... also inside a block, with comments and blank lines around it.
    block = f"# header\n\n{text}   # trailing comment\n"
    assert parse_orders(block) == [replace_line(order, 3)]


def test_5_1_5_attack_on_several_defending_hexes() -> None:
    order = parse_order("attack g-1 -> 1619 1620 support g-art")
    assert isinstance(order, Attack)
    assert (order.target, order.also, order.support) == ("1619", ("1620",), ("g-art",))
    assert format_order(order) == "attack g-1 -> 1619 1620 support g-art"


def test_15_1_6_star_use_and_hq_cms_in_attacks_and_defence() -> None:
    order = parse_order("attack g-1 g-2 -> 1619 stars g-1 cms 2")
    assert isinstance(order, Attack) and order.stars == ("g-1",) and order.cms == 2
    assert format_order(order) == "attack g-1 g-2 -> 1619 stars g-1 cms 2"
    d = parse_order("soviet: defend stars s-1 s-2 cms 1")
    assert isinstance(d, Defend) and d.stars == ("s-1", "s-2") and d.cms == 1
    assert format_order(d) == "soviet: defend stars s-1 s-2 cms 1"
    with pytest.raises(NotationError, match="one whole number"):
        parse_order("attack g-1 -> 1619 cms two")
    with pytest.raises(NotationError, match="'stars' is not followed"):
        parse_order("defend stars")
