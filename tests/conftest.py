"""Root fixtures: the gateway emulator (a real uvicorn server on 127.0.0.1) for every test,
and the project's wheel, built once for the tests that install it.

Every client the suite makes speaks plain HTTP to loopback, yet httpx loads its whole CA
bundle (certifi's 140-odd roots) into a new SSL context for each one: 30 to 150 ms a client
on the CI machine, the larger part of many tests and a third of the suite's time. For the
session, ``SSL_CERT_FILE`` (honoured by httpx as by OpenSSL, and inherited by the processes
the tests start) names a bundle of one of those roots, unless the environment already names
one; no test speaks TLS, so nothing else changes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import certifi
import pytest

pytest_plugins = ["sse_emulator.pytest_plugin"]

ROOT = Path(__file__).parent.parent
_CA_DIR: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    if "SSL_CERT_FILE" in os.environ or "SSL_CERT_DIR" in os.environ:
        return
    bundle = Path(certifi.where()).read_text()
    first = re.search(r"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----\n", bundle, re.S)
    assert first is not None, f"no certificate in {certifi.where()}"
    folder = tempfile.mkdtemp(prefix="sse-connectors-ca-")
    _CA_DIR.append(folder)
    path = Path(folder, "one-root.pem")
    path.write_text(first.group(0))
    os.environ["SSL_CERT_FILE"] = str(path)


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in _CA_DIR:
        os.environ.pop("SSL_CERT_FILE", None)
        shutil.rmtree(folder, ignore_errors=True)
    _CA_DIR.clear()


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel (``python -m build --wheel``), built once for the session: the
    packaging test and the core-only install each install it into a fresh virtualenv."""
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = dist.glob("sse_connectors-*.whl")
    return built
