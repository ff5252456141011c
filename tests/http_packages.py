"""What the tests expect of the HTTP package the clients are made with (``SSE_CONNECTORS_HTTP``:
the CI part ``newest-httpx2`` runs the transport and adapter suites with httpx2 clients)."""

from __future__ import annotations

from sse_core.transport.packages import default_package


def kept_alive(reuse: bool) -> bool:
    """Whether a connection is kept for the next request with the reuse fast path forced to
    ``reuse``: only by a client of httpx, the package the path was probed on; an httpx2
    client takes the faithful path (a connection per request) whatever the registry says."""
    return reuse and default_package().fast
