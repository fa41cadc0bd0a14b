"""An odds preview (`Referee.odds`, RuleSystem.preview) in words, for every transport:
Discord (/odds, /attack), mail (`odds ...`). Plain text; an order to copy is in `...`."""

from __future__ import annotations

from typing import Any


def format_odds(
    odds: dict[str, Any], limit: int | None = 1600, more: str = "`/odds` shows them all"
) -> str:
    """The service's odds preview as text: its summary, explanation and what it cannot
    know (the preview is built from the caller's own view). Past `limit` characters the
    last lines are left out, and the text says how many (`more` names where all are)."""
    lines = [str(odds.get("text") or "")]
    lines += [f"· {x}" for x in odds.get("explanation") or []]
    for x in odds.get("results") or []:  # the column's cells: what each roll would do
        rolls = ",".join(map(str, x.get("rolls") or []))
        lines.append(
            f"▸ {100 * float(x.get('p', 0)):.0f} % (roll {rolls}): {x.get('result')} — "
            f"attacker: {x.get('attacker')}; defender: {x.get('defender')}"
        )
    lines += [f"? {x}" for x in odds.get("unknown") or []]
    if odds.get("may_support"):
        guns = " ".join(odds["may_support"])
        lines.append(f"+ artillery that could also support it (6.3): `support {guns}`")
    lines = [x for x in lines if x]
    if limit is None or len("\n".join(lines)) <= limit:
        return "\n".join(lines)
    kept: list[str] = []
    for x in lines:
        if len("\n".join([*kept, x])) > limit - 60:
            break
        kept.append(x)
    return "\n".join([*kept, f"… {len(lines) - len(kept)} more lines: {more}"])
