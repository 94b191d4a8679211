"""The Pyserini facade's ``set_rm3`` and ``rserini run --rm3`` (no JVM).

``tests/data/adi-pyserini-rm3.trec.gz`` is Pyserini 1.6.0's ADI run with ``set_bm25(0.9,
0.4)`` and ``set_rm3()`` (10 terms, 10 documents, original query weight 0.5; Anserini index
with ``-storeDocvectors``; 1000 hits), written by ``rserini.parity.compare(..., mode={"model":
"rm3", ...}, runs_dir=...)``; rserini must reproduce it byte for byte.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import rserini
from rserini.exceptions import QueryError
from rserini.pyserini import LuceneSearcher, NotSupportedError, run, write_run
from support import TINY, collection, rserini_run

GOLDEN = Path(__file__).parent / "data" / "adi-pyserini-rm3.trec.gz"
TAG = "pyserini-bm25-rm3"


def golden() -> str:
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as f:
        return f.read()


def test_set_rm3_turns_feedback_on_and_off() -> None:
    searcher = LuceneSearcher(rserini.Index.build(TINY, progress=False))
    plain = searcher.search("network routing", k=10)
    searcher.set_rm3(fb_terms=5, fb_docs=2, original_query_weight=0.3)
    assert searcher.is_using_rm3()
    hits = searcher.search("network routing", k=10)
    ids, scores = searcher.index.batch_search_rm3(
        ["network routing"], k=10, fb_terms=5, fb_docs=2, original_query_weight=0.3
    )
    assert [h.raw_score for h in hits] == scores[0][ids[0] >= 0].tolist()
    assert searcher.batch_search(["network routing"], ["q"], k=10)["q"] == hits
    searcher.unset_rm3()
    assert not searcher.is_using_rm3()
    assert searcher.search("network routing", k=10) == plain
    searcher.set_qld(1000)
    searcher.set_rm3()
    with pytest.raises(NotSupportedError, match="set_bm25"):
        searcher.search("network", k=1)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"fb_terms": 0}, "fb_terms"),
        ({"fb_docs": 0}, "fb_docs"),
        ({"original_query_weight": 2.0}, "original_query_weight"),
    ],
)
def test_set_rm3_rejects_bad_parameters(params: dict, message: str) -> None:
    searcher = LuceneSearcher(rserini.Index.build(TINY, progress=False))
    with pytest.raises(QueryError, match=message):
        searcher.set_rm3(**params)
    assert not searcher.is_using_rm3()


def test_set_rm3_needs_a_document_store() -> None:
    searcher = LuceneSearcher(rserini.Index.build(TINY, store=False, progress=False))
    with pytest.raises(QueryError, match="store=True"):
        searcher.set_rm3()


@pytest.mark.data
def test_adi_matches_pyserini_rm3_byte_for_byte(tmp_path: Path) -> None:
    folder = collection("adi")
    searcher = LuceneSearcher(rserini.Index.from_jsonl(folder / "corpus.jsonl", progress=False))
    searcher.set_bm25(0.9, 0.4)
    searcher.set_rm3()
    out = tmp_path / "run.trec"
    queries = rserini.read_queries(folder / "queries.jsonl")
    write_run(run(searcher, queries, k=1000, threads=2), out, tag=TAG)
    assert out.read_text(encoding="utf-8") == golden()


@pytest.mark.data
def test_cli_run_rm3_pyserini_writes_the_golden_run(tmp_path: Path) -> None:
    done = rserini_run(tmp_path, "adi", "--rm3", "--pyserini", "--tag", TAG, "-q")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "run.trec").read_text(encoding="utf-8") == golden()
    plain = tmp_path / "plain"
    plain.mkdir()
    done = rserini_run(plain, "adi", "--rm3", "--fb-docs", "10", "-q")
    assert done.returncode == 0, done.stderr
    mine = [
        line.split()[:3] for line in (plain / "run.trec").read_text(encoding="utf-8").splitlines()
    ]
    assert mine == [line.split()[:3] for line in golden().splitlines()]


def test_cli_rejects_bad_rm3_parameters(tmp_path: Path) -> None:
    result = rserini_run(tmp_path, "tiny", "--rm3", "--fb-terms", "0")
    assert result.returncode != 0
    assert "fb_terms must be at least 1" in result.stderr
