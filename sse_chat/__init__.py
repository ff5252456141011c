"""``sse-chat``: the command-line app above the libraries.

It streams a chat through :mod:`sse_core`, LangChain's ``ChatSSE`` or LlamaIndex's
``SSELLM`` (:mod:`.chat`, :mod:`.via_langchain`, :mod:`.via_llamaindex`), renders it in a
terminal (:mod:`.render`), decodes captured bodies (:mod:`.decoding`), characterizes a
gateway (:mod:`.probe`) and runs the gateway emulator; :mod:`.cli` is the entry point,
:mod:`.options` the options the commands share, :mod:`.extras` what an extra brings. No
library package imports this one.
"""

from sse_core import __version__

__all__ = ["__version__"]
