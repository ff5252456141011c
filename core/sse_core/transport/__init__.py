"""The transport: one request to a stream of StreamEvents over httpx or httpx2, sync and async.

- :mod:`.packages`: the HTTP client packages (httpx, httpx2): a client's types and errors;
- :mod:`.urls`: the request URL, checked, joined, and shown without credentials;
- :mod:`.config`: :class:`ClientConfig`, checked once;
- :mod:`.timeouts`: :class:`Timeouts`, by phase of a request;
- :mod:`.retry`: the pure retry policy;
- :mod:`.http`: request building, status to error (an error body read), the one mapping of
  httpx and httpx2 errors;
- :mod:`.client`: :class:`ChatClient` / :class:`AsyncChatClient` (open, retry);
- :mod:`.keepalive`: the end of a body read when it is here, so the connection is reused;
- :mod:`.streams`: :class:`ChatStream` / :class:`AsyncChatStream` (read);
- :mod:`.closing`: a stream's response closed on every exit, its generators unwound;
- :mod:`.pool`: :class:`ClientPool`, the clients of one adapter model;
- :mod:`.recording`: :class:`RecordingTransport`, each call recorded for the emulator's replay
  (:mod:`.recording_masks`: what of it may be written).
"""
