"""The embedded gateway emulator: a deterministic OpenAI-compatible server on loopback.

It speaks six chat-completions dialects (plain OpenAI and the five seed gateways),
Anthropic's Messages API (``anthropic``, at ``/v1/messages``), OpenAI's Responses API
(``responses``, at ``/v1/responses``) and Google's Gemini API (``gemini``, at
``/v1beta/models/{model}:streamGenerateContent``), answers with a rule-based assistant,
injects wire faults on request (``X-Emulator-Fault``) and records every request, including
a client's early disconnect. It writes its wire bytes
with code of its own and never imports the decoder, so a bug cannot hide in both.

Start it with ``python -m sse_emulator --port N``, ``with Emulator() as emu:``,
``Emulator().start()`` in a notebook, or the ``emulator`` pytest fixture of
:mod:`sse_emulator.pytest_plugin`. ``docs/emulator.md`` describes it all.
"""

from sse_emulator.server.app import EmulatorApp
from sse_emulator.server.background import Emulator
from sse_emulator.server.foreground import serve
from sse_emulator.server.record import RequestRecord
from sse_emulator.server.state import EmulatorState
from sse_emulator.wire.dialects import DIALECTS
from sse_emulator.wire.faults import CATALOG as FAULTS
from sse_emulator.wire.faults import FAULT_HEADER

__all__ = [
    "DIALECTS",
    "FAULTS",
    "FAULT_HEADER",
    "Emulator",
    "EmulatorApp",
    "EmulatorState",
    "RequestRecord",
    "serve",
]
