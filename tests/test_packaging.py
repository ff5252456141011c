"""The wheel builds, installs into a fresh virtualenv, and its packages import from it: the
core, the emulator beside it (its pure layers without the extra; the package itself, and its
``sse_core.emulator`` alias, saying which extra to install) and the adapters."""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

import pytest


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_imports(
    tmp_path: Path, wheel: Path, network_env: dict[str, str], locked: Path
) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "-c", str(locked), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
        env=network_env,
    )
    # Found, not imported: importing sse_emulator needs uvicorn (an extra; below).
    probe = (
        "import importlib.util as u, pathlib, sse_core, langchain_sse, llamaindex_sse;"
        "names = ('sse_core', 'langchain_sse', 'llamaindex_sse', 'sse_emulator');"
        "files = [pathlib.Path(u.find_spec(name).origin).resolve() for name in names];"
        "print('\\n'.join(str(path) for path in files));"
        "print(all((path.parent / 'py.typed').exists() for path in files))"
    )
    out = subprocess.run(
        [str(python), "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    ).stdout.split()
    site = str(env_dir.resolve())
    assert all(path.startswith(site) for path in out[:4]), out
    assert out[3].endswith("/sse_emulator/__init__.py"), out
    assert out[4] == "True"
    # Without the framework extras, the adapters say which extra to install.
    for module, name, extra in (("langchain_sse", "ChatSSE", "langchain"),
                                ("llamaindex_sse", "SSELLM", "llamaindex")):  # fmt: skip
        probe = f"import {module}\ntry:\n {module}.{name}\nexcept ImportError as e:\n print(e)"
        said = subprocess.run(
            [str(python), "-c", probe], check=True, capture_output=True, text=True, timeout=60,
            cwd=tmp_path,
        ).stdout  # fmt: skip
        assert f"sse-connectors[{extra}]" in said, said
    # The emulator needs uvicorn, the "emulator" extra, under either of its names.
    for module in ("sse_emulator", "sse_core.emulator"):
        probe = f"try:\n import {module}\nexcept ImportError as e:\n print(e)"
        said = subprocess.run(
            [str(python), "-c", probe], check=True, capture_output=True, text=True, timeout=60,
            cwd=tmp_path,
        ).stdout  # fmt: skip
        assert "sse-connectors[emulator]" in said, said
    # No top-level "core" package is installed to shadow a user's own "core" app.
    core = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print(u.find_spec('core'))"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    ).stdout.strip()
    assert core == "None"
