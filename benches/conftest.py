"""Fixtures of the pytest-benchmark suite: SciFact, its test queries, and each engine's index.

Run with ``pytest benches --benchmark-only``. Pyserini (``python -m rserini.parity
--install``) and bm25s (``pip install "rserini[bench]"``) join the groups when installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import rserini
from rserini.formats import read_documents, read_qrels

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("RSERINI_DATA", REPO.parent / "shared" / "data")).resolve()
SCIFACT = DATA / "scifact"
K1, B = rserini.DEFAULT_K1, rserini.DEFAULT_B


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if not SCIFACT.is_dir():
        skip = pytest.mark.skip(reason=f"SciFact not found at {SCIFACT} (set RSERINI_DATA)")
        for item in items:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def docs() -> list[tuple[str, str]]:
    """SciFact as ``(docid, title + " " + text)``, as Pyserini's BEIR indexes see it."""
    return read_documents(SCIFACT)


@pytest.fixture(scope="session")
def queries() -> list[str]:
    """The 300 judged test queries."""
    judged = read_qrels(SCIFACT / "qrels" / "test.tsv")
    return [text for qid, text in rserini.read_queries(SCIFACT / "queries.jsonl") if qid in judged]


@pytest.fixture(scope="session")
def saved_index(docs: list[tuple[str, str]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rserini") / "scifact"
    rserini.Index.build(docs, progress=False).save(path)
    return path


@pytest.fixture(scope="session")
def index(saved_index: Path) -> rserini.Index:
    return rserini.Index.load(saved_index)


class Pyserini:
    """Anserini's indexer and Pyserini's LuceneSearcher in this process (one JVM)."""

    def __init__(self, work: Path, docs: list[tuple[str, str]]) -> None:
        from rserini.parity._java import boot

        boot("4g")
        from jnius import autoclass

        self.collection = work / "collection"
        self.collection.mkdir()
        with open(self.collection / "docs.jsonl", "w", encoding="utf-8") as out:
            for docid, text in docs:
                out.write(json.dumps({"id": docid, "contents": text}) + "\n")
        self._indexer = autoclass("io.anserini.index.IndexCollection")
        self.work = work
        self.builds = 0
        self.index = self.build()
        self.searcher = self.open(self.index)

    def build(self) -> Path:
        self.builds += 1
        index = self.work / f"index-{self.builds}"
        args = ["-collection", "JsonCollection", "-input", str(self.collection)]
        args += ["-index", str(index), "-generator", "DefaultLuceneDocumentGenerator"]
        self._indexer.main([*args, "-threads", "1", "-quiet"])
        return index

    @staticmethod
    def open(index: Path) -> Any:
        from pyserini.search.lucene import LuceneSearcher

        searcher = LuceneSearcher(str(index))
        searcher.set_bm25(K1, B)
        return searcher


@pytest.fixture(scope="session")
def pyserini(docs: list[tuple[str, str]], tmp_path_factory: pytest.TempPathFactory) -> Pyserini:
    from rserini.parity._java import PyseriniUnavailableError, check_available

    try:
        check_available()
    except PyseriniUnavailableError as e:
        pytest.skip(f"Pyserini unavailable: {e}")
    return Pyserini(tmp_path_factory.mktemp("pyserini"), docs)


class Bm25s:
    """bm25s with Lucene's BM25, English stopwords and the Snowball stemmer."""

    def __init__(self, docs: list[tuple[str, str]]) -> None:
        import bm25s
        import Stemmer

        self.bm25s = bm25s
        self.stemmer = Stemmer.Stemmer("english")
        self.ids = [docid for docid, _ in docs]
        self.texts = [text for _, text in docs]
        self.retriever = self.build()

    def tokenize(self, texts: list[str]) -> Any:
        return self.bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False)

    def build(self) -> Any:
        retriever = self.bm25s.BM25(method="lucene", k1=K1, b=B)
        retriever.index(self.tokenize(self.texts), show_progress=False)
        return retriever

    def search(self, queries: list[str], k: int, threads: int = 1) -> list[list[tuple[str, float]]]:
        ids, scores = self.retriever.retrieve(
            self.tokenize(queries), k=k, n_threads=threads, show_progress=False
        )
        return [
            [(self.ids[d], float(s)) for d, s in zip(row, row_scores, strict=True) if s > 0]
            for row, row_scores in zip(ids.tolist(), scores.tolist(), strict=True)
        ]


@pytest.fixture(scope="session")
def bm25s_engine(docs: list[tuple[str, str]]) -> Iterator[Bm25s]:
    if importlib.util.find_spec("bm25s") is None or importlib.util.find_spec("Stemmer") is None:
        pytest.skip('bm25s not installed (pip install "rserini[bench]")')
    yield Bm25s(docs)
