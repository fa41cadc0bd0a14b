"""The block above a picture and the frame round it (#18, items 7 and 11): whose view it
is (a coloured banner and a frame in the viewer's colour), the scenario and the phase,
and, on a full map only, the compact legend of what this map and view show. A crop gets
one line: the map is what the player asked to see."""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine.model import MapData
from engine.view import View
from render import style
from render.legend import Key, draw_key, map_keys


def view_colour(viewer: str) -> style.RGB:
    return style.VIEW_COLOUR.get(viewer, style.VIEW_COLOUR["spectator"])


def view_note(viewer: str) -> str:
    return style.VIEW_NOTE.get(viewer, style.SIDE_NOTE)


def phase_text(v: View) -> str:
    date = f" ({v.date})" if v.date else ""
    active = ", ".join(v.active) if v.active else "-"
    status = "  GAME OVER" if v.over else ""
    waiting = f"  waiting for {', '.join(v.awaited)}" if v.awaited and v.awaited != v.active else ""
    return (
        f"Turn {v.turn}{date}  ·  {v.phase} phase ({v.phase_number})  ·  active: {active}"
        f"{waiting}{status}"
    )


def frame(img: Image.Image, viewer: str, z: float) -> None:
    """A border in the viewer's colour round the map (drawn over its outer pixels)."""
    w = max(3, round(3 * z))
    ImageDraw.Draw(img).rectangle(
        (0, 0, img.width - 1, img.height - 1), outline=view_colour(viewer), width=w
    )


def _banner(d: ImageDraw.ImageDraw, x: float, y: float, viewer: str, f: style.Font) -> float:
    """The "GERMAN VIEW" pill; returns its right edge."""
    text = f"{viewer.upper()} VIEW"
    x0, y0, x1, y1 = d.textbbox((x, y), text, font=f)
    padx, pady = 0.5 * (y1 - y0), 0.25 * (y1 - y0)
    d.rounded_rectangle(
        (x0, y0 - pady, x1 + 2 * padx, y1 + pady), radius=pady * 2, fill=view_colour(viewer)
    )
    d.text((x + padx, y), text, fill=(255, 255, 255), font=f)
    return x1 + 2 * padx


def with_header(
    img: Image.Image, m: MapData, v: View, name: str, z: float, crop: bool, where: str = ""
) -> Image.Image:
    frame(img, v.viewer, z)
    return _crop_line(img, v, name, where) if crop else _full_block(img, m, v, name, z)


def _crop_line(img: Image.Image, v: View, name: str, where: str) -> Image.Image:
    """One line: banner, scenario, turn, phase, the hex asked for; shrunk to fit."""
    w = img.width
    # the scenario's name last: on a narrow crop it is the part cut short
    date = f" {v.date}" if v.date else ""
    text = f"{where + '  ·  ' if where else ''}T{v.turn}{date} {v.phase} ({v.phase_number})"
    text += f"  ·  {name}"
    probe = ImageDraw.Draw(img)
    size = 15.0
    f = style.font(size, bold=False)
    bf = style.font(size)
    while size > 12 and probe.textlength(text, font=f) + _pill_w(probe, v.viewer, bf) + 24 > w:
        size -= 1
        f, bf = style.font(size, bold=False), style.font(size)
    while len(text) > 8 and probe.textlength(text, font=f) + _pill_w(probe, v.viewer, bf) + 24 > w:
        text = text[:-2].rstrip() + "…"
    pad = round(size * 0.45)
    th = round(size * 1.5) + 2 * pad
    out = Image.new("RGB", (w, th + img.height), (255, 255, 255))
    out.paste(img, (0, th))
    d = ImageDraw.Draw(out)
    x = _banner(d, pad, pad + 1, v.viewer, bf)
    d.text((x + 8, th / 2), text, fill=(0, 0, 0), font=f, anchor="lm")
    return out


def _pill_w(d: ImageDraw.ImageDraw, viewer: str, f: style.Font) -> float:
    return d.textlength(f"{viewer.upper()} VIEW", font=f) * 1.3


def _full_block(img: Image.Image, m: MapData, v: View, name: str, z: float) -> Image.Image:
    """Title with the view's banner, the phase line, then the map's own legend, wrapped."""
    w = img.width
    fs = max(11.0, 8 * z)
    big, small = style.font(fs * 1.25), style.font(fs, bold=False)
    pad = round(fs * 0.5)
    probe = ImageDraw.Draw(img)
    sw = round(fs * 1.6)
    keys = [*map_keys(m, v), Key("text", "", "full legend: map legend")]
    rows: list[list[tuple[Key, int]]] = [[]]
    x = pad
    for k in keys:
        tw = round(probe.textlength(k.text, font=small)) + (0 if k.kind == "text" else sw + 6)
        tw += round(fs * 1.3)
        if x + tw > w - pad and rows[-1]:
            rows.append([])
            x = pad
        rows[-1].append((k, x))
        x += tw
    line_h = round(fs * 1.5)
    title_h = round(fs * 1.9)
    phase = _wrap(probe, f"{view_note(v.viewer)}  ·  {phase_text(v)}", small, w - 2 * pad)
    th = pad + title_h + line_h * len(phase) + line_h * len(rows) + pad
    out = Image.new("RGB", (w, th + img.height), (255, 255, 255))
    out.paste(img, (0, th))
    d = ImageDraw.Draw(out)
    right = _banner(d, pad, pad + 2, v.viewer, big)
    d.text((right + fs, pad + 2), name, fill=(0, 0, 0), font=big)
    y = pad + title_h
    for line in phase:
        d.text((pad, y), line, fill=(0, 0, 0), font=small)
        y += line_h
    for row in rows:
        for k, lx in row:
            cy = y + line_h / 2 - 1
            if k.kind == "text":
                d.text((lx, cy), k.text, fill=(90, 90, 90), font=small, anchor="lm")
                continue
            draw_key(d, k, lx, cy, sw)
            d.text((lx + sw + 6, cy), k.text, fill=(0, 0, 0), font=small, anchor="lm")
        y += line_h
    d.line((0, th - 1, w, th - 1), fill=(0, 0, 0), width=1)
    return out


def _wrap(d: ImageDraw.ImageDraw, text: str, f: style.Font, width: float) -> list[str]:
    parts = text.split("  ·  ")
    lines = [parts[0]]
    for p in parts[1:]:
        cand = f"{lines[-1]}  ·  {p}"
        if d.textlength(cand, font=f) <= width:
            lines[-1] = cand
        else:
            lines.append(p)
    return lines
