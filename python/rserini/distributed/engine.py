"""Where shards run: the engine interface and the choice between engines.

An engine builds shards from jobs and serves the shards of a sharded index: it
runs a :class:`~rserini.distributed.shard.ShardServer` method on some shards and
returns their answers. ``"local"`` runs them in this process on threads;
``"ray"`` in Ray tasks and actors, imported only when chosen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from rserini.distributed.options import ServeOptions

EngineName = Literal["local", "ray"]
ENGINES = ("local", "ray")

J = TypeVar("J")
R = TypeVar("R")


class Engine(Protocol):
    """Serves the shards of one sharded index."""

    num_shards: int

    def call(
        self,
        method: str,
        args: Mapping[int, tuple[Any, ...]],
        *,
        allow_partial: bool = False,
        deadline_s: float | None = None,
    ) -> tuple[dict[int, Any], tuple[int, ...]]:
        """Runs ``ShardServer.<method>(*args[s])`` for every shard ``s`` of ``args``;
        returns the answers by shard and the shards that gave none (always empty
        unless ``allow_partial``, since a shard without an answer otherwise raises
        :class:`~rserini.exceptions.ShardUnavailableError`). ``deadline_s`` replaces
        the engine's deadline for this call (``math.inf``: none, for a commit)."""

    def refresh(self) -> None:
        """Asks every shard to reopen its folder if it holds a newer generation."""

    def close(self) -> None:
        """Releases the shards."""


def check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")


def build_jobs(
    fn: Callable[[J], R],
    jobs: Sequence[J],
    *,
    engine: str,
    address: str | None = None,
    workers: int | None = None,
) -> list[R]:
    """``[fn(job) for job in jobs]``, ``workers`` at a time, on ``engine``."""
    check_engine(engine)
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be >= 1, not {workers}")
    if engine == "ray":
        from rserini.distributed.ray_engine import run_jobs as run_ray

        return run_ray(fn, jobs, address=address, workers=workers)
    from rserini.distributed.local_engine import run_jobs as run_local

    return run_local(fn, jobs, workers=workers)


def open_engine(engine: str, shard_paths: Sequence[Path], options: ServeOptions) -> Engine:
    """An engine serving the shard folders ``shard_paths``, in shard order."""
    check_engine(engine)
    if options.replicas < 1:
        raise ValueError(f"replicas must be >= 1, not {options.replicas}")
    if engine == "ray":
        from rserini.distributed.ray_engine import RayEngine

        return RayEngine(shard_paths, options)
    from rserini.distributed.local_engine import LocalEngine

    return LocalEngine(shard_paths, threads=options.threads, mmap=options.mmap)
