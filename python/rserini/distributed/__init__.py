"""Sharded indexes: built in parallel, searched as one, on this machine or on Ray.

>>> from rserini.distributed import build_shards, ShardedIndex   # doctest: +SKIP
>>> build_shards("corpus/", "sharded/", 4)                       # doctest: +SKIP
>>> with ShardedIndex.open("sharded/") as index:                 # doctest: +SKIP
...     index.search("inverted index compression")

A search gathers the whole collection's statistics from every shard before the
shards search, so a sharded index ranks and scores exactly as one index of all
its documents (see ``docs/distributed.md``). Importing this package does not
import Ray; ``engine="ray"`` does.
"""

from rserini.distributed.build import build_shards, is_sharded, merge_shards
from rserini.distributed.engine import ENGINES
from rserini.distributed.manifest import MANIFEST
from rserini.distributed.options import RAY_INSTALL
from rserini.distributed.partition import DOCID_HASH, PARTITIONS, shard_of
from rserini.distributed.results import ShardedResult
from rserini.distributed.sharded_index import ShardedIndex
from rserini.exceptions import ShardUnavailableError

__all__ = [
    "DOCID_HASH",
    "ENGINES",
    "MANIFEST",
    "PARTITIONS",
    "RAY_INSTALL",
    "ShardUnavailableError",
    "ShardedIndex",
    "ShardedResult",
    "build_shards",
    "is_sharded",
    "merge_shards",
    "shard_of",
]
