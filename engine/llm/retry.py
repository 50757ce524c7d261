"""When to try again, and how long to wait first."""

from __future__ import annotations

import email.utils
import time
from typing import Mapping


def retry_after_seconds(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """The server's requested wait: `retry-after-ms`, or `Retry-After` as seconds
    or an HTTP date. None when absent or unreadable."""
    if not headers:
        return None
    ms = _get(headers, "retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = _get(headers, "retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_delay(retry: int, base_s: float, max_s: float, retry_after: float | None) -> float:
    """Seconds to wait before retry number `retry` (0-based).

    The server's Retry-After wins when given; otherwise the wait doubles from
    `base_s`. No jitter: the engine is deterministic and one client rarely
    competes with itself. Either way the wait is capped at `max_s`.
    """
    wait = retry_after if retry_after is not None else base_s * (2 ** retry)
    return min(max(0.0, wait), max_s)


def is_retryable_status(status: int) -> bool:
    return status in (408, 429) or status >= 500


def _get(headers: Mapping[str, str], name: str) -> str | None:
    # httpx-style headers are case-insensitive already; plain dicts are not.
    value = headers.get(name)
    if value is None:
        for k, v in headers.items():
            if k.lower() == name:
                return v
    return value
