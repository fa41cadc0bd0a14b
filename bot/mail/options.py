"""`kessel mail`'s arguments (the standard library only: `kessel --help` stays quick)."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db", default=None, metavar="FILE", help="the game database (default kessel.db)"
    )
    p.add_argument(
        "--once", action="store_true", help="handle the waiting mail and the clock once, then exit"
    )
    p.add_argument("--log-level", default="INFO", help="default INFO")
