"""One choice per request: ``n`` other than 1 is refused before anything is sent.

A streamed request with ``n > 1`` interleaves several answers in one body. ChatSSE and SSELLM
show one message, and :class:`~sse_core.Completion`'s properties read one choice, so the
other answers would be generated, paid for, and lost without a word. Refusing ``n`` names
the setting and where it was found instead. (A body that holds several choices anyway, from
a gateway that adds them itself, still decodes: each choice apart in ``Completion.choices``;
the adapters follow the first one that arrives and never mix another into it.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_core.errors import ConfigurationError

__all__ = ["check_choices", "refuse_choices"]

#: Where the core finds a request's parameters, for the message.
_IN_PAYLOAD = (
    "the request payload (ChatSSE: model_kwargs or a call keyword argument; SSELLM: "
    "additional_kwargs or a call keyword argument)"
)


def refuse_choices(parameters: Mapping[str, Any] | None, where: str) -> None:
    """Refuse ``n`` other than 1 (or None) in ``parameters``, found in ``where``.

    Raises:
        ConfigurationError: ``n`` asks for several choices, or is no positive integer.
    """
    if not parameters or "n" not in parameters:
        return
    value = parameters["n"]
    if value is None or (type(value) is int and value == 1):
        return
    asks = (
        f"asks for {value} choices per request" if type(value) is int and value > 1 else "is not 1"
    )
    raise ConfigurationError(
        f"n={value!r} in {where} {asks}, but sse-connectors asks for one choice per request "
        "and shows one answer (the others would be generated and lost): remove n, or send "
        "one request per answer you want"
    )


def check_choices(payload: Mapping[str, Any], extra_body: Mapping[str, Any] | None) -> None:
    """:func:`refuse_choices` for a request body about to be built from the caller's
    payload and the client's ``extra_body`` (which wins where both set ``n``).

    Raises:
        ConfigurationError: Either one sets ``n`` other than 1.
    """
    if extra_body and "n" in extra_body:  # merged over the payload: its n is the one sent
        refuse_choices(extra_body, "extra_body")
    else:
        refuse_choices(payload, _IN_PAYLOAD)
