"""The protocols: each one module, registered once by name (:mod:`.registry`).

- :mod:`.chat_completions`: OpenAI chat completions in every gateway dialect (the default);
- :mod:`.anthropic`: Anthropic Messages;
- :mod:`.responses`: OpenAI's Responses API;
- :mod:`.gemini`: Google's Gemini API;
- :mod:`.turns`: a conversation as no framework and no protocol spells it, which each adapter
  hands a protocol module to make a request of.

Another protocol is one more module here that calls :func:`register_protocol`; no other
protocol's code changes, and ``protocol=`` takes its name everywhere (the clients, both
adapters, :func:`sse_core.decode`). A test protocol may be registered from outside the
package the same way.
"""

# The first registered is the default protocol.
from sse_core.protocols import chat_completions

# isort: split
from sse_core.protocols import anthropic

# isort: split
from sse_core.protocols import responses

# isort: split
from sse_core.protocols import gemini
from sse_core.protocols.registry import (
    AUTH_MODES,
    BEARER,
    REGISTRY,
    BodyBuilder,
    PayloadDecoder,
    RequestShape,
    TurnsBody,
    WireProtocol,
    built_in,
    check_auth_mode,
    check_protocol,
    payload_decoder,
    plain_body,
    protocol_names,
    register_protocol,
    request_shape,
    unregister_protocol,
    wire_protocol,
)

built_in(protocol_names())

__all__ = [
    "AUTH_MODES",
    "BEARER",
    "REGISTRY",
    "BodyBuilder",
    "PayloadDecoder",
    "RequestShape",
    "TurnsBody",
    "WireProtocol",
    "anthropic",
    "chat_completions",
    "check_auth_mode",
    "check_protocol",
    "gemini",
    "payload_decoder",
    "plain_body",
    "protocol_names",
    "register_protocol",
    "request_shape",
    "responses",
    "unregister_protocol",
    "wire_protocol",
]
