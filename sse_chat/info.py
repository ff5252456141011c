"""``sse-chat info``: what is installed and which fast paths are on, and why, for bug reports.

Prints Python and the platform, the versions of sse-connectors and of each dependency, and
every fast path of :mod:`sse_core.fast_paths` (the adapters' too, when their framework is
installed) with its tested version ranges, whether it is on and why, then the frameworks'
subclass hooks with private names that the adapters override, with their probes. ``--json``
prints the same as one JSON object (``python``, ``platform``, ``versions``, ``tested``,
``fast_paths`` as ``{name: {"on": bool, "why": str}}``, ``hooks`` as
``{name: {"base": str, "probe": None or what is gone}}``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
from typing import Any

from sse_core import fast_paths

__all__ = ["add_info_arguments", "collect", "run_info"]

#: The distributions whose versions a report names, installed or not.
DEPENDENCIES = (
    "sse-connectors",
    "httpx",
    "httpcore",
    "h11",
    "pydantic",
    "langchain-core",
    "llama-index-core",
    "uvicorn",
    "tiktoken",
)
#: The adapter modules that register their fast paths when imported.
ADAPTERS = ("langchain_sse.model", "llamaindex_sse.model")


def add_info_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``sse-chat info``."""
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def collect() -> dict[str, Any]:
    """The report: :func:`sse_core.fast_paths.report` with every adapter that imports."""
    for module in ADAPTERS:
        with contextlib.suppress(ImportError):  # its framework (an extra) is not installed
            importlib.import_module(module)
    report = fast_paths.report()
    versions = {name: fast_paths.installed_version(name) for name in DEPENDENCIES}
    report["versions"] = {**versions, **report["versions"]}
    return report


def _lines(report: dict[str, Any]) -> list[str]:
    lines = [f"Python {report['python']} on {report['platform']}", "", "versions:"]
    lines += [
        f"  {name} {version or 'not installed'}" for name, version in report["versions"].items()
    ]
    lines += ["", f"fast paths ({fast_paths.ENV}=0 turns them all off):"]
    for name, state in report["fast_paths"].items():
        tested = ", ".join(f"{dist} {spec}" for dist, spec in report["tested"][name].items())
        lines.append(f"  {name}: {'on' if state['on'] else 'off'} ({state['why']})")
        lines.append(f"    tested on {tested}")
    lines += ["", "subclass hooks with private names (always used; their probes):"]
    for name, state in report.get("hooks", {}).items():
        lines.append(f"  {name} of {state['base']}: {state['probe'] or 'probe passed'}")
    return lines


def run_info(args: argparse.Namespace) -> int:
    """Print the report (``--json``: as JSON); exit status 0."""
    report = collect()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(_lines(report)))
    return 0
