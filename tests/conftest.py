"""Root fixtures: the gateway emulator (a real uvicorn server on 127.0.0.1) for every test,
and the project's wheel, built once for the tests that install it.

Every client the suite makes speaks plain HTTP to loopback, yet httpx loads a whole CA
bundle (certifi's or the system's, 140-odd roots) into a new SSL context for each one: 20 to
150 ms of processor a client, the larger part of many tests. For the session,
``SSL_CERT_FILE`` (honoured by httpx as by OpenSSL, and inherited by the processes the tests
start) names a bundle of one of those roots: no test speaks TLS. What does reach the network,
pip and the wheel build in the install tests, runs with the environment's own CA settings
(the ``network_env`` fixture).

Every emulator of the session is strict (docs/emulator.md, "What it validates"): each request
is checked against the request types the openai and anthropic SDKs publish, so a request an
adapter builds that the real API would refuse fails the test that made it.
``SSE_EMULATOR_STRICT=1`` (inherited by the emulators the tests start as processes) makes an
emulator without those SDKs an error, not a quiet unchecked one; only the core-only lowest
set, which installs no ``dev`` extra, runs without them.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import certifi
import pytest

from sse_core.transport.config import KNOWN_KEY_VARIABLES

pytest_plugins = ["sse_emulator.pytest_plugin"]

ROOT = Path(__file__).parent.parent
#: The folder of the one-root bundle, and the environment's own SSL_CERT_FILE (None: unset).
_CA_DIR: list[str] = []
_OWN_CERT_FILE: list[str | None] = []


def pytest_configure(config: pytest.Config) -> None:
    # The suite reaches no provider: a key of the developer's environment would change what
    # it sends, and what the adapters warn about (a key variable set but not read).
    for name in KNOWN_KEY_VARIABLES:
        os.environ.pop(name, None)
    if all(importlib.util.find_spec(sdk) for sdk in ("openai", "anthropic")):
        os.environ.setdefault("SSE_EMULATOR_STRICT", "1")
    bundle = Path(certifi.where()).read_text()
    first = re.search(r"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----\n", bundle, re.S)
    assert first is not None, f"no certificate in {certifi.where()}"
    folder = tempfile.mkdtemp(prefix="sse-connectors-ca-")
    _CA_DIR.append(folder)
    _OWN_CERT_FILE.append(os.environ.get("SSL_CERT_FILE"))
    path = Path(folder, "one-root.pem")
    path.write_text(first.group(0))
    os.environ["SSL_CERT_FILE"] = str(path)


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder, own in zip(_CA_DIR, _OWN_CERT_FILE, strict=True):
        os.environ.pop("SSL_CERT_FILE", None)
        if own is not None:
            os.environ["SSL_CERT_FILE"] = own
        shutil.rmtree(folder, ignore_errors=True)
    _CA_DIR.clear()
    _OWN_CERT_FILE.clear()


@pytest.fixture(scope="session")
def network_env() -> dict[str, str]:
    """The environment with its own CA settings, for a process that reaches the network."""
    env = dict(os.environ)
    env.pop("SSL_CERT_FILE", None)
    own = _OWN_CERT_FILE[0] if _OWN_CERT_FILE else None
    if own is not None:
        env["SSL_CERT_FILE"] = own
    return env


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory, network_env: dict[str, str]) -> Path:
    """The project's wheel (``python -m build --wheel``), built once for the session: the
    packaging test and the core-only install each install it into a fresh virtualenv.
    ``SSE_CONNECTORS_WHEEL`` names one already built (scripts/release_check's, so that the
    release's own wheel is the one these tests install)."""
    given = os.environ.get("SSE_CONNECTORS_WHEEL")
    if given:
        return Path(given)
    dist = tmp_path_factory.mktemp("dist")
    # No build isolation: the build backend is the locked hatchling of this venv.
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", dist, ROOT],
        check=True,
        capture_output=True,
        timeout=300,
        env=network_env,
    )
    (built,) = dist.glob("sse_connectors-*.whl")
    return built


@pytest.fixture(scope="session")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """requirements/newest.txt's pins without their hashes: ``pip install -c`` of it installs
    what CI installs (pip takes no hashes in a constraints file)."""
    pins = []
    for line in (ROOT / "requirements" / "newest.txt").read_text().splitlines():
        if re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*==", line):
            pins.append(line.split(" \\")[0].rstrip(" \\"))
    path = tmp_path_factory.mktemp("locked") / "constraints.txt"
    path.write_text("\n".join(pins) + "\n")
    return path
