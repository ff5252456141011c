"""``sse_core._redact``: secrets and bearer tokens masked in texts, decoded data and whole
exception chains."""

from __future__ import annotations

import pytest

from sse_core import GatewayHTTPError, GatewayStreamError, StreamError
from sse_core._redact import redact, redact_data, scrub

SECRET = "sk-redact-canary-42"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"key {SECRET} bad", "key *** bad"),
        (f"{SECRET}{SECRET}", "******"),
        ("Authorization: Bearer abc.def", "Authorization: Bearer ***"),
        ("authorization: bearer tok", "authorization: bearer ***"),
        # The bearer rule is case-insensitive (RFC 7235: the scheme is case-insensitive).
        ("authorization: BEARER tok", "authorization: BEARER ***"),
        ("bearer", "bearer"),
        ("nothing to hide", "nothing to hide"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text, [SECRET]) == expected


def test_secrets_shorter_than_four_characters_are_not_masked() -> None:
    # Masking "a" would mangle every message; such a value is no secret anyway.
    assert redact("a cat", ["a"]) == "a cat"
    assert redact("abcd!", ["abcd"]) == "***!"


def test_redact_data_walks_dicts_lists_and_keys() -> None:
    data = {SECRET: [f"x{SECRET}", {"k": SECRET, "n": 5}], "ok": None}
    assert redact_data(data, [SECRET]) == {"***": ["x***", {"k": "***", "n": 5}], "ok": None}
    assert redact_data(7, [SECRET]) == 7


def test_scrub_masks_args_fields_and_the_cause_chain() -> None:
    root = ValueError(f"header value {SECRET!r}")
    middle = KeyError(SECRET)
    middle.__cause__ = root
    error = GatewayStreamError(
        f"boom {SECRET}", type=SECRET, code=SECRET, data={"error": {"message": SECRET}}
    )
    error.__context__ = middle
    scrub(error, [SECRET])
    assert SECRET not in str(error) and SECRET not in repr(error)
    assert (error.type, error.code, error.data) == ("***", "***", {"error": {"message": "***"}})
    assert SECRET not in repr(middle) and SECRET not in repr(root)


def test_scrub_masks_http_error_fields() -> None:
    error = GatewayHTTPError(f"HTTP 401: {SECRET}", status_code=401, error_message=SECRET)
    scrub(error, [SECRET])
    assert SECRET not in str(error) and error.error_message == "***"


def test_scrub_survives_a_cycle_and_read_only_attributes() -> None:
    class Frozen(Exception):
        @property
        def data(self) -> str:
            return SECRET

    first, second = StreamError(SECRET), Frozen(SECRET)
    first.__cause__, second.__context__ = second, first
    scrub(first, [SECRET])
    assert SECRET not in str(first) and SECRET not in str(second)
