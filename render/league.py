"""League pictures (issue #20): a standings table and a rating-history chart, for the
people who would rather look than read. Pure drawing with Pillow: no I/O, no database;
the same input always gives the same pixels. Fonts come from `render.style`.

`standings_image(title, rows, names, provisional=...)`: rank (shared ranks as "=3"),
player, points, P W D L, the tie-breaks SB / Buchholz / margin and the rating ("1612?"
while provisional); zebra rows, the leaders' rows highlighted; at most 800 px wide.

`rating_chart(title, series)`: one line per player through (time, mu) points with a light
±2·RD band in the player's colour, date and rating ticks, a line at 1500 and a legend in
the order of `series` (pass it in standings order).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PIL import Image, ImageChops, ImageDraw

from render import style

if TYPE_CHECKING:
    from bot.league.scoring import StandingRow

RGB = style.RGB

MAX_WIDTH = 800
WHITE: RGB = (255, 255, 255)
INK: RGB = (25, 25, 30)
MUTED: RGB = (110, 110, 120)

# The table.
TITLE_BAR: RGB = (45, 58, 80)
HEADER_BG: RGB = (222, 226, 234)
ZEBRA: tuple[RGB, RGB] = ((255, 255, 255), (241, 243, 247))
LEADER_BG: RGB = (255, 226, 130)  # the leader's row band (every row ranked 1)
PROVISIONAL_MARK: RGB = (200, 95, 0)  # the "?" after a provisional rating
RULE: RGB = (190, 195, 205)

# The chart: 12 distinct line colours (darker than their bands, readable on white).
PALETTE: tuple[RGB, ...] = (
    (31, 100, 180),
    (215, 90, 10),
    (40, 140, 50),
    (200, 30, 40),
    (120, 75, 170),
    (130, 80, 60),
    (210, 70, 160),
    (90, 90, 90),
    (150, 150, 20),
    (20, 155, 170),
    (0, 40, 110),
    (160, 0, 90),
)
BAND_TINT = 0.2  # a band is its line colour at 20% over white
GRID: RGB = (228, 230, 235)
AXIS: RGB = (60, 60, 70)
BASELINE: RGB = (120, 120, 130)  # the line at 1500, the rating every player starts with
START_RATING = 1500.0
DAY = 86400.0


def player_colour(i: int) -> RGB:
    """The line colour of the i-th player of a chart (the palette repeats after 12)."""
    return PALETTE[i % len(PALETTE)]


def band_colour(colour: RGB) -> RGB:
    """The light ±2·RD band of a line colour, where no other band overlaps it."""
    r, g, b = (round(255 - BAND_TINT * (255 - c)) for c in colour)
    return (r, g, b)


def _ellipsis(text: str, f: style.Font, width: float) -> str:
    """`text`, cut short with "…" to at most `width` px."""
    if f.getlength(text) <= width:
        return text
    while text and f.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _num(x: float) -> str:
    """12 → "12", 12.5 → "12.5", 12.25 → "12.3": one decimal only where needed."""
    r = round(x, 1)
    return str(int(r)) if r == int(r) else f"{r:.1f}"


def _signed(x: float) -> str:
    s = _num(x)
    return "+" + s if x > 0 and s != "0" else ("0" if s in ("0", "-0") else s)


# ---------------------------------------------------------------------------- standings


@dataclass(frozen=True)
class _Col:
    key: str
    head: str
    align: str  # "l", "r" or "m"
    group: int  # a thin rule is drawn between groups


_COLS = (
    _Col("rank", "#", "r", 0),
    _Col("name", "Player", "l", 0),
    _Col("points", "Pts", "r", 1),
    _Col("played", "P", "r", 2),
    _Col("won", "W", "r", 2),
    _Col("drawn", "D", "r", 2),
    _Col("lost", "L", "r", 2),
    _Col("sb", "SB", "r", 3),
    _Col("buchholz", "Buch", "r", 3),
    _Col("margin", "Margin", "r", 3),
    _Col("rating", "Rating", "r", 4),
)
_MIN_NAME = 120


def _cells(
    rows: Sequence[StandingRow], names: Mapping[str, str], provisional: Collection[str]
) -> list[dict[str, str]]:
    shared = Counter(r.rank for r in rows)
    out = []
    for r in rows:
        rating = str(round(r.rating)) + ("?" if r.player in provisional else "")
        out.append(
            {
                "rank": ("=" if shared[r.rank] > 1 else "") + str(r.rank),
                "name": names.get(r.player, r.player),
                "points": str(r.points),
                "played": str(r.played),
                "won": str(r.won),
                "drawn": str(r.drawn),
                "lost": str(r.lost),
                "sb": _num(r.sb),
                "buchholz": _num(r.buchholz),
                "margin": _signed(r.margin),
                "rating": rating,
            }
        )
    return out


def _layout(cells: list[dict[str, str]], size: float) -> tuple[dict[str, int], int]:
    """Each column's width at font `size`, and the cell padding; the name column takes
    what is left of MAX_WIDTH (at least _MIN_NAME px, at most its longest name)."""
    body, head = style.font(size, bold=False), style.font(size * 0.85)
    pad = round(size * 0.6)
    widths: dict[str, int] = {}
    for c in _COLS:
        w = head.getlength(c.head)
        for row in cells:
            w = max(w, style.font(size, bold=True).getlength(row[c.key]))
        widths[c.key] = math.ceil(w) + 2 * pad
    rest = sum(v for k, v in widths.items() if k != "name")
    longest = max([body.getlength(r["name"]) for r in cells] + [head.getlength("Player")])
    widths["name"] = max(_MIN_NAME, min(math.ceil(longest) + 2 * pad, MAX_WIDTH - rest))
    return widths, pad


def standings_image(
    title: str,
    rows: Sequence[StandingRow],
    names: Mapping[str, str],
    *,
    provisional: Collection[str] = (),
) -> Image.Image:
    """The standings as a table picture, rows in the order given (the standings' order).

    `names` maps a player id to the name shown (the id itself when missing);
    `provisional` holds the players whose rating is still provisional ("1500?")."""
    cells = _cells(rows, names, frozenset(provisional))
    size = 18.0
    widths, pad = _layout(cells, size)
    while size > 11 and sum(widths.values()) > MAX_WIDTH:
        size -= 1
        widths, pad = _layout(cells, size)
    body, bold, head = style.font(size, bold=False), style.font(size), style.font(size * 0.85)
    small, big = style.font(size * 0.75, bold=False), style.font(size * 1.25)
    width = max(sum(widths.values()), 480)
    widths["name"] += width - sum(widths.values())  # a narrow table: the name column widens
    row_h, title_h, head_h = round(size * 1.8), round(size * 2.6), round(size * 1.7)
    note = "? provisional rating (few games yet)" if any("?" in c["rating"] for c in cells) else ""
    foot = "Pts points · P W D L played, won, drawn, lost · SB Sonneborn-Berger"
    foot_lines = [
        foot,
        "Buch Buchholz · Margin victory-point margin" + (f" · {note}" if note else ""),
    ]
    foot_h = round(size * 0.75 * 1.5) * len(foot_lines) + pad
    n = max(1, len(cells))
    height = title_h + head_h + row_h * n + foot_h + pad
    img = Image.new("RGB", (width, height), WHITE)
    d = ImageDraw.Draw(img)

    d.rectangle((0, 0, width, title_h - 1), fill=TITLE_BAR)
    d.text(
        (pad, title_h / 2),
        _ellipsis(title, big, width - 2 * pad),
        fill=WHITE,
        font=big,
        anchor="lm",
    )

    xs: list[int] = []
    x = 0
    for c in _COLS:
        xs.append(x)
        x += widths[c.key]

    def put(y: float, i: int, text: str, f: style.Font, fill: RGB) -> None:
        c, x0 = _COLS[i], xs[i]
        if c.align == "l":
            d.text((x0 + pad, y), text, fill=fill, font=f, anchor="lm")
        else:
            d.text((x0 + widths[c.key] - pad, y), text, fill=fill, font=f, anchor="rm")

    y = title_h
    d.rectangle((0, y, width, y + head_h - 1), fill=HEADER_BG)
    for i, c in enumerate(_COLS):
        put(y + head_h / 2, i, c.head, head, INK)
    y += head_h
    top = y
    anyone_played = any(r.played > 0 for r in rows)
    for j, (r, row) in enumerate(zip(rows, cells, strict=True)):
        leader = anyone_played and r.rank == 1
        d.rectangle((0, y, width, y + row_h - 1), fill=LEADER_BG if leader else ZEBRA[j % 2])
        cy = y + row_h / 2
        for i, c in enumerate(_COLS):
            text = row[c.key]
            if c.key == "name":
                text = _ellipsis(text, bold if leader else body, widths["name"] - 2 * pad)
            f = bold if leader or c.key in ("points", "rank") else body
            if c.key == "rating" and text.endswith("?"):
                right = xs[i] + widths[c.key] - pad
                qw = f.getlength("?")
                d.text((right, cy), "?", fill=PROVISIONAL_MARK, font=bold, anchor="rm")
                d.text((right - qw, cy), text[:-1], fill=MUTED, font=f, anchor="rm")
                continue
            put(cy, i, text, f, INK)
        y += row_h
    if not cells:
        d.text((width / 2, y + row_h / 2), "no players yet", fill=MUTED, font=body, anchor="mm")
        y += row_h
    # thin rules between the column groups, and under the table
    for i in range(1, len(_COLS)):
        if _COLS[i].group != _COLS[i - 1].group:
            d.line((xs[i], title_h, xs[i], y - 1), fill=RULE, width=1)
    d.line((0, top - 1, width, top - 1), fill=RULE, width=1)
    d.line((0, y, width, y), fill=RULE, width=1)
    y += pad
    for line in foot_lines:
        d.text((pad, y), _ellipsis(line, small, width - 2 * pad), fill=MUTED, font=small)
        y += round(size * 0.75 * 1.5)
    return img


# ---------------------------------------------------------------------------- the chart

_MONTH_STEPS = (1, 2, 3, 6, 12, 24, 60, 120)
_DAY_STEPS = (1, 2, 7, 14)


def _day_ticks(t0: float, t1: float, step: int) -> list[float]:
    """UTC midnights every `step` days in [t0, t1] (weeks from Mondays)."""
    s = step * DAY
    offset = 4 * DAY if step % 7 == 0 else 0.0  # 1970-01-01 was a Thursday
    first = math.ceil((t0 - offset) / s) * s + offset
    return [first + k * s for k in range(int((t1 - first) // s) + 1)] if first <= t1 else []


def _month_ticks(t0: float, t1: float, step: int) -> list[float]:
    """The first days of months (UTC) whose month number is a multiple of `step`."""
    start = _dt.datetime.fromtimestamp(t0, _dt.UTC)
    m = start.year * 12 + start.month - 1
    out: list[float] = []
    while True:
        if m % step == 0:
            t = _dt.datetime(m // 12, m % 12 + 1, 1, tzinfo=_dt.UTC).timestamp()
            if t > t1:
                return out
            if t >= t0:
                out.append(t)
        m += 1


def time_ticks(t0: float, t1: float, most: int) -> list[float]:
    """At most `most` readable date ticks (UTC midnights, then month and year starts)."""
    span = t1 - t0
    for days in _DAY_STEPS:
        if span / (days * DAY) <= most:
            ticks = _day_ticks(t0, t1, days)
            if 0 < len(ticks) <= most:
                return ticks
    for months in _MONTH_STEPS:
        if span / (months * 28 * DAY) <= most + 1:
            ticks = _month_ticks(t0, t1, months)
            if 0 < len(ticks) <= most:
                return ticks
    years = 10 * math.ceil(span / (365 * DAY) / (10 * most))
    return _month_ticks(t0, t1, 12 * years)


def value_ticks(lo: float, hi: float, most: int = 7) -> tuple[float, list[float]]:
    """A round step (1, 2, 2.5 or 5 times a power of ten) and the ticks in [lo, hi]."""
    raw = max(hi - lo, 1e-9) / max(1, most - 1)
    p = 10.0 ** math.floor(math.log10(raw))
    step = next(m * p for m in (1, 2, 2.5, 5, 10) if m * p >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    return step, [first + k * step for k in range(int((hi - first) / step + 1e-9) + 1)]


def _date(t: float) -> str:
    return _dt.datetime.fromtimestamp(t, _dt.UTC).strftime("%Y-%m-%d")


def rating_chart(
    title: str, series: Mapping[str, Sequence[tuple[float, float, float]]]
) -> Image.Image:
    """Each player's rating over time: `series` maps a player's name to its
    (timestamp in seconds, rating mu, deviation RD) points (drawn in time order). One line per
    player with a light ±2·RD band, colours in the order of `series` (`player_colour`)."""
    width = MAX_WIDTH
    tf, lf, big = style.font(13, bold=False), style.font(15, bold=False), style.font(20)
    small = style.font(12, bold=False)
    pad, title_h = 14, 44
    left, right, top, plot_h, below = 62, 18, title_h + 6, 400, 26
    plot_w = width - left - right

    lines = [sorted(ps, key=lambda p: p[0]) for ps in series.values()]  # stable: in time order
    points = [p for ps in lines for p in ps]
    if points:
        t0, t1 = min(p[0] for p in points), max(p[0] for p in points)
        lo = min(min(mu - 2 * rd for _t, mu, rd in points), START_RATING)
        hi = max(max(mu + 2 * rd for _t, mu, rd in points), START_RATING)
    else:
        t0 = t1 = 0.0
        lo = hi = START_RATING
    if t1 - t0 < DAY:  # one point, or one day: a day around it
        mid = (t0 + t1) / 2
        t0, t1 = mid - DAY / 2, mid + DAY / 2
    if hi - lo < 100:
        mid = (lo + hi) / 2
        lo, hi = mid - 50, mid + 50
    step, _ = value_ticks(lo, hi)
    lo, hi = math.floor(lo / step) * step, math.ceil(hi / step) * step
    _step, yticks = value_ticks(lo, hi)
    inset = 10  # points at the ends of the time axis are kept off the frame

    def px(t: float) -> float:
        return inset + (t - t0) / (t1 - t0) * (plot_w - 1 - 2 * inset)

    def py(v: float) -> float:
        return (hi - v) / (hi - lo) * (plot_h - 1)

    # the legend: up to 4 entries a row, names ellipsised to their column
    names = list(series)
    cols = max(1, min(4, len(names)))
    col_w = (width - 2 * pad) // cols
    swatch, leg_h = 26, 24
    leg_rows = math.ceil(len(names) / cols)
    note_h = 22
    height = top + plot_h + below + pad + leg_rows * leg_h + note_h + pad
    img = Image.new("RGB", (width, height), WHITE)
    d = ImageDraw.Draw(img)
    d.text(
        (pad, title_h / 2), _ellipsis(title, big, width - 2 * pad), fill=INK, font=big, anchor="lm"
    )

    plot = Image.new("RGB", (plot_w, plot_h), WHITE)
    pd = ImageDraw.Draw(plot)
    xticks = time_ticks(t0, t1, max(2, plot_w // 120)) if points else []
    for v in yticks:
        pd.line((0, py(v), plot_w, py(v)), fill=GRID, width=1)
    for t in xticks:
        pd.line((px(t), 0, px(t), plot_h), fill=GRID, width=1)
    # bands on one layer, each channel the darkest of the bands there: a band keeps its
    # own colour where it is alone, and overlaps stay light instead of piling up
    bands = Image.new("RGB", plot.size, WHITE)
    for i, ps in enumerate(lines):
        if not ps:
            continue
        layer = Image.new("RGB", plot.size, WHITE)
        ld = ImageDraw.Draw(layer)
        band = band_colour(player_colour(i))
        upper = [(px(t), py(mu + 2 * rd)) for t, mu, rd in ps]
        lower = [(px(t), py(mu - 2 * rd)) for t, mu, rd in ps]
        if len({x for x, _ in upper}) == 1:  # one moment: a short bar either side of it
            x = upper[0][0]
            box = (x - 6, min(y for _, y in upper), x + 6, max(y for _, y in lower))
            ld.rectangle(box, fill=band)
        else:
            ld.polygon(upper + lower[::-1], fill=band)
        bands = ImageChops.darker(bands, layer)
    plot = ImageChops.darker(plot, bands)
    pd = ImageDraw.Draw(plot)
    _dashed(pd, py(START_RATING), plot_w, BASELINE)
    few = len(points) <= 60
    for i, ps in enumerate(lines):
        line = [(px(t), py(mu)) for t, mu, _rd in ps]
        colour = player_colour(i)
        if len(line) > 1:
            pd.line(line, fill=colour, width=3, joint="curve")
        if few:  # the games themselves, while they are few enough to see
            for x, y in line:
                pd.ellipse((x - 3.5, y - 3.5, x + 3.5, y + 3.5), fill=colour)
    img.paste(plot, (left, top))
    d.rectangle((left - 1, top - 1, left + plot_w, top + plot_h), outline=AXIS, width=1)

    for v in yticks:
        y = top + py(v)
        d.line((left - 5, y, left - 1, y), fill=AXIS, width=1)
        d.text((left - 8, y), _num(v), fill=INK, font=tf, anchor="rm")
    for t in xticks:
        x = left + px(t)
        d.line((x, top + plot_h, x, top + plot_h + 4), fill=AXIS, width=1)
        label = _date(t)
        half = tf.getlength(label) / 2
        cx = min(max(x, half + 2), width - half - 2)
        d.text((cx, top + plot_h + 7), label, fill=INK, font=tf, anchor="mt")
    if not points:
        d.text(
            (left + plot_w / 2, top + plot_h / 2),
            "no rated games yet",
            fill=MUTED,
            font=lf,
            anchor="mm",
        )

    y = top + plot_h + below + pad
    for i, name in enumerate(names):
        x = pad + (i % cols) * col_w
        cy = y + (i // cols) * leg_h + leg_h / 2
        colour = player_colour(i)
        d.rectangle((x, cy - 7, x + swatch, cy + 7), fill=band_colour(colour))
        d.line((x, cy, x + swatch, cy), fill=colour, width=3)
        shown = _ellipsis(name, lf, col_w - swatch - 16)
        d.text((x + swatch + 6, cy), shown, fill=INK, font=lf, anchor="lm")
    y += leg_rows * leg_h + 4
    d.text(
        (pad, y),
        "line: rating · shaded: rating ± 2 RD (its 95% range) · dashed: 1500, the start",
        fill=MUTED,
        font=small,
    )
    return img


def _dashed(d: ImageDraw.ImageDraw, y: float, width: int, fill: RGB) -> None:
    for x in range(0, width, 12):
        d.line((x, y, min(x + 7, width), y), fill=fill, width=1)


__all__ = [
    "BAND_TINT",
    "LEADER_BG",
    "PALETTE",
    "PROVISIONAL_MARK",
    "ZEBRA",
    "band_colour",
    "player_colour",
    "rating_chart",
    "standings_image",
    "time_ticks",
    "value_ticks",
]
