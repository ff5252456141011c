"""Every notebook runs: its code cells are executed in order, top-level ``await`` included.

Notebooks use only the public API and start the emulator themselves, so they run offline.
Outputs must be committed empty (they are examples, not records).
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path) -> None:
    notebook = json.loads(path.read_text())
    namespace: dict[str, Any] = {"__name__": "__notebook__"}
    loop = asyncio.new_event_loop()  # one loop for all cells, as a kernel has
    try:
        for number, cell in enumerate(notebook["cells"]):
            if cell["cell_type"] != "code":
                continue
            assert not cell.get("outputs"), f"{path.name} cell {number} has committed outputs"
            source = "".join(cell["source"])
            code = compile(
                source, f"{path.name}[{number}]", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
            )
            result = eval(code, namespace)
            if inspect.iscoroutine(result):
                loop.run_until_complete(result)
    finally:
        loop.close()


BLOCKING = ("wait_for_disconnect(", "wait_for_requests(", "time.sleep(")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_blocking_wait_in_async_code(path: Path) -> None:
    # A notebook runs its cells in an event loop: a blocking wait there stalls the loop
    # (and the stream it waits for). The async twins exist for this.
    for number, cell in enumerate(json.loads(path.read_text())["cells"]):
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and ("await " in source or "async " in source):
            blocking = [call for call in BLOCKING if call in source]
            assert not blocking, f"{path.name} cell {number} blocks the loop: {blocking}"
