"""The Pyserini-shaped facade and Pyserini's output order, without a JVM.

``data/adi-pyserini-bm25.trec.gz`` is Pyserini 1.6.0's run on ADI (``title + " " + text``,
1000 hits, k1/b = 0.9/0.4, 1.2/0.75 and 25/1), written by ``rserini parity --corpus
adi --k1 0.9 1.2 25 --b 0.4 0.75 1 --save-runs DIR`` (the three ``pyserini-*.trec``
files, concatenated). rserini's Pyserini mode must reproduce it line for line.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

import rserini
from rserini.exceptions import QueryError
from rserini.lucene.prebuilt import UnknownPrebuiltIndexError
from rserini.pyserini import (
    LuceneSearcher,
    NotSupportedError,
    ScoredDoc,
    adjust_ties,
    round_scores,
    run,
    write_run,
)
from support import TINY, collection

GOLDEN = Path(__file__).parent / "data" / "adi-pyserini-bm25.trec.gz"
SETTINGS = [(0.9, 0.4), (1.2, 0.75), (25.0, 1.0)]

f32 = np.float32


def test_rounding_is_half_up_on_the_double_product() -> None:
    # In float32, 6.6472497 * 1e4 is exactly 66472.5; in double it is below the half.
    assert round_scores([6.6472497])[0] == f32(6.6472)
    # 1/32 * 1e4 is exactly 312.5: halves round up, as Java's Math.round.
    assert round_scores([0.03125])[0] == f32(0.0313)
    assert round_scores([1.23455])[0] == f32(1.2345)  # float32 1.2345499...
    assert round_scores([0.0, 2.5])[0] == f32(0.0)
    assert round_scores(np.array([], dtype=np.float32)).shape == (0,)
    assert round_scores([3.14159]).dtype == np.float32


def test_ties_are_nudged_apart_in_float32() -> None:
    got = adjust_ties([23.439316, 22.087432, 22.087432, 21.602508])
    want = [f32(23.4393), f32(22.0874), f32(22.0874) - f32(1e-6), f32(21.6025)]
    assert got.tolist() == [float(x) for x in want]
    # A run of ties: 1, 2, 3 steps down; then a clear gap resets the count.
    got = adjust_ties([5.0, 5.0, 5.0, 5.0, 4.0, 4.0])
    assert got.tolist() == [
        float(x)
        for x in [
            f32(5.0),
            f32(5.0) - f32(1e-6),
            f32(5.0) - f32(2e-6),
            f32(5.0) - f32(3e-6),
            f32(4.0),
            f32(4.0) - f32(1e-6),
        ]
    ]
    # The comparison is against the previous *adjusted* score: one rounding unit
    # below a nudged score is within 1e-4 of it, so the run continues.
    got = adjust_ties([2.0, 2.0, 1.9999])
    assert got[2] == f32(1.9999) - f32(2e-6)
    assert (np.diff(got) < 0).all()


def test_adjusted_scores_keep_the_order() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        scores = np.sort(rng.choice([1.0, 1.00004, 1.00011, 0.9999, 2.5], size=40))[::-1]
        adjusted = adjust_ties(scores.astype(np.float32))
        assert (np.diff(adjusted) < 0).all()


@pytest.fixture(scope="module")
def tiny_searcher(tmp_path_factory: pytest.TempPathFactory) -> LuceneSearcher:
    path = tmp_path_factory.mktemp("tiny") / "index"
    rserini.Index.build(TINY, progress=False).save(path)
    return LuceneSearcher(str(path))


def test_search_returns_pyserini_shaped_hits(tiny_searcher: LuceneSearcher) -> None:
    assert tiny_searcher.num_docs == 4
    hits = tiny_searcher.search("network packets", k=10)
    assert [h.docid for h in hits] == ["d1", "d4"]
    assert all(isinstance(h, ScoredDoc) for h in hits)
    assert [h.rank for h in hits] == [1, 2]
    for hit in hits:
        assert hit.score == float(round_scores([hit.raw_score])[0])
        assert hit.score == round(hit.raw_score, 4) or abs(hit.score - hit.raw_score) < 6e-5
    raw = tiny_searcher.index.search("network packets", k=10)
    assert [h.raw_score for h in hits] == [h.score for h in raw]
    assert tiny_searcher.search("the of and", k=10) == []
    assert tiny_searcher.search("", k=10) == []


def test_set_bm25_changes_scores_and_is_validated(tiny_searcher: LuceneSearcher) -> None:
    searcher = LuceneSearcher(tiny_searcher.index)
    default = searcher.search("network", k=2)
    searcher.set_bm25(25, 1)
    assert searcher.get_similarity() == "BM25(k1=25.0,b=1.0)"
    other = searcher.search("network", k=2)
    assert [h.raw_score for h in other] != [h.raw_score for h in default]
    expected = searcher.index.search("network", k=2, k1=25, b=1)
    assert [h.raw_score for h in other] == [h.score for h in expected]
    with pytest.raises(QueryError):
        searcher.set_bm25(-1, 0.4)
    with pytest.raises(QueryError):
        searcher.set_bm25(0.9, 2)
    with pytest.raises(QueryError):
        searcher.search("network", k=0)


def test_batch_search_equals_search(tiny_searcher: LuceneSearcher) -> None:
    queries = ["network packets", "plants energy", "zzz", "mars"]
    qids = ["a", "b", "c", "d"]
    results = tiny_searcher.batch_search(queries, qids, k=3, threads=2)
    assert list(results) == qids
    for q, qid in zip(queries, qids, strict=True):
        assert results[qid] == tiny_searcher.search(q, k=3)
    assert tiny_searcher.batch_search([], [], k=3) == {}
    with pytest.raises(ValueError, match="query ids"):
        tiny_searcher.batch_search(["x"], [], k=3)


def test_segment_ids_and_duplicates(tmp_path: Path) -> None:
    docs = [("doc1.0", "alpha beta"), ("doc1.1", "alpha"), ("doc2.0", "alpha gamma")]
    searcher = LuceneSearcher(rserini.Index.build(docs, progress=False))
    hits = searcher.search("alpha", k=10, strip_segment_id=True)
    assert [h.docid for h in hits] == ["doc1", "doc1", "doc2"]
    hits = searcher.search("alpha", k=10, strip_segment_id=True, remove_dups=True)
    assert [h.docid for h in hits] == ["doc1", "doc2"]
    assert [h.rank for h in hits] == [1, 2]


def test_unsupported_features_raise_clearly(tiny_searcher: LuceneSearcher) -> None:
    with pytest.raises(NotSupportedError, match=r"Lucene \(Java\) document objects"):
        tiny_searcher.search("network", k=1)[0].lucene_document  # noqa: B018
    with pytest.raises(NotSupportedError):
        tiny_searcher.doc_by_field("id", "d1")
    with pytest.raises(UnknownPrebuiltIndexError, match=r"beir-v1\.0\.0-scifact\.flat"):
        LuceneSearcher.from_prebuilt_index("beir-v1.0.0-scifact.flta", download=False)
    for call in (
        lambda: tiny_searcher.set_analyzer(object()),
        lambda: tiny_searcher.set_language("fr"),
        lambda: tiny_searcher.search("x", query_generator=object()),
    ):
        with pytest.raises(NotSupportedError):
            call()
    with pytest.raises(QueryError, match='no field "title"'):
        tiny_searcher.search("x", fields={"title": 2.0})
    assert isinstance(NotSupportedError("x"), NotImplementedError)
    assert not tiny_searcher.is_using_rm3()
    with LuceneSearcher(tiny_searcher.index) as searcher:
        assert searcher.num_docs == 4


def test_doc_returns_stored_documents(tiny_searcher: LuceneSearcher) -> None:
    document = tiny_searcher.doc("d2")
    assert document is not None
    assert document.docid() == document.id() == "d2"
    assert document.contents() == dict(TINY)["d2"]
    assert json.loads(document.raw()) == {"id": "d2", "contents": dict(TINY)["d2"]}
    assert document.get("contents") == dict(TINY)["d2"] and document.get("nope") is None
    assert tiny_searcher.doc("nope") is None
    hit = tiny_searcher.search("photosynthesis", k=1)[0]
    by_internal_id = tiny_searcher.doc(hit.lucene_docid)
    assert by_internal_id is not None and by_internal_id.docid() == hit.docid
    assert tiny_searcher.doc(10_000) is None
    assert list(tiny_searcher.batch_get_docs(["d1", "nope", "d3"])) == ["d1", "d3"]
    with pytest.raises(NotSupportedError):
        document.lucene_document()
    bare = LuceneSearcher(rserini.Index.build(TINY, progress=False, store=False))
    with pytest.raises(NotSupportedError, match="stores no documents"):
        bare.doc("d1")


def test_run_removes_the_query_after_searching_k(tiny_searcher: LuceneSearcher) -> None:
    # Like Pyserini's --remove-query: k hits are searched, then the query's own
    # document is dropped, leaving k - 1.
    queries = [("d1", "network packets routers switches"), ("q2", "network")]
    results = run(tiny_searcher, queries, k=2, remove_query=True)
    assert [h.docid for h in results["d1"]] == ["d4"]
    assert [h.rank for h in results["d1"]] == [1]
    assert len(results["q2"]) == 2


def golden_lines() -> dict[str, list[str]]:
    by_tag: dict[str, list[str]] = {}
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as f:
        for line in f:
            by_tag.setdefault(line.split()[-1], []).append(line)
    return by_tag


def test_golden_file_holds_the_three_settings() -> None:
    golden = golden_lines()
    assert sorted(golden) == sorted(f"pyserini-k1={k1:g}-b={b:g}" for k1, b in SETTINGS)
    nudged = sum(
        1 for lines in golden.values() for line in lines if not line.split()[4].endswith("00")
    )
    assert nudged > 100  # the tie adjuster is exercised


@pytest.mark.data
@pytest.mark.parametrize(("k1", "b"), SETTINGS)
def test_adi_matches_the_golden_pyserini_run(k1: float, b: float, tmp_path: Path) -> None:
    folder = collection("adi")
    index = rserini.Index.from_jsonl(folder / "corpus.jsonl", progress=False)
    searcher = LuceneSearcher(index)
    searcher.set_bm25(k1, b)
    queries = rserini.read_queries(folder / "queries.jsonl")
    tag = f"pyserini-k1={k1:g}-b={b:g}"
    out = tmp_path / "run.trec"
    write_run(run(searcher, queries, k=1000, threads=2), out, tag=tag)
    ours = out.read_text(encoding="utf-8").splitlines(keepends=True)
    theirs = golden_lines()[tag]
    assert len(ours) == len(theirs)
    for mine, reference in zip(ours, theirs, strict=True):
        assert mine == reference
