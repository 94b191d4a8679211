"""One searchable shape: :class:`rserini.Index` and a sharded index both satisfy
:class:`rserini.searchable.Searchable`, with the same return types and, on one shard,
the same results; and what takes a searchable (``retrieve_ranked``, ``ranked``, the
command line) treats both alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rserini
from rserini.distributed import ShardedIndex, build_shards
from rserini.eval import retrieve_ranked
from rserini.exceptions import RseriniError
from rserini.searchable import Searchable, open_searchable, ranked

DOCS = [
    {"id": f"d{i}", "contents": text}
    for i, text in enumerate(
        [
            "routers forward packets between networks",
            "a network of routers and switches",
            "packets carry data across the network",
            "switches forward frames inside a network",
            "bread and butter",
            "",
            "routers routers routers",
            "data data packets",
        ]
    )
]
QUERIES = ["routers packets", "network", "frames switches", "nothing matches this", "data"]


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory):
    """The same documents as one index and as a sharded index of one shard."""
    folder = tmp_path_factory.mktemp("searchable")
    corpus = folder / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    single = rserini.Index.from_jsonl(corpus, progress=False)
    single.save(folder / "single")
    sharded_dir = build_shards(corpus, folder / "sharded", 1)
    with ShardedIndex.open(sharded_dir) as sharded:
        yield single, sharded, folder


def both(pair) -> list[Searchable]:
    single, sharded, _ = pair
    return [single, sharded]


def test_both_are_searchable(pair):
    for index in both(pair):
        assert isinstance(index, Searchable)


@pytest.mark.parametrize("options", [{}, {"k1": 1.2, "b": 0.75}, {"model": "qld", "mu": 100}])
def test_search_and_search_pairs(pair, options):
    single, sharded, _ = pair
    for query in QUERIES:
        hits = [index.search(query, 5, **options) for index in (single, sharded)]
        for got in hits:
            assert isinstance(got, list) and all(isinstance(h, rserini.Hit) for h in got)
        assert [(h.docid, h.score, h.rank) for h in hits[0]] == [
            (h.docid, h.score, h.rank) for h in hits[1]
        ]
        pairs = [index.search_pairs(query, 5, **options) for index in (single, sharded)]
        for got in pairs:
            assert isinstance(got, list)
            assert all(isinstance(d, str) and isinstance(s, float) for d, s in got)
        assert pairs[0] == pairs[1]


@pytest.mark.parametrize("k", [1, 3, 1000])
def test_batch_search_gives_the_same_arrays(pair, k):
    single, sharded, _ = pair
    results = [index.batch_search(QUERIES, k) for index in (single, sharded)]
    for ids, scores in results:
        assert isinstance(ids, np.ndarray) and ids.dtype == np.int32
        assert isinstance(scores, np.ndarray) and scores.dtype == np.float32
        assert ids.shape == scores.shape == (len(QUERIES), min(k, len(single)))
    (ids1, scores1), (ids2, scores2) = results
    np.testing.assert_array_equal(scores1, scores2)  # -inf padding included
    np.testing.assert_array_equal(ids1 == -1, ids2 == -1)
    assert single.docids(ids1) == sharded.docids(ids2)
    assert single.docids(ids1[0]) == sharded.docids(ids2[0])  # a view keeps the binding
    assert single.docids(ids1) == [
        [d for d, _ in row] for row in single.batch_search_pairs(QUERIES, k)
    ]


def test_batch_search_pairs(pair):
    single, sharded, _ = pair
    got = [index.batch_search_pairs(QUERIES, 4) for index in (single, sharded)]
    for rows in got:
        assert isinstance(rows, list) and all(isinstance(row, list) for row in rows)
    assert got[0] == got[1]


def test_explain(pair):
    single, sharded, _ = pair
    for docid in ("d0", "d6", "d4"):
        a = single.explain("routers packets", docid)
        b = sharded.explain("routers packets", docid)
        assert str(a) == str(b)
        fields = ("docid", "score", "formula", "length", "seen_length")
        assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]
        share = ("term", "query_tf", "df", "tf", "idf", "score")
        assert [[getattr(t, f) for f in share] for t in a.terms] == [
            [getattr(t, f) for f in share] for t in b.terms
        ]


def test_sharded_ids_are_read_through_their_result(pair):
    _, sharded, _ = pair
    ids, _ = sharded.batch_search(QUERIES, 3)
    with pytest.raises(ValueError, match="not a copy"):
        sharded.docids(ids.copy())
    with pytest.raises(ValueError, match="not a copy"):
        sharded.docids(ids.tolist())
    assert sharded.docids(ids[:1]) == sharded.docids(ids)[:1]
    view = ids[:1]
    view[0, 0] = 10_000  # an id the result never gave
    with pytest.raises(ValueError, match="internal id 10000"):
        sharded.docids(view)


def test_retrieve_ranked_and_ranked_take_either(pair):
    single, sharded, _ = pair
    queries = [(f"q{i}", q) for i, q in enumerate(QUERIES)]
    assert retrieve_ranked(single, queries, 3) == retrieve_ranked(sharded, queries, 3)
    assert ranked(single, "routers packets", 3) == ranked(sharded, "routers packets", 3)
    assert ranked(single, "routers packets", 3, model="rrf")  # TF-IDF: one index only
    with pytest.raises(rserini.QueryError, match="tfidf"):
        ranked(sharded, "routers packets", 3, model="rrf")
    with pytest.raises(RseriniError, match="feedback runs on one index"):
        retrieve_ranked(sharded, queries, 3, feedback="rm3")
    assert retrieve_ranked(single, queries, 3, feedback="rm3")


def test_open_searchable_opens_either(pair):
    _, _, folder = pair
    assert isinstance(open_searchable(folder / "single"), rserini.Index)
    with open_searchable(folder / "sharded") as sharded:  # type: ignore[attr-defined]
        assert isinstance(sharded, ShardedIndex)


def test_the_command_line_runs_both_alike(pair, tmp_path: Path):
    _, _, folder = pair
    queries = tmp_path / "queries.tsv"
    queries.write_text("".join(f"q{i}\t{q}\n" for i, q in enumerate(QUERIES)), encoding="utf-8")
    runs = []
    for name in ("single", "sharded"):
        out = tmp_path / f"{name}.trec"
        command = ["run", "--index", str(folder / name), "--queries", str(queries)]
        done = subprocess.run(
            [sys.executable, "-m", "rserini", *command, "--output", str(out), "--k", "3", "-q"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        runs.append(out.read_text(encoding="utf-8"))
    assert runs[0] == runs[1] and runs[0]
