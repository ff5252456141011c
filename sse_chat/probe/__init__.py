"""``sse-chat probe``: characterize a gateway with a handful of small, recorded requests.

:mod:`.steps` sends them through ``sse_core``'s ``ChatClient``, each recorded by
``RecordingTransport``; :mod:`.analyse` reads the recorded bodies back with ``SSEParser``
(pure: no wire parsing of its own); :mod:`.report` says what was found and recommends
``ChatSSE`` and ``SSELLM`` settings; :mod:`.command` is the subcommand.
"""
