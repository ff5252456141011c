"""Every code block of the documentation site runs, or is checked, as printed.

The pages are the Markdown files under ``docs/`` and the files they include
(``{include}``). A fenced block is, by its language:

- ``python``: run, in the page's order, in one namespace per page (top-level ``await``
  included), against a gateway emulator started for the test: the pages name the emulator's
  default address, ``http://127.0.0.1:8000``, which is replaced by the test's;
- ``console``, ``bash``: each ``sse-chat`` line is parsed by the command's own parser (the
  commands that need a real gateway or a server left running cannot run here);
- ``json``: parsed;
- ``text``, ``sse``, ``toml`` or none: shown, not run (output, wire bytes, configuration).

Any other language fails, so a snippet cannot slip out of the run by a typo. A Python block
that must not run here (it needs a real gateway) is marked on the line before with
``<!-- snippet: not run, REASON -->``; the markers are counted and each must give a reason.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import json
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sse_chat.cli import build_parser
from sse_emulator import Emulator

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs"
DEFAULT = "http://127.0.0.1:8000"
FENCE = re.compile(
    r"(?P<marker><!-- snippet: (?P<why>[^>]*?) -->\n\s*)?"
    r"^(?P<ticks>`{3,})(?P<info>[^`\n]*)\n(?P<body>.*?)^(?P=ticks)\s*$",
    re.M | re.S,
)
RUN, PARSED, LOADED = {"python"}, {"console", "bash"}, {"json"}
SHOWN = {"", "text", "sse", "toml"}
#: Pages whose blocks another test runs, with that test.
RUN_ELSEWHERE = {"docs/gateway-tools.md": "tests/sse_chat/test_docs.py"}
#: What a page's blocks take for granted, run before them: docs/emulator.md's cancellation
#: example uses an httpx client and a request body it does not spell out.
PRELUDE = {
    "docs/emulator.md": (
        "import httpx\n"
        "body = {'model': 'm', 'messages': [{'role': 'user', 'content': 'count to 300'}],"
        " 'stream': True}\n"
    ),
}
#: docs/emulator.md's recording sidecar shows "{...}" for what it leaves out.
NOT_JSON = {("docs/emulator.md", 0)}


@dataclass(frozen=True)
class Block:
    page: str
    language: str
    code: str
    line: int
    skipped: str | None  # the reason a Python block is not run


def pages() -> list[Path]:
    """The site's Markdown pages and the files they include."""
    found = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
    for page in list(found):
        for include in re.findall(r"^```\{include\} (\S+)", page.read_text(), re.M):
            found.append((page.parent / include).resolve())
    return found


