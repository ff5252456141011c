"""Run the emulator on loopback in a background thread: the :class:`Emulator` handle.

:class:`Emulator` binds ``127.0.0.1`` itself (port 0 picks a free port, known before
the server starts), runs uvicorn in a daemon thread and stops it on exit, leaving no
thread or listening socket behind. It also reads the request record for tests.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType

from sse_emulator.replay.recording import Recording, load_recording
from sse_emulator.schemas.published import resolve_strict, warm
from sse_emulator.server.app import EmulatorApp
from sse_emulator.server.chat import ConnectionAbort
from sse_emulator.server.record import RequestRecord
from sse_emulator.server.state import EmulatorState, FinishedHook
from sse_emulator.wire.dialects import ALL_DIALECTS, DIALECTS, base_path

try:
    import uvicorn
except ModuleNotFoundError as _missing:  # a core-only install: no [emulator] extra
    raise ImportError(
        f"the gateway emulator needs uvicorn ({_missing}); "
        "install it with: pip install 'sse-connectors[emulator]'"
    ) from _missing

HOST = "127.0.0.1"
_START_TIMEOUT = 5.0
_STOP_TIMEOUT = 5.0


class _DropAborts(logging.Filter):
    """Keep the ``reset`` fault's deliberate abort out of uvicorn's error log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], ConnectionAbort))


