"""1.5–1.7 and the result tables: combat ratio, combat modifiers, rounding, and the COMBAT
TABLE, AIR ATTACK, ARTILLERY FIRE and ATTACK ON OBJECTS tables.

- 1.5: the initial combat ratio is attacker SPs ÷ defender SPs, rounded per 1.7; ratios
  below 1:1 per R4.
- 1.6: a CM is a one-column shift; attacker CMs shift right, defender CMs left; the table's
  1:4 and 10:1 columns can never be exceeded. R3 fixes the order (the 1.6 example (b)).
- 1.7: every division rounds up (`halve`, R5); a ratio's fraction rounds half-up.
- R1: every `-n` is n CELs. R2: roll 6 at 4:1 is `- / D2` (that is data, in
  `scenarios/tables/wb95-results.yaml`). R6: modified rolls clamp to 2..12. R7: 0 or fewer
  SPs on a fire/air table have no effect.

The tables are data: `parse_tables` takes the plain dict parsed from the YAML (this module
never reads a file) and checks every cell. Arithmetic is exact (integers, `Fraction`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Literal

COLUMNS: tuple[str, ...] = (
    "1:4",
    "1:3",
    "1:2",
    "1:1",
    "2:1",
    "3:1",
    "4:1",
    "5:1",
    "6:1",
    "7:1",
    "8:1",
    "9:1",
    "10:1",
)
"""The COMBAT TABLE columns, left to right (1.6: never beyond 1:4 or 10:1)."""

MIN_COLUMN = 0
MAX_COLUMN = len(COLUMNS) - 1
ONE_TO_ONE = COLUMNS.index("1:1")
ROLLS: tuple[int, ...] = tuple(range(2, 13))
"""2K6 (1.8) after modifiers, clamped (R6): the rows of every table."""

Side = Literal["attacker", "defender"]

_NONE = "-"
_TEST = "•"
_SIDE_RE = re.compile(
    r"""
    (?:(?P<letter>[AD])(?P<hexes>[1-9][0-9]*))?   # Ax / Dx: retreat x hexes (5.3.1)
    (?P<mark>D)?                 # D after a retreat (D3D, A2D) or alone (row 12 "D -1")
    \s*
    (?:-(?P<loss>[1-9][0-9]*)(?P<loss_mark>D)?)?  # -n: lose n CELs (R1); -1D
    \s*
    (?P<test>•)?                 # disorganization test (5.6.1)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class SideResult:
    """One half of a COMBAT TABLE cell (legend, 5.3.1, 5.6.1, A-8)."""

    retreat: int = 0
    """`Ax` / `Dx`: hexes to retreat (5.3); sustained retreat 5.3.7 converts them to CELs."""
    losses: int = 0
    """`-n`: CELs lost (R1; the legend says "SP")."""
    disorganized: bool = False
    """A `D` mark: `D3D`, `A2D`, `-1D`, or the attacker's leading `D` in `D -1` (A-8)."""
    test: bool = False
    """`•`: a disorganization test (5.6.2) must be rolled."""
    text: str = _NONE
    """The printed half, e.g. `D3 -1`; `-` when nothing happens."""

    @property
    def nothing(self) -> bool:
        return not (self.retreat or self.losses or self.disorganized or self.test)

    def words(self) -> str:
        """The half in words, for a player who does not know the legend by heart."""
        if self.nothing:
            return "no effect"
        out = []
        if self.losses:
            out.append(f"loses {self.losses} CEL{'s' if self.losses > 1 else ''}")
        if self.retreat:
            out.append(f"retreats {self.retreat} hex{'es' if self.retreat > 1 else ''}")
        if self.disorganized:
            out.append("is disorganized")
        if self.test:
            out.append("tests for disorganization")
        return ", ".join(out)


@dataclass(frozen=True)
class CombatResult:
    """One COMBAT TABLE cell: `attacker / defender` as printed (5.2.1 f, g)."""

    attacker: SideResult
    defender: SideResult
    text: str


