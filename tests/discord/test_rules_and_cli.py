"""`/rule`'s shipped index and `kessel bot`'s start-up checks (no network)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.discord.ruleindex import OUT, build, index, lookup


def test_the_rule_index_is_shipped_small_and_complete() -> None:
    for book in ("wb95-korsun", "wb95-kursk"):
        path = OUT / f"{book}.yaml"
        assert path.is_file() and path.stat().st_size < 200_000
        cases = index(book)
        assert {"5.1.3", "5.3.4", "8.2.2", "16.1"} <= set(cases), book
    assert "17.1.2" in index("wb95-kursk")
    assert "must" in (lookup("5.1.3") or "")
    assert (lookup("5.3") or "").startswith("[5.3] Retreat")


def test_the_index_builder_reads_the_rulebook_styles() -> None:
    text = (
        "Contents\n5.0\tCombat\t10\n5.0 Combat\nintro\n[5.1] General\n5.1.1 Once.\n"
        "- 5.1.2** Adjacent.\n"
    )
    cases = build(text)
    assert cases["5.1.1"] == "5.1.1 Once."
    assert cases["5.1.2"].endswith("Adjacent.")
    assert "intro" in cases["5.0"]


def test_kessel_bot_without_a_token_says_how_to_configure_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KESSEL_DISCORD_TOKEN", raising=False)
    assert main(["bot"]) == 1
    assert "KESSEL_DISCORD_TOKEN" in capsys.readouterr().err
