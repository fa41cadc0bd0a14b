"""`kessel validate PATH|ID` (scenarios/validate.py): every problem of a broken file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.cli import main
from scenarios.validate import validate


def _write(tmp_path: Path, data: dict[str, Any], name: str = "broken.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return p


def _unit(uid: str, h: str, **kw: Any) -> dict[str, Any]:
    side = "soviet" if uid.startswith("s") else "german"
    return {"id": uid, "side": side, "type": "inf", "sp": 4, "mp": 4, "hex": h, **kw}


def _scenario(units: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "t-broken",
        "system": "wb95",
        "game": "korsun",
        "initiative": "soviet",
        "turns": 3,
        "map": {
            "cols": [1, 10],
            "rows": [1, 8],
            "terrain": {"0505": "swamp"},
            "zones": {"A": ["0108"]},
        },
        "sides": {"soviet": {"supply": [{"edge": "E"}]}, "german": {"supply": [{"edge": "W"}]}},
        "units": units,
    }


def test_validate_reports_every_setup_problem(tmp_path: Path) -> None:
    units = [
        _unit("s-off", "1299"),  # off the map
        _unit("s-tank", "0505", type="arm"),  # mechanized in a swamp
        *[_unit(f"s-stack{i}", "0902") for i in range(5)],  # 10 CELs
        _unit("s-mixed", "0707"),
        _unit("g-mixed", "0707"),  # both sides in one hex
        {
            "id": "s-late",
            "side": "soviet",
            "type": "inf",
            "sp": 4,
            "mp": 4,
            "arrives": {"turn": 2, "zone": "Q"},
        },  # no such zone
        _unit("g-lone", "0303"),
        *[
            _unit(f"s-ring{i}", h)
            for i, h in enumerate(["0302", "0304", "0202", "0203", "0402", "0403"])
        ],
    ]
    report = validate(str(_write(tmp_path, _scenario(units))))
    text = "\n".join(report.problems)
    assert not report.ok and report.kind == "scenario"
    assert "s-off is set up on 1299, which is not on the map" in text
    assert "s-tank (mechanized) cannot be in 0505: swamp is impassable" in text
    assert "0902 holds 10 CELs at setup, more than 8" in text
    assert "0707 holds units of both sides" in text
    assert "unknown entry zone 'Q'" in text
    assert "g-lone is set up surrounded by the enemy in 0303" in text


def test_validate_a_scenario_may_mean_a_surrounded_unit(tmp_path: Path) -> None:
    ring = ["0302", "0304", "0202", "0203", "0402", "0403"]
    units = [_unit("g-lone", "0303"), *[_unit(f"s-r{i}", h) for i, h in enumerate(ring)]]
    data = _scenario(units)
    data["sides"]["soviet"]["supply"] = [{"edge": "N"}, {"edge": "W"}]  # the ring in supply
    data["special"] = {"surrounded": ["g-lone"]}
    problems = validate(str(_write(tmp_path, data))).problems
    assert len(problems) == 1 and "g-lone (0303) cannot trace a line of supply" in problems[0]
    reason = "the scenario means it: a garrison cut off (10.1.10)"
    data["special"]["cut_off"] = [{"units": ["g-lone"], "reason": reason}]
    assert validate(str(_write(tmp_path, data))).ok


def test_validate_schema_errors_name_the_key(tmp_path: Path) -> None:
    data = _scenario([_unit("s-a", "0101")])
    data["turns"] = "many"
    report = validate(str(_write(tmp_path, data)))
    assert report.problems and "turns" in report.problems[0]


def test_validate_a_countersheet(tmp_path: Path) -> None:
    sheet = {
        "game": "korsun",
        "units": [
            {"id": "s-a", "side": "soviet", "type": "inf", "sp": 4},
            {"id": "s-a", "side": "soviet", "type": "art", "sp": 4, "mp": 5},
        ],
    }
    problems = validate(str(_write(tmp_path, sheet, "sheet.yaml"))).problems
    text = "\n".join(problems)
    assert "needs sp and mp" in text
    assert "duplicate id 's-a'" in text
    assert "artillery needs [attack, defence]" in text


@pytest.mark.parametrize(
    "ref", ["korsun-1944", "korsun-1944-short", "the-retreat", "deblockade", "korsun"]
)
def test_validate_every_shipped_korsun_file_is_good(ref: str) -> None:
    report = validate(ref)
    assert report.ok, report.problems


def test_validate_cli_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "korsun-1944"]) == 0
    assert "scenario ok" in capsys.readouterr().out
    bad = _write(tmp_path, _scenario([_unit("s-off", "1299")]))
    assert main(["validate", str(bad)]) == 1
    assert "not on the map" in capsys.readouterr().err
    assert main(["validate", "no-such-thing"]) == 1


SHIPPED = sorted(
    p
    for kind in ("wb95", "maps", "countersheets")
    for p in (Path(__file__).parents[1] / "scenarios" / kind).glob("*.yaml")
)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_validate_every_shipped_file_is_good(path: Path) -> None:
    report = validate(str(path))
    assert report.ok, report.problems


def test_validate_lists_every_unit_id_no_order_can_name(tmp_path: Path) -> None:
    """K89, issue #14: an id must survive the notation round trip (a space, a NUL byte, a
    path, a look-alike letter, `@HEX`, a reserved word of the notation)."""
    bad = ["s 180", "s\x00180", "../s-180", "\u0455-180", "@0101", "support"]
    units = [_unit("s-ok", "0101"), *(_unit(uid, f"0{i + 2}01") for i, uid in enumerate(bad))]
    for u in units[1:]:
        u["side"] = "soviet"
    problems = validate(str(_write(tmp_path, _scenario(units)))).problems
    id_problems = [p for p in problems if ".id: " in p]
    assert len(id_problems) == len(bad), problems
    for i, uid in enumerate(bad, start=1):
        assert f"units[{i}].id: {uid!r} cannot be named in an order" in id_problems[i - 1]
    assert all("\n" not in p for p in problems)


def test_validate_a_countersheet_with_an_id_no_order_can_name(tmp_path: Path) -> None:
    sheet = {"units": [{"id": "s a", "side": "soviet", "type": "inf", "sp": 4, "mp": 4}]}
    problems = validate(str(_write(tmp_path, sheet, "sheet.yaml"))).problems
    assert list(problems) == [
        f"{tmp_path / 'sheet.yaml'}: units[0].id: 's a' cannot be named in an order: a unit "
        "id is one word of ASCII letters, digits, '-', '_' and '.', starting with a letter, "
        "e.g. s-232, and not a word of the order notation such as support or air (K89)"
    ]


def test_validate_a_surrounded_note_that_is_not_a_list(tmp_path: Path) -> None:
    data = _scenario([_unit("s-a", "0101"), _unit("g-a", "0808")])
    data["sides"] = {"soviet": {"supply": [{"edge": "W"}]}, "german": {"supply": [{"edge": "E"}]}}
    data["special"] = {"surrounded": 5}
    assert validate(str(_write(tmp_path, data))).ok


@pytest.mark.parametrize("target", ["/dev/zero", "."], ids=["device", "directory"])
def test_validate_refuses_a_device_or_a_directory(
    target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report = validate(target)
    assert report.kind == "file" and len(report.problems) == 1
    assert f"{target}: (file): is " in report.problems[0]
    assert main(["validate", target]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == f"{target}: 1 problem(s)"
