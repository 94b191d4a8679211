"""The Pyserini facade's ``set_rocchio`` and ``rserini run --rocchio`` (no JVM).

``tests/data/adi-pyserini-rocchio.trec.gz`` is Pyserini 1.6.0's ADI run with
``set_bm25(0.9, 0.4)`` and ``set_rocchio()`` (its defaults; Anserini index with
``-storeDocvectors``; 1000 hits), written by ``rserini.parity.compare(..., mode={"model":
"rocchio", ...}, runs_dir=...)``; rserini must reproduce it byte for byte.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import rserini
from rserini.exceptions import QueryError
from rserini.pyserini import LuceneSearcher, run, write_run
from support import TINY, collection, rserini_run

GOLDEN = Path(__file__).parent / "data" / "adi-pyserini-rocchio.trec.gz"
TAG = "pyserini-bm25-rocchio"


def golden() -> str:
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as f:
        return f.read()


def test_set_rocchio_turns_feedback_on_and_off() -> None:
    searcher = LuceneSearcher(rserini.Index.build(TINY, progress=False))
    plain = searcher.search("network routing", k=10)
    searcher.set_rocchio(top_fb_docs=2, beta=0.5)
    assert searcher.is_using_rocchio() and not searcher.is_using_rm3()
    hits = searcher.search("network routing", k=10)
    ids, scores = searcher.index.batch_search_rocchio(
        ["network routing"], k=10, top_fb_docs=2, beta=0.5
    )
    assert [h.raw_score for h in hits] == scores[0][ids[0] >= 0].tolist()
    searcher.unset_rocchio()
    assert not searcher.is_using_rocchio()
    assert searcher.search("network routing", k=10) == plain


@pytest.mark.parametrize(
    ("params", "message"), [({"top_fb_docs": 0}, "top_fb_docs"), ({"alpha": 2}, "alpha")]
)
def test_set_rocchio_rejects_bad_parameters(params: dict, message: str) -> None:
    searcher = LuceneSearcher(rserini.Index.build(TINY, progress=False))
    with pytest.raises(QueryError, match=message):
        searcher.set_rocchio(**params)
    assert not searcher.is_using_rocchio()
    store_less = LuceneSearcher(rserini.Index.build(TINY, store=False, progress=False))
    with pytest.raises(QueryError, match="store=True"):
        store_less.set_rocchio()


@pytest.mark.data
def test_adi_matches_pyserini_rocchio_byte_for_byte(tmp_path: Path) -> None:
    folder = collection("adi")
    searcher = LuceneSearcher(rserini.Index.from_jsonl(folder / "corpus.jsonl", progress=False))
    searcher.set_rocchio()
    out = tmp_path / "run.trec"
    queries = rserini.read_queries(folder / "queries.jsonl")
    write_run(run(searcher, queries, k=1000, threads=2), out, tag=TAG)
    assert out.read_text(encoding="utf-8") == golden()


@pytest.mark.data
def test_cli_run_rocchio_pyserini_writes_the_golden_run(tmp_path: Path) -> None:
    done = rserini_run(tmp_path, "adi", "--rocchio", "--pyserini", "--tag", TAG, "-q")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "run.trec").read_text(encoding="utf-8") == golden()
