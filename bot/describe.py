"""The describe layer (issue #17): every engine event, pending decision and sealed-input
receipt as a sentence a player understands, for local play, Discord and any transport.

The events come as a viewer may read them (`engine.view.visible_events`): a field may be
None (a value of a unit the viewer does not see in full, K98), a list of another side's
units may be only its length, and a unit the viewer does not see is "a Soviet unit". No
text built here is a Python repr: lists are joined with spaces, mappings are written out
as words, and missing values are left out of the sentence.

- `event(e)`: one line (or a few) for an event; "" for bookkeeping events (`SILENT`).
- `lines(events)`: the lines of several events, runs of alike events merged.
- `decision(...)`: a decision prompt: what happened, the legal answers numbered, what each
  costs where the options say it, and the order form that answers it.
- `sealed_item(kind, item)`: a sealed input's content (a receipt, a reveal).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.core import Event
from engine.notation import USAGE, format_order
from engine.state import Decision, GameState

# --- small words ---------------------------------------------------------------------------

FORTIFICATIONS = {"ff": "field fortification", "if": "improved fortification"}


def _w(v: Any, none: str = "") -> str:
    """A value as words: a list joined by spaces, a mapping as `key value` pairs, None as
    `none`."""
    if v is None:
        return none
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Mapping):
        return ", ".join(f"{_w(k)} {_w(x, 'none')}".strip() for k, x in v.items()) or none
    if isinstance(v, list | tuple | set | frozenset):
        return " ".join(_w(x) for x in v) or none
    return _words(str(v))


def _words(s: str) -> str:
    """Identifiers of the engine (`air_attack`, `support-attack`) read as words."""
    return s.replace("_", " ")


def _units(v: Any, none: str = "no units") -> str:
    """A unit, a list of units, or (another side's) only their number."""
    if v is None:
        return "a unit"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v} unit{'' if v == 1 else 's'}"
    if isinstance(v, list | tuple):
        return ", ".join(str(x) for x in v) or none
    return str(v)


def _rule(d: Mapping[str, Any]) -> str:
    r = d.get("rule")
    return f" ({r})" if r else ""


def _fort(kind: Any) -> str:
    return FORTIFICATIONS.get(str(kind), "fortification") if kind else "fortification"


def _changes(changes: Any) -> str:
    if not isinstance(changes, Mapping) or not changes:
        return "no change"
    return ", ".join(f"{h} to {s or 'nobody'}" for h, s in changes.items())


def _n(v: Any, what: str) -> str:
    plural = what + ("es" if what.endswith(("x", "s")) else "s")
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v} {what if v == 1 else plural}"
    return f"some {plural}"


def _some_units(names: list[str]) -> str:
    """Unit names, the ones the viewer cannot name counted: "s-1, s-2 and 3 Soviet units"."""
    known = [x for x in names if not x.startswith(("a ", "an "))]
    unknown: dict[str, int] = {}
    for x in names:
        if x.startswith(("a ", "an ")):
            unknown[x] = unknown.get(x, 0) + 1
    parts = list(known)
    for name, n in unknown.items():
        parts.append(name if n == 1 else f"{n} {name.split(' ', 1)[1]}s")
    if len(parts) > 1:
        return ", ".join(parts[:-1]) + " and " + parts[-1]
    return parts[0] if parts else "units"


def _q(v: Any, none: str = "?") -> str:
    """A single value, or `none` when it is missing."""
    return none if v is None else _w(v, none)


def _dice(faces: Any) -> str:
    if isinstance(faces, list | tuple):
        return "+".join(str(f) for f in faces)
    return _w(faces, "?")


# --- events ----------------------------------------------------------------------------------

Describer = Callable[[dict[str, Any]], str]
_BY_KIND: dict[str, Describer] = {}

# Bookkeeping events: nothing to say to a player (their effects are told by other events).
SILENT = frozenset(
    {
        "combat_stage",
        "combat_ended",
        "decision_closed",
        "decision_updated",
        "hq_cms_spent",
        "bridge_work_updated",
        "bridge_work_ended",
        "supply_steps",
        "unit_activity",
        "activity_cleared",
        "air_missions_ended",
        "fortification_synced",
    }
)


def _on(*kinds: str) -> Callable[[Describer], Describer]:
    def reg(fn: Describer) -> Describer:
        for k in kinds:
            _BY_KIND[k] = fn
        return fn

    return reg


def described_kinds() -> frozenset[str]:
    """Every event kind this layer has a sentence (or an explicit nothing) for."""
    return frozenset(_BY_KIND) | SILENT


def event(e: Event) -> str:
    """One line of plain text for an event as a viewer may read it; "" when there is
    nothing to say. An unexpected shape never raises: the kind is named in words."""
    if e.kind in SILENT:
        return ""
    fn = _BY_KIND.get(e.kind)
    if fn is None:
        return _words(e.kind)
    try:
        return fn(_filled(e.data))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return _words(e.kind)