@dataclass(frozen=True)
class FireResult:
    """One cell of AIR ATTACK, ARTILLERY FIRE or ATTACK ON OBJECTS.

    On the first two, `-n` is n CELs lost, `D` disorganizes the units in the hex and `•`
    is a disorganization test. On ATTACK ON OBJECTS, `D` means "object destroyed": it sets
    `destroyed`, never `disorganized`.
    """

    losses: int = 0
    disorganized: bool = False
    test: bool = False
    text: str = _NONE
    destroyed: bool = False

    @property
    def nothing(self) -> bool:
        return not (self.losses or self.disorganized or self.test or self.destroyed)


Band = tuple[int, int | None]


@dataclass(frozen=True)
class FireTable:
    """A fire/air table: one row per "SPs used" band, one cell per 2K6 roll 2..12."""

    name: str
    bands: tuple[Band, ...]
    """`(from, to)` SPs, contiguous from 1; the last one is open-ended (`to` None: "17+")."""
    rows: tuple[tuple[FireResult, ...], ...]

    def band_index(self, sp: int) -> int | None:
        """The row for `sp` SPs used; None when `sp` <= 0 (R7)."""
        if sp <= 0:
            return None
        for i, (lo, hi) in enumerate(self.bands):
            if lo <= sp and (hi is None or sp <= hi):
                return i
        raise ValueError(f"{self.name}: no band for {sp} SPs")  # unreachable for valid tables


@dataclass(frozen=True)
class ResultTables:
    """The four result tables, checked (`parse_tables`)."""

    combat: Mapping[int, tuple[CombatResult, ...]]
    """2K6 roll 2..12 -> one result per column of `COLUMNS`."""
    air_attack: FireTable
    artillery_fire: FireTable
    attack_on_objects: FireTable


@dataclass(frozen=True)
class Shift:
    """One source of column shifts in a combat (1.6): `cms` CMs gained by `side`.

    `cms` counts CMs the side gains (>= 0): a defender's CM is written 1, not the -1 the
    terrain tables print (A-10); the direction comes from `side`.
    """

    cms: int
    source: str
    side: Side
    rule: str

    def __post_init__(self) -> None:
        if self.side not in ("attacker", "defender"):
            raise ValueError(f"Shift side must be 'attacker' or 'defender', not {self.side!r}")
        if isinstance(self.cms, bool) or not isinstance(self.cms, int) or self.cms < 0:
            raise ValueError(
                f"Shift {self.source!r}: cms must be a whole number >= 0 (the side gaining the "
                f"CMs gives the direction, 1.6), not {self.cms!r}"
            )


# --- parsing -----------------------------------------------------------------------------


def parse_side(text: str, *, side: Side | None = None) -> SideResult:
    """Parse one half of a COMBAT TABLE cell (`A2D -2`, `D -1`, `D5D -1`, `A1•`, `-1D`, `-`).

    With `side`, a retreat must carry that side's letter (`A` attacker, `D` defender), and a
    lone `D` mark (no retreat, as in row 12's `D -1`) is only read in the attacker half.
    Spaces between the parts are optional (`D-1`, as in the Kursk rules-section copy).
    Raises ValueError on anything else.
    """
    if not isinstance(text, str):
        raise ValueError(f"a table cell must be a string, not {text!r}")
    printed = text.strip()
    if printed == _NONE:
        return SideResult(text=_NONE)
    m = _SIDE_RE.fullmatch(printed)
    if not printed or m is None or not any(m.groupdict().values()):
        raise ValueError(f"cannot read result {text!r}")
    letter, mark, loss_mark = m["letter"], m["mark"], m["loss_mark"]
    if mark and loss_mark:
        raise ValueError(f"cannot read result {text!r}: two D marks")
    if side is not None:
        own = "A" if side == "attacker" else "D"
        if letter is not None and letter != own:
            raise ValueError(f"cannot read result {text!r}: {letter}x is not a {side} retreat")
        if side == "defender" and mark and letter is None:
            raise ValueError(f"cannot read result {text!r}: a lone D in the defender half")
    return SideResult(
        retreat=int(m["hexes"]) if m["hexes"] else 0,
        losses=int(m["loss"]) if m["loss"] else 0,
        disorganized=bool(mark or loss_mark),
        test=bool(m["test"]),
        text=printed,
    )


