"""``Index.stats()``: one frozen, typed value that still reads as the dict it replaced."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

import rserini
from rserini import IndexStats

DOCS = [("a", "routers forward packets"), ("b", "the"), ("c", "packets packets")]


def test_properties_are_the_core_counts_and_the_mean_lengths():
    stats = rserini.Index.build(DOCS, progress=False).stats()
    assert isinstance(stats, IndexStats)
    assert (stats.num_docs, stats.num_nonempty_docs, stats.total_terms) == (3, 2, 5)
    assert stats.avgdl == stats.avgdl_exact == 5 / 3
    assert stats.avgdl_lucene == 5 / 2  # "the" leaves document b without terms
    assert (stats.num_segments, stats.num_deleted) == (1, 0)
    assert stats.analyzer == rserini.Analyzer().config
    with pytest.raises(AttributeError):
        stats.num_docs = 4  # type: ignore[misc]
    empty = rserini.Index.build([], progress=False).stats()
    assert (empty.avgdl, empty.avgdl_exact, empty.avgdl_lucene) == (0.0, 1.0, 1.0)


def test_it_reads_as_the_mapping_it_was():
    index = rserini.Index.build(DOCS, progress=False)
    stats = index.stats()
    assert isinstance(stats, Mapping)
    plain = stats.to_dict()
    assert type(plain) is dict and list(plain) == stats.keys() == list(stats)
    assert dict(stats) == plain == {**stats}
    assert len(stats) == len(plain) and "num_docs" in stats and "nope" not in stats
    assert stats["num_docs"] == stats.num_docs and stats["avgdl"] == stats.avgdl
    assert stats.items() == list(plain.items()) and stats.values() == list(plain.values())
    assert stats.get("store_bytes") == stats.store_bytes and stats.get("nope", 7) == 7
    with pytest.raises(KeyError):
        stats["nope"]
    assert stats == index.stats() == plain and stats != {**plain, "num_docs": 4}
    assert json.loads(json.dumps(plain)) == plain
