"""A canary key and a canary header value appear nowhere either adapter puts text.

The model is built with a canary API key (with and without a trailing newline, which must be
stripped and still work) and a canary value in ``default_headers`` under a name that is not a
well-known credential header. The gateway is hostile on purpose: it answers, or fails with an
HTTP 401 whose body and headers echo both, or fails inside the stream with an error frame or
a named error event echoing both; every call made the four ways, DEBUG logging of httpx,
httpcore and sse_core attached. Then every place text could land is searched: the model's
reprs, dumps and pickle, its resolved configuration, the answers, the error with its
attributes, pickle, traceback and ``__cause__``/``__context__`` chain, its partial answer in
the adapter's form, and the logs. (What each framework's observers see: callbacks, tracers
and debug output in tests/langchain/test_secrets_in_callbacks.py; instrumentation events,
spans and callback handlers in tests/llamaindex/test_secrets_in_instrumentation.py.)
"""

from __future__ import annotations

import json
import logging
import pickle
import traceback
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from sse_core import ConfigurationError
from sse_emulator import Emulator
from tests.adapters.conftest import HOWS, Driver

CANARY = "sk-canary-7f3a9c1e5b2d4806"
HEADER_CANARY = "hc-canary-0a1b2c3d4e5f6789"
SECRETS = (CANARY, HEADER_CANARY)
HEADER = "X-Tenant-Secret"  # not a well-known credential name: every default header is secret
ECHO = f"key {CANARY} with header {HEADER_CANARY}"
SSE = {"content-type": "text/event-stream"}
#: prompt -> the adapter's error class name (None: the answer ends well)
PROMPTS = {"hello": None, "401": "AuthenticationError", "error-frame": "GatewayStreamError",
           "event-error": "GatewayStreamError"}  # fmt: skip


def _chunk(content: str | None = None, finish: str | None = None) -> str:
    delta = {} if content is None else {"content": content}
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    payload = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m",
               "choices": [choice]}  # fmt: skip
    return f"data: {json.dumps(payload)}\n\n"


def _answer(prompt: str) -> httpx.Response:
    start = _chunk("partial ")
    if prompt == "401":
        body = {"error": {"message": f"invalid {ECHO}", "type": CANARY, "code": HEADER_CANARY}}
        return httpx.Response(401, json=body, headers={"x-echo": ECHO})
    if prompt == "error-frame":
        frame = {"error": {"message": f"upstream refused {ECHO}", "type": ECHO, "code": CANARY,
                           "metadata": {"raw": HEADER_CANARY}}}  # fmt: skip
        return httpx.Response(200, headers=SSE, content=f"{start}data: {json.dumps(frame)}\n\n")
    if prompt == "event-error":
        event = f"event: error\ndata: {json.dumps({'error': {'message': ECHO}})}\n\n"
        return httpx.Response(200, headers=SSE, content=start + event)
    end = _chunk(finish="stop") + "data: [DONE]\n\n"
    return httpx.Response(200, headers=SSE, content=start + end)


def _gateway(request: httpx.Request) -> httpx.Response:
    """Answers by the prompt; first checks the credentials arrived as sent (key stripped)."""
    assert request.headers["authorization"] == f"Bearer {CANARY}"
    assert request.headers[HEADER] == HEADER_CANARY
    return _answer(json.loads(request.content)["messages"][-1]["content"])


def _model(driver: Driver, key: str) -> Any:
    transport = httpx.MockTransport(_gateway)
    return driver.make(
        base_url="http://gw.test/v1",
        api_key=key,
        default_headers={HEADER: HEADER_CANARY},
        max_retries=0,
        http_client=httpx.Client(transport=transport),
        http_async_client=httpx.AsyncClient(transport=transport),
    )


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _describe(driver: Driver, error: BaseException) -> dict[str, str]:
    """Every text an error shows or carries, down its chain, by where it is."""
    found = {"traceback": "".join(traceback.format_exception(error))}
    for depth, link in enumerate(_chain(error)):
        found[f"error {depth} str/repr"] = f"{link!s} {link!r} {link.args!r}"
        for name, value in vars(link).items():
            found[f"error {depth} attribute {name}"] = repr(value)
        try:
            found[f"error {depth} pickle"] = repr(pickle.dumps(link))
        except Exception as exc:  # an unpicklable link is no leak, but say which
            found[f"error {depth} pickle"] = f"unpicklable: {exc!r}"
        if hasattr(link, "partial"):
            found[f"error {depth} partial"] = repr(link.partial)
    if hasattr(error, "partial"):
        found["partial answer, the adapter's form"] = driver.partial_view(error)
    return found