# What a missing (None) name reads as: a unit or side the viewer cannot name.
_UNKNOWN = {
    "unit": "a unit",
    "hq": "an HQ",
    "source": "a unit",
    "side": "a side",
    "winner": "a side",
    "loser": "a side",
    "gainer": "the enemy",
    "hex": "a hex",
    "hexside": "a hexside",
    "target": "a hex",
    "front": "its",
    "scenario": "the scenario",
    "phase": "a",
    "turn": "?",
    "number": "?",
    "river": "river",
}


def _filled(data: Mapping[str, Any]) -> dict[str, Any]:
    """The event's data with a word for each name the viewer may not read."""
    return {k: (_UNKNOWN.get(k) if v is None and k in _UNKNOWN else v) for k, v in data.items()}


def lines(events: Iterable[Event], *, numbered: bool = False) -> list[str]:
    """The lines of `events` (nothing for silent ones); a run of improved fortifications
    placed by one side is one line. `numbered`: each line starts with the number of its
    (last) event, `#123`, the number `mod rollback` takes."""
    out: list[str] = []
    run: list[Event] = []

    def put(text: str, seq: int) -> None:
        out.append(f"#{seq} {text}" if numbered else text)

    def flush() -> None:
        if run:
            d = run[0].data
            hexes = " ".join(str(x.data.get("hex")) for x in run)
            n = len(run)
            what = "an improved fortification" if n == 1 else f"{n} improved fortifications"
            put(f"{d.get('side')} places {what} at {hexes}{_rule(d)}", run[-1].seq)
            run.clear()

    for e in events:
        if e.kind == "improved_fortification_placed" and (
            not run or run[0].data.get("side") == e.data.get("side")
        ):
            run.append(e)
            continue
        flush()
        if e.kind == "improved_fortification_placed":
            run.append(e)
            continue
        text = event(e)
        if text:
            put(text, e.seq)
    flush()
    return out


# the sequence of play and the game


@_on("game_started")
def _game_started(d: dict[str, Any]) -> str:
    seed = f" (seed {d['seed']})" if d.get("seed") is not None else ""  # moderator only
    first = f"; {d['initiative']} has the initiative" if d.get("initiative") else ""
    return f"game {d.get('scenario')} starts{seed}{first}"


@_on("turn_started")
def _turn_started(d: dict[str, Any]) -> str:
    return f"== turn {d['turn']}" + (f" ({d['date']})" if d.get("date") else "")


@_on("phase_started")
def _phase_started(d: dict[str, Any]) -> str:
    who = " and ".join(d.get("active") or []) or "both sides"
    return f"— turn {d['turn']}, phase {d['number']}: {_words(d['phase'])} ({who})"


@_on("phase_skipped")
def _phase_skipped(d: dict[str, Any]) -> str:
    why = d.get("reason") or "nothing to do"
    return f"  phase {d['number']} ({_words(d['phase'])}) skipped: {why}"


@_on("side_done")
def _side_done(d: dict[str, Any]) -> str:
    return f"{d['side']} is done with the {_words(d['phase'])} phase"


@_on("game_ended")
def _game_ended(d: dict[str, Any]) -> str:
    res = d.get("result") or {}
    vp = res.get("vp") if isinstance(res, Mapping) else None
    score = f"; victory points: {_w(vp)}" if vp else ""
    winner = res.get("winner") if isinstance(res, Mapping) else None
    outcome = res.get("outcome") if isinstance(res, Mapping) else None
    won = f"; {_words(str(outcome))}" if outcome else (f"; {winner} wins" if winner else "")
    return f"game over: {d.get('reason') or 'the game has ended'}{won}{score}"


# decisions


@_on("decision_opened")
def _decision_opened(d: dict[str, Any]) -> str:
    return f"{d['side']} must decide: {TITLES.get(d['decision'], _words(d['decision']))}{_rule(d)}"


@_on("decision_automatic")
def _decision_automatic(d: dict[str, Any]) -> str:
    what = TITLES.get(d.get("decision") or "", _words(_q(d.get("decision"), "decision")))
    ans = f": {d['answer']}" if d.get("answer") else ""
    why = d.get("why") or "the only legal answer"
    return f"{d['side']}'s {what} is decided automatically{ans} ({why})"


@_on("hq_claim_set")
def _hq_claim_set(d: dict[str, Any]) -> str:
    now = "uses" if d.get("claim") else "declines"
    return f"{d['side']} {now} its HQs' dice modifier from now on{_rule(d)}"


# sealed inputs


@_on("sealed_submitted", "sealed_amended", "sealed_completed")
def _sealed(d: dict[str, Any]) -> str:
    if d.get("sealed"):  # another side's, before the reveal: who, not what
        return str(d.get("note") or f"{d['side']} submitted a sealed input")
    if "sealed_kind" in d:
        return f"{d['side']} seals: {sealed_item(d.get('sealed_kind'), d.get('item'))}"
    if "submission" in d:
        return f"{d['side']} amends its sealed input: {sealed_item(None, d.get('item'))}"
    return f"{d['side']} has completed its sealed input"


@_on("revealed")
def _revealed(d: dict[str, Any]) -> str:
    shown = "; ".join(
        f"{x.get('side')}: {sealed_item(x.get('kind'), x.get('item'))}"
        for x in d.get("items") or []
    )
    return f"revealed ({d.get('reason') or 'sealed inputs open'}): {shown or 'nothing'}"


