"""The locked dependency sets CI installs, and what the index holds beyond them.

    python scripts/locks.py newest OUT [--keep]   resolve the newest dev set into OUT
    python scripts/locks.py lowest DIR            resolve the two lowest sets into DIR
    python scripts/locks.py constraints LOCK OUT  LOCK's pins without hashes (for -c)
    python scripts/locks.py drift                 print what is newer than the lock (never fails)

The sets are files of ``requirements/``, each pin with its hashes, resolved by uv for every
Python the project supports (``--universal``):

- ``newest.txt``: the ``dev`` extra (every extra and every tool) at the newest versions that
  fit, and hatchling with editables (the editable install builds without isolation, from
  the lock too);
- ``lowest.txt``: every extra's runtime dependencies at the lowest versions pyproject allows
  (``--resolution lowest-direct``, httpx forced to its floor as an override, since a test
  tool asks for more), the test tools at their newest that fit around them;
- ``lowest-core.txt``: the core alone (with the emulator, msgspec, httpx2 and OpenTelemetry's
  API, its extras) at its floors, with the tools tests/core needs.

``scripts/refresh-lock`` rewrites them after the fast-path probes and the suite passed on the
candidate set; ``scripts/test`` prints the drift at the end of every run.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
UV = str(ROOT / ".venv" / "bin" / "uv")
LOCKS = ROOT / "requirements"
#: The oldest Python the dev set runs on (langchain-core 1.8 needs 3.11).
PYTHON = "3.11"
#: The tools tests/core needs besides the core's own extras.
CORE_TOOLS = [
    "pytest",
    "pytest-asyncio",
    "pytest-timeout",
    "pytest-benchmark",
    "hypothesis",
    "orjson",
    "httpx-sse",
    # The telemetry tests' in-memory exporter and reader (at the API's floor: the SDK pins it).
    "opentelemetry-sdk",
]
#: What the editable install builds with, without isolation (hatchling's editable wheels of
#: packages in subfolders need editables), and pip, which ``uv pip sync`` would otherwise
#: remove from a venv (``pip index`` and the docs' commands use it).
BUILD = ["hatchling", "editables", "pip"]
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def _uv_compile(inputs: list[str], out: Path, *extra: str) -> None:
    """``uv pip compile`` of ``inputs`` into ``out`` (hashes, every Python, no header noise)."""
    command = [
        UV, "pip", "compile", "--quiet", "--universal", "--python-version", PYTHON,
        "--generate-hashes", "--no-header", "--annotation-style", "line",
        *extra, *inputs, "-o", str(out),
    ]  # fmt: skip
    subprocess.run(command, check=True, cwd=ROOT)


def _project() -> dict[str, object]:
    with open(ROOT / "pyproject.toml", "rb") as file:
        project: dict[str, object] = tomllib.load(file)["project"]
    return project


def _drop_self(lock: Path) -> None:
    """The project itself is installed from the tree (``-e .``), never from the lock."""
    lines = lock.read_text().splitlines(keepends=True)
    kept: list[str] = []
    skipping = False
    for line in lines:
        if line.startswith("-e ") or line.startswith("sse-connectors"):
            skipping = True
            continue
        if skipping and line.startswith((" ", "\t")):
            continue
        skipping = False
        kept.append(line)
    lock.write_text("".join(kept))


def newest(out: Path, *, keep: bool) -> None:
    """The newest dev set (``keep``: prefer what ``out`` already pins, change only what
    pyproject's ranges force)."""
    with tempfile.TemporaryDirectory() as work:
        build = Path(work) / "build.in"
        build.write_text("\n".join(BUILD) + "\n")
        upgrade = [] if keep else ["--upgrade"]
        _uv_compile(["pyproject.toml", str(build)], out, "--extra", "dev", *upgrade)
    _drop_self(out)


def _direct_names(extras: list[str]) -> set[str]:
    project = _project()
    reqs = list(project["dependencies"])  # type: ignore[call-overload]
    optional: dict[str, list[str]] = project["optional-dependencies"]  # type: ignore[assignment]
    for extra in extras:
        reqs += optional[extra]
    found = (re.match(r"[A-Za-z0-9._-]+", req) for req in reqs)
    return {m.group(0).lower().replace("_", "-") for m in found if m}


def _floors(extras: list[str], work: Path) -> list[str]:
    """The project's direct runtime dependencies at what lowest-direct chooses."""
    runtime = work / "runtime.in"
    runtime.write_text(f"-e .[{','.join(extras)}]\n")
    compiled = work / "runtime.txt"
    _uv_compile([str(runtime)], compiled, "--resolution", "lowest-direct")
    names = _direct_names(extras)
    pins = []
    for line in compiled.read_text().splitlines():
        found = _PIN.match(line)
        if found and found.group(1).lower().replace("_", "-") in names:
            pins.append(f"{found.group(1)}=={found.group(2)}")
    return pins


def _lowest_set(extras: list[str], tools: list[str], out: Path) -> None:
    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        pins = _floors(extras, work)
        (work / "pins.txt").write_text("\n".join(pins) + "\n")
        # httpx as an override, not only a constraint: langchain-tests (a test tool) asks
        # for httpx>=0.28.1, and the project's own floor is what this set is for.
        httpx = [pin for pin in pins if pin.lower().startswith("httpx==")]
        (work / "overrides.txt").write_text("\n".join(httpx) + "\n")
        wanted = work / "wanted.in"
        wanted.write_text("\n".join([f"-e .[{','.join(extras)}]", *BUILD, *tools]) + "\n")
        _uv_compile(
            [str(wanted)], out, "-c", str(work / "pins.txt"),
            "--override", str(work / "overrides.txt"),
        )  # fmt: skip
    _drop_self(out)


def lowest(directory: Path) -> None:
    """``lowest.txt`` (every extra, the dev tools around it) and ``lowest-core.txt``."""
    optional: dict[str, list[str]] = _project()["optional-dependencies"]  # type: ignore[assignment]
    extras = [name for name in optional if name not in ("dev", "all")]
    _lowest_set(extras, ["-e .[dev]"], directory / "lowest.txt")
    _lowest_set(["emulator", "fast", "httpx2", "otel"], CORE_TOOLS, directory / "lowest-core.txt")


def pins(lock: Path) -> dict[str, str]:
    """Name (normalised) -> version of every pin in ``lock`` (the first, where markers
    split a name by Python version)."""
    found: dict[str, str] = {}
    for line in lock.read_text().splitlines():
        match = _PIN.match(line)
        if match:
            found.setdefault(match.group(1).lower().replace("_", "-"), match.group(2))
    return found


def constraints(lock: Path, out: Path) -> None:
    """``lock``'s pins with their markers and without hashes: a constraints file for
    installs that cannot take hashes (a wheel's extras, a package or two in a test venv)."""
    lines = []
    for line in lock.read_text().splitlines():
        if _PIN.match(line):
            lines.append(line.split(" \\")[0].split("  #")[0].rstrip(" \\"))
    out.write_text("\n".join(lines) + "\n")


def _newer(version: str, than: str) -> bool:
    from packaging.version import Version

    return Version(version) > Version(than)


def _latest(name: str) -> str | None:
    """The newest release of ``name`` on the index pip is configured with, or None."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", name],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    found = re.match(rf"{re.escape(name)} \(([^)]+)\)", done.stdout, re.I)
    return found.group(1) if found else None


def _fast_path_ranges() -> dict[str, dict[str, str]]:
    """The tested ranges of every registered fast path (the adapters' registered too)."""
    code = (
        "import json, langchain_sse, llamaindex_sse\n"
        "from langchain_sse import _chunks, _hooks, _run, _tokens\n"
        "from llamaindex_sse import _lazy\n"
        "from sse_core import fast_paths\n"
        "print(json.dumps({n: dict(p.tested) for n, p in fast_paths.registered().items()}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    ranges: dict[str, dict[str, str]] = json.loads(done.stdout)
    return ranges


def drift() -> None:
    """Print each locked package the index holds a newer release of: the newest that fits
    the project's ranges, and for the project's direct dependencies also the newest at all;
    then the fast paths each would turn off, by the registry's own range check."""
    sys.path.insert(0, str(ROOT / "core"))
    from sse_core.fast_paths import in_range

    locked = pins(LOCKS / "newest.txt")
    with tempfile.TemporaryDirectory() as work:
        candidate = Path(work) / "newest.txt"
        newest(candidate, keep=False)
        fits = pins(candidate)
    direct = sorted(_direct_names(["dev", "langchain", "llamaindex", "emulator", "cli"]))
    with ThreadPoolExecutor(8) as pool:
        latest = dict(zip(direct, pool.map(_latest, direct), strict=True))
    rows: list[tuple[str, str, str, str]] = []
    for name, version in sorted(locked.items()):
        fit, top = fits.get(name), latest.get(name)
        fit_newer = fit is not None and _newer(fit, version)
        top_newer = top is not None and _newer(top, fit or version)
        if fit_newer or top_newer:
            held = f" (newest {top}, held back by a range)" if top_newer else ""
            rows.append((name, version, fit if fit_newer else version, held))
    if not rows:
        print("drift: the lock holds the newest release of every package that fits")
        return
    print(f"drift: {len(rows)} package(s) newer on the index than requirements/newest.txt")
    ranges = _fast_path_ranges()
    for name, version, fit, held in rows:
        print(f"  {name} {version}" + (f" -> {fit}" if fit != version else "") + held)
        for candidate_version in {fit, *re.findall(r"newest (\S+),", held)} - {version}:
            for path, tested in sorted(ranges.items()):
                spec = tested.get(name)
                clause = in_range(candidate_version, spec) if spec else None
                if clause is not None:
                    print(
                        f"    {name} {candidate_version} would turn {path} off "
                        f"(outside the tested {clause}; probe it, then widen {spec})"
                    )
    print("drift: taken in on purpose with scripts/refresh-lock")


def main(argv: list[str]) -> int:
    match argv:
        case ["newest", out, *rest]:
            newest(Path(out), keep="--keep" in rest)
        case ["lowest", directory]:
            lowest(Path(directory))
        case ["constraints", lock, out]:
            constraints(Path(lock), Path(out))
        case ["drift"]:
            try:
                drift()
            except (subprocess.SubprocessError, OSError) as exc:
                print(f"drift: could not be worked out ({exc}); the run goes on")
        case _:
            print(__doc__)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