def blocks_of(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    name = str(path.relative_to(ROOT))
    found = []
    for match in FENCE.finditer(text):
        info = match["info"].strip()
        if info.startswith("{"):
            continue  # a MyST directive (toctree, include, eval-rst, ...), not code
        line = text.count("\n", 0, match.start("ticks")) + 1
        language = info.split()[0] if info else ""
        found.append(Block(name, language, match["body"], line, match["why"]))
    return found


ALL = [block for page in pages() for block in blocks_of(page)]
PAGES = sorted({b.page for b in ALL if b.language in RUN and b.page not in RUN_ELSEWHERE})


def test_every_block_has_a_known_language() -> None:
    known = RUN | PARSED | LOADED | SHOWN
    unknown = [(b.page, b.line, b.language) for b in ALL if b.language not in known]
    assert not unknown, f"blocks in a language the test does not know: {unknown}"


def test_the_site_runs_many_snippets_and_skips_few_with_a_reason() -> None:
    python = [b for b in ALL if b.language in RUN]
    skipped = [b for b in python if b.skipped is not None]
    assert len(python) >= 40, len(python)
    assert all(b.skipped and b.skipped.startswith("not run, ") for b in skipped), skipped
    assert len(skipped) <= 5, [(b.page, b.line, b.skipped) for b in skipped]


def test_the_pages_another_test_runs_are_run_there() -> None:
    for page, test in RUN_ELSEWHERE.items():
        assert (ROOT / page).exists() and (ROOT / test).exists()
        assert page.split("/")[-1] in (ROOT / test).read_text()


@pytest.mark.parametrize(
    "block",
    [b for b in ALL if b.language in LOADED],
    ids=lambda b: f"{b.page}:{b.line}",
)
def test_json_blocks_parse(block: Block) -> None:
    index = [b for b in ALL if b.page == block.page and b.language in LOADED].index(block)
    if (block.page, index) in NOT_JSON:
        with pytest.raises(json.JSONDecodeError):
            json.loads(block.code)
        return
    json.loads(block.code)


def sse_chat_lines(code: str) -> list[list[str]]:
    """The argument lists of a shell block's ``sse-chat`` commands (comments dropped)."""
    found = []
    for raw in code.splitlines():
        line = re.sub(r"^(SSE_\w+=\S+ )+", "", re.sub(r"^\$ ", "", raw.strip()))
        for prefix in ("sse-chat ", "./scripts/sse-chat ", ".venv/bin/sse-chat "):
            if line.startswith(prefix):
                found.append(shlex.split(line[len(prefix) :], comments=True))
    return found


def test_every_sse_chat_line_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the files the commands name made where they look for them."""
    for folder in ("recordings/s1", "examples", "tests/fixtures/real/anthropic"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "recordings/s1/001.sse").write_bytes(b"data: [DONE]\n\n")
    monkeypatch.chdir(tmp_path)
    parser, parsed = build_parser(), 0
    for block in ALL:
        if block.language not in PARSED or block.page in RUN_ELSEWHERE:
            continue
        for argv in sse_chat_lines(block.code):
            for path in argv:
                if path.endswith(".sse"):
                    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
                    (tmp_path / path).touch()
            if argv not in (["--help"], ["--version"]):
                parser.parse_args(argv)
            parsed += 1
    assert parsed >= 20, parsed


def slow_requests(emu: Emulator, marker: bytes) -> list[Any]:
    return [r for r in emu.requests if marker in r.body]


#: What a page's run must show beyond running: (page, check of (stdout, emulator)).
CHECKS: dict[str, Callable[[str, Emulator], None]] = {}


Check = Callable[[str, Emulator], None]


def check(page: str) -> Callable[[Check], Check]:
    def register(function: Check) -> Check:
        CHECKS[page] = function
        return function

    return register


@check("docs/getting-started.md")
def _first_streams(out: str, emu: Emulator) -> None:
    # the LangChain block shows the reasoning, then the answer
    assert "I can answer this directly.\n--- answer: 1 2 3 4 5\n" in out
    assert "[thinking]" in out and "[answer]" in out  # the LlamaIndex loop keeps them apart
    last_answer = out.rsplit("[answer]", maxsplit=1)[-1].split("\n", maxsplit=1)[0]
    assert "  " not in last_answer  # no doubled spaces


def _left_early(emu: Emulator, marker: bytes) -> None:
    """The stream the page stopped early: the emulator saw the client leave."""
    (record,) = slow_requests(emu, marker)
    record = emu.wait_for_disconnect(10.0, index=record.index)
    assert record.disconnected and not record.completed


@check("docs/llamaindex.md")
def _llamaindex(out: str, emu: Emulator) -> None:
    _left_early(emu, b"count to 300")


@check("docs/langchain.md")
def _langchain(out: str, emu: Emulator) -> None:
    _left_early(emu, b"count to 300")


def _stateless_tool_loops(emu: Emulator) -> list[list[Any]]:
    """The input of each Responses request that sent a tool's output back without
    previous_response_id: a stateless tool loop's second turn."""
    found = []
    for record in emu.requests:
        if not record.path.endswith("/responses"):
            continue
        body = record.json()
        items = body.get("input")
        if body.get("previous_response_id") or not isinstance(items, list):
            continue
        if any(item.get("type") == "function_call_output" for item in items):
            found.append(items)
    return found


def _reasoning_went_back(items: list[Any]) -> bool:
    """The reasoning item came back whole (encrypted), before the call it led to."""
    kinds = [item.get("type") for item in items]
    return (
        "reasoning" in kinds
        and "function_call" in kinds
        and kinds.index("reasoning") < kinds.index("function_call")
        and all(i.get("encrypted_content") for i in items if i.get("type") == "reasoning")
    )


@check("docs/protocols/responses.md")
def _responses(out: str, emu: Emulator) -> None:
    assert "\n--- answer: " in out  # the reasoning summary streamed before the answer
    assert "['reasoning', 'tool_call']" in out and "['ThinkingBlock', 'TextBlock']" in out
    loops = _stateless_tool_loops(emu)
    # the core's loop, ChatSSE's and the agent's: each sent its reasoning item back
    assert len(loops) >= 3 and all(_reasoning_went_back(items) for items in loops), loops


@pytest.mark.parametrize("page", PAGES)
def test_every_python_block_runs_against_the_emulator(
    page: str,
    emulator: Emulator,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    loop = asyncio.new_event_loop()
    try:
        exec(PRELUDE.get(page, ""), namespace)
        for block in (b for b in ALL if b.page == page and b.language in RUN):
            if block.skipped is not None:
                flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
                compile(block.code, f"{page}:{block.line}", "exec", flags=flags)  # it parses
                continue
            source = block.code.replace(DEFAULT, emulator.url)
            code = compile(
                source, f"{page}:{block.line}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
            )
            result = eval(code, namespace)
            if inspect.iscoroutine(result):
                loop.run_until_complete(result)
        if page in CHECKS:
            CHECKS[page](capsys.readouterr().out, emulator)
    finally:
        loop.close()


def test_every_test_named_as_evidence_exists() -> None:
    """The capability tables and pages back claims with test files: each named one exists,
    and a test function named beside it (`file` (`test_name`)) is in that file."""
    named = 0
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for path, test in re.findall(r"`(tests/[\w/]+\.py)`(?: \(`(test_\w+)`)?", text):
            assert (ROOT / path).exists(), f"{page.name} names {path}, which does not exist"
            if test:
                assert f"def {test}(" in (ROOT / path).read_text(), f"{path} has no {test}"
            named += 1
    assert named >= 40, named