@_on("mask_placed")
def _mask_placed(d: dict[str, Any]) -> str:
    return f"{d['side']} masks the stack at {d['hex']} (16.1.2)"


@_on("mask_removed")
def _mask_removed(d: dict[str, Any]) -> str:
    return f"the mask at {d['hex']} is lifted: {d.get('reason') or 'removed'} (16.1.2)"


# dice


@_on("dice_rolled")
def _dice_rolled(d: dict[str, Any]) -> str:
    faces = d.get("faces")
    total = d.get("total")
    many = isinstance(faces, list | tuple) and len(faces) > 1
    roll = (
        f"{_dice(faces)} = {total}" if many else f"{total if total is not None else _dice(faces)}"
    )
    return f"dice {roll}: {d.get('reason') or 'a roll'}"


# movement, strategic movement, reinforcements


@_on("moved")
def _moved(d: dict[str, Any]) -> str:
    path = _w(d.get("path")) or _w(d.get("to"))
    if d.get("mp") is None or d.get("cost") is None:  # a unit not seen in full (K98)
        return f"{d['unit']} moves {path}"
    extra = " (+1 road hex, R12)" if d.get("bonus") else ""
    return f"{d['unit']} moves {path} for {d['cost']} of {d['mp']} MP{extra}"


@_on("strategic_marked")
def _strategic_marked(d: dict[str, Any]) -> str:
    return f"{d['side']} puts {_units(d.get('units'))} in strategic movement{_rule(d)}"


@_on("strategic_unmarked")
def _strategic_unmarked(d: dict[str, Any]) -> str:
    why = f": {d['reason']}" if d.get("reason") else ""
    return f"{_units(d.get('units'))} leave strategic movement{why}{_rule(d)}"


@_on("reinforcement_entered")
def _reinforcement_entered(d: dict[str, Any]) -> str:
    zone = f" (zone {d['zone']})" if d.get("zone") and d.get("zone") != d.get("hex") else ""
    path = d.get("path") or []
    moved = f", moves {_w(path)}" if len(path) > 1 else ""
    cost = f" for {d['cost']} of {d['mp']} MP" if d.get("cost") and d.get("mp") else ""
    return f"{d['unit']} enters the map at {d.get('hex')}{zone}{moved}{cost}{_rule(d)}"


def _arrival(a: Any) -> str:
    if not isinstance(a, Mapping):
        return ""
    where = a.get("zone") or a.get("hex")
    turn = a.get("turn")
    return " ".join(
        x for x in (f"on turn {turn}" if turn else "", f"at {where}" if where else "") if x
    )


@_on("reinforcement_delayed")
def _reinforcement_delayed(d: dict[str, Any]) -> str:
    when = _arrival(d.get("arrives"))
    return f"{d['unit']} is delayed" + (f": it arrives {when}" if when else "") + _rule(d)


@_on("left_map")
def _left_map(d: dict[str, Any]) -> str:
    when = _arrival(d.get("arrives"))
    return (
        f"{d['unit']} leaves the map at {d.get('hex')}"
        + (f"; it comes back {when}" if when else "")
        + _rule(d)
    )


@_on("withdrawn")
def _withdrawn(d: dict[str, Any]) -> str:
    return f"{d['unit']} is withdrawn from the map: {d.get('reason') or 'the scenario says so'}"


@_on("river_crossed")
def _river_crossed(d: dict[str, Any]) -> str:
    vp = f" ({_n(d['vp'], 'victory point')})" if d.get("vp") else ""
    return f"{d['unit']} crosses the {d.get('river') or 'river'}{vp}"


@_on("control_changed")
def _control_changed(d: dict[str, Any]) -> str:
    who = f" ({d['side']} Supply Phase, 4.3)" if d.get("side") else " (4.3)"
    return f"hex control{who}: {_changes(d.get('changes'))}"


# combat, results, special units, HQs


def _combat_head(d: dict[str, Any]) -> str:
    who = " ".join(_q(a.get("unit"), "a unit") for a in d.get("attackers") or []) or "units"
    mod = d.get("modifier") or 0
    dice = d.get("dice")
    roll = f"dice {_dice(dice)}" + (f" {mod:+d}" if mod else "") + f" = {_q(d.get('roll'))}"
    return (
        f"combat: {who} ({_q(d.get('attack_sp'))} SP) attack {_w(d.get('hexes'), 'a hex')} "
        f"({_q(d.get('defence_sp'))} SP): {_q(d.get('initial'))} -> "
        f"{_q(d.get('column'))}, {roll}: {_q(d.get('result'), 'no result')}"
    )


@_on("combat_resolved")
def _combat_resolved(d: dict[str, Any]) -> str:
    backing = [
        f"    {who} support: {x.get('source')}"
        + (f" {x['sp']} SP" if x.get("sp") is not None else "")
        + (f" ({x['why']})" if x.get("why") else "")
        for who, rows in (d.get("support") or {}).items()
        for x in rows
    ]
    return "\n".join(
        [_combat_head(d), *backing, *(f"    {line}" for line in d.get("explanation") or [])]
    )


