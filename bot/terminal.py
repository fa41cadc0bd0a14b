"""What local play writes to the screen: `RichOut` (tables, colour, spinners) at a real
terminal, `PlainOut` (aligned plain text through any `write` function) everywhere else
-- pipes, files, tests. Local play (bot/local.py) only talks to the `Out` interface.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

Style = str  # "" | "good" | "bad" | "warn" | "dim" | "head" | "side:NAME"

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_TICKS = re.compile(r"`([^`]*)`")


def plain(text: str) -> str:
    """A service text (written for Discord) without its markdown."""
    return _TICKS.sub(r"\1", _BOLD.sub(r"\1", text))


class Out(Protocol):
    def line(self, text: str = "", style: Style = "") -> None: ...

    def table(
        self,
        title: str,
        columns: Sequence[str],
        rows: Sequence[Sequence[Any]],
        styles: Sequence[Style] | None = None,
    ) -> None: ...

    def panel(self, title: str, lines: Sequence[str], style: Style = "") -> None: ...

    def busy(self, what: str) -> AbstractContextManager[None]: ...

    def ask(self, prompt: str) -> str: ...


class PlainOut:
    """Plain text through `write` (one call per line or block), input through `read`."""

    def __init__(
        self,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self._read = read
        self._write = write

    def line(self, text: str = "", style: Style = "") -> None:
        prefix = {"bad": "! ", "warn": "* "}.get(style, "")
        self._write(prefix + plain(text))

    def table(
        self,
        title: str,
        columns: Sequence[str],
        rows: Sequence[Sequence[Any]],
        styles: Sequence[Style] | None = None,
    ) -> None:
        head = [str(c) for c in columns]
        cells = [head] + [["" if c is None else str(c) for c in r] for r in rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
        out = [title] if title else []
        for r in cells:
            row = "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))
            out.append("  " + row.rstrip())
        self._write("\n".join(out))

    def panel(self, title: str, lines: Sequence[str], style: Style = "") -> None:
        self._write("\n".join([f"== {plain(title)} ==", *(plain(x) for x in lines)]))

    @contextmanager
    def busy(self, what: str) -> Iterator[None]:
        yield

    def ask(self, prompt: str) -> str:
        return self._read(prompt)


_SIDE_COLOURS = ("red", "blue", "green", "magenta")


class RichOut:
    """Colour, tables and spinners with `rich` at an interactive terminal."""

    def __init__(self, sides: Sequence[str] = ()) -> None:
        from rich.console import Console

        self.console = Console(highlight=False)
        self.sides = list(sides)

    def _style(self, style: Style) -> str:
        if style.startswith("side:"):
            side = style[5:]
            if side not in self.sides:
                self.sides.append(side)
            return f"bold {_SIDE_COLOURS[self.sides.index(side) % len(_SIDE_COLOURS)]}"
        return {
            "good": "green",
            "bad": "bold red",
            "warn": "yellow",
            "dim": "dim",
            "head": "bold cyan",
        }.get(style, "")

    def _markup(self, text: str) -> str:
        from rich.markup import escape

        t = escape(text)
        t = _BOLD.sub(r"[bold]\1[/bold]", t)
        return _TICKS.sub(r"[cyan]\1[/cyan]", t)

    def line(self, text: str = "", style: Style = "") -> None:
        st = self._style(style)
        body = self._markup(text)
        self.console.print(f"[{st}]{body}[/]" if st else body)

    def table(
        self,
        title: str,
        columns: Sequence[str],
        rows: Sequence[Sequence[Any]],
        styles: Sequence[Style] | None = None,
    ) -> None:
        from rich.table import Table

        t = Table(title=title or None, title_justify="left", header_style="bold", box=None)
        for c in columns:
            t.add_column(c)
        for i, r in enumerate(rows):
            st = self._style(styles[i]) if styles and i < len(styles) else ""
            t.add_row(*("" if c is None else str(c) for c in r), style=st or None)
        self.console.print(t)

    def panel(self, title: str, lines: Sequence[str], style: Style = "") -> None:
        from rich.panel import Panel

        body = "\n".join(self._markup(x) for x in lines)
        self.console.print(
            Panel(body, title=self._markup(title), border_style=self._style(style) or "cyan")
        )

    @contextmanager
    def busy(self, what: str) -> Iterator[None]:
        with self.console.status(what):
            yield

    def ask(self, prompt: str) -> str:
        return read_block(lambda: self.console.input(f"[bold]{self._markup(prompt)}[/]"))


def read_block(read_one: Callable[[], str]) -> str:
    """One line from the keyboard, plus any further lines already waiting (a pasted
    block of orders), joined by newlines."""
    first = read_one()
    lines = [first]
    try:
        import select

        while select.select([sys.stdin], [], [], 0.05)[0]:
            more = sys.stdin.readline()
            if not more:
                break
            lines.append(more.rstrip("\n"))
    except (OSError, ValueError):  # no select on this stdin (Windows, closed)
        pass
    return "\n".join(lines)


def interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()
