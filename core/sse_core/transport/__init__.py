"""The transport: one request to a stream of StreamEvents over httpx, sync and async.

- :mod:`.config`: :class:`ClientConfig`, checked once;
- :mod:`.timeouts`: :class:`Timeouts`, by phase of a request;
- :mod:`.retry`: the pure retry policy;
- :mod:`.http`: request building, status to error, the one mapping of httpx errors;
- :mod:`.client`: :class:`ChatClient` / :class:`AsyncChatClient` (open, retry);
- :mod:`.keepalive`: the end of a body read when it is here, so the connection is reused;
- :mod:`.streams`: :class:`ChatStream` / :class:`AsyncChatStream` (read, close);
- :mod:`.pool`: :class:`ClientPool`, the clients of one adapter model;
- :mod:`.recording`: :class:`RecordingTransport`, each call recorded for the emulator's replay.
"""
