"""``output_version="v1"`` on ``protocol="responses"``: a streamed answer merges into the content
blocks ``invoke`` gives, one ``reasoning`` block per reasoning item with its text (summary
and raw ``reasoning_text`` parts, as ``reasoning_content`` has them), its id and the item in
``extras``. The item closes only in the last chunk, without its text (the deltas carried
it): it used to land as a second, empty reasoning block after the answer. Against the
emulator's responses dialect over loopback, sync and async."""

from __future__ import annotations

from functools import reduce
from operator import add
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk

from langchain_sse import ChatSSE
from sse_emulator import Emulator


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


def _unnumbered(blocks: list[Any]) -> list[dict[str, Any]]:
    """Blocks without their stream numbers (which only tell merging what goes together)."""
    return [{k: v for k, v in block.items() if k != "index"} for block in blocks]


CASES = {
    "summary": (None, {"effort": "high", "summary": "auto"}),
    "raw-text": ("reasoning-text", {"effort": "high"}),
    "summary-and-raw-text": ("reasoning-text", {"effort": "high", "summary": "auto"}),
}


@pytest.mark.parametrize("sync", [True, False])
@pytest.mark.parametrize("prompt", ["echo: hi there", "weather in Paris"])
@pytest.mark.parametrize("case", sorted(CASES))
async def test_merged_v1_stream_has_the_reasoning_block_of_invoke(
    emulator: Emulator, case: str, prompt: str, sync: bool
) -> None:
    fault, reasoning = CASES[case]
    model = ChatSSE(
        model="emulator",
        base_url=emulator.base_url("responses"),
        api_key="k",
        protocol="responses",
        output_version="v1",
        max_retries=0,
        model_kwargs={"reasoning": reasoning},
        default_headers={"X-Emulator-Fault": fault} if fault else {},
    ).bind_tools([get_weather])
    if sync:
        chunks = list(model.stream(prompt))
        invoked = model.invoke(prompt)
    else:
        chunks = [chunk async for chunk in model.astream(prompt)]
        invoked = await model.ainvoke(prompt)
    merged: AIMessageChunk = reduce(add, chunks)
    assert isinstance(invoked, AIMessage)
    blocks = merged.content_blocks
    (thought,) = [block for block in blocks if block["type"] == "reasoning"]
    item = thought.get("extras", {}).get("item")
    assert isinstance(item, dict) and item["encrypted_content"]
    assert thought.get("id") == item["id"]
    assert thought.get("reasoning") == merged.additional_kwargs["reasoning_content"]
    assert blocks[0] is thought  # the reasoning came first
    assert _unnumbered(blocks) == _unnumbered(invoked.content_blocks)
    assert merged.tool_calls == invoked.tool_calls