@_on("cel_lost")
def _cel_lost(d: dict[str, Any]) -> str:
    end = " — eliminated" if d.get("eliminated") else ""
    return f"{d['unit']} loses a CEL: {d.get('cause') or 'combat'}{_rule(d)}{end}"


@_on("retreated")
def _retreated(d: dict[str, Any]) -> str:
    return f"{d['unit']} retreats {_w(d.get('path'))}"


@_on("pursued")
def _pursued(d: dict[str, Any]) -> str:
    return f"{d['unit']} pursues {_w(d.get('path'))}"


@_on("retreat_held")
def _retreat_held(d: dict[str, Any]) -> str:
    return f"{d['unit']} does not retreat: {d.get('reason') or 'it holds'}{_rule(d)}"


@_on("disorganized")
def _disorganized(d: dict[str, Any]) -> str:
    return f"{d['unit']} is disorganized: {d.get('cause') or 'combat'}{_rule(d)}"


@_on("recovered")
def _recovered(d: dict[str, Any]) -> str:
    return f"{d['unit']} recovers from disorganization (5.6.5)"


@_on("unit_eliminated")
def _unit_eliminated(d: dict[str, Any]) -> str:
    at = f" at {d['hex']}" if d.get("hex") else ""
    return f"{d['unit']} is eliminated{at}: {d.get('cause') or 'destroyed'}{_rule(d)}"


@_on("hq_lost")
def _hq_lost(d: dict[str, Any]) -> str:
    return (
        f"{d['side']} loses its HQ {d['unit']}"
        + (f" at {d['hex']}" if d.get("hex") else "")
        + f": {d.get('gainer')} gains combat modifiers against it{_rule(d)}"
    )


@_on("reinforced")
def _reinforced(d: dict[str, Any]) -> str:
    gone = " (it is used up)" if d.get("source_eliminated") else ""
    return f"{d['unit']} is reinforced from {d.get('source')}{gone}{_rule(d)}"


# artillery and air


@_on("setup_changed")
def _setup_changed(d: dict[str, Any]) -> str:
    if d.get("to") is None:  # K98
        return f"{d['unit']} changes its setup{_rule(d)}"
    cost = f" for {d['cost']} MP" if d.get("cost") is not None else ""
    return f"{d['unit']} changes to {d['to']} setup{cost}{_rule(d)}"


@_on("fire_resolved")
def _fire_resolved(d: dict[str, Any]) -> str:
    who = " ".join(str(x.get("source")) for x in d.get("sources") or [])
    res = d.get("result") if d.get("result") is not None else "no effect (R7)"
    head = (
        f"{_words(_q(d.get('mode'), 'ranged'))} fire: {who} at {d.get('target')} "
        f"({_q(d.get('used'))} SP, {_words(_q(d.get('table'), 'fire'))} table), "
        f"dice {_dice(d.get('dice'))} = {_q(d.get('roll'))}: {res}"
    )
    return "\n".join([head, *(f"    {line}" for line in d.get("explanation") or [])])


def _mission(m: Mapping[str, Any]) -> str:
    sp = f" with {m['sp']} SP" if m.get("sp") is not None else ""
    counter = f" (counter {m['counter']})" if m.get("counter") else ""
    side, what = _q(m.get("side"), "a side"), _words(_q(m.get("mission"), "mission"))
    return f"{side} {what} at {_q(m.get('target'), 'a hex')}{sp}{counter}"


@_on("air_missions_flown")
def _air_missions_flown(d: dict[str, Any]) -> str:
    ms = [m for m in d.get("missions") or [] if isinstance(m, Mapping)]
    return "air missions fly (8.1.7): " + ("; ".join(_mission(m) for m in ms) or "none")


@_on("air_mission_flown")
def _air_mission_flown(d: dict[str, Any]) -> str:
    return f"air mission: {_mission(d)}"


@_on("air_mission_void")
def _air_mission_void(d: dict[str, Any]) -> str:
    return f"air mission {_w(d.get('missions'))} has no effect: {d.get('reason') or 'no target'}"


@_on("air_battle")
def _air_battle(d: dict[str, Any]) -> str:
    aborted = d.get("aborted") or []
    lost = f"; aborted: {_w(aborted)}" if aborted else ""
    return (
        f"air battle over {_w(d.get('hexes'))}: {_w(d.get('totals'))}; "
        f"{d.get('winner')} wins{lost}{_rule(d)}"
    )


@_on("air_supply")
def _air_supply(d: dict[str, Any]) -> str:
    ok = "succeeds" if d.get("success") else "fails"
    return (
        f"{d.get('side')} air supply to {d.get('hex')}: die {_q(d.get('die'))}, it {ok}{_rule(d)}"
    )


@_on("air_harassed")
def _air_harassed(d: dict[str, Any]) -> str:
    hit = "it is harassed" if d.get("hit") else "no effect"
    roll = _q(d.get("roll"))
    return f"air harassment of {d['unit']} at {d.get('hex')}: roll {roll}, {hit}{_rule(d)}"


