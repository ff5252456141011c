"""What the agent tests of every protocol share: the tools, a bounded run that collects the
tool results and the streamed steps, and the structured-output class and prompt."""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.agent.workflow import AgentStream, ToolCallResult
from llama_index.core.prompts import PromptTemplate
from llama_index.core.workflow.handler import WorkflowHandler
from pydantic import BaseModel

#: The longest an agent's run may take in a test.
RUN_LIMIT = 30.0


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny and 21 C in {city}"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def run(handler: WorkflowHandler) -> tuple[Any, list[ToolCallResult], list[AgentStream]]:
    """The run's result, its tool results and its streamed steps (within :data:`RUN_LIMIT`)."""
    results: list[ToolCallResult] = []
    streamed: list[AgentStream] = []

    async def drain() -> Any:
        async for event in handler.stream_events():
            if isinstance(event, ToolCallResult):
                results.append(event)
            elif isinstance(event, AgentStream):
                streamed.append(event)
        return await handler

    return await asyncio.wait_for(drain(), RUN_LIMIT), results, streamed


class Person(BaseModel):
    """A person."""

    name: str
    age: int


PERSON = PromptTemplate("Describe the person Alice Smith, who is 30 years old.")
