"""AGS events and decisions as sentences players read (engine/ags/reducer.py lists the
events). It reads only the events' plain data, never the AGS engine."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.core import Event
from engine.state import GameState


def _side(s: Any) -> str:
    return str(s or "").capitalize()


def _units(ids: Iterable[Any]) -> str:
    return ", ".join(str(i) for i in ids) or "nobody"


def _event(e: Event) -> str:
    d = e.data
    k = e.kind
    if k == "game_started":
        return f"Army Group South: {d.get('scenario')} begins."
    if k == "turn_started":
        air = d.get("air") or {}
        return (
            f"Game-Turn {d.get('turn')} ({d.get('date')}): {d.get('weather')}; air points "
            f"Soviet {air.get('soviet', 0)}, German {air.get('german', 0)}; active Soviet HQs: "
            f"{_units(d.get('active_hqs') or [])}."
        )
    if k == "set_up":
        return f"The German player sets {d.get('unit')} up in {d.get('hex')} (AGS-K 18.22)."
    if k == "setup_done":
        return "The German set-up is complete (AGS-K 18.24): the game begins."
    if k == "phase_started":
        return f"The {_side(d.get('side'))} {d.get('title')} begins (turn {d.get('turn')})."
    if k == "supply_checked":
        out = d.get("out_of_supply") or []
        iso = d.get("isolated") or []
        if not out:
            return f"Every {_side(d.get('side'))} unit is in supply."
        tail = f"; isolated: {_units(iso)}" if iso else ""
        return f"{_side(d.get('side'))} units out of supply: {_units(out)}{tail} (AGS 12.0)."
    if k == "overrun_declared":
        hq = f", coordinated by {d.get('hq')} (AGS-K 23.2)" if d.get("hq") else ""
        return (
            f"{_units(d.get('attackers') or [])} overrun {d.get('hex')} "
            f"({d.get('cost')} MP, AGS 6.0){hq}."
        )
    if k == "disrupted":
        return f"{_units(d.get('units') or [])} are disrupted (AGS 6.31)."
    if k == "overrun_stopped":
        return f"{_units(d.get('units') or [])} may move no further this phase (AGS 6.22, 6.23)."
    if k == "moved" and d.get("how"):
        how = {"delay": "delays out of", "disengage": "disengages from"}.get(str(d.get("how")))
        return (
            f"{d.get('unit')} {how} an enemy zone of control: {' '.join(d.get('path') or [])} "
            f"({d.get('cost')} MP, AGS-K 22.1, 22.2)."
        )
    if k == "moved":
        stop = " and stops in an enemy zone of control" if d.get("stops") else ""
        return f"{d.get('unit')} moves {' '.join(d.get('path') or [])} ({d.get('cost')} MP){stop}."
    if k == "entered":
        return (
            f"{d.get('unit')} enters at {d.get('hex')} (area {d.get('area')}, {d.get('cost')} MP)."
        )
    if k == "attack_declared":
        air = " with an air point" if d.get("air") else ""
        hq = ""
        if d.get("hq"):
            led = " (adding its leadership, AGS 11.37)" if d.get("led") else ""
            hq = f", coordinated by {d.get('hq')}{led}"
        return (
            f"{_units(d.get('attackers') or [])} attack {' '.join(d.get('hexes') or [])}{air}{hq}."
        )
    if k == "air_supply":
        units = d.get("units") or []
        he = d.get("heavy") or []
        tail = f"; Heavy Equipment on {_units(he)}" if he else ""
        return (
            f"German air supply on {d.get('hex')}: {_units(units)} in supply through "
            f"Game-Turn {d.get('until')}{tail} ({d.get('rule')})."
        )
    if k == "heavy_equipment_removed":
        return (
            f"Heavy Equipment comes off {_units(d.get('units') or [])}: in supply again "
            f"({d.get('rule')})."
        )
    if k == "air_marker_removed":
        return (
            f"A Soviet unit in {d.get('hex')} removes the German Air marker there; the units "
            f"it supplied stay in supply ({d.get('rule')})."
        )
    if k == "hqs_activated":
        return f"Soviet active HQs: {_units(d.get('hqs') or [])} ({d.get('rule')})."
    if k == "supported_removed":
        opts = d.get("options") or {}
        kept = [u for u in opts.get("supported", []) if u not in (d.get("units") or [])]
        who = "The referee's default" if d.get("by") == "referee" else "The Soviet player"
        return (
            f"{who}: Supported markers come off {_units(d.get('units') or [])}; "
            f"{_units(kept)} keep theirs ({d.get('rule')})."
        )
    if k == "air_spent":
        return f"{_side(d.get('side'))} spends an air point in the combat ({d.get('rule')})."
    if k == "combat_resolved":
        notes = "; ".join(d.get("notes") or [])
        used = d.get("data") or []
        recon = d.get("reconstructed") or []
        if used:
            tail = f" Not printed in the rules: {'; '.join(str(x) for x in used)}."
        else:
            tail = f" Reconstructed values used: {_units(recon)}." if recon else ""
        return (
            f"{d.get('attack')} to {d.get('defence')} ({d.get('ratio')}), column {d.get('column')}"
            f"{' (' + notes + ')' if notes else ''}; die {d.get('die')}: {d.get('result')} "
            f"(CRT {d.get('crt')}).{tail}"
        )
    if k == "retreated":
        return f"{d.get('unit')} retreats {' '.join(d.get('path') or [])}."
    if k == "advanced" and d.get("defenders"):
        return (
            f"The victorious defenders {_units(d.get('units') or [])} advance "
            f"{' '.join(d.get('path') or [])} (AGS 9.81); they may not be attacked again "
            "this phase (9.83)."
        )
    if k == "advanced":
        return f"{_units(d.get('units') or [])} advance {' '.join(d.get('path') or [])}."
    if k == "step_lost":
        left = d.get("steps_left")
        return (
            f"{d.get('unit')} loses a step ({left} left)."
            if left
            else f"{d.get('unit')} loses its last step."
        )
    if k == "unit_eliminated":
        return f"{d.get('unit')} is eliminated in {d.get('hex')}."
    if k == "vp_awarded":
        return f"{_side(d.get('side'))} +{d.get('points')} VP: {d.get('why')} ({d.get('rule')})."
    if k == "side_done":
        return f"{_side(d.get('side'))} is done."
    if k == "game_ended":
        r = d.get("result") or {}
        return f"The game is over: {r.get('why', '')}"
    return ""


class Words:
    def event(self, e: Event) -> str:
        return _event(e)

    def lines(self, events: Iterable[Event], *, numbered: bool = False) -> list[str]:
        return [f"{e.seq}. {t}" if numbered else t for e in events if (t := _event(e))]

    def decision(
        self,
        kind: str,
        rule: str,
        options: Any,
        info: Mapping[str, Any] | None = None,
        *,
        side: str = "",
        state: GameState | None = None,
        viewer: str | None = None,
    ) -> str:
        who = _side(side) or "A player"
        if kind == "setup":
            return (
                f"{who} sets up ({rule}): the scenario's set-up stands; `move UNIT... HEX` "
                "places a lettered unit anywhere in its set-up area (18.22, 18.23), a unit "
                "of the 2306 group within three hexes of 2306 (18.21), three units a hex at "
                "most (18.25); `done` when every hex on the start line is held or covered "
                "by a unit of its letter (18.24)."
            )
        if kind == "advance":
            hexes = ", ".join(sorted((options or {}).get("hexes", {})))
            return (
                f"{who} may advance after combat into {hexes} ({rule}): "
                "`pursue UNIT... HEX...` or `pass`."
            )
        if kind == "defender_air" and options:
            hexes = " ".join(options.get("hexes", []))
            att = " The attacker uses one." if options.get("attacker_air") else ""
            return (
                f"{who} may answer the attack on {hexes} with an air point ({rule}; "
                f"{options.get('points')} left).{att} `air 1 support-defence "
                f"{(options.get('hexes') or ['HEX'])[0]}` or `pass`."
            )
        if kind == "over_stacked" and options:
            hexes = "; ".join(
                f"{h}: {_units(ids)}" for h, ids in (options.get("hexes") or {}).items()
            )
            return (
                f"{who} has over-stacked hexes at the end of the phase ({rule}): {hexes}. "
                "`losses UNIT...` eliminates the units listed (only the excess, no VPs)."
            )
        if kind == "losses_or_retreat" and options:
            n = options.get("steps")
            if not options.get("retreat"):
                return f"{who} loses {n} step (engaged, {rule}): `losses UNIT`."
            return (
                f"{who} must lose {n} step(s) or retreat all of {_units(options.get('units', []))} "
                f"{n} hex(es) ({rule}): `losses UNIT...` or `retreat UNIT HEX...` for each."
            )
        return f"{who} has a decision to make: {kind} ({rule})."

    def answers(
        self,
        kind: str,
        options: Any,
        info: Mapping[str, Any] | None = None,
        *,
        side: str = "",
        state: GameState | None = None,
    ) -> list[str]:
        if kind == "setup":
            return ["done"]
        if kind == "advance":
            return ["pass"]
        if kind == "defender_air":
            return ["pass", f"air 1 support-defence {(options or {}).get('hexes', ['HEX'])[0]}"]
        if not options:
            return []
        units = list(options.get("units", []))
        out = [f"losses {' '.join(units[: int(options.get('steps', 1))])}"]
        for uid, paths in (options.get("paths") or {}).items():
            if paths:
                out.append(f"retreat {uid} {' '.join(paths[0])}")
        return out

    def sealed_item(self, kind: Any, item: Any) -> str:
        return ""
