"""The adapter conformance suite: what ChatSSE and SSELLM promise alike, tested once through a
driver per adapter.

A test takes the ``driver`` fixture (parametrized over both adapters) and speaks to the model
only through it: ``driver.make(**fields)`` builds a model (field names as ChatSSE spells them;
the driver maps the few SSELLM spells otherwise), ``driver.ask``/``aask`` make one call and give
its text, ``driver.stream``/``astream`` give the streamed texts, ``driver.call(model, how)`` any
of the four (``HOWS``), ``driver.error(name)`` the class the adapter raises for a core error.

The protocol axis: a test that also takes ``protocol`` runs for each adapter x protocol
(``PROTOCOLS``; a test that applies to fewer parametrizes ``protocol`` itself), builds its model
with ``on_protocol(**fields)`` (or ``driver.make(protocol=...)``) and reads an answer with
``driver.answer(model, how, prompt)``: an ``Answer`` (tests/adapters/answers.py), what the
answer shows in terms both adapters share (text, reasoning with its signed blocks, tool calls,
cut tool input, usage, stop reason and sequence, citations, gateway events), each read where
that adapter's users read it. A prompt is a text or a conversation (``driver.messages``:
neutral turns, or an adapter's own answer passed back). What only one framework has stays in
``tests/langchain`` and ``tests/llamaindex``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator, Sequence
from typing import Any, ClassVar
from uuid import UUID

import pytest
from langchain_core import exceptions as lc
from langchain_core.callbacks import BaseCallbackHandler
from llama_index.core.base.llms.types import (
    ChatResponse,
)
from llama_index.core.llms import ChatMessage
from llama_index.core.tools import FunctionTool

import langchain_sse
import llamaindex_sse
from langchain_sse import ChatSSE
from llamaindex_sse import SSELLM, SSEGatewayEvent
from sse_core import ChatClient, ClientConfig
from sse_emulator import Emulator
from tests.adapters.answers import (
    Answer,
    langchain_answer,
    langchain_message,
    llamaindex_answer,
    llamaindex_message,
    run_how,
)
from tests.llamaindex.li_support import collect_events

#: The four ways to call a model: one answer or a stream, sync or async.
HOWS = ("ask", "aask", "stream", "astream")
#: The protocols both adapters speak (a test of fewer parametrizes ``protocol`` itself).
PROTOCOLS = ("chat_completions", "anthropic", "responses", "gemini")
#: The emulator's dialect that speaks each protocol.
DIALECTS = {
    "chat_completions": "openai",
    "anthropic": "anthropic",
    "responses": "responses",
    "gemini": "gemini",
}


class Driver:
    """One adapter's model, built and called the way its users do."""

    name: ClassVar[str]
    #: ChatSSE's field names that this adapter spells otherwise.
    renamed: ClassVar[dict[str, str]] = {}

    def make(self, **fields: Any) -> Any:
        """A model with ``fields`` (``model`` defaults to ``"m"``)."""
        fields.setdefault("model", "m")
        return self.cls(**{self.renamed.get(k, k): v for k, v in fields.items()})

    @property
    def cls(self) -> type[Any]:
        raise NotImplementedError

    def ask(self, model: Any, text: str = "hi", **kwargs: Any) -> str:
        """One sync call's answer text (``kwargs``: the call's keyword arguments)."""
        raise NotImplementedError

    async def aask(self, model: Any, text: str = "hi", **kwargs: Any) -> str:
        """One async call's answer text."""
        raise NotImplementedError

    def stream(self, model: Any, text: str = "hi") -> Iterator[str]:
        """The texts a sync stream gives, as they come."""
        raise NotImplementedError

    async def astream(self, model: Any, text: str = "hi") -> list[str]:
        """The texts an async stream gives."""
        return [piece async for piece in self.aiter(model, text)]

    def aiter(self, model: Any, text: str = "hi") -> AsyncIterator[str]:
        """The texts an async stream gives, as they come."""
        raise NotImplementedError

    def open_stream(self, model: Any, text: str = "hi") -> Generator[Any, None, None]:
        """The framework's own sync stream object (a generator: ``close()`` ends it)."""
        raise NotImplementedError

    async def open_astream(self, model: Any, text: str = "hi") -> AsyncGenerator[Any, None]:
        """The framework's own async stream object (``aclose()`` ends it)."""
        raise NotImplementedError

    async def call(
        self, model: Any, how: str, text: str = "hi", into: list[str] | None = None
    ) -> list[str]:
        """The texts of one call made ``how`` (one of ``HOWS``), each also appended to
        ``into`` as it arrives (what a caller had when the call raised)."""
        texts = [] if into is None else into
        if how == "ask":
            texts.append(self.ask(model, text))
        elif how == "aask":
            texts.append(await self.aask(model, text))
        elif how == "stream":
            texts.extend(self.stream(model, text))
        else:
            async for piece in self.aiter(model, text):
                texts.append(piece)
        return texts

    def config(self, model: Any) -> ClientConfig:
        """The core's configuration the model resolved."""
        raise NotImplementedError

    def sync_client(self, model: Any) -> ChatClient:
        """The core client a sync call of ``model`` uses."""
        raise NotImplementedError

    async def gateway_events(
        self, model: Any, how: str, text: str = "hi"
    ) -> tuple[list[str], list[str], bool]:
        """One call made ``how`` with the framework's observer of gateway events attached
        (LangChain: a callback handler's custom events; LlamaIndex: SSEGatewayEvent
        instrumentation events): the texts, the names of the events the observer got in
        order, and whether all were filed under the call's own run or span."""
        raise NotImplementedError

    async def tool_calls(
        self, model: Any, tool: Callable[..., Any], text: str, sync: bool
    ) -> list[tuple[str, dict[str, Any]]]:
        """One answer with ``tool`` offered the framework's way (LangChain: ``bind_tools``;
        LlamaIndex: ``chat_with_tools`` with parallel calls allowed): the tool calls it
        asks for, as (name, arguments)."""
        raise NotImplementedError

    def partial(self, error: BaseException) -> str:
        """The text of the partial answer a stream error carries, as the adapter shows it."""
        raise NotImplementedError

    def partial_view(self, error: BaseException) -> str:
        """Everything the adapter's own form of a stream error's partial answer shows."""
        raise NotImplementedError

    def messages(self, prompt: str | Sequence[Any]) -> list[Any]:
        """The framework's messages of ``prompt``: a text (one user turn) or turns, each a
        text (a user turn), an answer's ``native`` message, or a neutral turn: a dict with
        ``role`` and, by role, ``text``; a system turn's ``cache`` (its cache_control);
        ``images`` ((mime, base64) or a URL); ``thinking`` (Anthropic's thinking /
        redacted_thinking blocks) and ``calls`` ((id, name, args)); ``id``, ``text`` and
        ``error`` of a tool result."""
        turns = [prompt] if isinstance(prompt, str) else list(prompt)
        return [self.message(turn) for turn in turns]

    def message(self, turn: Any) -> Any:
        """One framework message of a turn (see ``messages``)."""
        raise NotImplementedError

    def answer(
        self,
        model: Any,
        how: str,
        prompt: str | Sequence[Any] = "hi",
        tools: Sequence[Callable[..., Any]] = (),
        **offer: Any,
    ) -> Answer:
        """One answer to ``prompt`` read ``how`` (one of ``HOWS``), with ``tools`` offered the
        framework's way (``offer``: ``tool_choice``, ``parallel`` as ChatSSE's
        ``parallel_tool_calls`` / SSELLM's ``allow_parallel_tool_calls``)."""
        raise NotImplementedError

    def partial_answer(self, model: Any, error: BaseException) -> Answer:
        """The partial answer a stream error carries, read as ``answer`` reads one."""
        raise NotImplementedError

    def error(self, name: str) -> type[BaseException]:
        """The class this adapter raises for the core's error ``name``."""
        return getattr(self.errors, name)  # type: ignore[no-any-return]

    #: The framework's own exception class each core error also is, where it has one.
    framework_errors: ClassVar[dict[str, type[BaseException]]] = {}

    def framework_error(self, name: str) -> type[BaseException]:
        """The framework's class the error ``name`` is caught as (``BaseException`` where the
        framework has no error classes: LlamaIndex users catch the core's)."""
        return self.framework_errors.get(name, BaseException)

    errors: ClassVar[Any]
    #: What the constructor raises for a setting of the wrong type.


