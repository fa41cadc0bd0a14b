"""The identity of a scenario's data (issue #19): one SHA-256 over everything a Setup
holds -- map, tables, counters, set-up, rules -- written canonically (sets sorted, every
mapping by key), so the same data always give the same digest and any changed value a
different one. A game records it when created; a rated league season records the one of
its scenario and refuses a game whose data are not those (a league that transcribes a
reconstructed table from its printed copy gets a new digest, and says so)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import hashlib
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from engine.model import Setup


def setup_digest(setup: Setup) -> str:
    text = json.dumps(_plain(setup), sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def other_data(recorded: object, setup: Setup) -> str:
    """Why a record made on the data `recorded` (a digest, or nothing for a record older
    than digests) cannot be replayed on `setup`'s data; empty when it can."""
    if recorded is None:
        return ""
    if not isinstance(recorded, str) or not recorded.startswith("sha256:"):
        return "data_digest: must be the digest the export was made with (sha256:...)"
    now = setup_digest(setup)
    if recorded == now:
        return ""
    return (
        f"it was played on the data {recorded[:19]}..., these are {now[:19]}... (another "
        "league's data set, or Kessel's data changed since): replay it with the data it "
        "was played on (--data DIR, docs/leagues.md)"
    )


def _plain(value: Any) -> Any:
    """JSON-plain, in one order whatever the process (no set or dict order leaks in)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.compare  # caches and other non-data fields are left out
        }
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, set | frozenset):
        return sorted((_plain(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if isinstance(value, Fraction | dt.date):
        return str(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)  # an object the data hold but do not describe (kept stable by repr)
