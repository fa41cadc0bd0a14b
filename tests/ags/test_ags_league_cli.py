"""`--data DIR` on the `kessel` commands and `kessel validate --data DIR` (issue #19,
docs/ags.md "A league's data"): a good directory is used, a bad one is listed file by file
and nothing of it is read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agsleague import WHO, every_file, malformed, shipped_files

from bot.cli import main
from scenarios import overrides


@pytest.fixture(autouse=True)
def shipped_again() -> Iterator[None]:
    with shipped_files():
        yield


def test_validate_data_accepts_a_good_directory_and_uses_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = every_file(tmp_path)
    assert main(["validate", "--data", str(d)]) == 0
    assert main(["validate", "ags-korsun", "--data", str(d)]) == 0
    out = capsys.readouterr().out
    assert f"{d}: league data ok" in out and "scenario ok" in out
    assert overrides.current() is None


def test_a_command_with_good_data_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = every_file(tmp_path)
    assert main(["scenarios", "--data", str(d)]) == 0
    assert f"the map (league-supplied by {WHO})" in capsys.readouterr().out


def test_a_command_with_bad_data_stops_before_reading_any(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d, bad = malformed(tmp_path)
    assert main(["run", "ags-korsun", "--data", str(d)]) == 1
    err = capsys.readouterr().err
    assert str(bad) in err and "YAML syntax error" in err
    assert f"the league's data in {d} are not used" in err and "Traceback" not in err
    assert overrides.current() is None
    assert main(["validate", "--data", str(d)]) == 1
    assert f"{d}: 1 problem(s)" in capsys.readouterr().err


def test_kessel_toml_names_the_league_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    every_file(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kessel.toml").write_text('[league]\ndata = "league"\n')
    assert main(["scenarios"]) == 0
    assert f"the CRT (league-supplied by {WHO})" in capsys.readouterr().out
    (tmp_path / "kessel.toml").write_text("[league]\ndata = [1]\n")
    assert main(["scenarios"]) == 1
    assert "league.data: must be the path of a directory" in capsys.readouterr().err