def parse_combat_cell(text: str) -> CombatResult:
    """Parse a COMBAT TABLE cell `attacker / defender`; ValueError if unreadable."""
    if not isinstance(text, str):
        raise ValueError(f"a table cell must be a quoted string, not {text!r}")
    halves = text.split("/")
    if len(halves) != 2:
        raise ValueError(f"cannot read cell {text!r}: expected 'attacker / defender'")
    attacker = parse_side(halves[0], side="attacker")
    defender = parse_side(halves[1], side="defender")
    return CombatResult(attacker, defender, f"{attacker.text} / {defender.text}")


def parse_fire_cell(text: str, *, objects: bool = False) -> FireResult:
    """Parse an AIR ATTACK / ARTILLERY FIRE cell (`-`, `-1`, `-1D`, `-2D`, `D`, `•`, `-1•`),
    or with `objects` an ATTACK ON OBJECTS cell (`D` = destroyed, `-`). ValueError otherwise.
    """
    if not isinstance(text, str):
        raise ValueError(f"a table cell must be a quoted string, not {text!r}")
    printed = text.strip()
    if objects:
        if printed not in (_NONE, "D"):
            raise ValueError(f"cannot read object result {text!r}: expected 'D' or '-'")
        return FireResult(text=printed, destroyed=printed == "D")
    s = parse_side(printed)
    if s.retreat:
        raise ValueError(f"cannot read fire result {text!r}: no retreats on fire tables")
    return FireResult(losses=s.losses, disorganized=s.disorganized, test=s.test, text=s.text)