@_on("air_river_attack")
def _air_river_attack(d: dict[str, Any]) -> str:
    return (
        f"air attack on {d['unit']} crossing at {d.get('hex')}: dice {_dice(d.get('dice'))}, "
        f"{_n(d.get('hits'), 'hit')}{_rule(d)}"
    )


# fortifications


@_on("fortified")
def _fortified(d: dict[str, Any]) -> str:
    fort = _fort(d.get("fortification"))
    units = d.get("units")
    verb = "builds" if isinstance(units, list) and len(units) == 1 else "build"
    return f"{_units(units)} {verb} a {fort} at {d.get('hex')}{_rule(d)}"


@_on("fortification_joined")
def _fortification_joined(d: dict[str, Any]) -> str:
    return f"{d['unit']} joins the {_fort(d.get('fortification'))} at {d.get('hex')}{_rule(d)}"


@_on("fortification_left")
def _fortification_left(d: dict[str, Any]) -> str:
    return f"{d['unit']} leaves the {_fort(d.get('fortification'))} at {d.get('hex')}{_rule(d)}"


@_on("fortification_removed")
def _fortification_removed(d: dict[str, Any]) -> str:
    why = f": {d['reason']}" if d.get("reason") else ""
    return f"the {_fort(d.get('fortification'))} at {d.get('hex')} is removed{why}{_rule(d)}"


@_on("improved_fortification_placed")
def _if_placed(d: dict[str, Any]) -> str:
    return f"{d['side']} places an improved fortification at {d.get('hex')}{_rule(d)}"


@_on("if_placement_done")
def _if_placement_done(d: dict[str, Any]) -> str:
    return (
        f"{d['side']} has placed {_n(d.get('placed'), 'improved fortification')}"
        f"{_rule(d)}; the set-up step is over"
    )


# supply


@_on("supply_traced")
def _supply_traced(d: dict[str, Any]) -> str:
    out = d.get("out_of_supply")  # the ids, or for the enemy only how many (16.1.1)
    if isinstance(out, int) and not isinstance(out, bool):
        oos = f"{out} units" if out else "none"
    else:
        oos = ", ".join(str(x) for x in out) if isinstance(out, list) else ""
        oos = oos or "none"
    return f"{d['side']} traces supply (10.1): out of supply: {oos}"


@_on("oos_changed", "oos_paid")
def _oos(d: dict[str, Any]) -> str:
    if d.get("old") is None or d.get("new") is None:  # not seen in full (K98)
        return f"{d['unit']}: its out-of-supply level changes ({d.get('rule') or '10.2'})"
    use = d.get("use")
    why = d.get("reason") or (
        f"pays for full {'MPs' if use == 'move' else 'strength'}" if use else "supply"
    )
    return f"{d['unit']} out-of-supply level {d['old']} -> {d['new']}: {why}{_rule(d)}"


@_on("surrender_test")
def _surrender_test(d: dict[str, Any]) -> str:
    if d.get("note") is None:  # K98
        end = "it surrenders" if d.get("surrendered") else "it holds out"
        return f"{d['unit']} surrender test{_rule(d)}: {end}"
    return f"{d['unit']} surrender test{_rule(d)}: {d['note']}"


# bridges


@_on("bridge_control_changed")
def _bridge_control_changed(d: dict[str, Any]) -> str:
    return f"bridge control (14.1.3): {_changes(d.get('changes'))}"


@_on("bridge_destroyed")
def _bridge_destroyed(d: dict[str, Any]) -> str:
    return f"bridge {d['hexside']} destroyed: {d.get('cause') or 'blown'}{_rule(d)}"


@_on("bridge_rebuilt")
def _bridge_rebuilt(d: dict[str, Any]) -> str:
    cost = f" for {d['cost']} MP" if d.get("cost") is not None else ""
    return f"{d['unit']} rebuilds the bridge {d['hexside']}{cost}{_rule(d)}"


@_on("bridge_building_declared")
def _bridge_building_declared(d: dict[str, Any]) -> str:
    return f"{d['hq']} at {d['hex']} starts building a bridge; the hexside is noted (14.3.2)"


@_on("bridge_built")
def _bridge_built(d: dict[str, Any]) -> str:
    return f"{d['hq']} has built the bridge {d['hexside']} (14.3.2)"


@_on("bridge_building_failed")
def _bridge_building_failed(d: dict[str, Any]) -> str:
    why = _q(d.get("reason"), "it failed")
    return f"{d['hq']} fails to build the bridge {d['hexside']}: {why} (14.3.2)"


# Kursk (17.0 repair, 18.0 mines, 22.0 breakdowns)


@_on("mines")
def _mines(d: dict[str, Any]) -> str:
    dice = _dice(d.get("faces"))
    note = _q(d.get("note"), "no hits")
    return f"mines on the {d.get('front')} front: dice {dice}, {note}{_rule(d)}"


@_on("breakdown_roll")
def _breakdown_roll(d: dict[str, Any]) -> str:
    lost = "loses a CEL" if d.get("lost") else "no breakdown"
    return f"{d['unit']} breakdown roll {_q(d.get('face'))}: {lost}{_rule(d)}"


