"""A collection split into shards by any partition, each shard searched with the sum of
the shards' statistics and the rankings merged by ``merge_topk``, ranks exactly as one
index of the whole: the same docids in the same order with bit-identical float32 scores,
ties included, for every BM25 variant, both length modes, every algorithm and shallow or
deep k, and for query likelihood. A guard shows that shard-local statistics rank
otherwise."""

from __future__ import annotations

import struct

from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from rserini import GlobalStats, merge_topk

VOCAB = ["ab", "cd", "ef", "gh", "ij", "kl"]
VARIANTS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
ALGORITHMS = ("exhaustive", "maxscore", "bmw", "auto")


def bits(pairs: list[tuple[str, float]]) -> list[tuple[str, bytes]]:
    """Docids with the exact float32 bits of their scores."""
    return [(docid, struct.pack("<f", score)) for docid, score in pairs]


def build(docs: list[tuple[str, str]], first: int, gone: set[str]) -> rserini.Index:
    """An index of ``docs[:first]``, then the rest added and ``gone`` deleted (two
    segments and deletions, as a collection that changed)."""
    index = rserini.Index.build(docs[:first], analyzer="whitespace", store=False, progress=False)
    if docs[first:]:
        index.add(docs[first:])
    deleted = sorted(gone & {docid for docid, _ in docs})
    if deleted:
        index.delete(deleted)
    index.commit()
    return index


corpora = st.lists(st.lists(st.sampled_from(VOCAB), max_size=6), max_size=40)


@settings(max_examples=40, deadline=None)
@given(
    texts=corpora,
    data=st.data(),
    shards=st.integers(1, 5),
    queries=st.lists(
        st.lists(st.sampled_from([*VOCAB, "zz"]), min_size=1, max_size=4), min_size=1, max_size=3
    ),
    k1=st.sampled_from([0.9, 1.2, 25.0]),
    b=st.sampled_from([0.4, 0.75, 1.0]),
    mu=st.sampled_from([1000.0, 10.0]),
)
def test_shards_with_summed_statistics_rank_as_one_index(
    texts: list[list[str]],
    data: st.DataObject,
    shards: int,
    queries: list[list[str]],
    k1: float,
    b: float,
    mu: float,
) -> None:
    # Few words over few documents: empty documents, equal texts (ties across shards),
    # terms missing from some shards and empty shards are all common.
    docs = [(f"d{i:02d}", " ".join(words)) for i, words in enumerate(texts)]
    shard_of = data.draw(
        st.lists(st.integers(0, shards - 1), min_size=len(docs), max_size=len(docs))
    )
    first = data.draw(st.integers(0, len(docs)))
    gone = set(data.draw(st.lists(st.sampled_from([d for d, _ in docs] or ["none"]), max_size=8)))
    single = build(docs, first, gone)
    parts = [
        build(
            [d for d, s in zip(docs, shard_of, strict=True) if s == shard],
            sum(s == shard for s in shard_of[:first]),
            gone,
        )
        for shard in range(shards)
    ]
    texts_q = [" ".join(q) for q in queries]
    stats = GlobalStats.sum(part.global_stats(texts_q, cfs=True) for part in parts)
    assert stats.documents == len(single)
    for k in (3, 100):
        # Query likelihood, with the summed collection frequencies.
        expected = single.batch_search_pairs(texts_q, k, model="qld", mu=mu)
        columns = [
            part.batch_search_columns(texts_q, k, model="qld", mu=mu, stats=stats) for part in parts
        ]
        merged = merge_topk(columns, k).to_pairs()
        assert [bits(r) for r in merged] == [bits(r) for r in expected]
    for variant in VARIANTS:
        for length in ("lucene", "exact"):
            scoring = rserini.Bm25(k1=k1, b=b, variant=variant, length=length)
            for k in (3, 100):
                expected = single.batch_search_pairs(
                    texts_q, k, scoring=scoring, algorithm="exhaustive"
                )
                for algorithm in ALGORITHMS:
                    columns = [
                        part.batch_search_columns(
                            texts_q, k, scoring=scoring, algorithm=algorithm, stats=stats
                        )
                        for part in parts
                    ]
                    merged = merge_topk(columns, k).to_pairs()
                    for query, want, got in zip(texts_q, expected, merged, strict=True):
                        assert bits(got) == bits(want), (query, variant, length, algorithm, k)
                        pairs = [
                            part.search_pairs(
                                query, k, scoring=scoring, algorithm=algorithm, stats=stats
                            )
                            for part in parts
                        ]
                        assert bits(merge_topk(pairs, k)) == bits(want)


def test_shard_local_statistics_rank_otherwise() -> None:
    """The guard: without the summed statistics the merged shards differ from the single
    index, so the test above can fail."""
    docs = [
        (f"d{i:03d}", " ".join(VOCAB[(i * j + j) % (1 + i % 6)] for j in range(1 + i % 7)))
        for i in range(120)
    ]
    single = build(docs, len(docs), set())
    parts = [build(docs[s::3], len(docs[s::3]), set()) for s in range(3)]
    query = "ab cd kl"
    want = bits(single.search_pairs(query, 20))
    stats = GlobalStats.sum(part.global_stats([query]) for part in parts)
    assert (
        bits(merge_topk([part.search_pairs(query, 20, stats=stats) for part in parts], 20)) == want
    )
    local = merge_topk([part.search_pairs(query, 20) for part in parts], 20)
    assert bits(local) != want
