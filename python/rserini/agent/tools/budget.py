"""The time budget of an agent run (pi-search's submit-now steering).

With a budget of T seconds (``TIMEOUT_SECONDS`` or an argument), once ``ratio * T`` has
passed (0.7, as pi-search; configurable here) the agent loop is handed the steer message
once, and every retrieval tool call returns the block reason instead of running. At T the
run's status is ``timeout``. The clock is injectable, so tests and replays control time.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable

from rserini.agent.tools.jsformat import js_parse_float
from rserini.agent.tools.messages import STEER

__all__ = ["DEFAULT_RATIO", "TimeBudget"]

DEFAULT_RATIO = 0.7


class TimeBudget:
    """A budget of ``seconds`` from construction (or :meth:`restart`).

    ``seconds=None`` reads ``TIMEOUT_SECONDS`` as JavaScript's ``parseFloat`` would; a
    missing, non-finite or non-positive value disables the budget (nothing is ever blocked).
    """

    def __init__(
        self,
        seconds: float | None = None,
        *,
        ratio: float = DEFAULT_RATIO,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if seconds is None:
            seconds = js_parse_float(os.environ.get("TIMEOUT_SECONDS", ""))
        if not 0 < ratio <= 1:
            raise ValueError(f"ratio must be in (0, 1] (got {ratio})")
        self.seconds: float | None = seconds if math.isfinite(seconds) and seconds > 0 else None
        self.ratio = ratio
        self.clock = clock
        self._steered = False
        self.started = clock()

    def restart(self) -> None:
        """Starts the budget again now (pi re-arms it at each agent start)."""
        self.started = self.clock()
        self._steered = False

    @property
    def enabled(self) -> bool:
        """Whether there is a budget at all."""
        return self.seconds is not None

    @property
    def elapsed(self) -> float:
        """Seconds since the start."""
        return self.clock() - self.started

    @property
    def threshold(self) -> float | None:
        """Seconds after which tools are blocked: ``max(1 ms, floor(T * ratio * 1000) ms)``."""
        if self.seconds is None:
            return None
        return max(1, math.floor(self.seconds * self.ratio * 1000)) / 1000

    @property
    def blocked(self) -> bool:
        """Whether retrieval tools are blocked now."""
        threshold = self.threshold
        return threshold is not None and self.elapsed >= threshold

    @property
    def timed_out(self) -> bool:
        """Whether the whole budget is spent: the run's status is ``timeout``."""
        return self.seconds is not None and self.elapsed >= self.seconds

    def take_steer(self) -> str | None:
        """The steer message, the first time it is asked for after the threshold; else
        ``None``. The agent loop injects it as a user message."""
        if self._steered or not self.blocked:
            return None
        self._steered = True
        return STEER
