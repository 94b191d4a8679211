"""``engine="local"``: every shard in this process, called on threads.

The core releases the GIL while it builds and searches, so shards run in
parallel on threads. Replicas would be copies of the same bytes in the same
process, so the local engine keeps one server per shard whatever ``replicas``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from rserini.distributed.shard import ShardServer

J = TypeVar("J")
R = TypeVar("R")


def run_jobs(fn: Callable[[J], R], jobs: Sequence[J], *, workers: int | None) -> list[R]:
    """``[fn(job) for job in jobs]`` on ``workers`` threads (default: one per job)."""
    with ThreadPoolExecutor(max_workers=workers or max(len(jobs), 1)) as pool:
        return list(pool.map(fn, jobs))


class LocalEngine:
    """Shards loaded in this process."""

    def __init__(self, shard_paths: Sequence[Path], *, threads: int | None, mmap: bool) -> None:
        self.servers = [ShardServer(str(p), mmap=mmap, threads=threads) for p in shard_paths]
        self.num_shards = len(self.servers)
        self._pool = ThreadPoolExecutor(max_workers=self.num_shards)

    def call(
        self,
        method: str,
        args: Mapping[int, tuple[Any, ...]],
        *,
        allow_partial: bool = False,
        deadline_s: float | None = None,
    ) -> tuple[dict[int, Any], tuple[int, ...]]:
        if len(args) == 1:  # one shard: no thread hop
            ((shard, a),) = args.items()
            return {shard: getattr(self.servers[shard], method)(*a)}, ()
        futures = {
            shard: self._pool.submit(getattr(self.servers[shard], method), *a)
            for shard, a in args.items()
        }
        return {shard: f.result() for shard, f in futures.items()}, ()

    def refresh(self) -> None:
        for server in self.servers:
            server.refresh()

    def close(self) -> None:
        self._pool.shutdown(wait=False)
