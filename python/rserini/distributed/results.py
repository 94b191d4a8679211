"""Results of a sharded search that say whether every shard answered."""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class ShardedResult(list[T], Generic[T]):
    """A list of results (hits, pairs or rankings) with the shards that did not answer.

    ``missing_shards`` is empty unless the search ran with ``allow_partial=True`` and
    some shard had no live replica; the result is then ``partial``: the documents of
    those shards are absent and the scores use the statistics of the shards that
    answered, so they are not the single index's.
    """

    missing_shards: tuple[int, ...]

    def __init__(self, items: list[T], missing_shards: tuple[int, ...] = ()) -> None:
        super().__init__(items)
        self.missing_shards = missing_shards

    @property
    def partial(self) -> bool:
        """Whether some shard did not answer."""
        return bool(self.missing_shards)

    def __repr__(self) -> str:
        flag = f", missing_shards={self.missing_shards}" if self.missing_shards else ""
        return f"ShardedResult({list.__repr__(self)}{flag})"
