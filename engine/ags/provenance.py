"""Where a value comes from (issue #19): printed in the seed text, reconstructed by the
project (with the reason written beside it), or supplied by a league from its printed
copy. Every AGS data file carries one."""

from __future__ import annotations

from typing import Literal

Provenance = Literal["printed", "reconstructed", "league-supplied"]
PROVENANCES: tuple[Provenance, ...] = ("printed", "reconstructed", "league-supplied")
