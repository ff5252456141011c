"""Unknown constructor arguments refused by name, and pydantic's errors said as the core's,
for the adapters' models.

Pydantic models ignore keywords they do not know, so ``SSELLM(api_bse=...)`` or
``ChatSSE(top_p=0.9)`` would be dropped without a word and the request sent without them.
:func:`refuse_unknown` turns that into a ``ConfigurationError`` that names each unknown
argument (never its value) with what to use instead: the adapter's hint for the names its
framework's other clients use, or the nearest known name.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable, Mapping

from pydantic import ValidationError

from .errors import ConfigurationError

__all__ = ["refuse_unknown", "validation_summary"]


def validation_summary(owner: str, error: ValidationError) -> str:
    """A pydantic error as one line per field, without the input (it may be a secret): the
    message of the ``ConfigurationError`` an adapter raises in its place."""
    parts = [
        f"{'.'.join(str(p) for p in item['loc']) or 'settings'}: {item['msg']}"
        for item in error.errors(include_input=False, include_url=False)
    ]
    return f"{owner} settings rejected: " + "; ".join(parts)


def refuse_unknown(
    owner: str,
    given: Iterable[str],
    known: Collection[str],
    hints: Mapping[str, str],
    otherwise: str,
) -> None:
    """Raise if ``given`` holds a name outside ``known``.

    Args:
        owner: The class named in the message.
        given: The keyword names passed.
        known: The names the class accepts.
        hints: What to say for a name other clients use (``{"api_base": "use base_url"}``).
        otherwise: Said when no hint and no close name fits (where such arguments go).

    Raises:
        ConfigurationError: An argument is unknown; the message names each one.
    """
    unknown = [name for name in given if name not in known]
    if not unknown:
        return
    reasons = [f"{name!r}: {_advice(name, known, hints, otherwise)}" for name in unknown]
    raise ConfigurationError(f"{owner} has no such setting: " + "; ".join(reasons))


def _advice(name: str, known: Collection[str], hints: Mapping[str, str], otherwise: str) -> str:
    if name in hints:
        return hints[name]
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.75)
    return f"did you mean {close[0]!r}?" if close else otherwise
