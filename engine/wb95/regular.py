"""Which units are "regular units".

The rules use the term without defining it: regular units have a ZoC (4.1.2), build field
fortifications (7.1.2) and eliminate a lone HQ (9.1.5) or towed artillery (6.1.7) by
entering its hex. Every unit is regular except towed artillery (1.2 sets artillery apart,
and gives mechanized artillery "characteristics of regular units"), HQs (9.0), resilience
groups (15.2) and Volkssturm (15.3 contrasts them with "regular units")
(docs/rulings.md K20).
"""

from __future__ import annotations

from engine.model import UnitSpec

NOT_REGULAR: frozenset[str] = frozenset({"art", "hq", "rg", "vs"})

TYPE_NAMES: dict[str, str] = {
    "art": "towed artillery",
    "hq": "an HQ",
    "rg": "a resilience group",
    "vs": "Volkssturm",
}


def is_regular(spec: UnitSpec) -> bool:
    return spec.type not in NOT_REGULAR


def not_regular_why(spec: UnitSpec) -> str:
    """`towed artillery is not a regular unit` and the like, for rejections."""
    return f"{TYPE_NAMES.get(spec.type, spec.type)} is not a regular unit"
