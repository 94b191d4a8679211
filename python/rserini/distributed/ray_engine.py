"""``engine="ray"``: shards built by Ray tasks and served by Ray actors.

Each shard is served by ``replicas`` actors (:class:`ShardActor`, each a
:class:`~rserini.distributed.shard.ShardServer`), placed on different nodes as
far as the cluster has them (node affinity, soft: an actor whose node died is
restarted elsewhere, up to ``max_restarts`` times). Shards are immutable and
checksummed, so every replica answers the same bytes; both rounds only read, so
a request whose actor died or missed its deadline is sent again to the next
replica. A shard none of whose replicas answers is a
:class:`~rserini.exceptions.ShardUnavailableError`, or, with ``allow_partial``,
a missing shard of the result. Ray is imported here only, when chosen.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from rserini.distributed.options import ServeOptions, require_ray
from rserini.distributed.shard import ShardServer
from rserini.exceptions import ShardUnavailableError

J = TypeVar("J")
R = TypeVar("R")

#: Seconds to wait for every actor to load its shard when opening.
STARTUP_TIMEOUT_S = 120.0

#: Times each replica of a shard is tried in one request, and the pause before trying
#: them again: an actor being restarted (after its process or node died) is back soon.
PASSES = 2
PASS_PAUSE_S = 1.0


def connect(address: str | None) -> Any:
    """The ``ray`` module, connected to the cluster at ``address`` (``"auto"``: the
    running one; ``None``: as ``ray.init()`` decides) unless already connected."""
    ray = require_ray()
    if not ray.is_initialized():
        ray.init(address=address, logging_level="WARNING", log_to_driver=False)
    return ray


def _captured(fn: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
    # An error of the work itself (a bad query, a duplicate docid) comes back as a
    # value and is raised again as is; only Ray's own errors mean a lost worker.
    try:
        return True, fn(*args)
    except Exception as e:
        return False, e


def run_jobs(
    fn: Callable[[J], R], jobs: Sequence[J], *, address: str | None, workers: int | None
) -> list[R]:
    """``[fn(job) for job in jobs]`` as Ray tasks, at most ``workers`` at a time."""
    ray = connect(address)
    task = ray.remote(num_cpus=1, max_retries=2)(_captured)
    limit = workers or len(jobs)
    results: dict[int, R] = {}
    running: dict[Any, int] = {}
    queue = list(enumerate(jobs))
    while queue or running:
        while queue and len(running) < limit:
            i, job = queue.pop(0)
            running[task.remote(fn, job)] = i
        done, _ = ray.wait(list(running), num_returns=1)
        for ref in done:
            ok, value = ray.get(ref)
            if not ok:
                raise value
            results[running.pop(ref)] = value
    return [results[i] for i in range(len(jobs))]


class ShardActor:
    """A :class:`ShardServer` inside a Ray actor."""

    def __init__(self, path: str, mmap: bool, threads: int | None) -> None:
        self.server = ShardServer(path, mmap=mmap, threads=threads)

    def ready(self) -> str:
        """The id of the node this actor runs on."""
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def call(self, method: str, args: tuple[Any, ...]) -> tuple[bool, Any]:
        return _captured(getattr(self.server, method), *args)


class RayEngine:
    """``replicas`` actors per shard, retried on one another."""

    def __init__(self, shard_paths: Sequence[Path], options: ServeOptions) -> None:
        if options.num_cpus <= 0:
            # Ray places an actor that reserves nothing anywhere, whatever its node
            # affinity; replicas would no longer be spread.
            raise ValueError(f"num_cpus must be > 0, not {options.num_cpus}")
        ray = connect(options.address)
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self._ray = ray
        self._bug = ray.exceptions.RayTaskError  # our code failed in the actor
        self._dead = ray.exceptions.RayError  # the actor, its node or the network
        self.num_shards = len(shard_paths)
        self.replicas = replicas = options.replicas
        self.deadline_s = options.deadline_s
        self.paths = [str(p) for p in shard_paths]
        nodes = sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])
        actor = ray.remote(ShardActor)
        self.actors = [
            [
                actor.options(
                    num_cpus=options.num_cpus,
                    max_restarts=options.max_restarts,
                    max_task_retries=0,  # retried here, on another replica
                    max_concurrency=8,
                    scheduling_strategy=NodeAffinitySchedulingStrategy(
                        nodes[(shard + r) % len(nodes)], soft=True
                    ),
                ).remote(path, options.mmap, options.threads)
                for r in range(replicas)
            ]
            for shard, path in enumerate(self.paths)
        ]
        self._turn = 0
        #: The node of each replica of each shard, when opened.
        self.placement = [
            ray.get([a.ready.remote() for a in shard], timeout=STARTUP_TIMEOUT_S)
            for shard in self.actors
        ]

    def call(
        self,
        method: str,
        args: Mapping[int, tuple[Any, ...]],
        *,
        allow_partial: bool = False,
        deadline_s: float | None = None,
    ) -> tuple[dict[int, Any], tuple[int, ...]]:
        ray = self._ray
        limit_s = self.deadline_s if deadline_s is None else deadline_s
        self._turn += 1  # spread the load over the replicas, request by request
        tries = dict.fromkeys(args, 0)
        pending: dict[Any, tuple[int, float]] = {}
        answers: dict[int, Any] = {}
        missing: list[int] = []

        def send(shard: int) -> None:
            if tries[shard] == PASSES * self.replicas:
                if not allow_partial:
                    raise ShardUnavailableError(
                        f"shard {shard} ({self.paths[shard]}): none of its {self.replicas} "
                        f"replica(s) answered {method} (dead, or past the {limit_s:g}s "
                        "deadline)",
                        shard,
                    )
                missing.append(shard)
                return
            if tries[shard] and tries[shard] % self.replicas == 0:
                time.sleep(PASS_PAUSE_S)
            replica = self.actors[shard][(self._turn + shard + tries[shard]) % self.replicas]
            tries[shard] += 1
            ref = replica.call.remote(method, args[shard])
            pending[ref] = (shard, time.monotonic() + limit_s)

        for shard in args:
            send(shard)
        while pending:
            wait = max(0.0, min(d for _, d in pending.values()) - time.monotonic())
            timeout = None if math.isinf(wait) else wait
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=timeout)
            for ref in ready:
                shard, _ = pending.pop(ref)
                try:
                    ok, value = ray.get(ref)
                except self._bug:
                    raise
                except self._dead:
                    send(shard)
                    continue
                if not ok:
                    raise value
                answers[shard] = value
            now = time.monotonic()
            for ref, (shard, deadline) in list(pending.items()):
                if deadline <= now:
                    del pending[ref]
                    send(shard)
        return answers, tuple(sorted(missing))

    def refresh(self) -> None:
        # Every replica, so that no live one keeps serving the old generation; a dead
        # one reopens the folder, hence the latest generation, when it restarts.
        refs = [a.call.remote("refresh", ()) for shard in self.actors for a in shard]
        for ref in refs:
            try:
                ok, value = self._ray.get(ref, timeout=self.deadline_s)
            except self._dead:
                continue
            if not ok:
                raise value

    def close(self) -> None:
        for shard in self.actors:
            for a in shard:
                self._ray.kill(a)
        self.actors = []