@_on("repair_placed")
def _repair_placed(d: dict[str, Any]) -> str:
    return f"{d['side']} puts the {d.get('front')} Repair counter on {d['unit']}{_rule(d)}"


@_on("repair_spoiled")
def _repair_spoiled(d: dict[str, Any]) -> str:
    return f"{d['unit']} loses its Repair counter: {_q(d.get('reason'), 'spoiled')}{_rule(d)}"


@_on("repaired")
def _repaired(d: dict[str, Any]) -> str:
    if d.get("cels") is None:  # K98
        return f"{d['unit']} is repaired{_rule(d)}"
    return f"{d['unit']} is repaired: +{d['cels']} CEL{_rule(d)}"


# a moderator's edit


@_on("mod_edited")
def _mod_edited(d: dict[str, Any]) -> str:
    where = " ".join(d.get("hexes") or []) or "off the map"
    if d.get("private") or d.get("field") is None:
        return f"the moderator edited the position ({where})"
    what = d.get("unit") or d.get("hex") or "the position"
    return (
        f"moderator edit: {what} {_words(str(d['field']))} {_w(d.get('before'), 'nothing')} -> "
        f"{_w(d.get('after'), 'nothing')} ({where})"
    )


# --- sealed inputs ----------------------------------------------------------------------------


def sealed_item(kind: Any, item: Any) -> str:
    """A sealed input's content in words: `mask on 0508`, `air attack on 0733 with 4 SP`."""
    if not isinstance(item, Mapping):
        return "a sealed input" if item is None else _w(item)
    if kind == "mask" or ("hex" in item and "on" in item and len(item) == 2):
        return f"mask {'on' if item.get('on') else 'off'} at {item.get('hex')} (16.1.2)"
    if kind == "air" or "mission" in item:
        sp = f" with {item['sp']} SP" if item.get("sp") is not None else ""
        counter = f", counter {item['counter']}" if item.get("counter") else ""
        stars = f", stars {_w(item['stars'])}" if item.get("stars") else ""
        split = item.get("attacks")
        attacks = (
            f", attacks {', '.join(f'{n} on {h}' for h, n in split.items())}"
            if isinstance(split, Mapping) and split
            else ""
        )
        mission = _words(str(item.get("mission")))
        return f"air mission {mission} on {item.get('target')}{sp}{counter}{stars}{attacks} (8.1)"
    if kind == "bridge-note" or "hexside" in item:
        return (
            f"bridge note: {item.get('hq')} builds a bridge across {item.get('hexside')} (14.3.2)"
        )
    return _w(item, "a sealed input")


# --- decisions -------------------------------------------------------------------------------

TITLES = {
    "losses": "which units lose CELs",
    "retreat": "the retreat",
    "pursuit": "pursuit",
    "defence": "the defence",
    "repair": "Repair counters",
    "place-if": "improved fortifications",
}

# How each decision kind is answered.
ANSWER_FORMS: dict[str, tuple[str, ...]] = {
    "losses": ("losses",),
    "retreat": ("retreat",),
    "pursuit": ("pursue", "pass"),
    "defence": ("defend", "pass"),
    "repair": ("repair",),
    "place-if": ("place-if", "done"),
}

COMBAT_KINDS = frozenset({"losses", "retreat", "pursuit", "defence"})
SPECTATOR = "spectator"
MAX_ANSWERS = 12  # numbered answers listed; the rest are counted
MAX_CHARS = 1800  # a prompt fits one chat message with its game prefix


def decision(
    kind: str,
    rule: str,
    options: Any,
    info: Mapping[str, Any] | None = None,
    *,
    side: str = "",
    state: GameState | None = None,
    viewer: str | None = None,
) -> str:
    """A decision prompt: who must decide what and why (the combat it is about, as
    `viewer` sees it), the legal answers numbered in notation with what they cost, and
    the order form that answers it. Without `options` (another side's decision) it says
    only who is awaited for what."""
    title = TITLES.get(kind, _words(kind))
    head = f"{side} must decide: {title}" + (f" ({rule})" if rule else "")
    if not isinstance(options, Mapping):
        combat = _combat_words(state, viewer or SPECTATOR) if kind in COMBAT_KINDS else ""
        about = f"\nIt is about {combat}." if combat else ""
        return f"{head}.{about}\nIts options are for that side's eyes."
    info = dict(info or {})
    if state is not None and not info:
        d = next((x for x in state.pending if x.side == side and x.kind == kind), None)
        if d is not None:
            info = dict(d.info)
    context = _context(kind, options, info, side, state, viewer or side)
    answers = _answers(kind, options, info, side, state)
    forms = [USAGE[v] for v in ANSWER_FORMS.get(kind, ()) if v in USAGE]
    tail = ["Answer with an order: " + "  or  ".join(forms)] if forms else []
    shown = min(len(answers), MAX_ANSWERS)
    while True:  # within one chat message (Discord: 2,000 characters)
        out = [head + ".", *context]
        if answers:
            out.append("Answers:")
            for i, (order, note) in enumerate(answers[:shown], 1):
                out.append(f"  {i}) {order}" + (f"  ({note})" if note else ""))
            if len(answers) > shown:
                out.append(f"  ... and {len(answers) - shown} more of the same form")
        text = "\n".join([*out, *tail])
        if len(text) <= MAX_CHARS or shown <= 2:
            return text
        shown -= 1


