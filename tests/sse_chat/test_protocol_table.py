"""The app looks a protocol up; it does not branch on its name (as the adapters, DESIGN
"Protocols"; tests/test_protocol_seam.py).

``sse_chat/protocols.py`` is the app's one table from a protocol to what ``sse-chat`` does in
it; the probe keeps its plans (``probe/steps.py``) and reports (``probe/command.py``) in two
tables of its own. No other module of the app names a protocol in its code, and every table
covers every protocol the core registers, in the core's order (the default first)."""

from __future__ import annotations

from pathlib import Path

from sse_chat.options import PROTOCOL_NAMES
from sse_chat.probe.command import REPORTS
from sse_chat.probe.steps import PLANS
from sse_chat.protocols import PROTOCOLS
from sse_core import protocol_names
from tests.test_protocol_seam import protocol_names_in

ROOT = Path(__file__).parents[2]
TABLES = {"sse_chat/protocols.py", "sse_chat/probe/steps.py", "sse_chat/probe/command.py"}


def test_no_module_of_the_app_but_its_tables_names_a_protocol() -> None:
    names = set(protocol_names())
    found = {
        name: lines
        for path in sorted((ROOT / "sse_chat").rglob("*.py"))
        if (name := str(path.relative_to(ROOT))) not in TABLES
        and (lines := protocol_names_in(path.read_text(encoding="utf-8"), names))
    }
    assert not found, f"a protocol's name outside the app's tables: {found}"


def test_every_table_covers_every_protocol_the_core_registers() -> None:
    registered = list(protocol_names())
    assert list(PROTOCOLS) == list(PROTOCOL_NAMES) == registered
    assert list(PLANS) == list(REPORTS) == registered


def test_each_protocol_names_the_emulator_dialect_that_speaks_it() -> None:
    from sse_emulator.wire.dialects import ALL_DIALECTS

    for entry in PROTOCOLS.values():
        assert ALL_DIALECTS[entry.dialect].protocol == entry.name
