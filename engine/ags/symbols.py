"""How an AGS counter is drawn (issue #19; render reads only the View): the NATO symbol of
each AGS unit type and the factors printed on the face now shown -- attack-defence-
movement of the current step (AGS 2.2; a step lost shows the next face, 9.61, 19.61), an
HQ's leadership and movement (11.1)."""

from __future__ import annotations

from engine.ags.units import Step, UnitSpec

SYMBOL: dict[str, str] = {
    "infantry-regiment": "inf",
    "infantry-division": "inf",
    "divisionsgruppe": "inf",
    "rifle-division": "inf",
    "gd-rifle-division": "inf",
    "gd-airborne-division": "para",
    "gd-airborne-brigade": "para",
    "cavalry-division": "cav",
    "gd-cavalry-division": "cav",
    "panzer-regiment": "arm",
    "heavy-tank-regiment": "arm",
    "tank-corps": "arm",
    "gd-tank-corps": "arm",
    "tank-brigade": "arm",
    "gd-tank-brigade": "arm",
    "panzergrenadier-regiment": "mech",
    "motorized-rifle-corps": "mech",
    "gd-motorized-rifle-corps": "mech",
    "gd-motorized-rifle-brigade": "mech",
    "motorized-brigade": "mech",
    "stug-regiment": "ag",
    "hq": "hq",
}


def symbol(sp: UnitSpec) -> str:
    return SYMBOL.get(sp.type, "inf")


FACES = {"back": "back", "rpl-front": "rpl", "rpl-back": "rpl back"}


def face(st: Step) -> str | None:
    """The counter face the step is printed on, when not the front (AGS-K 24.11: a corps'
    lower steps are on its `rpl` counter)."""
    return FACES.get(st.counter)


def factors(sp: UnitSpec, st: Step) -> str:
    """`6-8-6` (attack-defence-movement of the face shown); an HQ `(4)-9` (leadership,
    movement: it has no attack strength, 11.35)."""
    if sp.is_hq:
        return f"({sp.leadership or 0})-{st.movement}"
    return f"{st.attack}-{st.defence}-{st.movement}"
