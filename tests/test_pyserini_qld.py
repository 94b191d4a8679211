"""The Pyserini facade's ``set_qld`` and ``rserini run --qld`` (no JVM).

``tests/data/adi-pyserini-qld.trec.gz`` is Pyserini 1.6.0's ADI run with ``set_qld(1000)``
(1000 hits, written by ``rserini.parity.compare(..., mode={"model": "qld", "mu": 1000.0},
runs_dir=...)``); rserini must reproduce it byte for byte.
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest

import rserini
from rserini.exceptions import QueryError
from rserini.pyserini import LuceneSearcher, run, write_run
from support import TINY, collection, rserini_run

GOLDEN = Path(__file__).parent / "data" / "adi-pyserini-qld.trec.gz"
TAG = "pyserini-qld-mu=1000"


@pytest.fixture(scope="module")
def searcher() -> LuceneSearcher:
    return LuceneSearcher(rserini.Index.build(TINY, progress=False))


def test_set_qld_switches_the_similarity_and_set_bm25_switches_back(
    searcher: LuceneSearcher,
) -> None:
    bm25 = [(h.docid, h.raw_score) for h in searcher.search("network routing", k=10)]
    searcher.set_qld(500)
    assert searcher.get_similarity() == "LM Dirichlet(500.000000)"
    qld = searcher.search("network routing", k=10)
    want = searcher.index.search_pairs("network routing", 10, model="qld", mu=500)
    assert [(h.docid, h.raw_score) for h in qld] == want
    assert [(h.docid, h.raw_score) for h in qld] != bm25
    batch = searcher.batch_search(["network routing"], ["q"], k=10)["q"]
    assert batch == qld
    searcher.set_bm25(0.9, 0.4)
    assert searcher.get_similarity().startswith("BM25")
    assert [(h.docid, h.raw_score) for h in searcher.search("network routing", k=10)] == bm25


@pytest.mark.parametrize("mu", [-1.0, math.nan, math.inf, 1e39])
def test_set_qld_rejects_bad_mu(searcher: LuceneSearcher, mu: float) -> None:
    with pytest.raises(QueryError, match="mu must be a finite number > 0"):
        searcher.set_qld(mu)


def test_golden_file_is_a_full_pyserini_run() -> None:
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as f:
        lines = f.readlines()
    assert {line.split()[-1] for line in lines} == {TAG}
    assert len({line.split()[0] for line in lines}) == 35
    assert sum(1 for line in lines if not line.split()[4].endswith("00")) > 100  # tie nudges


@pytest.mark.data
def test_adi_matches_pyserini_qld_byte_for_byte(tmp_path: Path) -> None:
    folder = collection("adi")
    index = rserini.Index.from_jsonl(folder / "corpus.jsonl", progress=False)
    searcher = LuceneSearcher(index)
    searcher.set_qld(1000)
    queries = rserini.read_queries(folder / "queries.jsonl")
    out = tmp_path / "run.trec"
    write_run(run(searcher, queries, k=1000, threads=2), out, tag=TAG)
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as f:
        assert out.read_text(encoding="utf-8") == f.read()


@pytest.mark.data
def test_cli_run_qld_pyserini_writes_the_golden_run(tmp_path: Path) -> None:
    done = rserini_run(tmp_path, "adi", "--qld", "--mu", "1000", "--pyserini", "--tag", TAG, "-q")
    assert done.returncode == 0, done.stderr
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as f:
        assert (tmp_path / "run.trec").read_text(encoding="utf-8") == f.read()


def test_cli_rejects_a_negative_mu(tmp_path: Path) -> None:
    result = rserini_run(tmp_path, "tiny", "--qld", "--mu", "-5")
    assert result.returncode != 0
    assert "mu must be a finite number > 0" in result.stderr
