"""Where a test needs a real server (PostgreSQL, Dovecot) that this machine lacks.

`make test` installs them when it can (.ci/servers); a newcomer's machine without root
skips those tests with the reason, while CI (KESSEL_REQUIRE_SERVERS=1, .ci/run) fails.
"""

from __future__ import annotations

import os

import pytest


def unavailable(what: str) -> None:
    """Skip (or, in CI, fail) a test that needs `what`, which this machine cannot start."""
    if os.environ.get("KESSEL_REQUIRE_SERVERS") == "1":
        pytest.fail(f"{what} is required here (KESSEL_REQUIRE_SERVERS=1) but not available")
    pytest.skip(f"{what} is not available on this machine (.ci/servers installs it)")
