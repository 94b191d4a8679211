"""Calling an endpoint within a deadline, retrying what is worth retrying.

Rate limits (429), overload and server errors (408, 409, 5xx) and dropped connections are
retried with exponential backoff (or the endpoint's ``retry-after``), never past the
deadline; anything else is raised at once. The SDK's own retries are off, so the deadline
is a hard stop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

__all__ = ["DeadlineError", "call_with_retries"]

T = TypeVar("T")
_RETRIED_STATUSES = (408, 409, 429)
# Each request waits at most this long when there is no deadline.
_REQUEST_TIMEOUT = 600.0


class DeadlineError(TimeoutError):
    """The deadline passed before the endpoint answered."""


def call_with_retries(
    request: Callable[[float], T],
    sdk: ModuleType,
    *,
    deadline: float | None,
    max_retries: int = 4,
    backoff: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``request(timeout)``, retried up to ``max_retries`` times.

    Parameters
    ----------
    request
        One attempt; its argument is the seconds left for it.
    sdk
        The SDK module whose error classes classify failures.
    deadline
        ``clock()`` value after which nothing is attempted (``None``: no deadline).
    max_retries
        Retries after the first attempt.
    backoff
        First wait in seconds; doubled at each retry (a ``retry-after`` header wins).

    Raises
    ------
    DeadlineError
        When the deadline passes (during a request or a wait).
    Exception
        The SDK's error of the last attempt, or of one that is not retried.
    """
    attempt = 0
    while True:
        left = _REQUEST_TIMEOUT if deadline is None else deadline - clock()
        if left <= 0:
            raise DeadlineError("the time budget ran out waiting for the model")
        try:
            return request(min(left, _REQUEST_TIMEOUT))
        except Exception as e:
            if (
                isinstance(e, sdk.APITimeoutError)
                and deadline is not None
                and deadline - clock() <= 0
            ):
                raise DeadlineError("the time budget ran out waiting for the model") from e
            if attempt >= max_retries or not _retried(e, sdk):
                raise
            wait = _retry_after(e)
            wait = backoff * 2**attempt if wait is None else wait
            if deadline is not None and clock() + wait >= deadline:
                raise DeadlineError(
                    f"the time budget ran out before a retry ({type(e).__name__})"
                ) from e
            sleep(wait)
            attempt += 1


def _retried(error: Exception, sdk: ModuleType) -> bool:
    if isinstance(error, sdk.APIConnectionError):  # includes timeouts
        return True
    if isinstance(error, sdk.APIStatusError):
        status = int(getattr(error, "status_code", 0))
        return status in _RETRIED_STATUSES or status >= 500
    return False


def _retry_after(error: Any) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds), when given."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue
        if 0 <= seconds <= 60:
            return seconds
    return None