def _name(state: GameState | None, viewer: str, uid: Any) -> str:
    """A unit as `viewer` may name it ("a Soviet unit" when it is not seen in full)."""
    if state is None or viewer == "moderator":
        return str(uid)
    from engine.view import sight

    return sight(state, viewer).text(str(uid))


def _combat_words(state: GameState | None, viewer: str) -> str:
    """The combat in resolution, as `viewer` may read it: "the Soviet attack by s-1,
    a Soviet unit on 5819 (result 1/1)"."""
    if state is None or not state.combat:
        return ""
    c = state.combat
    decl = c.get("declared") or {}
    attackers = decl.get("attackers") or (c.get("units") or {}).get("attacker") or []
    targets = decl.get("targets") or c.get("targets") or []
    who = _some_units([_name(state, viewer, u) for u in attackers])
    attacker = (c.get("sides") or {}).get("attacker") or decl.get("side") or ""
    kind = "fire" if c.get("kind") == "fire" else "attack"
    text = f"the {attacker} {kind} by {who} on {' '.join(map(str, targets))}".replace("  ", " ")
    res = c.get("result")
    if isinstance(res, Mapping):
        parts = [
            f"{who} {r['text']}"
            for who, r in res.items()
            if isinstance(r, Mapping) and r.get("text") not in (None, "", "-")
        ]
        if parts:
            text += f" (result: {', '.join(parts)})"
    return text


def _context(
    kind: str,
    opts: Mapping[str, Any],
    info: Mapping[str, Any],
    side: str,
    state: GameState | None,
    viewer: str,
) -> list[str]:
    combat = _combat_words(state, viewer)
    about = f"In {combat}: " if combat else ""
    if kind == "defence":
        lines = [f"{about or 'An attack on your units: '}decide how your side defends."]
        if opts.get("attacker_abilities"):
            lines.append(
                "The attacker uses the special abilities of "
                + ", ".join(_name(state, viewer, u) for u in opts["attacker_abilities"])
            )
        if opts.get("attacker_cms"):
            lines.append(f"The attacker spends {opts['attacker_cms']} HQ combat modifiers.")
        return lines
    if kind == "losses":
        cause = info.get("cause") or "the combat result"
        n = opts.get("count")
        lines = [
            f"{about}your side loses {_n(n, 'CEL')} ({cause}): choose the units that lose them."
        ]
        must = opts.get("must_include") or []
        if must:
            lines.append(
                "At least one must come from "
                + ", ".join(map(str, must))
                + " (they used special abilities, 15.1.7)."
            )
        return lines
    if kind == "retreat":
        n = opts.get("hexes")
        left = info.get("left") or list((opts.get("paths") or {}).keys())
        return [
            f"{about}your units must retreat {_n(n, 'hex')} (any legal path of that length, "
            "the best listed first); still to retreat: "
            f"{', '.join(map(str, left)) or 'none'}. A unit that retreats less (or holds) "
            "leaves a shortfall paid in CELs (5.3.7); each enemy ZoC hex entered costs a CEL "
            "(5.3.4)."
        ]
    if kind == "pursuit":
        mode = opts.get("mode") or "pursuit"
        hexes = " ".join(map(str, opts.get("first") or []))
        why = {
            "pursuit": f"the enemy retreated from {hexes}: your units may pursue (5.4)",
            "advance": f"the defenders of {hexes} were eliminated: your units may advance (5.4.10)",
            "overrun": f"only guns were left in {hexes}: your units may overrun them (6.2.4)",
        }.get(str(mode), f"your units may enter {hexes}")
        left = info.get("left") or opts.get("units") or []
        return [
            f"{about}{why}. Units that may go: {', '.join(map(str, left)) or 'none'}. "
            "A pursue order names one unit or several (they follow the same path, "
            "e.g. pursue A B HEX); the others may still go after it: type pass when no "
            "more should."
        ]
    if kind == "repair":
        fronts = opts.get("fronts") or {}
        n = opts.get("counters", 1)
        lines = [
            f"Place up to {n} Repair counter(s) per front on units that may be repaired (17.1.2):"
        ]
        for front, units in fronts.items():
            lines.append(f"  {front} front: {' '.join(map(str, units)) or 'none'}")
        return lines
    if kind == "place-if":
        left, count = opts.get("left"), opts.get("count")
        return [
            f"Place improved fortification markers under your stacks, one per hex (7.2.1): "
            f"{left} of {count} left. `done` ends the set-up step (the rest are lost)."
        ]
    return []


