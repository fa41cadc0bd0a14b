"""The options of `kessel bot`, apart from the bot itself: `kessel --help` builds its
parser without importing asyncio or discord.py (issue #13)."""

from __future__ import annotations

import argparse

__all__ = ["add_arguments"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db", help="an SQLite file or a postgresql:// URL (default: KESSEL_DB or kessel.db)"
    )
    p.add_argument(
        "--sync",
        nargs="+",
        metavar="global|guild ID",
        help="upload the slash commands: `global`, or `guild ID` (instant, for development)",
    )
    p.add_argument("--log-level", default="INFO", help="DEBUG, INFO, WARNING ...")