def _whole(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _parse_combat(data: object) -> Mapping[int, tuple[CombatResult, ...]]:
    if not isinstance(data, Mapping):
        raise ValueError("combat: must be a mapping with 'columns' and 'rows'")
    columns = data.get("columns")
    if not isinstance(columns, Sequence) or tuple(columns) != COLUMNS:
        raise ValueError(f"combat: columns must be {list(COLUMNS)}, not {columns!r}")
    rows = data.get("rows")
    if not isinstance(rows, Mapping):
        raise ValueError("combat: rows must map each 2K6 roll 2..12 to 13 cells")
    out: dict[int, tuple[CombatResult, ...]] = {}
    for key, cells in rows.items():
        roll = _whole(key)
        if roll is None or roll not in ROLLS:
            raise ValueError(f"combat: row {key!r} is not a 2K6 roll 2..12")
        if roll in out:
            raise ValueError(f"combat: row {roll} appears twice")
        if isinstance(cells, str) or not isinstance(cells, Sequence) or len(cells) != 13:
            raise ValueError(f"combat row {roll}: must list 13 cells, one per column")
        parsed: list[CombatResult] = []
        for col, cell in zip(COLUMNS, cells, strict=True):
            try:
                parsed.append(parse_combat_cell(cell))
            except ValueError as e:
                raise ValueError(f"combat row {roll}, column {col}: {e}") from None
        out[roll] = tuple(parsed)
    missing = [r for r in ROLLS if r not in out]
    if missing:
        raise ValueError(f"combat: rows missing for rolls {missing}")
    return MappingProxyType(dict(sorted(out.items())))


def _parse_bands(name: str, data: object) -> tuple[Band, ...]:
    if isinstance(data, str) or not isinstance(data, Sequence) or not data:
        raise ValueError(f"{name}: bands must be a list of [from, to] SP pairs")
    bands: list[Band] = []
    expected = 1
    for i, band in enumerate(data):
        last = i == len(data) - 1
        if isinstance(band, str) or not isinstance(band, Sequence) or len(band) != 2:
            raise ValueError(f"{name}: band {band!r} must be [from, to]")
        lo, hi = _whole(band[0]), band[1]
        if lo != expected:
            raise ValueError(f"{name}: band {list(band)} must start at {expected} SPs")
        if hi is None:
            if not last:
                raise ValueError(f"{name}: only the last band may be open-ended")
            bands.append((lo, None))
            continue
        hi_n = _whole(hi)
        if hi_n is None or hi_n < lo:
            raise ValueError(f"{name}: band {list(band)} must end at or after {lo} SPs")
        if last:
            raise ValueError(f"{name}: the last band must be open-ended ([{lo}, null])")
        bands.append((lo, hi_n))
        expected = hi_n + 1
    return tuple(bands)


def _band_name(band: Band) -> str:
    lo, hi = band
    return f"{lo}+" if hi is None else f"{lo}-{hi}"


def _parse_fire(name: str, data: object, *, objects: bool = False) -> FireTable:
    if not isinstance(data, Mapping):
        raise ValueError(f"{name}: must be a mapping with 'bands' and 'rows'")
    bands = _parse_bands(name, data.get("bands"))
    rows = data.get("rows")
    if isinstance(rows, str) or not isinstance(rows, Sequence) or len(rows) != len(bands):
        raise ValueError(f"{name}: rows must list one row per band ({len(bands)})")
    out: list[tuple[FireResult, ...]] = []
    for band, cells in zip(bands, rows, strict=True):
        label = _band_name(band)
        if isinstance(cells, str) or not isinstance(cells, Sequence) or len(cells) != 11:
            raise ValueError(f"{name} band {label}: must list 11 cells, for rolls 2..12")
        parsed: list[FireResult] = []
        for roll, cell in zip(ROLLS, cells, strict=True):
            try:
                parsed.append(parse_fire_cell(cell, objects=objects))
            except ValueError as e:
                raise ValueError(f"{name} band {label}, roll {roll}: {e}") from None
        out.append(tuple(parsed))
    return FireTable(name, bands, tuple(out))


def parse_tables(data: Mapping[str, Any]) -> ResultTables:
    """Check and read the result tables from the parsed `wb95-results.yaml` (R2: the data
    decides the 4:1 / roll 6 cell). ValueError names the table, row and column at fault."""
    if not isinstance(data, Mapping):
        raise ValueError("result tables: expected a mapping")
    for key in ("combat", "air_attack", "artillery_fire", "attack_on_objects"):
        if key not in data:
            raise ValueError(f"result tables: '{key}' is missing")
    return ResultTables(
        combat=_parse_combat(data["combat"]),
        air_attack=_parse_fire("air_attack", data["air_attack"]),
        artillery_fire=_parse_fire("artillery_fire", data["artillery_fire"]),
        attack_on_objects=_parse_fire("attack_on_objects", data["attack_on_objects"], objects=True),
    )


# --- arithmetic ----------------------------------------------------------------------------


def halve(n: int) -> int:
    """Half of `n` SPs, rounded up (1.7, R5): ½ of 1 SP = 1; 5/2 = 3; 7/2 = 4."""
    if n < 0:
        raise ValueError(f"cannot halve {n} SPs")
    return -(-n // 2)


def _round_half_up(value: Fraction) -> int:
    """1.7: a fraction below .5 rounds down, .5 and above rounds up (6.49 -> 6, 1.5 -> 2)."""
    return (2 * value.numerator + value.denominator) // (2 * value.denominator)


def initial_column(attack_sp: int, defence_sp: int) -> int:
    """The initial combat ratio as an index into `COLUMNS` (1.5, 1.7, R4).

    x:1 ratios round their fraction half-up (1.7: 8:5 = 1.6:1 -> 2:1; 6.49:1 -> 6:1), capped
    at 10:1. Below 1:1 (R4): defender ÷ attacker rounded the same way and read as 1:n (3 vs 7
    -> 1:2, 4 vs 6 -> 1:2, 2 vs 5 -> 1:3); n = 1 is 1:1; beyond 1:4 is 1:4. A defence of 0 or
    fewer SPs is 10:1 (as the lone HQ of 5.1.9, whatever the attack); otherwise an attack of
    0 or fewer SPs is 1:4.
    """
    if defence_sp <= 0:
        return MAX_COLUMN
    if attack_sp <= 0:
        return MIN_COLUMN
    if attack_sp >= defence_sp:
        n = _round_half_up(Fraction(attack_sp, defence_sp))
        return min(ONE_TO_ONE + n - 1, MAX_COLUMN)
    n = _round_half_up(Fraction(defence_sp, attack_sp))
    if n <= 1:
        return ONE_TO_ONE
    return max(ONE_TO_ONE - (n - 1), MIN_COLUMN)


def column_index(name: str) -> int:
    """`"3:1"` -> 5. ValueError for a ratio that is not a column."""
    try:
        return COLUMNS.index(name.strip())
    except ValueError:
        raise ValueError(f"{name!r} is not a COMBAT TABLE column ({', '.join(COLUMNS)})") from None


def column_name(column: int) -> str:
    """The ratio of a column index, also off the table (for explanations): 14 -> `12:1`."""
    if column >= ONE_TO_ONE:
        return f"{column - ONE_TO_ONE + 1}:1"
    return f"1:{ONE_TO_ONE - column + 1}"


def _clamp_column(column: int) -> int:
    return max(MIN_COLUMN, min(MAX_COLUMN, column))


def final_column(
    initial: int,
    shifts: Sequence[Shift],
    attack_sp: int | None = None,
    defence_sp: int | None = None,
) -> tuple[int, list[str]]:
    """The final combat ratio (1.5, 1.6, R3) and the lines that explain it.

    With the SPs the first line says how the initial ratio was reached. R3: clamp the initial
    column to 1:4..10:1, apply all attacker CMs (right), clamp, then
    all defender CMs (left), clamp. The 1.6 example (b): 5:1, +7, −2 -> 8:1 (netting the
    CMs first would give 10:1).
    """
    lines: list[str] = []
    column = _clamp_column(initial)
    if column != initial:
        lines.append(
            f"initial {column_name(initial)} is off the table: {COLUMNS[column]} (1.6, R3)"
        )
    elif attack_sp is not None and defence_sp is not None:
        lines.append(
            f"initial {COLUMNS[column]}: {attack_sp} attack SP against {defence_sp} defence SP, "
            "rounded to the nearest column (1.5, 1.7, R4)"
        )
    else:
        lines.append(f"initial {COLUMNS[column]} (1.5)")
    for side, sign, direction in (("attacker", 1, "right"), ("defender", -1, "left")):
        own = [s for s in shifts if s.side == side]
        if not own:
            continue
        for s in own:
            lines.append(f"  {side} +{s.cms} CM: {s.source} ({s.rule})")
        total = sum(s.cms for s in own)
        moved = column + sign * total
        clamped = _clamp_column(moved)
        line = (
            f"{side} CMs {total} {direction}: {COLUMNS[column]} -> {column_name(moved)}"
            if total
            else f"{side} CMs 0: {COLUMNS[column]}"
        )
        if clamped != moved:
            line += f", held at {COLUMNS[clamped]} (1.6: never beyond the table, R3)"
        lines.append(line)
        column = clamped
    lines.append(f"final {COLUMNS[column]}")
    return column, lines


def clamp_roll(total: int) -> int:
    """A modified 2K6 (HQ ±1, 9.2.1) outside 2..12 reads the nearest row (R6)."""
    return max(ROLLS[0], min(ROLLS[-1], total))


# --- lookup --------------------------------------------------------------------------------


def lookup(tables: ResultTables, column: int, roll: int) -> CombatResult:
    """The COMBAT TABLE cell for a final column (0..12) and a clamped roll (2..12)."""
    if not MIN_COLUMN <= column <= MAX_COLUMN:
        raise ValueError(f"column {column} is off the COMBAT TABLE (0..{MAX_COLUMN}); see R3")
    if roll not in ROLLS:
        raise ValueError(f"roll {roll} is not 2..12; clamp it first (R6)")
    return tables.combat[roll][column]


def fire_lookup(table: FireTable, sp: int, roll: int, shift: int = 0) -> FireResult | None:
    """The cell for `sp` SPs used (after the doubled terrain CMs, 6.4.2, 8.2.7) and a roll
    2..12, `shift` rows further down the table, never past its last row (a white-star air
    counter, Kursk 21.1.1). None when `sp` <= 0: no effect, though the attack is spent (R7,
    A-32)."""
    if roll not in ROLLS:
        raise ValueError(f"roll {roll} is not 2..12; clamp it first (R6)")
    row = table.band_index(sp)
    if row is None:
        return None
    row = max(0, min(row + shift, len(table.rows) - 1))
    return table.rows[row][roll - ROLLS[0]]