def answers(
    kind: str,
    options: Any,
    info: Mapping[str, Any] | None = None,
    *,
    side: str = "",
    state: GameState | None = None,
) -> list[str]:
    """The numbered answers of a decision prompt, as order lines (1 is the first): what a
    player answering "2" means."""
    if not isinstance(options, Mapping):
        return []
    found = _answers(kind, options, dict(info or {}), side, state)
    return [order for order, _ in found[:MAX_ANSWERS]]


def _answers(
    kind: str,
    opts: Mapping[str, Any],
    info: Mapping[str, Any],
    side: str,
    state: GameState | None,
) -> list[tuple[str, str]]:
    """The legal answers in notation with a note each, best known first."""
    try:
        return _answers_of(kind, opts, info, side, state)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return []


def _answers_of(
    kind: str,
    opts: Mapping[str, Any],
    info: Mapping[str, Any],
    side: str,
    state: GameState | None,
) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if kind == "losses":
        from engine.wb95.decisions import _loss_picks

        units: Mapping[str, int] = opts.get("units") or {}
        for pick in _loss_picks(dict(opts), limit=MAX_ANSWERS + 1):
            gone = [u for u in dict.fromkeys(pick) if pick.count(u) >= units.get(u, 99)]
            note = ("eliminates " + ", ".join(gone)) if gone else ""
            out.append((f"losses {' '.join(pick)}", note))
        if not out:
            out.append((f"losses {' '.join(units)}", f"{opts.get('count')} CELs in all"))
        return out
    if kind == "retreat":
        paths: Mapping[str, list[list[str]]] = opts.get("paths") or {}
        n = int(opts.get("hexes") or 0)
        zoc = _enemy_zoc(state, side)
        for unit in info.get("left") or list(paths):
            # full retreats first, then those through fewer enemy ZoC hexes
            ranked = sorted(
                paths.get(unit) or [], key=lambda p: (n - len(p), sum(h in zoc for h in p))
            )
            for p in ranked[:8]:  # the rest: any other legal path (the context says so)
                notes = []
                short = n - len(p)
                if short > 0:
                    notes.append(f"{short} hex short: shortfall in CELs, 5.3.7")
                zc = [h for h in p if h in zoc]
                if zc:
                    notes.append(f"through enemy ZoC at {' '.join(zc)}: lose {len(zc)} CEL, 5.3.4")
                out.append((f"retreat {unit} {' '.join(p)}", "; ".join(notes)))
            out.append((f"retreat {unit}", f"hold: a shortfall of {n} hex paid in CELs, 5.3.7"))
        return out
    if kind == "pursuit":
        first = list(opts.get("first") or [])
        paths2: Mapping[str, list[list[str]]] = opts.get("paths") or {}
        goers = [str(u) for u in info.get("left") or opts.get("units") or []]
        if len(goers) > 1:
            for h in first:
                out.append((f"pursue {' '.join(goers)} {h}", "all of them enter the vacated hex"))
        for unit in goers:
            for h in first:
                out.append((f"pursue {unit} {h}", "enter the vacated hex"))
                for p in paths2.get(h) or []:
                    if p:
                        out.append((f"pursue {unit} {h} {' '.join(p)}", "follow the retreat"))
        out.append(("pass", "pursue no further"))
        return out
    if kind == "defence":
        seen: set[str] = set()
        cands = []
        if state is not None:
            from engine.wb95 import choices, defaults

            d = Decision(side, kind, dict(opts), "", dict(info))
            cands = [
                *defaults.answers(state, d),
                *choices._answers(state, kind, dict(opts), dict(info)),
            ]
        for order in cands:
            line = format_order(order)
            if line in seen:
                continue
            seen.add(line)
            out.append((line, _defend_note(line)))
        if not out:
            out = [("defend", "defend with what is in place"), ("pass", "no defensive support")]
        return out
    if kind == "repair":
        for front, units in (opts.get("fronts") or {}).items():
            for u in units:
                out.append((f"repair {u}", f"a Repair counter on {u} ({front} front)"))
        out.append(("repair none", "place no Repair counter"))
        return out
    if kind == "place-if":
        if state is not None:
            from engine.wb95 import defaults

            d = Decision(side, kind, dict(opts), "", dict(info))
            for order in defaults.answers(state, d):
                line = format_order(order)
                if line.startswith("place-if"):
                    hexes = line.split()[1:]
                    out.append((line, f"under your {len(hexes)} stacks nearest the enemy"))
        out.append(("done", "place no more: the set-up step ends"))
        return out
    return out


def _defend_note(line: str) -> str:
    if line == "pass":
        return "no special abilities, CMs or support"
    names = {"stars": "abilities of", "support": "artillery support", "cms": "CMs"}
    parts: list[str] = []
    for w in line.split()[1:]:
        if w in names:
            parts.append(names[w])
        elif w == "nohq":
            parts.append("without the HQ dice modifier")
        elif parts:
            parts[-1] += f" {w}"
    return "; ".join(parts) or "defend as things stand"


def _enemy_zoc(state: GameState | None, side: str) -> set[str]:
    if state is None or side not in state.setup.sides:
        return set()
    from engine.wb95.zoc import zoc_map

    return {h for h, v in zoc_map(state, state.setup.enemy_of(side)).items() if v}
