"""ReAct prompts are answered in their own format: an action, then an answer from the
observation; LlamaIndex's real ReActAgent calls a real tool against the emulator."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx
from llama_index.core.agent.react.formatter import ReActChatFormatter
from llama_index.core.agent.react.output_parser import ReActOutputParser
from llama_index.core.agent.react.types import (
    ActionReasoningStep,
    ObservationReasoningStep,
    ResponseReasoningStep,
)
from llama_index.core.agent.workflow import ReActAgent
from llama_index.core.llms import ChatMessage, MessageRole
from llama_index.core.tools import BaseTool, FunctionTool

from sse_emulator import Emulator
from tests.emulator.emu_wire import CHAT, text_of

RUN_LIMIT = 30.0  # seconds: every agent run is bounded


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"Sunny and 21 C in {city}"


def convert_currency(amount: float, currency: str) -> str:
    """Turn an amount of money into another currency."""
    return f"{amount} {currency}"


def lookup(query: str) -> str:
    """Looks up the train timetable between two stations."""
    return query


TOOLS: list[BaseTool] = [
    FunctionTool.from_defaults(get_weather),
    FunctionTool.from_defaults(convert_currency),
    FunctionTool.from_defaults(lookup),
]


def messages(
    question: str,
    steps: list[Any] | None = None,
    role: MessageRole = MessageRole.USER,
) -> list[dict[str, str]]:
    """A conversation as LlamaIndex's own ReAct formatter writes it."""
    formatter = ReActChatFormatter.from_defaults(observation_role=role)
    chat = [ChatMessage(role=MessageRole.USER, content=question)]
    return [
        {"role": m.role.value, "content": str(m.content)}
        for m in formatter.format(TOOLS, chat, current_reasoning=steps or [])
    ]


def ask(client: httpx.Client, conversation: list[dict[str, str]], **fields: Any) -> str:
    body = {"model": "m", "messages": conversation, "stream": True, **fields}
    response = client.post(f"/v1{CHAT}", json=body)
    assert response.status_code == 200
    return text_of(response.content)


def parse(text: str) -> Any:
    """What LlamaIndex's own ReAct output parser makes of the answer."""
    return ReActOutputParser().parse(text)


def test_a_fitting_tool_is_called_in_the_react_format(client: httpx.Client) -> None:
    text = ask(client, messages("What is the weather in Paris?"))
    assert re.fullmatch(r"Thought: [^\n]+\nAction: get_weather\nAction Input: \{.*\}", text)
    step = parse(text)
    assert isinstance(step, ActionReasoningStep)
    assert (step.action, step.action_input) == ("get_weather", {"city": "Paris"})


def test_the_arguments_follow_the_schema_in_the_prompt(client: httpx.Client) -> None:
    step = parse(ask(client, messages("Please convert currency: 12.5 into 'EUR'")))
    assert isinstance(step, ActionReasoningStep)
    assert step.action == "convert_currency"
    assert step.action_input == {"amount": 12.5, "currency": "EUR"}


def test_a_tool_named_nowhere_is_chosen_by_its_description(client: httpx.Client) -> None:
    step = parse(ask(client, messages("Which train goes from Bern to Basel? Check the timetable")))
    assert isinstance(step, ActionReasoningStep) and step.action == "lookup"
    assert "Bern" in step.action_input["query"]


def test_after_an_observation_it_answers_from_it(client: httpx.Client) -> None:
    action = ActionReasoningStep(
        thought="I need a tool.", action="get_weather", action_input={"city": "Paris"}
    )
    seen = ObservationReasoningStep(observation="Sunny and 21 C in Paris")
    text = ask(client, messages("What is the weather in Paris?", [action, seen]))
    step = parse(text)
    assert isinstance(step, ResponseReasoningStep)
    assert text.startswith("Thought: I can answer without using any more tools.")
    assert (
        step.response == "Based on the tool results: get_weather returned Sunny and 21 C in Paris."
    )


def test_an_observation_in_a_tool_message_is_refused_as_openai_refuses_it(
    client: httpx.Client,
) -> None:
    """LlamaIndex's ``observation_role=TOOL`` sends a ``tool`` message that answers no
    ``tool_calls`` (and names none): OpenAI's API refuses it, so the emulator does: the
    published type wants its ``tool_call_id``, and C6 wants a call before it."""
    action = ActionReasoningStep(
        thought="I need a tool.", action="get_weather", action_input={"city": "Paris"}
    )
    seen = ObservationReasoningStep(observation="Sunny and 21 C in Paris")
    conversation = messages("What is the weather in Paris?", [action, seen], MessageRole.TOOL)
    body = {"model": "m", "messages": conversation, "stream": True}
    response = client.post(f"/v1{CHAT}", json=body)
    assert response.status_code == 400
    error = response.json()["error"]
    last = len(conversation) - 1
    assert error["param"] == f"messages[{last}].tool_call_id"
    assert error["message"] == f"Missing required parameter: 'messages[{last}].tool_call_id'."
    conversation[-1]["tool_call_id"] = "call_1"
    response = client.post(f"/v1{CHAT}", json=body)
    error = response.json()["error"]
    assert error["param"] == f"messages.[{last}].role"
    assert "must be a response to a preceeding message with 'tool_calls'" in error["message"]


