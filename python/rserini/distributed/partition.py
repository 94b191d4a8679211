"""Which shard a document lives in: a fixed hash of its docid.

The rule is part of the on-disk format (``sharded.json`` names it), so that any
later writer, in any language, routes an added or deleted docid to the shard
that holds it: the first 8 bytes of the BLAKE2b digest (``digest_size=8``) of the
docid's UTF-8 bytes, read as a little-endian unsigned integer, modulo the number
of shards. Every copy of a docid lands in the same shard, so docid uniqueness is
checked per shard exactly as one index checks it.
"""

from __future__ import annotations

from hashlib import blake2b

#: The name ``sharded.json`` records for the rule above.
DOCID_HASH = "blake2b-64-le-mod"

#: The partition schemes :func:`rserini.distributed.build_shards` knows.
PARTITIONS = ("docid-hash",)


def shard_of(docid: str, num_shards: int) -> int:
    """The shard (0-based) of ``docid`` among ``num_shards``.

    >>> shard_of("doc1", 1)
    0
    >>> [shard_of(d, 4) for d in ("a", "b", "c")] == [shard_of(d, 4) for d in ("a", "b", "c")]
    True
    """
    digest = blake2b(docid.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % num_shards
