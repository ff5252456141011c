"""A canary key and a canary header value appear nowhere LangChain puts text.

ChatSSE is built with a canary API key (read with its trailing newline, which must be
stripped and still work) and a canary value in ``default_headers`` under a name that is
not a well-known credential header. It answers, fails with an HTTP 401 whose body echoes
both, and fails inside the stream with error frames echoing both, sync and async, with a
callback handler recording every argument, a tracer (``collect_runs``) and LangChain's debug
output attached. Then every place LangChain puts text is searched: callback payloads, run
records, the debug output, ``dumpd``, the identifying, invocation and ``ls_*`` params and
the cache key. (What both adapters share, the model's reprs, dumps and pickles, errors with
their chains and partial answers, and the logs: tests/adapters/test_secrets.py.)
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.globals import set_debug
from langchain_core.load import dumpd
from langchain_core.runnables import RunnableConfig
from langchain_core.tracers.context import collect_runs

from langchain_sse import ChatSSE
from sse_emulator import Emulator
from tests.langchain.lc_support import TIMEOUT, chunk, sse_body

CANARY = "sk-canary-7f3a9c1e5b2d4806"
HEADER_CANARY = "hc-canary-0a1b2c3d4e5f6789"
SECRETS = (CANARY, HEADER_CANARY)
HEADER = "X-Tenant-Secret"  # not a well-known credential name: every default header is secret
ECHO = f"key {CANARY} with header {HEADER_CANARY}"


def _answer(prompt: str) -> httpx.Response:
    sse = {"content-type": "text/event-stream"}
    if prompt == "401":
        body = {"error": {"message": f"invalid {ECHO}", "type": CANARY, "code": HEADER_CANARY}}
        return httpx.Response(401, json=body)
    start = chunk({"content": "partial "})
    if prompt == "error-frame":
        frame = {"error": {"message": f"upstream refused {ECHO}", "code": CANARY,
                           "metadata": {"raw": HEADER_CANARY}}}  # fmt: skip
        return httpx.Response(200, headers=sse, content=sse_body(start, frame, done=False))
    if prompt == "event-error":
        event = f"event: error\ndata: {json.dumps({'error': {'message': ECHO}})}\n\n"
        return httpx.Response(200, headers=sse, content=sse_body(start, event, done=False))
    return httpx.Response(200, headers=sse, content=sse_body(start, chunk(finish_reason="stop")))


def _gateway(request: httpx.Request) -> httpx.Response:
    """Answers by the prompt; first checks the credentials arrived as sent (key stripped)."""
    assert request.headers["authorization"] == f"Bearer {CANARY}"
    assert request.headers[HEADER] == HEADER_CANARY
    return _answer(json.loads(request.content)["messages"][-1]["content"])


def _model(**fields: Any) -> ChatSSE:
    transport = httpx.MockTransport(_gateway)
    params: dict[str, Any] = {
        "model": "m",
        "base_url": "http://gw.test/v1",
        "api_key": CANARY + "\n",
        "default_headers": {HEADER: HEADER_CANARY},
        "max_retries": 0,
        "http_client": httpx.Client(transport=transport),
        "http_async_client": httpx.AsyncClient(transport=transport),
        **fields,
    }
    return ChatSSE(**params)


class Everything(BaseCallbackHandler):
    """Records the arguments of every callback LangChain sends, as text."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def _keep(self, kind: str, /, *args: Any, **kwargs: Any) -> None:
        self.seen.append(f"{kind} {args!r} {kwargs!r}")

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self._keep("start", *args, **kwargs)

    def on_llm_new_token(self, *args: Any, **kwargs: Any) -> None:
        self._keep("token", *args, **kwargs)

    def on_llm_end(self, *args: Any, **kwargs: Any) -> None:
        self._keep("end", *args, **kwargs)

    def on_llm_error(self, *args: Any, **kwargs: Any) -> None:
        self._keep("error", *args, **kwargs)

    def on_custom_event(self, *args: Any, **kwargs: Any) -> None:
        self._keep("custom", *args, **kwargs)

    def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
        self._keep("chain start", *args, **kwargs)

    def on_chain_end(self, *args: Any, **kwargs: Any) -> None:
        self._keep("chain end", *args, **kwargs)

    def on_chain_error(self, *args: Any, **kwargs: Any) -> None:
        self._keep("chain error", *args, **kwargs)


async def _call(
    model: ChatSSE, how: str, prompt: str, config: RunnableConfig
) -> BaseException | None:
    try:
        if how == "invoke":
            model.invoke(prompt, config)
        elif how == "ainvoke":
            await model.ainvoke(prompt, config)
        elif how == "stream":
            list(model.stream(prompt, config))
        else:
            [c async for c in model.astream(prompt, config)]
    except Exception as exc:
        return exc
    return None


def _assert_nowhere(texts: dict[str, str]) -> None:
    leaks = [
        (where, secret) for where, text in texts.items() for secret in SECRETS if secret in text
    ]
    assert not leaks, f"secrets found in: {leaks}"


def _views_of(model: ChatSSE) -> dict[str, str]:
    return {
        "dumpd": json.dumps(dumpd(model), default=repr),
        "identifying params": repr(model._identifying_params),
        "cache key": model._get_llm_string(extra_headers={HEADER: HEADER_CANARY}),
        "invocation params": repr(model._get_invocation_params()),
        "ls params": repr(model._get_ls_params()),
    }


async def _run_watched(
    model: ChatSSE, how: str, prompt: str, capsys: pytest.CaptureFixture[str]
) -> tuple[BaseException | None, dict[str, str]]:
    """One call with every LangChain observer attached; the error (if any) and everything
    observed."""
    handler = Everything()
    set_debug(True)
    try:
        with collect_runs() as runs:
            error = await _call(model, how, prompt, {"callbacks": [handler]})
    finally:
        set_debug(False)
    observed = {
        "callbacks": "\n".join(handler.seen),
        "run records": "\n".join(run.model_dump_json() for run in runs.traced_runs),
        "debug output": "".join(capsys.readouterr()),
        **_views_of(model),
    }
    return error, observed


HOWS = ("invoke", "ainvoke", "stream", "astream")


@pytest.mark.parametrize("how", HOWS)
async def test_an_answer_leaks_no_secret(how: str, capsys: pytest.CaptureFixture[str]) -> None:
    error, observed = await _run_watched(_model(), how, "hello", capsys)
    assert error is None
    assert "start" in observed["callbacks"] and observed["run records"]
    assert "[llm/start]" in observed["debug output"]  # the debug output was captured
    _assert_nowhere(observed)


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("prompt", ["401", "error-frame", "event-error"])
async def test_a_failure_echoing_the_secrets_leaks_none_of_them(
    how: str, prompt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    error, observed = await _run_watched(_model(), how, prompt, capsys)
    assert error is not None
    assert "error" in observed["callbacks"]
    _assert_nowhere(observed)


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("fault", ["", "unauthorized", "error-frame; after=2"])
async def test_over_real_http_no_secret_reaches_a_callback_or_a_trace(
    emulator: Emulator, how: str, fault: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same over a socket."""
    headers = {HEADER: HEADER_CANARY, **({"X-Emulator-Fault": fault} if fault else {})}
    model = ChatSSE(model="emulator", base_url=emulator.base_url(), api_key=CANARY + "\n",
                    default_headers=headers, max_retries=0, timeout=TIMEOUT)  # fmt: skip
    error, observed = await _run_watched(model, how, "count to 3", capsys)
    assert (error is None) == (not fault)
    if fault:
        assert "error" in observed["callbacks"]
    _assert_nowhere(observed)