def test_two_cities_make_two_actions_one_per_turn(client: httpx.Client) -> None:
    question = "What is the weather in Paris and Tokyo?"
    first = parse(ask(client, messages(question)))
    assert isinstance(first, ActionReasoningStep) and first.action_input == {"city": "Paris"}
    seen = ObservationReasoningStep(observation="rain")
    second = parse(ask(client, messages(question, [first, seen])))
    assert isinstance(second, ActionReasoningStep) and second.action_input == {"city": "Tokyo"}
    final = parse(ask(client, messages(question, [first, seen, second, seen])))
    assert isinstance(final, ResponseReasoningStep)
    assert final.response.count("get_weather returned rain") == 2


def test_a_question_no_tool_fits_is_answered_directly(client: httpx.Client) -> None:
    text = ask(client, messages("Hello there"))
    step = parse(text)
    assert isinstance(step, ResponseReasoningStep) and "Hello!" in step.response


def test_a_prompt_that_names_its_tools_only_in_the_action_line(client: httpx.Client) -> None:
    prompt = (
        "Answer the question using these tools.\nUse the following format:\n"
        "Thought: think\nAction: the action to take, should be one of [search, calculator]\n"
        "Action Input: the input\nObservation: the result\nFinal Answer: the answer"
    )
    conversation = [
        {"role": "system", "content": prompt},
        {"role": "user", "content": "Use the calculator for 2 + 2"},
    ]
    text = ask(client, conversation)
    assert text.splitlines()[1:] == [
        "Action: calculator",
        'Action Input: {"input":"Use the calculator for 2 + 2"}',
    ]
    conversation += [
        {"role": "assistant", "content": text},
        {"role": "user", "content": "Observation: 4"},
    ]
    assert ask(client, conversation).endswith(
        "Final Answer: Based on the tool results: calculator returned 4."
    )


def test_a_system_prompt_without_the_format_is_no_react_prompt(client: httpx.Client) -> None:
    conversation = [
        {"role": "system", "content": "Thought: be kind. Tools: get_weather."},
        {"role": "user", "content": "echo: plain"},
    ]
    assert ask(client, conversation) == "plain"


def test_the_react_answer_is_deterministic_and_streamed_in_pieces(client: httpx.Client) -> None:
    conversation = messages("What is the weather in Paris?")
    body = {"model": "m", "messages": conversation, "stream": True}
    first, second = (client.post(f"/v1{CHAT}", json=body).content for _ in range(2))
    assert first == second
    assert first.count(b'"content":') > 10
    completion = client.post(f"/v1{CHAT}", json={**body, "stream": False}).json()
    assert completion["choices"][0]["message"]["content"] == text_of(first)
    assert json.loads(text_of(first).split("Action Input: ")[1]) == {"city": "Paris"}


def test_llamaindex_react_agent_calls_the_tool_and_answers_from_it(emulator: Emulator) -> None:
    called: list[str] = []

    def weather(city: str) -> str:
        """Get the current weather for a city."""
        called.append(city)
        return f"Sunny and 21 C in {city}"

    from llamaindex_sse import SSELLM  # the adapter under test, end to end

    llm = SSELLM(model="emulator", base_url=emulator.base_url())
    agent = ReActAgent(tools=[FunctionTool.from_defaults(weather)], llm=llm)

    async def run() -> Any:
        return await asyncio.wait_for(agent.run(user_msg="What is the weather in Oslo?"), RUN_LIMIT)

    result = asyncio.run(run())
    assert called == ["Oslo"]
    answer = str(result.response.content)
    assert "Sunny and 21 C in Oslo" in answer
    assert "You said" not in answer
    assert len(emulator.requests) == 2  # the action, then the answer after the observation


LANGCHAIN_STYLE = """Answer the following questions as best you can. \
You have access to the following tools:

get_weather: Get the current weather for a city.

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [get_weather]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: What is the weather in Paris?
Thought:{scratchpad}"""


def test_a_prompt_that_keeps_question_and_scratchpad_in_one_message(
    client: httpx.Client,
) -> None:
    """A single user message holding the format, the question and the steps so far."""
    first = ask(client, [{"role": "user", "content": LANGCHAIN_STYLE.format(scratchpad="")}])
    assert first.splitlines()[1] == "Action: get_weather"
    arguments = json.loads(first.split("Action Input: ")[1])
    assert arguments == {"input": "What is the weather in Paris?"}
    pad = f"{first.split('Thought: ', 1)[1]}\nObservation: Sunny in Paris\nThought:"
    final = ask(client, [{"role": "user", "content": LANGCHAIN_STYLE.format(scratchpad=pad)}])
    assert final.endswith(
        "Final Answer: Based on the tool results: get_weather returned Sunny in Paris."
    )
