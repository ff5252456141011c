"""The migration guides list every argument of the class they start from, as installed.

Each guide's "Arguments" table names, in its first column, the fields and constructor
arguments of the other class (LangChain's or LlamaIndex's own fields included); a field that
a new release of that package adds fails this test until the guide says where it goes.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).parents[2] / "docs" / "migration"
NEWEST = Path(__file__).parents[2] / "requirements" / "newest.txt"


def newest_pin(distribution: str) -> str:
    """The version requirements/newest.txt pins ``distribution`` to."""
    pinned = re.search(rf"^{re.escape(distribution)}==(\S+)", NEWEST.read_text(), re.MULTILINE)
    assert pinned, f"requirements/newest.txt pins no {distribution}"
    return pinned.group(1)


def named_version(page: str) -> str:
    """The version of its anchor a migration guide says its claims are of."""
    distribution = ANCHORS[page][0]
    text = " ".join((DOCS / page).read_text().split())
    named = re.search(rf"Compared with `{re.escape(distribution)}` (\S+), the version", text)
    assert named, f"{page} does not name the version of {distribution} it compares with"
    return named.group(1)


#: Guide -> the class it starts from (module, name).
GUIDES = {
    "chatopenai.md": ("langchain_openai", "ChatOpenAI"),
    "chatanthropic.md": ("langchain_anthropic", "ChatAnthropic"),
    "openailike.md": ("llama_index.llms.openai_like", "OpenAILike"),
    "llamaindex-anthropic.md": ("llama_index.llms.anthropic", "Anthropic"),
    "chatopenai-responses.md": ("langchain_openai", "ChatOpenAI"),
    "openairesponses.md": ("llama_index.llms.openai", "OpenAIResponses"),
    "chatgooglegenerativeai.md": ("langchain_google_genai", "ChatGoogleGenerativeAI"),
    "googlegenai.md": ("llama_index.llms.google_genai", "GoogleGenAI"),
}


def arguments_of(module: str, name: str) -> set[str]:
    """The class's pydantic fields and its constructor's named arguments."""
    cls = getattr(importlib.import_module(module), name)
    found = set(cls.model_fields)
    for parameter in inspect.signature(cls.__init__).parameters.values():
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            found.add(parameter.name)
    found.discard("self")
    return found


def listed_in(page: str) -> set[str]:
    """The names in the first column of the page's "Arguments" table."""
    section = (DOCS / page).read_text().split("## Arguments", 1)[1].split("\n## ", 1)[0]
    table = section.split("|---", 1)[1].split("\n", 1)[1]  # the rows below the header
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`(\w+)`", row.split(" | ")[0])}


@pytest.mark.parametrize("page", sorted(GUIDES))
def test_every_argument_is_listed(page: str) -> None:
    module, name = GUIDES[page]
    missing = arguments_of(module, name) - listed_in(page)
    assert not missing, f"{page} does not say where these {name} arguments go: {sorted(missing)}"


@pytest.mark.parametrize("page", sorted(GUIDES))
def test_nothing_listed_that_the_class_does_not_take(page: str) -> None:
    module, name = GUIDES[page]
    taken = arguments_of(module, name)
    cls = getattr(importlib.import_module(module), name)
    aliases = {f.alias for f in cls.model_fields.values() if f.alias}
    extra = listed_in(page) - taken - aliases
    assert not extra, f"{page} lists arguments {name} does not take: {sorted(extra)}"


#: Guide -> the distribution its claims about the other class are of, and ours with its
#: protocol (what the quoted refusals are checked on).
ANCHORS = {
    "chatopenai.md": ("langchain-openai", "ChatSSE", "chat_completions"),
    "chatanthropic.md": ("langchain-anthropic", "ChatSSE", "anthropic"),
    "openailike.md": ("llama-index-llms-openai-like", "SSELLM", "chat_completions"),
    "llamaindex-anthropic.md": ("llama-index-llms-anthropic", "SSELLM", "anthropic"),
    "chatopenai-responses.md": ("langchain-openai", "ChatSSE", "responses"),
    "openairesponses.md": ("llama-index-llms-openai", "SSELLM", "responses"),
    "chatgooglegenerativeai.md": ("langchain-google-genai", "ChatSSE", "gemini"),
    "googlegenai.md": ("llama-index-llms-google-genai", "SSELLM", "gemini"),
}


@pytest.mark.parametrize("page", sorted(GUIDES))
def test_each_guide_names_the_version_its_claims_are_of(page: str) -> None:
    """A claim about the other class holds of one version: the guide names it, and it is the
    one requirements/newest.txt pins (a refreshed lock that moves the anchor fails here until
    the guide is checked; test_anchor_claims.py runs the claims on that version, installed)."""
    distribution = ANCHORS[page][0]
    assert named_version(page) == newest_pin(distribution)


def _refusals(page: str) -> list[tuple[str, str]]:
    """``(argument, hint)`` of each Arguments row that says ``arg=`` is refused with "hint"."""
    section = (DOCS / page).read_text().split("## Arguments", 1)[1].split("\n## ", 1)[0]
    return re.findall(r'`(\w+)=` is refused with "([^"]+)"', section)


@pytest.mark.parametrize("page", sorted(GUIDES))
def test_a_refusal_a_row_quotes_is_what_the_adapter_says(page: str) -> None:
    """Each ``arg=`` is refused with "hint" of an Arguments table, checked on the adapter and
    protocol of the guide: a ConfigurationError at construction, naming the argument and
    saying the hint."""
    from langchain_sse import ChatSSE
    from llamaindex_sse import SSELLM
    from sse_core import ConfigurationError

    _, ours, protocol = ANCHORS[page]
    cls = {"ChatSSE": ChatSSE, "SSELLM": SSELLM}[ours]
    refusals = _refusals(page)
    assert refusals, f"{page} quotes no refusal"
    for argument, hint in refusals:
        with pytest.raises(ConfigurationError) as refused:
            cls(model="m", base_url="http://gw.test/v1", protocol=protocol, **{argument: "x"})
        said = str(refused.value)
        assert f"'{argument}'" in said and hint in said, (page, argument, said)
