"""Requests checked against the providers' published request types (the SDKs' ``TypedDict``\\ s):
:mod:`.walker` compiles a type, :mod:`.published` reads each API's once and decides whether an
emulator is strict, :mod:`.wording` says what is wrong as each API says it.
"""

from __future__ import annotations

from typing import Any

from sse_emulator.schemas.published import validator
from sse_emulator.schemas.walker import Issue

__all__ = ["first_issue"]


def first_issue(api: str, body: dict[str, Any]) -> Issue | None:
    """The first thing ``body`` breaks of ``api``'s published request type (``chat``,
    ``responses``, ``messages``); None when it breaks none, or the SDK is not installed."""
    checker = validator(api)
    return None if checker is None else checker.check(body)