class _CustomEvents(BaseCallbackHandler):
    """Keeps the run ids of chat-model starts and the custom events with their runs."""

    def __init__(self) -> None:
        self.starts: list[UUID] = []
        self.custom: list[tuple[str, UUID]] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID,
                            **kwargs: Any) -> None:  # fmt: skip
        self.starts.append(run_id)

    def on_custom_event(self, name: str, data: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.custom.append((name, run_id))


class LangChainDriver(Driver):
    name = "ChatSSE"
    errors = langchain_sse
    framework_errors: ClassVar[dict[str, type[BaseException]]] = {
        "RateLimitError": lc.ModelRateLimitError,
        "ServerError": lc.ModelAPIError,
        "AuthenticationError": lc.ModelAuthenticationError,
        "GatewayStreamError": lc.ModelAPIError,
        "IncompleteStreamError": lc.ModelAPIError,
        "StreamTimeoutError": lc.ModelTimeoutError,
        "StreamProtocolError": lc.ModelAPIError,
        "GatewayConnectionError": lc.ModelConnectionError,
    }

    @property
    def cls(self) -> type[Any]:
        return ChatSSE

    def ask(self, model: Any, text: str = "hi", **kwargs: Any) -> str:
        return str(model.invoke(text, **kwargs).text)

    async def aask(self, model: Any, text: str = "hi", **kwargs: Any) -> str:
        return str((await model.ainvoke(text, **kwargs)).text)

    def stream(self, model: Any, text: str = "hi") -> Iterator[str]:
        for chunk in model.stream(text):
            yield str(chunk.text)

    async def aiter(self, model: Any, text: str = "hi") -> AsyncIterator[str]:
        async for chunk in model.astream(text):
            yield str(chunk.text)

    def open_stream(self, model: Any, text: str = "hi") -> Generator[Any, None, None]:
        return model.stream(text)  # type: ignore[no-any-return]

    async def open_astream(self, model: Any, text: str = "hi") -> AsyncGenerator[Any, None]:
        return model.astream(text)  # type: ignore[no-any-return]

    def config(self, model: Any) -> ClientConfig:
        return model._resolve_config()  # type: ignore[no-any-return]

    def sync_client(self, model: Any) -> ChatClient:
        return model._pool.sync(model._resolve_config())  # type: ignore[no-any-return]

    async def gateway_events(
        self, model: Any, how: str, text: str = "hi"
    ) -> tuple[list[str], list[str], bool]:
        seen = _CustomEvents()
        texts = await self.call(model.with_config(callbacks=[seen]), how, text)
        under = len(seen.starts) == 1 and {run for _, run in seen.custom} <= set(seen.starts)
        return texts, [name for name, _ in seen.custom], under

    async def tool_calls(
        self, model: Any, tool: Callable[..., Any], text: str, sync: bool
    ) -> list[tuple[str, dict[str, Any]]]:
        bound = model.bind_tools([tool])
        message = bound.invoke(text) if sync else await bound.ainvoke(text)
        return [(call["name"], call["args"]) for call in message.tool_calls]

    def partial(self, error: BaseException) -> str:
        return str(error.partial_message.content)  # type: ignore[attr-defined]

    def message(self, turn: Any) -> Any:
        return langchain_message(turn)

    def answer(
        self,
        model: Any,
        how: str,
        prompt: str | Sequence[Any] = "hi",
        tools: Sequence[Callable[..., Any]] = (),
        **offer: Any,
    ) -> Answer:
        if "parallel" in offer:
            offer["parallel_tool_calls"] = offer.pop("parallel")
        bound = model.bind_tools(list(tools), **offer) if tools else model
        messages = self.messages(prompt)
        refused = ""
        if how in ("ask", "aask"):
            message = run_how(how, lambda: bound.invoke(messages), lambda: bound.ainvoke(messages))
            chunks = None
        else:
            chunks = []

            async def collect() -> None:
                async for chunk in bound.astream(messages):
                    chunks.append(chunk)

            try:
                run_how(how, lambda: chunks.extend(bound.stream(messages)), collect)
            except langchain_sse.ToolArgumentsError as error:  # after the last chunk
                refused = str(error)
                message = error.partial_message
            else:
                message = chunks[0] + chunks[1:] if len(chunks) > 1 else chunks[0]
        return langchain_answer(message, chunks, refused)

    def partial_answer(self, model: Any, error: BaseException) -> Answer:
        return langchain_answer(error.partial_message, None, "")  # type: ignore[attr-defined]

    def partial_view(self, error: BaseException) -> str:
        return repr(error.partial_message)  # type: ignore[attr-defined]


def _messages(text: str) -> list[ChatMessage]:
    return [ChatMessage(role="user", content=text)]


class LlamaIndexDriver(Driver):
    name = "SSELLM"
    errors = llamaindex_sse
    renamed: ClassVar[dict[str, str]] = {
        "http_async_client": "async_http_client",
        "model_kwargs": "additional_kwargs",
        "stream_usage": "include_usage",
        "thinking": "thinking_dict",
    }

    @property
    def cls(self) -> type[Any]:
        return SSELLM

    def ask(self, model: Any, text: str = "hi", **kwargs: Any) -> str:
        return str(model.chat(_messages(text), **kwargs).message.content)

    async def aask(self, model: Any, text: str = "hi", **kwargs: Any) -> str:
        return str((await model.achat(_messages(text), **kwargs)).message.content)

    def stream(self, model: Any, text: str = "hi") -> Iterator[str]:
        for response in model.stream_chat(_messages(text)):
            yield str(response.delta or "")

    async def aiter(self, model: Any, text: str = "hi") -> AsyncIterator[str]:
        async for response in await model.astream_chat(_messages(text)):
            yield str(response.delta or "")

    def open_stream(self, model: Any, text: str = "hi") -> Generator[Any, None, None]:
        return model.stream_chat(_messages(text))  # type: ignore[no-any-return]

    async def open_astream(self, model: Any, text: str = "hi") -> AsyncGenerator[Any, None]:
        return await model.astream_chat(_messages(text))  # type: ignore[no-any-return]

    def config(self, model: Any) -> ClientConfig:
        return model._make_config()  # type: ignore[no-any-return]

    def sync_client(self, model: Any) -> ChatClient:
        return model._get_sync_client()  # type: ignore[no-any-return]

    async def gateway_events(
        self, model: Any, how: str, text: str = "hi"
    ) -> tuple[list[str], list[str], bool]:
        with collect_events() as seen:
            texts = await self.call(model, how, text)
        sent = [event for event in seen.events if isinstance(event, SSEGatewayEvent)]
        starts = seen.named("LLMChatStartEvent")
        under = len(starts) == 1 and {event.span_id for event in sent} <= {starts[0].span_id}
        return texts, [event.name for event in sent], under

    async def tool_calls(
        self, model: Any, tool: Callable[..., Any], text: str, sync: bool
    ) -> list[tuple[str, dict[str, Any]]]:
        tools = [FunctionTool.from_defaults(tool)]
        if sync:
            response = model.chat_with_tools(tools, text, allow_parallel_tool_calls=True)
        else:
            response = await model.achat_with_tools(tools, text, allow_parallel_tool_calls=True)
        calls = model.get_tool_calls_from_response(response, error_on_no_tool_call=False)
        return [(call.tool_name, call.tool_kwargs) for call in calls]

    def partial(self, error: BaseException) -> str:
        return str(error.partial_response.message.content or "")  # type: ignore[attr-defined]

    def message(self, turn: Any) -> Any:
        return llamaindex_message(turn)

    def answer(
        self,
        model: Any,
        how: str,
        prompt: str | Sequence[Any] = "hi",
        tools: Sequence[Callable[..., Any]] = (),
        **offer: Any,
    ) -> Answer:
        messages = self.messages(prompt)
        kwargs: dict[str, Any] = {"messages": messages}
        if tools:
            offer["allow_parallel_tool_calls"] = offer.pop("parallel", True)
            kwargs = model._prepare_chat_with_tools(
                [FunctionTool.from_defaults(tool) for tool in tools], chat_history=messages, **offer
            )
        with collect_events() as seen:
            if how == "ask":
                responses = [model.chat(**kwargs)]
            elif how == "stream":
                responses = list(model.stream_chat(**kwargs))
            else:

                async def later() -> list[ChatResponse]:
                    if how == "aask":
                        return [await model.achat(**kwargs)]
                    return [r async for r in await model.astream_chat(**kwargs)]

                responses = run_how(how, list, later)
        sent = [event for event in seen.events if isinstance(event, SSEGatewayEvent)]
        return llamaindex_answer(model, responses, how.endswith("stream"), sent)

    def partial_answer(self, model: Any, error: BaseException) -> Answer:
        partial = error.partial_response  # type: ignore[attr-defined]
        return llamaindex_answer(model, [partial], streamed=False)

    def partial_view(self, error: BaseException) -> str:
        return error.partial_response.model_dump_json()  # type: ignore[attr-defined,no-any-return]


DRIVERS = {driver.name: driver for driver in (LangChainDriver(), LlamaIndexDriver())}


@pytest.fixture(params=sorted(DRIVERS))
def driver(request: pytest.FixtureRequest) -> Driver:
    """Each adapter's driver in turn."""
    return DRIVERS[request.param]


@pytest.fixture
def on_emulator(driver: Driver, emulator: Emulator) -> Any:
    """``on_emulator(dialect="openai", fault=None, **fields)``: the driver's model on the
    emulator (``fault``: its X-Emulator-Fault header)."""

    def make(dialect: str = "openai", fault: str | None = None, **fields: Any) -> Any:
        params: dict[str, Any] = {
            "model": "emulator",
            "base_url": emulator.base_url(dialect),
            "api_key": "sk-emulator-test-key",
            "timeout": 10.0,
            "max_retries": 0,
        }
        if fault is not None:
            params["default_headers"] = {"X-Emulator-Fault": fault}
        params.update(fields)
        return driver.make(**params)

    return make


@pytest.fixture(params=PROTOCOLS)
def protocol(request: pytest.FixtureRequest) -> str:
    """Each protocol in turn (a test that applies to fewer parametrizes ``protocol``)."""
    return str(request.param)


@pytest.fixture
def on_protocol(driver: Driver, protocol: str, emulator: Emulator) -> Any:
    """``on_protocol(fault=None, **fields)``: the driver's model speaking ``protocol`` to the
    emulator's dialect of it (``fault``: its X-Emulator-Fault header)."""

    def make(fault: str | None = None, **fields: Any) -> Any:
        params: dict[str, Any] = {
            "model": "emulator",
            "base_url": emulator.base_url(DIALECTS[protocol]),
            "api_key": "sk-emulator-test-key",
            "protocol": protocol,
            "timeout": 10.0,
            "max_retries": 0,
        }
        if fault is not None:
            params["default_headers"] = {"X-Emulator-Fault": fault}
        return driver.make(**(params | fields))

    return make
