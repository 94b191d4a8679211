"""A sharded index searched with the summed statistics ranks and scores exactly as one
index of all its documents: docids, float32 scores, order and ties, for every BM25
variant, length mode, (k1, b), algorithm and depth, on the test collections and on
generated corpora (empty documents, deletions, cross-shard ties, terms absent from some
shards, empty shards). Shard-local statistics, the guard, do not."""

from __future__ import annotations

import itertools
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rserini
from rserini.distributed import ShardedIndex, build_shards
from sharding import delete_everywhere, write_corpus
from support import collection

VARIANTS = rserini.BM25_VARIANTS
LENGTHS = rserini.LENGTH_MODES
K1_B = [(0.9, 0.4), (1.2, 0.75), (25.0, 1.0)]
ALGORITHMS = ["auto", "exhaustive", "maxscore", "bmw"]
DEPTHS = [10, 1000]
SHARD_COUNTS = [1, 2, 3, 8]


def configurations(shards: int) -> list[dict[str, object]]:
    """Every variant x length mode once, with (k1, b), algorithm and depth rotating so
    that each takes every value for every shard count (10 searches, not 240)."""
    return [
        {
            "variant": variant,
            "length": length,
            "k1": K1_B[i % 3][0],
            "b": K1_B[i % 3][1],
            "algorithm": ALGORITHMS[(i + shards) % 4],
            "k": DEPTHS[(i // 2 + shards) % 2],
        }
        for i, (variant, length) in enumerate(itertools.product(VARIANTS, LENGTHS))
    ]


def test_the_sampled_matrix_covers_every_axis():
    for shards in SHARD_COUNTS:
        configs = configurations(shards)
        for axis, values in [
            ("variant", VARIANTS),
            ("length", LENGTHS),
            ("algorithm", ALGORITHMS),
            ("k", DEPTHS),
        ]:
            assert {c[axis] for c in configs} == set(values), (shards, axis)
        assert {(c["k1"], c["b"]) for c in configs} == set(K1_B)
        assert len({(c["variant"], c["length"]) for c in configs}) == 10


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    cache: dict[tuple[str, int], Path] = {}

    def get(name: str, shards: int) -> Path:
        if (name, shards) not in cache:
            out = tmp_path_factory.mktemp(f"{name}-{shards}") / "sharded"
            cache[name, shards] = build_shards(collection(name), out, shards)
        return cache[name, shards]

    return get


@pytest.fixture(scope="module")
def singles():
    cache: dict[str, rserini.Index] = {}

    def get(name: str) -> rserini.Index:
        if name not in cache:
            cache[name] = rserini.Index.from_jsonl(collection(name), progress=False)
        return cache[name]

    return get


def _queries(name: str) -> list[str]:
    """The collection's queries; SciFact's first 100 of 300 (the rest add time, not cases)."""
    queries = [text for _, text in rserini.read_queries(collection(name) / "queries.jsonl")]
    return queries[:100] if name == "scifact" else queries


@pytest.mark.data
@pytest.mark.parametrize("shards", SHARD_COUNTS)
@pytest.mark.parametrize("name", ["scifact", "cacm", "npl"])
def test_sharded_equals_single_on_the_collections(name, shards, built, singles):
    single, queries = singles(name), _queries(name)
    with ShardedIndex.open(built(name, shards)) as sharded:
        for config in configurations(shards):
            options = dict(config)
            k = int(options.pop("k"))  # type: ignore[call-overload]
            expected = single.batch_search_pairs(queries, k, **options)
            got = sharded.batch_search_pairs(queries, k, **options)
            assert got == expected, (name, shards, config)
        # One query at a time, as Hits, and an explanation.
        hits = sharded.search(queries[0], 10, k1=1.2, b=0.75)
        expected_hits = single.search(queries[0], 10, k1=1.2, b=0.75)
        assert [tuple(h) for h in hits] == [tuple(h) for h in expected_hits]
        docid = hits[0].docid
        assert str(sharded.explain(queries[0], docid)) == str(single.explain(queries[0], docid))
        # Query likelihood: the summed collection frequencies too.
        for mu in (1000.0, 300.0):
            expected = single.batch_search_pairs(queries, 100, model="qld", mu=mu)
            assert sharded.batch_search_pairs(queries, 100, model="qld", mu=mu) == expected
        qld = dict(model="qld", mu=300.0)
        assert str(sharded.explain(queries[0], docid, **qld)) == str(
            single.explain(queries[0], docid, **qld)
        )


@pytest.mark.data
def test_shard_local_statistics_give_other_rankings(built, singles):
    # The guard: without the statistics round, shards score with their own idf and
    # avgdl, and the merged ranking is not the single index's.
    single, queries = singles("scifact"), _queries("scifact")[:100]
    folder = built("scifact", 2)
    shards = [rserini.Index.load(p) for p in sorted(folder.glob("shard-*"))]
    local = rserini.merge_topk([s.batch_search_columns(queries, 10) for s in shards], 10)
    expected = single.batch_search_pairs(queries, 10)
    differ = sum(a != b for a, b in zip(local.to_pairs(), expected, strict=True))
    assert differ > 10, differ
    with ShardedIndex.open(folder) as sharded:
        assert sharded.batch_search_pairs(queries, 10) == expected


def test_tfidf_is_refused_with_the_reason(tmp_path: Path):
    corpus = write_corpus(tmp_path / "c" / "d.jsonl", [("a", "x y"), ("b", "y z"), ("c", "z")])
    with ShardedIndex.open(build_shards(corpus, tmp_path / "s", 2)) as index:
        with pytest.raises(rserini.QueryError, match=r"tfidf.*document norms"):
            index.search("y", model="tfidf")
        with pytest.raises(rserini.QueryError, match="tfidf"):
            index.explain("y", "a", model="tfidf")
        with pytest.raises(rserini.QueryError, match="empty"):
            index.search("  ")
        assert index.batch_search_pairs(["", "the", "y"], 5)[:2] == [[], []]


def test_a_shard_at_a_new_generation_makes_the_search_gather_again(tmp_path: Path):
    docs = [(f"d{i}", f"alpha beta{i % 3} gamma{i % 5}") for i in range(40)]
    corpus = write_corpus(tmp_path / "c" / "d.jsonl", docs)
    out = build_shards(corpus, tmp_path / "s", 3)
    single = rserini.Index.from_jsonl(corpus, progress=False)
    with ShardedIndex.open(out) as index:
        assert index.search_pairs("alpha beta1", 50) == single.search_pairs("alpha beta1", 50)
        rounds = index.stats_rounds
        index.search_pairs("beta1 alpha", 50)
        assert index.stats_rounds == rounds  # cached
        delete_everywhere(out, 3, single, ["d1", "d4", "d7"])
        index.refresh()
        assert index.search_pairs("alpha beta1", 50) == single.search_pairs("alpha beta1", 50)
        assert index.stats_rounds == rounds + 1


VOCAB = ["apple", "banana", "cherry", "date", "elder", "fig", "the", "a", "zebra"]
texts = st.lists(st.sampled_from(VOCAB), max_size=6).map(" ".join)


@st.composite
def corpora(draw):
    pool = draw(st.lists(texts, min_size=1, max_size=5))  # few texts: cross-shard ties
    n = draw(st.integers(1, 30))
    docs = [(f"doc{i}", draw(st.sampled_from(pool))) for i in range(n)]
    deleted = draw(st.lists(st.sampled_from([d for d, _ in docs]), unique=True, max_size=n - 1))
    return docs, deleted


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=corpora(),
    shards=st.integers(1, 6),
    queries=st.lists(texts.filter(str.strip), min_size=1, max_size=4),
    variant=st.sampled_from(VARIANTS),
    length=st.sampled_from(LENGTHS),
    k1_b=st.sampled_from(K1_B),
    algorithm=st.sampled_from(ALGORITHMS),
    k=st.sampled_from([1, 3, 1000]),
    qld=st.booleans(),
)
def test_sharded_equals_single_on_generated_corpora(
    data, shards, queries, variant, length, k1_b, algorithm, k, qld
):
    docs, deleted = data
    options = {"variant": variant, "length": length, "k1": k1_b[0], "b": k1_b[1]}
    if qld:
        options = {"model": "qld", "mu": 10.0 * k1_b[0]}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = write_corpus(Path(tmp) / "c" / "d.jsonl", docs)
        out = build_shards(corpus, Path(tmp) / "s", shards)
        single = rserini.Index.build(docs, progress=False)
        with ShardedIndex.open(out) as index:
            if deleted:
                delete_everywhere(out, shards, single, deleted)
                index.refresh()
            expected = single.batch_search_pairs(queries, k, algorithm=algorithm, **options)
            got = index.batch_search_pairs(queries, k, algorithm=algorithm, **options)
            assert got == expected
            assert json.dumps(got)  # plain lists of (str, float)
