"""How shards are served, and the one door to Ray: shared by the engine choice
(:mod:`~rserini.distributed.engine`) and the Ray engine, which the choice imports
only when asked for."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

#: What an error about a missing Ray tells the user to run.
RAY_INSTALL = 'pip install "rserini[ray]"'


@dataclass(frozen=True)
class ServeOptions:
    """How shards are served: :meth:`rserini.distributed.ShardedIndex.open`'s options."""

    replicas: int = 1
    address: str | None = None
    threads: int | None = None
    mmap: bool = True
    deadline_s: float = 30.0
    max_restarts: int = 3
    num_cpus: float = 0.1


def require_ray() -> ModuleType:
    """The ``ray`` module, or an :class:`ImportError` saying how to install it."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(f'engine="ray" needs Ray, which is not installed: {RAY_INSTALL}') from e
    return ray
