"""The store over TLS (issue #21; docs/deploy.md: "A PostgreSQL URL takes the usual libpq
parameters, e.g. `?sslmode=require`"): against a throw-away PostgreSQL that speaks TLS and
refuses connections without it, a URL with `sslmode=verify-full` and the server's
certificate plays a game; one without TLS, or trusting another certificate, is refused in
one sentence that says why and never shows a password."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mail.mailservers import certificate
from pg import Server, running

from bot.service import Caller, Referee
from bot.store import StoreError, shown_url

ALICE = Caller("u-alice", "Alice", guild="g1", channel="c1")


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    """A TLS-only server and the certificate that proves it (self-signed for 127.0.0.1)."""
    key, cert = certificate(tmp_path_factory.mktemp("pg-tls"))
    for server in running(tls=(key, cert)):
        yield server, cert


async def test_a_game_is_stored_over_verified_tls(tls_server: tuple[Server, Path]) -> None:
    server, cert = tls_server
    url = f"{server.new_database()}?sslmode=verify-full&sslrootcert={cert}"
    ref = await Referee.open(url)
    try:
        out = await ref.new_game(ALICE, "demo-steblev", seed=1, side="soviet")
        gid = out[0].game
        assert gid is not None
    finally:
        await ref.close()
    again = await Referee.open(url)  # and read back over TLS
    try:
        assert (await again.game(gid)).setup.id == "demo-steblev"
        ssl_in_use = server.psql("SELECT bool_or(ssl) FROM pg_stat_ssl")
        assert ssl_in_use == "t"
    finally:
        await again.close()


async def test_a_connection_without_tls_is_refused_in_a_sentence(
    tls_server: tuple[Server, Path],
) -> None:
    server, _ = tls_server
    url = server.new_database().replace("kessel@", "kessel:hunter2@") + "?sslmode=disable"
    with pytest.raises(StoreError) as caught:
        await Referee.open(url)
    said = str(caught.value)
    assert said.startswith(f"cannot open the game database {shown_url(url)}: ")
    assert "hunter2" not in said and "\n" not in said
    assert "no encryption" in said or "pg_hba" in said  # the server's own reason


async def test_a_certificate_not_trusted_is_said_as_such(
    tls_server: tuple[Server, Path], tmp_path: Path
) -> None:
    server, _ = tls_server
    _, stranger = certificate(tmp_path)  # another self-signed certificate
    url = f"{server.new_database()}?sslmode=verify-full&sslrootcert={stranger}"
    with pytest.raises(StoreError, match="TLS certificate is not trusted") as caught:
        await Referee.open(url)
    assert "cannot be reached" not in str(caught.value)


def test_a_password_in_the_url_query_is_never_shown() -> None:
    url = "postgresql://kessel@db.example/kessel?password=hunter2&sslmode=require"
    assert shown_url(url) == "postgresql://kessel@db.example/kessel?password=***&sslmode=require"
    url = "postgresql://kessel:pw@db.example/k?sslpassword=s3cret"
    assert shown_url(url) == "postgresql://kessel:***@db.example/k?sslpassword=***"
