"""A Gemini answer continued on another protocol through ChatSSE: its signed parts, which only
the Gemini API verifies, are left out of the other API's request, named in one warning
("Gemini's thought signature on a ... part"), and the request is one that API accepts."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage

from langchain_sse import ChatSSE
from sse_core.protocols import protocol_names
from sse_emulator import Emulator

OTHERS = [name for name in protocol_names() if name != "gemini"]


@pytest.mark.parametrize("protocol", OTHERS)
def test_a_gemini_answers_signatures_are_named_and_left_out_elsewhere(
    emulator: Emulator, protocol: str
) -> None:
    gemini = ChatSSE(model="gemini-3-pro-preview", protocol="gemini", api_key="k",
                     base_url=emulator.base_url("gemini"), max_retries=0)  # fmt: skip
    answer = gemini.invoke("hello")
    assert answer.additional_kwargs["reasoning_blocks"]  # Gemini 3 signs its answer
    base = emulator.base_url("anthropic") if protocol == "anthropic" else emulator.base_url()
    other = ChatSSE(model="demo", protocol=protocol, api_key="k", max_retries=0, base_url=base)
    with pytest.warns(UserWarning, match="Gemini's thought signature on a text part"):
        reply = other.invoke([HumanMessage("hello"), answer, HumanMessage("and then?")])
    assert reply.text
    assert "thoughtSignature" not in json.dumps(emulator.requests[-1].json())