class _DropLostWrites(logging.Filter):
    """Drop asyncio's "socket.send() raised exception." for a client that already left.

    Writes after a client hung up are expected here (cancellation tests, the reset fault);
    the record already says the client disconnected.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "socket.send() raised exception."


def _quiet_aborts() -> None:
    for name, cls in (("uvicorn.error", _DropAborts), ("asyncio", _DropLostWrites)):
        logger = logging.getLogger(name)
        if not any(isinstance(f, cls) for f in logger.filters):
            logger.addFilter(cls())


def _bind(port: int) -> socket.socket:
    """Bind and listen on ``127.0.0.1:port`` (the only address the emulator uses)."""
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY on accepted sockets only when
    # sock.proto says TCP; with proto 0 Nagle delays every second write by ~40 ms.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def _server(app: EmulatorApp) -> uvicorn.Server:
    config = uvicorn.Config(
        app,
        lifespan="off",
        http="h11",
        loop="asyncio",
        log_config=None,
        access_log=False,
        server_header=False,
        date_header=False,
        timeout_graceful_shutdown=2,
    )
    _quiet_aborts()
    return uvicorn.Server(config)


class Emulator:
    """The gateway emulator on a loopback port, run in a background thread.

    Use it as a context manager (``with Emulator() as emu:``; ``async with`` works
    too) or call :meth:`start` and :meth:`stop` yourself, e.g. in a notebook.
    """

    def __init__(
        self,
        *,
        port: int = 0,
        dialect: str = "openai",
        api_key: str | None = None,
        record_limit: int = 1000,
        replay: str | os.PathLike[str] | None = None,
        replay_timing: bool = False,
        on_finished: FinishedHook | None = None,
        strict: bool | None = None,
    ) -> None:
        """Configure (not start) an emulator.

        Args:
            port: The port on 127.0.0.1; 0 picks a free one.
            dialect: The dialect of the unprefixed ``/v1/chat/completions``.
            api_key: When set, chat requests must send ``Authorization: Bearer <key>``
                (Anthropic's ``x-api-key`` too; Gemini's ``x-goog-api-key`` or ``?key=``).
            record_limit: How many requests the record keeps.
            replay: A recording (a ``.sse`` file, or a directory of ``NNN.sse`` with
                their ``.json`` sidecars) to answer chat requests with, instead of the
                assistant.
            replay_timing: Send a replayed response at its recorded times.
            on_finished: Called on the server's thread with each request's record once
                the emulator is done with it (``--log`` prints it).
            strict: Check every request against its provider's published request type
                (openai-python's and anthropic-python's, docs/emulator.md): True requires
                those SDKs, False turns the checks off, None (the default) lets
                ``SSE_EMULATOR_STRICT`` decide (``1`` or ``0``), else checks when the SDKs
                are installed and warns that it does not when they are not.

        Raises:
            ValueError: For an unknown dialect or a replay path that is not a recording.
            ImportError: ``strict`` required and an SDK not installed.
        """
        if dialect not in DIALECTS:  # anthropic has its own path, /v1/messages
            raise ValueError(f"unknown dialect {dialect!r}; expected one of {sorted(DIALECTS)}")
        recording: Recording | None = None if replay is None else load_recording(replay)
        self.state: EmulatorState = EmulatorState(record_limit, on_finished=on_finished)
        self.app: EmulatorApp = EmulatorApp(
            self.state,
            default_dialect=dialect,
            api_key=api_key,
            replay=recording,
            replay_timing=replay_timing,
            strict=resolve_strict(strict),
        )
        self._wanted_port = port
        self._port: int | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def strict(self) -> bool:
        """Whether requests are checked against the providers' published request types."""
        return self.app.strict

    @property
    def running(self) -> bool:
        """Whether the server thread is serving."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def port(self) -> int:
        """The port the emulator listens on (after :meth:`start`)."""
        if self._port is None:
            raise RuntimeError("the emulator is not started; call start() or use 'with'")
        return self._port

    @property
    def url(self) -> str:
        """The root URL, ``http://127.0.0.1:<port>``."""
        return f"http://{HOST}:{self.port}"

    def base_url(self, dialect: str = "openai") -> str:
        """The base URL of a dialect: OpenAI-style (it carries ``/v1``), or for
        ``anthropic`` and ``gemini`` the root their clients append ``/v1/messages`` or
        ``/v1beta/models/{model}:streamGenerateContent`` to.

        Args:
            dialect: ``openai``, ``shroud``, ``streamchat``, ``spass``, ``gateway``,
                ``aivene``, ``anthropic``, ``responses`` (OpenAI's Responses API, whose
                clients append ``/responses`` to ``url + "/v1"``) or ``gemini`` (Google's
                Gemini API). (SPASS's ``/c1/chat`` is ``url + "/spass/c1/chat"``; ``url``
                itself serves ``/v1/messages`` and ``/v1beta/models/...`` too.)
        """
        return self.url + base_path(ALL_DIALECTS[dialect])

    def start(self) -> Emulator:
        """Start serving in a daemon thread and return once it accepts connections.

        Returns:
            The emulator itself, so ``emu = Emulator().start()`` works.

        Raises:
            RuntimeError: If the server did not come up within 5 seconds.
        """
        if self.running:
            return self
        if self.strict:
            warm()
        sock = _bind(self._wanted_port)
        self._port = sock.getsockname()[1]
        self.state.stopping.clear()
        server = self._server = _server(self.app)
        thread = self._thread = threading.Thread(
            target=self._run, args=(server, sock), name=f"sse-emulator-{self._port}", daemon=True
        )
        thread.start()
        deadline = time.monotonic() + _START_TIMEOUT
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the emulator did not start on {HOST}:{self._port}")
            time.sleep(0.002)
        return self

    @staticmethod
    def _run(server: uvicorn.Server, sock: socket.socket) -> None:
        try:
            asyncio.run(server.serve(sockets=[sock]))
        finally:
            sock.close()

    def stop(self) -> None:
        """Stop serving: end open streams, close connections, join the thread."""
        self.state.stopping.set()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(_STOP_TIMEOUT)
        self._server = None
        self._thread = None

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> Emulator:
        return self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def requests(self) -> list[RequestRecord]:
        """Every recorded chat request since the last reset, oldest first."""
        return self.state.recorder.records()

    @property
    def last_request(self) -> RequestRecord | None:
        """The latest recorded chat request, if any."""
        records = self.requests
        return records[-1] if records else None

    def reset(self) -> None:
        """Forget the recorded requests and the status-fault counts."""
        self.state.reset()

    def wait_for_requests(self, count: int, timeout: float = 2.0) -> list[RequestRecord]:
        """Wait until at least ``count`` requests are recorded.

        Raises:
            TimeoutError: If fewer arrived within ``timeout`` seconds.
        """
        found = self.state.recorder.wait_for(
            lambda records: records[-1] if len(records) >= count else None, timeout
        )
        if found is None:
            raise TimeoutError(f"expected {count} requests within {timeout}s, got {self.requests}")
        return self.requests

    def wait_for_disconnect(
        self, timeout: float = 2.0, *, index: int | None = None
    ) -> RequestRecord:
        """Wait until a request's client is seen leaving before its response ended.

        Args:
            timeout: Seconds to wait at most.
            index: The request's ``index``; by default the latest request.

        Returns:
            The request's record, with ``disconnected_at`` set.

        Raises:
            TimeoutError: If no such disconnect was seen within ``timeout``.
        """
        found = self.state.recorder.wait_for(_disconnected(index), timeout)
        if found is None:
            raise TimeoutError(f"no early disconnect seen within {timeout}s: {self.requests}")
        return found

    def wait_for_end(self, timeout: float = 2.0, *, index: int | None = None) -> RequestRecord:
        """Wait until a request has ended, its response written whole or its client gone (a
        client that stops reading at the stream's end can be back before the server thread
        has recorded it).

        Args:
            timeout: Seconds to wait at most.
            index: The request's ``index``; by default the latest request.

        Raises:
            TimeoutError: If it did not end within ``timeout``.
        """
        found = self.state.recorder.wait_for(_ended(index), timeout)
        if found is None:
            raise TimeoutError(f"no request ended within {timeout}s: {self.requests}")
        return found

    async def wait_for_disconnect_async(
        self, timeout: float = 2.0, *, index: int | None = None
    ) -> RequestRecord:
        """:meth:`wait_for_disconnect` for async tests: polls without blocking the loop."""
        deadline = time.monotonic() + timeout
        predicate = _disconnected(index)
        while (found := predicate(self.requests)) is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no early disconnect seen within {timeout}s")
            await asyncio.sleep(0.001)
        return found


def _ended(index: int | None) -> Callable[[list[RequestRecord]], RequestRecord | None]:
    def predicate(records: list[RequestRecord]) -> RequestRecord | None:
        chosen = [r for r in records if r.index == index] if index is not None else records[-1:]
        return next((r for r in chosen if r.finished_at is not None), None)

    return predicate


def _disconnected(index: int | None) -> Callable[[list[RequestRecord]], RequestRecord | None]:
    def predicate(records: list[RequestRecord]) -> RequestRecord | None:
        chosen = [r for r in records if r.index == index] if index is not None else records[-1:]
        return chosen[0] if chosen and chosen[0].disconnected else None

    return predicate
