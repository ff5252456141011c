"""Names that moved between Python versions, imported from one place."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    from typing import assert_never
else:  # pragma: no cover - Python 3.10
    from typing_extensions import assert_never

__all__ = ["assert_never"]
