"""Counter values that the rules fix, checked on every shipped countersheet."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

SHEETS = sorted((Path(__file__).parents[1] / "scenarios" / "countersheets").glob("*.yaml"))


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda p: p.stem)
def test_9_1_2_9_1_4_hqs_have_10_mps_and_one_cel(sheet: Path) -> None:
    units = yaml.safe_load(sheet.read_text(encoding="utf-8"))["units"]
    hqs = [u for u in units if u.get("type") == "hq"]
    assert hqs
    assert all(u["mp"] == 10 for u in hqs), [u["id"] for u in hqs if u["mp"] != 10]
    assert all(u.get("cel", 1) == 1 for u in hqs)
