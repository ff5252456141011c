"""The API reference renders every field of both adapters with its type, default and
description (``docs/_ext/sse_fields.py``, wired into autodoc by ``sse_api``): pydantic fields
are no class attributes, so autodoc alone lists none of them."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM

DOCS = Path(__file__).parents[2] / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

from sse_fields import default_text, field_lines, is_settings_model  # noqa: E402


@pytest.mark.parametrize("cls", [ChatSSE, SSELLM])
def test_every_field_is_a_row_with_its_default_and_description(cls: Any) -> None:
    text = "\n".join(field_lines(cls))
    assert is_settings_model(cls)
    for name, field in cls.model_fields.items():
        row = text.split(f"   * - ``{name}``", 1)
        assert len(row) == 2, f"{cls.__name__}.{name} has no row"
        cells = row[1].split("\n   * - ", 1)[0]
        assert f"``{default_text(field)}``" in cells, name
        first = (field.description or "").strip().splitlines()
        if first:
            assert " ".join(first[0].split()[:4]) in " ".join(cells.split()), name


@pytest.mark.parametrize("cls", [ChatSSE, SSELLM])
def test_a_default_from_a_factory_is_never_called(
    cls: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSE_API_KEY", "sk-should-not-show-7d1c")
    assert "sk-should-not-show-7d1c" not in "\n".join(field_lines(cls))


def test_the_reference_page_documents_both_adapter_packages() -> None:
    page = (DOCS / "api.md").read_text()
    for package in ("langchain_sse", "llamaindex_sse"):
        assert f".. automodule:: {package}\n   :members:" in page


@pytest.mark.parametrize("page", sorted(p.name for p in (DOCS / "migration").glob("*.md")))
def test_a_guide_sends_readers_for_our_own_fields_to_the_page_that_has_them(page: str) -> None:
    """The guides list the adapter's own fields and point at the API reference, which renders
    every field; each field named there has its row."""
    from langchain_sse import ChatSSE
    from llamaindex_sse import SSELLM

    text = (DOCS / "migration" / page).read_text()
    own = text.split("'s own: ", 1)[1].split(".\n", 1)[0]
    assert "[the API reference](../api.md)" in own, page
    cls = ChatSSE if page.startswith("chat") else SSELLM
    named = re.sub(r"\([^)]*\)", "", own)  # the fields, not what a note says of them
    for name in re.findall(r"`(\w+)`", named):
        assert name in cls.model_fields or name in {"http_client", "async_http_client"}, (
            page,
            name,
        )
