"""docs/telemetry.md names what the library records, no more and no less: every attribute and
metric name in its tables is one of ``sse_core.telemetry.names``, and every span attribute
and metric the library records is in a table."""

from __future__ import annotations

import re
from pathlib import Path

from sse_core.telemetry import names

PAGE = Path(__file__).parents[2] / "docs" / "telemetry.md"
_PREFIXES = ("gen_ai.", "sse.", "server.", "error.")
# Not span attributes: the operation's value, error values, the env variable, metric-only
# attributes and the span event's names are in the page's prose, checked below by value.
_NOT_ATTRIBUTES = {
    names.OPERATION_CHAT,
    names.CANCELLED,
    names.OTHER,
    names.TOKEN_INPUT,
    names.TOKEN_OUTPUT,
    names.CAPTURE_CONTENT_ENV,
    names.SSE_RETRY_DELAY,
}


def _table_names() -> set[str]:
    """The names the page's table rows state, with ``.x`` shorthands spelled out."""
    found: set[str] = set()
    for row in PAGE.read_text().splitlines():
        if not row.startswith("| `"):
            continue
        first = row.split("|")[1]
        base = ""
        for name in re.findall(r"`([^`]+)`", first):
            if name.startswith(_PREFIXES):
                base = name.rsplit(".", 1)[0]
                found.add(name)
            elif name.startswith(".") and base:
                found.add(base + name)
    return found


def _recorded() -> set[str]:
    values = {getattr(names, key) for key in names.__all__ if isinstance(getattr(names, key), str)}
    return {value for value in values if value.startswith(_PREFIXES)} - _NOT_ATTRIBUTES


def test_every_name_in_the_tables_is_one_the_library_records() -> None:
    stated = _table_names()
    assert stated, "no table rows found"
    assert stated <= _recorded() | {names.TOKEN_TYPE}, sorted(stated - _recorded())


def test_every_name_the_library_records_is_on_the_page() -> None:
    text = PAGE.read_text()
    missing = {
        name for name in _recorded() if f"`{name}`" not in text and name not in _table_names()
    }
    assert not missing, sorted(missing)
