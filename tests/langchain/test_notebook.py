"""The LangChain quickstart notebook runs top to bottom (its code cells, as Jupyter would)."""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path
from typing import Any

NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "langchain_quickstart.ipynb"


def test_notebook_has_no_outputs() -> None:
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    assert all(not cell.get("outputs") for cell in cells if cell["cell_type"] == "code")
    assert all(cell.get("execution_count") is None for cell in cells if cell["cell_type"] == "code")


async def test_notebook_code_cells_run(capsys: Any) -> None:
    namespace: dict[str, Any] = {"__name__": "__main__"}
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    try:
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            code = compile(source, cell["id"], "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            result = eval(code, namespace)  # top-level await gives a coroutine, as in Jupyter
            if asyncio.iscoroutine(result):
                await asyncio.wait_for(result, 30)
    finally:
        if "emu" in namespace:
            namespace["emu"].stop()
    printed = capsys.readouterr().out
    assert "[thinking]" in printed
    assert "partial answer: '1 2 3'" in printed
    assert "the gateway saw the client leave: True" in printed
