"""ChatSSE as a configured object: construction knobs, secrets, the request it sends.
(The request both adapters send alike, headers, usage and transport failures:
tests/adapters/test_request.py.)"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.load import dumpd
from langchain_core.messages import HumanMessage

from langchain_sse import ChatSSE
from sse_emulator import Emulator
from tests.langchain.lc_support import ModelFactory, chunk, sse_body

KEY = "sk-very-secret-key-1234"


def sent(emulator: Emulator) -> dict[str, Any]:
    record = emulator.last_request
    assert record is not None
    data = record.json()
    assert isinstance(data, dict)
    return data


def test_model_is_an_alias_of_model_name() -> None:
    by_alias = ChatSSE(model="a", base_url="http://h/v1")
    by_name = ChatSSE(model_name="b", base_url="http://h/v1")  # type: ignore[call-arg]
    assert (by_alias.model_name, by_name.model_name) == ("a", "b")


def test_no_secret_in_params_repr_or_serialized_forms() -> None:
    model = ChatSSE(
        model="m",
        base_url="https://gw.test/v1?key=q",  # user info and api_key: refused together
        api_key=KEY,
        default_headers={"api-key": "hdr-secret"},
        extra_body={"token": "body-secret"},
    )
    views = [
        model._identifying_params,
        model._get_ls_params(),
        model._get_invocation_params(),
        repr(model),
        str(model),
        dumpd(model),  # what tracers receive as the model's serialized form
    ]
    for view in views:
        text = json.dumps(view, default=str) if not isinstance(view, str) else view
        for secret in (KEY, "hdr-secret", "body-secret", "pass", "key=q"):
            assert secret not in text, (secret, view)
    assert model._identifying_params["base_url"] == "https://gw.test/v1"
    assert KEY not in model.model_dump_json()  # the config dump masks the key too


def test_langsmith_params(make_model: ModelFactory) -> None:
    model = make_model(temperature=0.3, max_tokens=9, stop=["END"])
    assert model._get_ls_params() == {
        "ls_provider": "sse",
        "ls_model_name": "emulator",
        "ls_model_type": "chat",
        "ls_temperature": 0.3,
        "ls_max_tokens": 9,
        "ls_stop": ["END"],
    }
    assert model._get_ls_params(model="other")["ls_model_name"] == "other"


def test_request_fields(make_model: ModelFactory, emulator: Emulator) -> None:
    model = make_model(
        temperature=0.2,
        max_tokens=50,
        stop=["STOP"],
        reasoning_effort="low",
        model_kwargs={"top_p": 0.9, "seed": 7},
        extra_body={"chat_template_kwargs": {"enable_thinking": False}},
    )
    model.invoke("hi", temperature=0.5, model="emulator-think")
    body = sent(emulator)
    assert body["model"] == "emulator-think"
    assert body["temperature"] == 0.5  # call kwargs win
    assert (body["max_tokens"], body["stop"], body["reasoning_effort"]) == (50, ["STOP"], "low")
    assert (body["top_p"], body["seed"]) == (0.9, 7)
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    model.invoke("hi", stop=["X"])
    assert sent(emulator)["stop"] == ["X"]


def test_disabled_params(make_model: ModelFactory, emulator: Emulator) -> None:
    def f(x: int) -> int:
        """F."""
        return x

    model = make_model(disabled_params={"parallel_tool_calls": None, "tool_choice": ["required"]})
    model.bind_tools([f], tool_choice="any", parallel_tool_calls=False).invoke("hi")
    assert not {"parallel_tool_calls", "tool_choice"} & set(sent(emulator))
    model.bind_tools([f], tool_choice="auto").invoke("hi")
    assert sent(emulator)["tool_choice"] == "auto"


def test_reasoning_passback_in_a_thinking_tool_loop(
    make_model: ModelFactory, emulator: Emulator
) -> None:
    def get_weather(city: str) -> str:
        """Get the weather for a city."""
        return city

    model = make_model("shroud", reasoning_passback=True, model_kwargs={
        "chat_template_kwargs": {"enable_thinking": True}}).bind_tools([get_weather])  # fmt: skip
    question = HumanMessage("weather in Oslo")
    call = model.invoke([question])
    assert call.additional_kwargs["reasoning_content"]
    model.invoke([question, call, {"role": "tool", "content": "cold", "tool_call_id":
                                   call.tool_calls[0]["id"]}])  # fmt: skip
    assistant = sent(emulator)["messages"][1]
    assert assistant["reasoning_content"] == call.additional_kwargs["reasoning_content"]


def test_llm_output_for_legacy_generate(make_model: ModelFactory) -> None:
    result = make_model().generate([[HumanMessage("echo: a")], [HumanMessage("echo: b c")]])
    assert result.llm_output is not None
    assert result.llm_output["model_name"] == "emulator"
    assert result.llm_output["system_fingerprint"] == "fp_emulator"
    usages = [g[0].message.usage_metadata for g in result.generations]  # type: ignore[attr-defined]
    assert result.llm_output["token_usage"]["total_tokens"] == sum(
        u["total_tokens"] for u in usages
    )


def test_batch_and_abatch(make_model: ModelFactory) -> None:
    model = make_model()
    assert [m.content for m in model.batch(["echo: a", "echo: b"])] == ["a", "b"]
    answers = asyncio.run(model.abatch(["echo: c", "echo: d"]))
    assert [m.content for m in answers] == ["c", "d"]


async def test_astream_events_v2(make_model: ModelFactory) -> None:
    events = [e async for e in make_model().astream_events("count to 3", version="v2")]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "on_chat_model_start"
    assert kinds[-1] == "on_chat_model_end"
    streamed = [e["data"]["chunk"].content for e in events if e["event"] == "on_chat_model_stream"]
    assert "".join(streamed) == "1 2 3"
    assert events[-1]["data"]["output"].usage_metadata["output_tokens"] == 3


def test_coalescing_merges_frames_read_together(mock_model: Any) -> None:
    body = sse_body(*[chunk({"content": f"{n} "}) for n in range(20)], chunk(finish_reason="stop"))
    plain, _ = mock_model(body)
    merged, _ = mock_model(body, coalesce=True)
    one, other = list(plain.stream("x")), list(merged.stream("x"))
    assert len(one) == 21  # a chunk per frame, and the final chunk
    assert len(other) == 2  # MockTransport hands the whole body over in one read
    assert (one[0] + one[1:]).content == (other[0] + other[1:]).content


async def test_coalescing_adds_no_latency(make_model: ModelFactory) -> None:
    model = make_model(coalesce=True, default_headers={"X-Emulator-Fault": "slow; delay=0.15"})
    loop = asyncio.get_running_loop()
    start = loop.time()
    arrivals = []
    async for piece in model.astream("count to 4"):
        arrivals.append((loop.time() - start, piece.content))
    texts = [text for _, text in arrivals if text]
    assert texts == ["1", " 2", " 3", " 4"]  # events a pause apart are not held back
    # The first piece came long before the last (three of the server's 0.15 s pauses apart):
    # held back, they would arrive together. (Measured between pieces, not from the start,
    # so that a slow start on a loaded machine cannot fail it.)
    times = [at for at, text in arrivals if text]
    assert times[-1] - times[0] > 0.3


def test_the_whole_request_is_json(mock_model: Any) -> None:
    model, recorder = mock_model(headers={"x-request-id": "r-1"})
    message = model.invoke("x")
    assert recorder.requests[0].headers["content-type"] == "application/json"
    assert message.response_metadata["headers"] == {"x-request-id": "r-1"}
    assert message.id is not None and message.id.startswith("lc_run-")


def test_invocation_params_are_the_base_classes_and_honour_a_dict_override() -> None:
    model = ChatSSE(model="m", base_url="http://gw.test/v1", api_key=KEY, temperature=0.2)
    ours = model._get_invocation_params(stop=["END"], tools=[{"name": "t"}])
    assert ours == BaseChatModel._get_invocation_params(model, stop=["END"], tools=[{"name": "t"}])
    assert ours["_type"] == "chat-sse" and ours["stop"] == ["END"] and ours["temperature"] == 0.2

    class Custom(ChatSSE):
        def dict(self, **kwargs: Any) -> dict[str, Any]:
            return {**super().asdict(), "custom": True}

    custom = Custom(model="m", base_url="http://gw.test/v1", api_key=KEY)
    assert custom._get_invocation_params(stop=None)["custom"] is True
