"""The release check's look at a built wheel and sdist (scripts/release_check runs it).

Checks what ``twine check`` does not: the version is ``sse_core.__version__`` and the
CHANGELOG has its section; ``[project.urls]``, the classifiers and the license are in the
metadata; the long description is the README, as Markdown; the wheel holds the five packages
and their metadata only (no tests, fixtures, recordings or caches), each with its
``py.typed``; the sdist holds no caches or virtualenvs.

Usage: ``release_metadata.py WHEEL SDIST``; exits 1 with every problem found.
"""

from __future__ import annotations

import re
import sys
import tarfile
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sse_core", "sse_emulator", "langchain_sse", "llamaindex_sse", "sse_chat")
URLS = ("Homepage", "Documentation", "Source", "Changelog", "Issues")
EXTRAS = ("langchain", "llamaindex", "emulator", "cli", "tokens", "fast", "all", "dev")
#: Paths no distribution may hold.
FORBIDDEN = re.compile(
    r"(^|/)(tests?|fixtures|recordings|__pycache__|\.venv[^/]*|\.mypy_cache|\.ruff_cache|"
    r"\.pytest_cache|\.hypothesis|\.test-logs|_build|\.git)(/|$)|\.py[co]$|\.sse$"
)


def version_of_the_source() -> str:
    text = (ROOT / "core" / "sse_core" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', text, re.M)
    assert match is not None, "no __version__ in core/sse_core/__init__.py"
    return match.group(1)


def check_metadata(metadata: Message, version: str) -> list[str]:
    problems = []
    if metadata["Version"] != version:
        problems.append(f"version {metadata['Version']}, sse_core.__version__ {version}")
    urls = {value.split(",", 1)[0].strip() for value in metadata.get_all("Project-URL") or []}
    problems += [f"no Project-URL {name}" for name in URLS if name not in urls]
    classifiers = metadata.get_all("Classifier") or []
    for needed in ("License :: OSI Approved :: MIT License", "Typing :: Typed",
                   "Programming Language :: Python :: 3.10"):  # fmt: skip
        if needed not in classifiers:
            problems.append(f"no classifier {needed!r}")
    if not (metadata["License"] or metadata["License-Expression"]):
        problems.append("no license")
    if "LICENSE" not in (metadata.get_all("License-File") or []):
        problems.append("no LICENSE file in the distribution")
    if metadata["Description-Content-Type"] != "text/markdown":
        problems.append(f"long description is {metadata['Description-Content-Type']!r}")
    readme = (ROOT / "README.md").read_text(encoding="utf-8").strip()
    if str(metadata.get_payload()).strip() != readme:
        problems.append("the long description is not README.md")
    extras = set(metadata.get_all("Provides-Extra") or [])
    problems += [f"no extra {name}" for name in EXTRAS if name not in extras]
    if metadata["Requires-Python"] != ">=3.10":
        problems.append(f"Requires-Python {metadata['Requires-Python']}")
    return problems


def check_wheel(path: Path, version: str) -> list[str]:
    with zipfile.ZipFile(path) as wheel:
        names = wheel.namelist()
        info = f"sse_connectors-{version}.dist-info/"
        metadata = Parser().parsestr(wheel.read(info + "METADATA").decode())
    problems = check_metadata(metadata, version)
    tops = {name.split("/", 1)[0] for name in names}
    if tops != {*PACKAGES, info.rstrip("/")}:
        problems.append(f"the wheel's top level is {sorted(tops)}")
    problems += [f"the wheel holds {name}" for name in names if FORBIDDEN.search(name)]
    problems += [f"no {p}/py.typed" for p in PACKAGES[:4] if f"{p}/py.typed" not in names]
    return problems


def check_sdist(path: Path, version: str) -> list[str]:
    with tarfile.open(path) as sdist:
        names = [name.split("/", 1)[1] for name in sdist.getnames() if "/" in name]
    wanted = {"pyproject.toml", "README.md", "CHANGELOG.md", "PKG-INFO"}
    problems = [f"the sdist lacks {name}" for name in sorted(wanted - set(names))]
    problems += [f"the sdist holds {name}" for name in names if FORBIDDEN.search(name)]
    return problems


def check_changelog(version: str) -> list[str]:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    if not re.search(rf"^## \[{re.escape(version)}\]", text, re.M):
        return [f"CHANGELOG.md has no section for {version}"]
    return []


def main(argv: list[str]) -> int:
    wheel, sdist = Path(argv[0]), Path(argv[1])
    version = version_of_the_source()
    problems = check_wheel(wheel, version) + check_sdist(sdist, version)
    problems += check_changelog(version)
    for problem in problems:
        print(f"release: {problem}", file=sys.stderr)
    if not problems:
        print(f"release: metadata of {version}: version, urls, classifiers, license, "
              "README as the description, contents")  # fmt: skip
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
