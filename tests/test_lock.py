"""Issue #13: installs are pinned. The two lock files pin every package with hashes,
agree with each other, satisfy pyproject.toml's ranges, and are what the Makefile and
the Dockerfile install (docs/development.md)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def _pins(name: str) -> dict[str, tuple[Version, str | None, int]]:
    """name -> (version, marker, number of hashes) of one lock file."""
    out: dict[str, tuple[Version, str | None, int]] = {}
    current = None
    for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
        if m := PIN.match(line):
            current = canonicalize_name(m[1])
            assert current not in out, f"{name}: {current} pinned twice"
            out[current] = (Version(m[2]), m[3], 0)
        elif line.strip().startswith("--hash=sha256:") and current:
            v, marker, n = out[current]
            out[current] = (v, marker, n + 1)
        elif line.strip() and not line.lstrip().startswith("#"):
            raise AssertionError(f"{name}: not a pinned line: {line!r}")
    return out


def _pyproject() -> dict[str, list[Requirement]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = data["project"]
    return {
        "runtime": [Requirement(r) for r in project["dependencies"]],
        "dev": [Requirement(r) for r in project["optional-dependencies"]["dev"]],
        "build": [Requirement(r) for r in data["build-system"]["requires"]],
    }


def test_every_locked_package_is_pinned_with_hashes() -> None:
    for name in ("requirements-runtime.lock", "requirements.lock"):
        pins = _pins(name)
        assert len(pins) > 10
        for pkg, (_, _, hashes) in pins.items():
            assert hashes >= 1, f"{name}: {pkg} has no hash"


def test_the_locks_satisfy_pyproject_and_agree() -> None:
    runtime, dev = _pins("requirements-runtime.lock"), _pins("requirements.lock")
    reqs = _pyproject()
    for kind, lock in (("runtime", runtime), ("build", runtime), ("dev", dev)):
        for req in reqs[kind]:
            name = canonicalize_name(req.name)
            assert name in lock, f"{req} ({kind}) is not in the lock: run `make lock`"
            assert lock[name][0] in req.specifier, f"{name} {lock[name][0]} is not {req}"
    for pkg, (version, marker, _) in runtime.items():
        assert pkg in dev, f"{pkg} is in requirements-runtime.lock but not requirements.lock"
        assert dev[pkg][0] == version, f"{pkg}: runtime {version}, dev {dev[pkg][0]}"
        assert dev[pkg][1] == marker


def test_this_python_gets_every_runtime_package_it_needs() -> None:
    """The markers leave out only what this interpreter does not need (e.g. audioop-lts,
    for Python 3.13+)."""
    import importlib.metadata as md

    for pkg, (version, marker, _) in _pins("requirements.lock").items():
        if marker is not None and not Marker(marker).evaluate():
            continue
        assert Version(md.version(pkg)) == version, f"{pkg}: installed is not the locked one"


def test_make_and_docker_install_from_the_locks_only() -> None:
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "--require-hashes --no-deps -r $(LOCK)" in make
    assert "LOCK   := requirements.lock" in make
    assert "--no-deps --no-build-isolation -e ." in make
    docker = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "--require-hashes --no-deps -r requirements-runtime.lock" in docker
    assert "--no-deps --no-build-isolation ." in docker
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci and "make soak" in ci