def _views_of(driver: Driver, model: Any) -> dict[str, str]:
    return {
        "repr": repr(model),
        "str": str(model),
        "model_dump": repr(model.model_dump()),
        "model_dump_json": model.model_dump_json(),
        "pickle": repr(pickle.dumps(model)),
        "client config": repr(driver.config(model)),
    }


def _logs(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(
        f"{record.name} {record.getMessage()} {record.args!r} {record.exc_text or ''}"
        for record in caplog.records
        if not record.name.startswith(("sse_emulator", "uvicorn"))  # the server's own
    )


def _assert_nowhere(texts: dict[str, str]) -> None:
    leaks = [
        (where, secret) for where, text in texts.items() for secret in SECRETS if secret in text
    ]
    assert not leaks, f"secrets found in: {leaks}"


async def _watched(
    driver: Driver, model: Any, how: str, prompt: str, caplog: pytest.LogCaptureFixture
) -> tuple[BaseException | None, dict[str, str]]:
    """One call with DEBUG logging on; the error (if any) and everything observed."""
    for name in ("httpx", "httpcore", "httpx2", "httpcore2", "sse_core"):
        caplog.set_level(logging.DEBUG, logger=name)
    texts: list[str] = []
    error: BaseException | None = None
    try:
        await driver.call(model, how, prompt, texts)
    except Exception as exc:
        error = exc
    observed = {"answer": repr(texts), "logs": _logs(caplog), **_views_of(driver, model)}
    if error is not None:
        observed.update(_describe(driver, error))
    return error, observed


@pytest.mark.parametrize("key", [CANARY, CANARY + "\n"], ids=["key", "key-with-newline"])
@pytest.mark.parametrize("prompt", sorted(PROMPTS))
@pytest.mark.parametrize("how", HOWS)
async def test_no_secret_leaks_from_an_answer_or_a_failure_echoing_them(
    driver: Driver, how: str, prompt: str, key: str, caplog: pytest.LogCaptureFixture
) -> None:
    error, observed = await _watched(driver, _model(driver, key), how, prompt, caplog)
    expected = PROMPTS[prompt]
    if expected is None:
        assert error is None, repr(error)
        assert "partial " in observed["answer"]
    else:
        assert type(error) is driver.error(expected), repr(error)
    assert "HTTP Request: POST" in observed["logs"]  # the DEBUG logs were captured
    _assert_nowhere(observed)


@pytest.mark.parametrize("fault", ["", "unauthorized", "error-frame; after=2"])
@pytest.mark.parametrize("how", HOWS)
async def test_over_real_http_no_secret_reaches_the_logs(
    driver: Driver, emulator: Emulator, how: str, fault: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The same over a socket (httpx and httpcore log the connection and each request)."""
    headers = {HEADER: HEADER_CANARY, **({"X-Emulator-Fault": fault} if fault else {})}
    model = driver.make(model="emulator", base_url=emulator.base_url(), api_key=CANARY + "\n",
                        default_headers=headers, max_retries=0, timeout=10.0)  # fmt: skip
    error, observed = await _watched(driver, model, how, "count to 3", caplog)
    assert (error is None) == (not fault)
    assert "send_request_headers" in observed["logs"]  # httpcore's DEBUG lines were captured
    _assert_nowhere(observed)


def test_a_validation_error_does_not_quote_the_settings(driver: Driver) -> None:
    """A value of the wrong type for any field is the core's ConfigurationError (pydantic's
    error recast: one kind for every setting), without the input."""
    short = "c4n4ry0a1b2c"  # pydantic cuts long inputs in the middle
    for fields in ({"model": None}, {"temperature": "hot"}):
        with pytest.raises(ConfigurationError) as caught:
            driver.make(base_url="http://gw.test/v1", api_key=CANARY,
                        default_headers={HEADER: short}, **fields)  # fmt: skip
        for text in (str(caught.value), repr(caught.value)):
            assert short not in text and CANARY not in text, text
