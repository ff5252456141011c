"""Serving: the raw ASGI app, the uvicorn runners, the request record and the checks.

:mod:`.app` routes and records requests, :mod:`.chat` answers a chat request from the
assistant, :mod:`.checks` decides HTTP errors before an answer, :mod:`.responses` sends
whole responses over ASGI, :mod:`.watcher` notices a client leaving, :mod:`.record` and
:mod:`.state` keep what outlives a request, :mod:`.control` serves ``/_emulator/``.
:mod:`.background` runs uvicorn in a thread (the :class:`~.background.Emulator` handle)
and :mod:`.foreground` serves until a signal. Only :mod:`.background` imports uvicorn.
"""
