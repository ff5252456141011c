"""Sphinx configuration of the documentation site (``docs/``, Markdown through MyST).

Built strictly by ``scripts/docs`` (part of ``./scripts/test``): every warning is an error,
and every cross-reference must resolve (nitpicky). Names of other projects (httpx, pydantic,
LangChain, LlamaIndex) cannot be resolved without their inventories, which would need the
network at build time: they are left unresolved on purpose (``nitpick_ignore_regex``), and
references to this project's own names go through :mod:`sse_refs`, which finds each public
object under the name users import it by.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(DOCS / "_ext"), str(ROOT / "core"), str(ROOT)]

import importlib  # noqa: E402

import sse_core  # noqa: E402  (after the path above)

# The adapters import their frameworks lazily, on first use of a name: use each now, before
# autodoc imports anything in its own context (llama-index-core's models fail to build
# there), so the reference documents the objects as users get them.
for _package in ("sse_core", "sse_emulator", "langchain_sse", "llamaindex_sse"):
    _module = importlib.import_module(_package)
    for _name in _module.__all__:
        getattr(_module, _name)

project = "sse-connectors"
author = "The sse-connectors authors"
copyright = "the sse-connectors authors"
release = version = sse_core.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sse_refs",
    "sse_api",
    "sse_chat_reference",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "README.md"]
# llms.txt is served at the site's root, beside index.html.
html_extra_path = ["llms.txt"]
html_theme = "furo"
html_title = f"sse-connectors {release}"
html_static_path: list[str] = []

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# Code blocks are highlighted strictly too: a block that is not its language is a warning.
highlight_language = "none"

autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_class_signature = "separated"
# pydantic models: their own fields and methods, not pydantic's machinery.
autodoc_inherit_docstrings = False
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
# A class's "Attributes:" section as fields, not as attribute entries that would describe a
# property a second time.
napoleon_use_ivar = True

# The modules the API reference documents, in order: a name several export is described
# under the first (docs/_ext/sse_api.py).
sse_api_modules = (
    "sse_core",
    "sse_core.protocols",
    "langchain_sse",
    "llamaindex_sse",
    "sse_emulator",
    "sse_emulator.pytest_plugin",
)

nitpicky = True
suppress_warnings = [
    # "more than one target found": a type hint's builtin ``type`` against attributes named
    # ``type`` (GatewayHTTPError.type); the builtin is what is meant, and links nowhere.
    "ref.python",
    # docs/emulator.md shows a recording's sidecar with "{...}" for what it leaves out, which
    # the JSON lexer refuses; the snippet test checks every other JSON block parses.
    "misc.highlighting_failure",
]
# Other projects' names, and the typing machinery's, which no inventory resolves offline.
nitpick_ignore_regex = [
    (
        r"py:.*",
        r"(httpx|httpcore|pydantic|pydantic_core|langchain_core|langchain|"
        r"llama_index|uvicorn|msgspec|tiktoken|typing_extensions|_typeshed|"
        r"collections|typing|types|asyncio|contextlib|enum|pathlib|os|io|"
        r"ssl|datetime|decimal|json|abc|dataclasses|functools|weakref)(\..*)?",
    ),
    # langchain-core's content-block union, named bare in langchain-core's own type hints.
    (r"py:class", r"RefusalContentBlock"),
]
