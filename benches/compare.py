"""Side-by-side comparison of rserini with other BM25 engines on one BEIR corpus.

    python benches/compare.py [CORPUS_DIR] [--engines rserini,pyserini,...] [--smoke]
                              [--queries N] [--builds N] [--rounds N]
                              [--fractions 0.1,0.3,1]
                              [--curve-only] [--plot PNG] [--write-docs]

CORPUS_DIR is a BEIR folder (corpus.jsonl[.gz] of {"_id", "title", "text"}, indexed as
title + " " + text; queries.jsonl; qrels/test.tsv) and defaults to ../shared/data/scifact.
The judged queries of qrels/test.tsv are run, in file order, by every engine; without
qrels (benches/linux_corpus.py's folders), every query of queries.jsonl is, and the nDCG
column shows an en dash. ``--queries N`` keeps the first N.

Each engine runs in its own subprocess (``python benches/compare.py --worker ENGINE SPEC``),
so the peak RSS reported (``ru_maxrss`` from ``wait4``) is that engine's alone. A worker
builds the index with one thread, then, after a warm-up of a few queries, times with
``time.perf_counter`` the whole loop of single-query calls from the query string to a
list of ``(docid, score)``: at k = 10 (also giving per-query p50/p99 latency) and at
k = 1000; where the engine offers batch retrieval, its batch call over all the queries
at 1 thread and at 2 threads, at both k. nDCG@10 of the k = 10 run is computed with
``ir_measures``. A missing engine gets a "not installed" row naming
its pip command; an engine that fails gets a row with the error; the run goes on.

rserini's exactness: when its ``search``/``batch_search`` take ``algorithm``, the worker
runs every query again, after the timings, with ``algorithm="exhaustive"`` at k = 10 and
k = 1000 and compares docids, order and scores with what the timed (``auto``) single and
batch runs returned; the outcome is in rserini's notes.

``--rounds N`` runs the engines N times in turn (default 3, 1 with ``--smoke``), round r
starting with the r-th engine of ``--engines``, so that a slow minute of a shared
machine falls on every engine rather than on one; every figure reported is the median of
the rounds (peak RSS the largest), and the ratio row gives the range of the ratios measured
round by round. ``--builds N`` sets the index builds per engine and round (median
reported; default 3, 1 with ``--smoke``). ``--fractions 0.1,0.3,1`` adds a build-time
curve: rserini (1 thread and all cores) and tantivy (the fastest peer at indexing; 1 thread
and all cores) build 10 %, 30 % and 100 % of the documents, each in its own process
(``--curve-only`` skips the query comparison). Below 100 % there are two subsets of each
size: the first documents, and a sample by title (a document is kept when a hash of its
title, or of its id, falls below the fraction, so one title's documents stay together and
the samples are nested).
``--plot PNG`` draws QPS bars per engine and the curve (matplotlib).

``--smoke`` keeps the first 300 documents and 20 queries (seconds, for CI);
``--write-docs`` replaces this corpus's section of docs/benchmarks.md (one section per
corpus folder name; others are kept) with the table, the curve, the command, the machine
and the date, and draws docs/img/bench-<corpus>.png.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import importlib.util
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

# numpy's OpenBLAS starts a pool of worker threads that busy-wait; no engine here computes
# with BLAS, and on a two-core machine those threads take time from the ones measured. The
# workers inherit this.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "data" / "scifact"
DOCS = REPO / "docs" / "benchmarks.md"
SECTION = "## Comparison with other engines"
IMAGES = REPO / "docs" / "img"
NOT_JUDGED = "\u2013"
"""The nDCG@10 cell of a corpus without qrels."""
NO_ALGORITHM = "exactness not checked (no algorithm option)"

K1, B = 0.9, 0.4
WARMUP = 20
"""Queries run at each k before timing (the JVM needs more than a handful)."""
BUILDS = 3
"""Index builds per engine and round; the median time is reported."""
ROUNDS = 3
"""Times every engine runs, in turn (--rounds); each figure is the median of the rounds."""
MIN_SECONDS, MIN_PASSES, MAX_SECONDS, MAX_PASSES = 1.0, 5, 15.0, 50
"""Loops are timed several times (median): fast ones until they take MIN_SECONDS, so that
one pass of milliseconds is not all that is measured, and every one at least MIN_PASSES
times unless that takes MAX_SECONDS (one pass of a slow engine), since the shared
machine's speed swings by a third from one pass to the next."""
SMOKE_DOCS, SMOKE_QUERIES = 300, 20
RANK_BM25_MAX_DOCS = 20_000
RANK_BM25_DEEP_QUERIES = 100
"""rank_bm25 scores every document per query; its k = 1000 loop is capped at this many."""

ENGINES: dict[str, dict[str, str]] = {
    "rserini": {"module": "rserini", "pip": "pip install rserini", "label": "rserini"},
    "pyserini": {
        "module": "pyserini",
        "pip": "pip install 'rserini[parity]' && python -m rserini.parity --install",
        "label": "Pyserini (Lucene)",
    },
    "bm25s": {"module": "bm25s", "pip": "pip install bm25s PyStemmer numba", "label": "bm25s"},
    "tantivy": {"module": "tantivy", "pip": "pip install tantivy", "label": "tantivy"},
    "pisa": {
        "module": "pyterrier_pisa",
        "pip": "pip install pyterrier-pisa==0.4.9",
        "label": "PISA",
    },
    "rank_bm25": {"module": "rank_bm25", "pip": "pip install rank_bm25", "label": "rank_bm25"},
    "bm25_turbo": {
        "module": "bm25_turbo_python",
        "pip": "pip install bm25-turbo",
        "label": "BM25 Turbo",
    },
}
CURVE_ENGINES = ("rserini", "tantivy")
"""Built at each --fractions: rserini, and the fastest peer at indexing."""


# --------------------------------------------------------------------------------------
# Input


def collection_files(folder: Path) -> tuple[Path, Path, Path | None]:
    """``(corpus, queries, qrels or None)`` of a BEIR folder, found as rserini finds them."""
    from rserini.formats import beir_files

    found = beir_files(folder)
    if found is None:
        raise SystemExit(f"compare: no corpus.jsonl[.gz] in {folder}")
    corpus, queries, qrels = found
    if queries is None:
        raise SystemExit(f"compare: no queries.jsonl in {folder}")
    return corpus, queries, qrels


def open_text(path: Path) -> Any:
    opener = gzip.open if path.suffix == ".gz" else open
    return opener(path, "rt", encoding="utf-8")


def read_pairs(path: Path) -> list[tuple[str, str]]:
    """``(docid, indexed text)`` of every document, as ``rserini index`` reads them: the
    workers keep only these two strings in memory, not the parsed dicts (a million
    documents of the Linux corpus)."""
    from rserini.formats import read_documents

    return read_documents(path)


def copy_corpus(source: Path, dest: Path, limit: int | None) -> int:
    """Copies the first ``limit`` (None: all) non-blank lines of ``source`` to plain
    ``dest``, line by line (no parsing); returns how many."""
    n = 0
    with open_text(source) as src, open(dest, "w", encoding="utf-8") as out:
        for line in src:
            if limit is not None and n >= limit:
                break
            if line.strip():
                out.write(line if line.endswith("\n") else line + "\n")
                n += 1
    return n


def count_docs(path: Path) -> int:
    with open_text(path) as f:
        return sum(1 for line in f if line.strip())


def read_qrels(path: Path | None) -> dict[str, dict[str, int]] | None:
    """The judgments of ``path``, or None when there is no such file."""
    from rserini.formats import read_qrels as read

    return read(path) if path is not None and path.is_file() else None


def read_queries(
    path: Path, judged: dict[str, dict[str, int]] | None, limit: int | None = None
) -> list[tuple[str, str]]:
    """The queries of ``path`` in file order: those judged in ``judged``, or all of them
    when it is None; the first ``limit`` only."""
    from rserini.formats import read_queries as read

    queries = [(qid, text) for qid, text in read(path) if judged is None or qid in judged]
    return queries[:limit]


def words(text: str) -> list[str]:
    """Lowercased words, punctuation stripped (for engines without their own analyzer, and
    to keep tantivy's query parser from reading syntax)."""
    return re.findall(r"\w+", text.lower())


def folder_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# --------------------------------------------------------------------------------------
# Workers: one engine each, in a subprocess


class Timer:
    """Times single-query loops of one engine and keeps the k = 10 run."""

    def __init__(
        self, queries: list[tuple[str, str]], deep_k: int, min_seconds: float, builds: int
    ) -> None:
        self.queries = queries
        self.builds = builds
        self.min_seconds = min_seconds
        self.deep_k = deep_k
        self.result: dict[str, Any] = {}
        self.hits: dict[int, list[Any]] = {}
        """k -> the hits of each query in the last timed single-query pass."""
        self.batch_hits: dict[tuple[int, int], list[Any]] = {}
        """(threads, k) -> the hits of each query in the last timed batch pass."""

    def single(self, search: Any, deep_limit: int | None = None) -> None:
        """``search(text, k) -> [(docid, score), ...]``, one call per query."""
        texts = [text for _, text in self.queries]
        for text in texts[:WARMUP]:
            search(text, 10)
            search(text, self.deep_k)
        latencies: list[float] = []
        hits10: list[Any] = [None] * len(texts)

        def k10() -> None:
            for i, text in enumerate(texts):
                t0 = time.perf_counter()
                hits10[i] = search(text, 10)
                latencies.append(time.perf_counter() - t0)

        self.result["qps10"] = len(texts) / self.passes(k10)
        self.result["p50_ms"] = 1000 * statistics.median(latencies)
        self.result["p99_ms"] = 1000 * quantile(latencies, 0.99)
        self.result["run"] = {
            qid: {docid: float(score) for docid, score in hits}
            for (qid, _), hits in zip(self.queries, hits10, strict=True)
        }
        self.hits[10] = hits10
        deep = texts if deep_limit is None else texts[:deep_limit]
        hits_deep: list[Any] = [None] * len(deep)

        def k1000() -> None:
            for i, text in enumerate(deep):
                hits_deep[i] = search(text, self.deep_k)

        self.result["qps1000"] = len(deep) / self.passes(k1000)
        self.result["deep_queries"] = len(deep)
        self.hits[self.deep_k] = hits_deep

    def batch(self, search: Any, threads: int, key: str = "qps") -> None:
        """``search(texts, k, threads) -> [[(docid, score), ...], ...]``: one call for all
        the queries; QPS under ``{key}10_t{threads}`` and ``{key}1000_t{threads}``."""
        texts = [text for _, text in self.queries]
        search(texts[:WARMUP], 10, threads)
        for k, name in ((10, "10"), (self.deep_k, "1000")):
            last: list[Any] = []

            def loop(k: int = k, last: list[Any] = last) -> None:
                last[:] = [search(texts, k, threads)]

            self.result[f"{key}{name}_t{threads}"] = len(texts) / self.passes(loop)
            if key == "qps":
                self.batch_hits[(threads, k)] = last[0]

    def batches(self, search: Any) -> None:
        """The batch call at 1 thread and at 2 threads."""
        for threads in (1, 2):
            self.batch(search, threads)

    def build(self, make: Any, key: str = "index_s") -> Any:
        """Runs ``make(attempt)`` ``builds`` times (--builds: BUILDS, 1 with --smoke), each
        into a fresh place; records the median seconds under ``key`` and returns the last
        index."""
        times, index = [], None
        for attempt in range(self.builds):
            start = time.perf_counter()
            index = make(attempt)
            times.append(time.perf_counter() - start)
        self.result[key] = statistics.median(times)
        return index

    def passes(self, loop: Any) -> float:
        """Median seconds of one pass of ``loop``, each pass timed as a whole; passes are
        repeated until they add up to ``min_seconds`` (MIN_SECONDS; 0 with --smoke) and
        number MIN_PASSES (not with --smoke), or add up to MAX_SECONDS; at most MAX_PASSES
        times, at least once."""
        times: list[float] = []
        least = MIN_PASSES if self.min_seconds > 0 else 1

        def more() -> bool:
            if not times:
                return True
            spent, done = sum(times), len(times)
            enough = spent >= self.min_seconds and done >= least
            return not enough and spent < MAX_SECONDS and done < MAX_PASSES

        while more():
            start = time.perf_counter()
            loop()
            times.append(time.perf_counter() - start)
        return statistics.median(times)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def work_rserini(spec: dict[str, Any], timer: Timer) -> None:
    import rserini

    def make(threads: int | None) -> Any:
        return rserini.Index.from_jsonl(
            spec["corpus"], threads=threads, store=False, progress=False
        )

    index = timer.build(lambda _: make(1))
    timer.build(lambda _: make(None), "index_all_s")
    index.save(Path(spec["work"]) / "index")
    timer.result["disk_bytes"] = folder_size(Path(spec["work"]) / "index")

    # The other engines' docid strings exist before their queries are timed (made when
    # the corpus is read); rserini makes each on first use and keeps it: make them all.
    index.docids(range(len(index)))

    def search(text: str, k: int) -> list[tuple[str, float]]:
        return index.search_pairs(text, k, k1=K1, b=B)

    def batch(texts: list[str], k: int, threads: int) -> list[list[tuple[str, float]]]:
        return index.batch_search_pairs(texts, k, threads=threads, k1=K1, b=B)

    def arrays(texts: list[str], k: int, threads: int) -> Any:
        return index.batch_search(texts, k, threads=threads, k1=K1, b=B)

    timer.single(search)
    timer.batches(batch)
    timer.batch(arrays, 1, key="arrays")
    timer.result["exact"] = check_exact(index, timer)
    timer.result["notes"] = (
        f"all cores ({os.cpu_count()}): "
        "index {index_all_s:.3f} s; no document store; docid strings made before timing; "
        "search_pairs; batch: batch_search_pairs(threads=1 or 2); batch_search (numpy arrays "
        "of internal ids and scores, no Python tuples), 1 thread: {arrays10_t1:,.0f} QPS at "
        "k=10, {arrays1000_t1:,.0f} at k=1000; {exact}"
    )


def batch_pairs(index: Any, ids: Any, scores: Any) -> list[list[tuple[str, float]]]:
    """rserini's batch arrays as ``(docid, score)`` lists (rows are padded past the hits:
    ``docids`` returns the hits only, and zip stops there)."""
    docids = index.docids(ids)
    return [list(zip(d, s.tolist(), strict=False)) for d, s in zip(docids, scores, strict=True)]


def check_exact(index: Any, timer: Timer) -> str:
    """Runs every query of ``timer`` at each k it timed with ``algorithm="exhaustive"``,
    single and batch, and compares with the timed (``auto``) hits: same docids, same order,
    same scores. Returns the sentence for the notes."""
    texts = [text for _, text in timer.queries]
    try:
        index.search(texts[0] if texts else "probe", 10, k1=K1, b=B, algorithm="exhaustive")
    except TypeError:
        return NO_ALGORITHM
    ks = sorted(k for k in timer.hits if len(timer.hits[k]) == len(texts))
    differ: dict[int, list[str]] = {}
    for k in ks:
        bad = []
        for i, text in enumerate(texts):
            hits = index.search(text, k, k1=K1, b=B, algorithm="exhaustive")
            if [(h.docid, h.score) for h in hits] != list(timer.hits[k][i]):
                bad.append(f"query {timer.queries[i][0]} (single)")
        for (threads, batch_k), batch_hits in timer.batch_hits.items():
            if batch_k != k:
                continue
            ids, scores = index.batch_search(
                texts, k, threads=threads, k1=K1, b=B, algorithm="exhaustive"
            )
            exact = batch_pairs(index, ids, scores)
            for i, (mine, want) in enumerate(zip(batch_hits, exact, strict=True)):
                if list(mine) != want:
                    bad.append(f"query {timer.queries[i][0]} (batch, {threads} threads)")
        differ[k] = bad
    at = " and ".join(f"k={k}" for k in ks)
    if not any(differ.values()):
        return f"pruned == exhaustive on {len(texts)}/{len(texts)} queries at {at}"
    parts = [
        f"k={k}: {len(bad)} differ (first: {', '.join(bad[:3])})"
        for k, bad in differ.items()
        if bad
    ]
    return f"pruned != exhaustive on {len(texts)} queries at {at}: " + "; ".join(parts)


def work_pyserini(spec: dict[str, Any], timer: Timer) -> None:
    from rserini.parity._java import boot

    boot("4g")
    from jnius import autoclass

    work = Path(spec["work"])
    collection = work / "collection"
    collection.mkdir()
    with open(collection / "docs.jsonl", "w", encoding="utf-8") as out:
        for docid, text in read_pairs(Path(spec["corpus"])):
            out.write(json.dumps({"id": docid, "contents": text}) + "\n")

    def make(attempt: int) -> Path:
        index = work / f"index-{attempt}"
        args = ["-collection", "JsonCollection", "-input", str(collection), "-index", str(index)]
        args += ["-generator", "DefaultLuceneDocumentGenerator", "-threads", "1", "-quiet"]
        autoclass("io.anserini.index.IndexCollection").main(args)
        return index

    index = timer.build(make)
    timer.result["disk_bytes"] = folder_size(index)
    from pyserini.search.lucene import LuceneSearcher

    searcher = LuceneSearcher(str(index))
    searcher.set_bm25(K1, B)

    def search(text: str, k: int) -> list[tuple[str, float]]:
        return [(h.docid, h.score) for h in searcher.search(text, k)]

    def batch(texts: list[str], k: int, threads: int) -> list[list[tuple[str, float]]]:
        qids = [str(i) for i in range(len(texts))]
        out = searcher.batch_search(texts, qids, k, threads)
        return [[(h.docid, h.score) for h in out[q]] for q in qids]

    timer.single(search)
    timer.batches(batch)
    timer.result["notes"] = (
        "Anserini IndexCollection (positions, docid stored); JVM -Xmx4g; "
        "batch: batch_search(threads=1 or 2)"
    )


def work_bm25s(spec: dict[str, Any], timer: Timer) -> None:
    import bm25s
    import Stemmer
    from bm25s.tokenization import Tokenized

    backend = "numba" if importlib.util.find_spec("numba") else "numpy"
    ids, texts = unzip(read_pairs(Path(spec["corpus"])))
    stemmer = Stemmer.Stemmer("english")

    def make(_: int) -> Any:
        tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
        retriever = bm25s.BM25(method="lucene", k1=K1, b=B, backend=backend)
        retriever.index(tokens, show_progress=False)
        del tokens  # a list per document: gigabytes at a million documents
        return retriever

    retriever = timer.build(make)
    texts.clear()
    retriever.save(str(Path(spec["work"]) / "index"))
    timer.result["disk_bytes"] = folder_size(Path(spec["work"]) / "index")
    if backend == "numba":  # compile the kernels before timing
        retriever.retrieve(bm25s.tokenize(["warm up"], show_progress=False), k=5)

    def run(qs: list[str], k: int, threads: int) -> list[list[tuple[str, float]]]:
        q = bm25s.tokenize(qs, stopwords="en", stemmer=stemmer, show_progress=False)
        # bm25s rejects a batch whose queries have no token at all (its tokenizer drops
        # one-character words and stopwords: code lines such as "if (r <"); those get [].
        keep = [i for i, tokens in enumerate(q.ids) if tokens]
        out: list[list[tuple[str, float]]] = [[] for _ in qs]
        if not keep:
            return out
        if len(keep) < len(qs):
            q = Tokenized(ids=[q.ids[i] for i in keep], vocab=q.vocab)
        kk = min(k, len(ids))
        res, scores = retriever.retrieve(q, k=kk, n_threads=threads, show_progress=False)
        for i, r, sc in zip(keep, res.tolist(), scores.tolist(), strict=True):
            out[i] = [(ids[d], float(s)) for d, s in zip(r, sc, strict=True) if s > 0]
        return out

    timer.single(lambda text, k: run([text], k, 1)[0])
    timer.batches(run)
    timer.result["notes"] = (
        f"{backend} backend; English stopwords, Snowball stemmer; batch: retrieve(n_threads=1 or 2)"
    )


def work_tantivy(spec: dict[str, Any], timer: Timer) -> None:
    import tantivy

    docs = read_pairs(Path(spec["corpus"]))
    make = tantivy_builder(spec, docs, 1)
    index, path = timer.build(make)
    timer.result["disk_bytes"] = folder_size(path)
    searcher = index.searcher()
    # Doc address -> docid, read once (outside the timings) so that hits are not fetched
    # from the document store one by one.
    everything = searcher.search(tantivy.Query.all_query(), limit=max(1, len(docs))).hits
    docid = {(a.segment_ord, a.doc): searcher.doc(a)["id"][0] for _, a in everything}
    docs.clear()

    def search(text: str, k: int) -> list[tuple[str, float]]:
        terms = words(text)
        if not terms:
            return []
        query = index.parse_query(" ".join(terms), ["body"])
        hits = searcher.search(query, limit=k).hits
        return [(docid[(a.segment_ord, a.doc)], s) for s, a in hits]

    timer.single(search)
    timer.result["notes"] = (
        "en_stem tokenizer; k1 = 1.2, b = 0.75 fixed by tantivy; "
        f"writer: 1 thread, {TANTIVY_HEAP_MB} MB heap"
    )


TANTIVY_HEAP_MB = 200
"""tantivy's indexing memory per writer thread before it flushes a segment."""


def tantivy_builder(spec: dict[str, Any], docs: list[tuple[str, str]], threads: int) -> Any:
    """``make(attempt) -> (index, path)`` building ``docs`` with ``threads`` writer threads."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
    schema = builder.build()

    def make(attempt: int) -> tuple[Any, Path]:
        path = Path(spec["work"]) / f"index-{threads}-{attempt}"
        path.mkdir()
        index = tantivy.Index(schema, path=str(path))
        writer = index.writer(heap_size=TANTIVY_HEAP_MB * 1_000_000 * threads, num_threads=threads)
        for docid, body in docs:
            writer.add_document(tantivy.Document(id=docid, body=body))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        return index, path

    return make


def work_rank_bm25(spec: dict[str, Any], timer: Timer) -> None:
    import numpy as np
    from rank_bm25 import BM25Okapi

    if spec["documents"] > RANK_BM25_MAX_DOCS:
        raise SkipError(f"skipped: {spec['documents']:,} documents > {RANK_BM25_MAX_DOCS:,}")
    ids, texts = unzip(read_pairs(Path(spec["corpus"])))
    bm25 = timer.build(lambda _: BM25Okapi([words(text) for text in texts], k1=K1, b=B))

    def search(text: str, k: int) -> list[tuple[str, float]]:
        scores = bm25.get_scores(words(text))
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(ids[i], float(scores[i])) for i in top if scores[i] > 0]

    timer.single(search, deep_limit=RANK_BM25_DEEP_QUERIES)
    deep = timer.result["deep_queries"]
    timer.result["notes"] = "BM25Okapi, lowercased \\w+ tokens, k1 = 0.9, b = 0.4; in memory" + (
        f"; k = 1000 QPS on the first {deep} queries" if deep < len(timer.queries) else ""
    )


def work_pisa(spec: dict[str, Any], timer: Timer) -> None:
    from pyterrier_pisa import PisaIndex

    docs = read_pairs(Path(spec["corpus"]))

    def make(attempt: int) -> tuple[Any, Path]:
        path = Path(spec["work"]) / f"index-{attempt}"
        index = PisaIndex(str(path), stemmer="porter2", threads=1)
        index.index({"docno": docid, "text": text} for docid, text in docs)
        return index, path

    index, path = timer.build(make)
    docs.clear()  # the closure's list: a gigabyte at a million documents
    timer.result["disk_bytes"] = folder_size(path)
    retrievers: dict[tuple[int, int, str], Any] = {}

    def retriever(k: int, threads: int, algorithm: str = "block_max_wand") -> Any:
        key = (k, threads, algorithm)
        if key not in retrievers:
            retrievers[key] = index.bm25(
                k1=K1, b=B, num_results=k, threads=threads, query_algorithm=algorithm
            )
        return retrievers[key]

    def search(text: str, k: int) -> list[tuple[str, float]]:
        q = " ".join(words(text)) or "x"
        res = retriever(k, 1).search(q)
        return list(zip(res["docno"].tolist(), res["score"].tolist(), strict=True))

    def native(algorithm: str) -> Any:
        """PISA's own batch call, as ``PisaRetrieve.transform`` makes it, without the
        pandas frames around it."""
        import numpy as np
        from pyterrier_pisa import _pisathon

        def batch(texts: list[str], k: int, threads: int) -> list[list[tuple[str, float]]]:
            r = retriever(k, threads, algorithm)
            size = len(texts) * k
            qidx = np.empty(size, dtype=np.int32)
            docnos = np.empty(size, dtype=object)
            ranks = np.empty(size, dtype=np.int32)
            scores = np.empty(size, dtype=np.float32)
            found = _pisathon.retrieve(
                r._ctxt,
                r.query_algorithm.value,
                [(i, " ".join(words(t)) or "x") for i, t in enumerate(texts)],
                k=k,
                threads=threads,
                query_weighted=1 if r.query_weighted else 0,
                pretokenised=False,
                result_qidxs=qidx,
                result_docnos=docnos,
                result_ranks=ranks,
                result_scores=scores,
            )
            out: list[list[tuple[str, float]]] = [[] for _ in texts]
            for q, d, sc in zip(
                qidx[:found].tolist(), docnos[:found].tolist(), scores[:found].tolist(), strict=True
            ):
                out[q].append((d, sc))
            return out

        return batch

    timer.single(search)
    best: list[str] = []
    for algorithm, key in (("block_max_wand", "bmw"), ("maxscore", "maxscore")):
        for threads in (1, 2):
            timer.batch(native(algorithm), threads, key=key)
    for column in ("10_t1", "1000_t1", "10_t2", "1000_t2"):
        key = max(("bmw", "maxscore"), key=lambda a: timer.result[f"{a}{column}"])
        timer.result[f"qps{column}"] = timer.result[f"{key}{column}"]
        # Named per round; rounds that differ are listed in turn (see merge_rounds).
        timer.result[f"algorithm{column}"] = "BMW" if key == "bmw" else "MaxScore"
        k, threads = column.split("_t")
        label = f"k={k}, {threads} thread{'s' if threads != '1' else ''}"
        best.append(f"{label}: {{algorithm{column}}}")
    timer.result["notes"] = (
        "Porter2 stemmer, default stopwords; single calls: bm25().search (BMW); batch: "
        "the native batch retrieve(threads=1 or 2) without pandas, best of BMW and MaxScore "
        f"({', '.join(best)})"
    )


def work_bm25_turbo(spec: dict[str, Any], timer: Timer) -> None:
    from bm25_turbo_python import BM25

    ids, texts = unzip(read_pairs(Path(spec["corpus"])))

    def make(_: int) -> Any:
        engine = BM25(method="lucene", k1=K1, b=B)
        engine.index(texts)
        return engine

    engine = timer.build(make)
    texts.clear()
    path = Path(spec["work"]) / "index.bm25"
    engine.save(str(path))
    timer.result["disk_bytes"] = folder_size(path)

    def search(text: str, k: int) -> list[tuple[str, float]]:
        found, scores = engine.search(text, k=k)
        return [(ids[i], s) for i, s in zip(found, scores, strict=True)]

    timer.single(search)
    timer.result["notes"] = (
        "BM25(method='lucene'), the README's setup; its tokenizer: lowercased words, "
        "no stemming, no stopwords; scores precomputed at indexing; no batch call"
    )


def curve_rserini(spec: dict[str, Any], timer: Timer) -> None:
    import rserini

    for threads, key in ((1, "index_s"), (None, "index_all_s")):
        timer.build(
            lambda _, t=threads: rserini.Index.from_jsonl(
                spec["corpus"], threads=t, store=False, progress=False
            ),
            key,
        )


def curve_tantivy(spec: dict[str, Any], timer: Timer) -> None:
    docs = read_pairs(Path(spec["corpus"]))
    for threads, key in ((1, "index_s"), (os.cpu_count() or 1, "index_all_s")):
        timer.build(tantivy_builder(spec, docs, threads), key)


def unzip(pairs: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    return [p[0] for p in pairs], [p[1] for p in pairs]


class SkipError(Exception):
    """An engine that does not apply to this corpus."""


WORKERS = {
    "rserini": work_rserini,
    "pyserini": work_pyserini,
    "bm25s": work_bm25s,
    "tantivy": work_tantivy,
    "pisa": work_pisa,
    "rank_bm25": work_rank_bm25,
    "bm25_turbo": work_bm25_turbo,
    "curve:rserini": curve_rserini,
    "curve:tantivy": curve_tantivy,
}


def worker(engine: str, spec_path: Path) -> int:
    """Runs ``WORKERS[engine]``, which fills ``timer.result``: numbers, and ``notes``, a
    ``str.format`` template over the result (filled by the driver once the rounds are
    merged, so that the figures it names are the medians too)."""
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    queries = [tuple(q) for q in spec["queries"]]
    timer = Timer(queries, spec["deep_k"], spec["min_seconds"], spec["builds"])
    try:
        WORKERS[engine](spec, timer)
    except SkipError as e:
        timer.result = {"skipped": str(e)}
    Path(spec["out"]).write_text(json.dumps(timer.result), encoding="utf-8")
    return 0


# --------------------------------------------------------------------------------------
# Driver


def run_engine(
    engine: str, spec: dict[str, Any], work: Path, name: str | None = None
) -> dict[str, Any]:
    """Runs worker ``engine`` (``ENGINES`` key, or ``curve:`` and one) in a subprocess,
    in ``work/name``; its result with the process's peak RSS."""
    module = ENGINES[engine.removeprefix("curve:")]
    if importlib.util.find_spec(module["module"]) is None:
        return {"skipped": f"not installed: `{module['pip']}`"}
    folder = work / (name or engine)
    folder.mkdir()
    spec = {**spec, "work": str(folder), "out": str(folder / "result.json")}
    spec_path = folder / "spec.json"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    log = folder / "log.txt"
    with open(log, "w", encoding="utf-8") as out:
        proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", engine, str(spec_path)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    result_path = Path(spec["out"])
    if proc.returncode != 0 or not result_path.is_file():
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
        return {"skipped": f"failed (exit {proc.returncode}): " + " / ".join(tail)[-300:]}
    result = json.loads(result_path.read_text(encoding="utf-8"))
    result["rss_mb"] = usage.ru_maxrss / 1024
    return result


def run_rounds(
    engines: list[str], spec: dict[str, Any], work: Path, rounds: int
) -> tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Runs every engine ``rounds`` times, the engines in turn, round ``r`` starting with
    the ``r``-th; returns each engine's merged result ([`merge_rounds`], in ``engines``
    order) and its result of each round."""
    per_round: dict[str, list[dict[str, Any]]] = {engine: [] for engine in engines}
    for r in range(rounds):
        for engine in engines[r % len(engines) :] + engines[: r % len(engines)]:
            print(f"compare: round {r + 1}/{rounds}, {engine}...", file=sys.stderr, flush=True)
            name = engine if rounds == 1 else f"{engine}-round{r + 1}"
            per_round[engine].append(run_engine(engine, spec, work, name))
            with contextlib.suppress(OSError):  # indexes of gigabytes: one round's at a time
                shutil.rmtree(work / name)
    return {engine: merge_rounds(per_round[engine]) for engine in engines}, per_round


def merge_rounds(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """One engine's results of several rounds as one: each number the median of the rounds
    that ran (peak RSS the largest), a text that differs between them given round by round
    ("a / b / c"), the rankings (``run``) of the first; the ``notes`` template filled in,
    and any round that failed named there."""
    done = [r for r in rounds if "skipped" not in r]
    if not done:
        return rounds[0]
    merged: dict[str, Any] = {}
    for key, first in done[0].items():
        values = [r[key] for r in done if key in r]
        if key == "rss_mb":
            merged[key] = max(values)
        elif isinstance(first, int | float) and not isinstance(first, bool):
            merged[key] = statistics.median(values)
        elif isinstance(first, str):
            merged[key] = first if len(set(values)) == 1 else " / ".join(values)
        else:
            merged[key] = first
    if "notes" in merged:
        merged["notes"] = merged["notes"].format_map(merged)
    failed = [f"round {i + 1} {r['skipped']}" for i, r in enumerate(rounds) if "skipped" in r]
    if failed:
        merged["notes"] = "; ".join([merged.get("notes", ""), *failed]).lstrip("; ")
    return merged


def ndcg10(run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]]) -> float:
    import ir_measures
    from ir_measures import nDCG

    judged = {q: qrels[q] for q in run}
    return ir_measures.calc_aggregate([nDCG @ 10], judged, run)[nDCG @ 10]


def fmt(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "—"
    return f"{value:,.{digits}f}"


QPS_COLUMNS = (
    ("qps10", "QPS k=10, 1 thread, single calls"),
    ("qps1000", "QPS k=1000, 1 thread, single calls"),
    ("qps10_t1", "QPS k=10, 1 thread, batch"),
    ("qps1000_t1", "QPS k=1000, 1 thread, batch"),
    ("qps10_t2", "QPS k=10, 2 threads, batch"),
    ("qps1000_t2", "QPS k=1000, 2 threads, batch"),
)


def ratio(ours: dict[str, Any], peers: dict[str, dict[str, Any]], key: str) -> tuple[float, str]:
    """rserini's ``key`` ÷ the best peer's (for ``index_s``, the best peer's time ÷
    rserini's) and that peer; NaN and "" when either is missing."""
    have = {e: r[key] for e, r in peers.items() if r.get(key)}
    if not ours.get(key) or not have:
        return float("nan"), ""
    if key == "index_s":  # a time: the fastest peer's is the smallest
        best = min(have, key=have.__getitem__)
        return have[best] / ours[key], best
    best = max(have, key=have.__getitem__)
    return ours[key] / have[best], best


def rounds_of(per_round: dict[str, list[dict[str, Any]]] | None) -> int:
    """How many rounds the engines of ``per_round`` ran (1 when none is given)."""
    return max((len(runs) for runs in (per_round or {}).values()), default=1)


def round_ratios(per_round: dict[str, list[dict[str, Any]]], key: str) -> list[float]:
    """The ratio of ``key`` (see [`ratio`]) within each round that rserini and a peer ran."""
    ours = per_round.get("rserini", [])
    found = []
    for r, mine in enumerate(ours):
        if "skipped" in mine:
            continue
        peers = {
            e: runs[r]
            for e, runs in per_round.items()
            if e != "rserini" and r < len(runs) and "skipped" not in runs[r]
        }
        value, _ = ratio(mine, peers, key)
        if value == value:  # not NaN
            found.append(value)
    return found


def table(
    results: dict[str, dict[str, Any]], per_round: dict[str, list[dict[str, Any]]] | None = None
) -> str:
    head = ["engine", "index, 1 thread (s)", "peak RSS (MB)", "index on disk (MB)"]
    head += [label for _, label in QPS_COLUMNS]
    head += ["p50 k=10 (ms)", "p99 k=10 (ms)", "nDCG@10", "notes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 3) + "---|"]
    for engine, r in results.items():
        label = ENGINES[engine]["label"]
        if "skipped" in r:
            lines.append(f"| {label} |" + " — |" * (len(head) - 2) + f" {r['skipped']} |")
            continue
        disk = r.get("disk_bytes")
        cells = [
            label,
            fmt(r["index_s"], 3),
            fmt(r["rss_mb"], 0),
            fmt(disk / 1e6, 2) if disk is not None else "in memory",
            *(fmt(r.get(key), 0) for key, _ in QPS_COLUMNS),
            fmt(r["p50_ms"], 2),
            fmt(r["p99_ms"], 2),
            fmt(r["ndcg10"], 4) if "ndcg10" in r else NOT_JUDGED,
            r.get("notes", ""),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    ours = results.get("rserini", {})
    peers = {e: r for e, r in results.items() if e != "rserini" and "skipped" not in r}
    rounds = rounds_of(per_round)
    if "skipped" not in ours and ours and peers:

        def cell(key: str) -> str:
            value, best = ratio(ours, peers, key)
            if not best:
                return "—"
            text = f"{value:.2f}x ({ENGINES[best]['label']}"
            spread = round_ratios(per_round or {}, key) if rounds > 1 else []
            if len(spread) > 1:
                text += f"; rounds {min(spread):.2f} to {max(spread):.2f}x"
            return text + ")"

        cells = ["**rserini ÷ fastest peer**", cell("index_s"), "", ""]
        cells += [cell(key) for key, _ in QPS_COLUMNS]
        about = "QPS ratios: rserini ÷ best peer; index: best peer time ÷ rserini"
        if rounds > 1:
            about += f"; medians of {rounds} rounds, and the lowest and highest round's ratio"
        cells += ["", "", "", about]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def parse_fractions(text: str) -> list[float]:
    try:
        fractions = sorted({float(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if not fractions or fractions[0] <= 0 or fractions[-1] > 1:
        raise argparse.ArgumentTypeError("fractions must be in (0, 1], e.g. 0.1,0.3,1")
    return fractions


SUBSETS = {
    "first": "first documents",
    "sample": "sample by title",
    "all": "whole corpus",
}
"""Kinds of curve rows: the first documents of the corpus, a sample of its titles (the
documents of a title kept or left together), and the whole corpus."""


def title_share(line: str) -> float:
    """Where a JSONL document falls in [0, 1): a hash of its title (of its ``_id`` when
    the title is empty). A sample of fraction f keeps the documents below f, so smaller
    samples lie inside larger ones and a title's documents (a source file's chunks in
    the Linux corpus) are kept or left together."""
    doc = json.loads(line)
    key = str(doc.get("title") or doc.get("_id", ""))
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") / 2.0**64


def write_subsets(
    source: Path, work: Path, fractions: list[float], total: int
) -> list[dict[str, Any]]:
    """The corpora of the curve, in one pass over ``source`` (``total`` documents): for
    each fraction below 1 the first documents and a sample by title, written to ``work``,
    and for 1 the whole corpus (read in place unless gzipped). Each is ``{"fraction",
    "subset", "path", "docs", "bytes"}``; documents keep their order in ``source``."""
    subsets: list[dict[str, Any]] = []
    for fraction in fractions:
        kinds = ("first", "sample") if fraction < 1 else ("all",)
        for subset in kinds:
            path = work / f"corpus-{subset}-{fraction:g}.jsonl"
            if subset == "all" and source.suffix != ".gz":
                path = source
            subsets.append(
                {"fraction": fraction, "subset": subset, "path": path, "docs": 0, "bytes": 0}
            )
    sampled = any(s["subset"] == "sample" for s in subsets)
    # How many first documents each subset keeps (None: not a "first" subset).
    limits = [
        max(1, round(s["fraction"] * total)) if s["subset"] == "first" else None for s in subsets
    ]
    with contextlib.ExitStack() as files:
        outs = [
            None
            if s["path"] == source
            else files.enter_context(open(s["path"], "w", encoding="utf-8"))
            for s in subsets
        ]
        src = files.enter_context(open_text(source))
        for line in src:
            if not line.strip():
                continue
            line = line if line.endswith("\n") else line + "\n"
            share = title_share(line) if sampled else 0.0
            size = len(line.encode("utf-8"))
            for s, out, limit in zip(subsets, outs, limits, strict=True):
                if limit is not None:
                    keep = s["docs"] < limit
                else:
                    keep = s["subset"] == "all" or share < s["fraction"]
                if keep:
                    s["docs"] += 1
                    s["bytes"] += size
                    if out is not None:
                        out.write(line)
    return subsets


def build_curve(
    engines: list[str], fractions: list[float], source: Path, total: int, spec: dict[str, Any]
) -> list[dict[str, Any]]:
    """Builds of each engine on each subset of ``write_subsets`` (``total`` documents in
    ``source``), each engine and subset in its own process: one row per subset with
    ``fraction``, ``subset``, ``docs``, ``bytes`` and, per engine, ``{"index_s",
    "index_all_s"}`` or ``{"skipped"}``."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="rserini-curve-") as tmp:
        work = Path(tmp)
        print("compare: build curve, writing the subsets...", file=sys.stderr)
        for subset in write_subsets(source, work, fractions, total):
            path = subset.pop("path")
            row: dict[str, Any] = dict(subset)
            n = row["docs"]
            for engine in engines:
                if n == 0:  # a sample of a small corpus can be empty
                    row[engine] = {"skipped": "no documents"}
                    continue
                print(
                    f"compare: build curve, {engine}, {SUBSETS[row['subset']]}, {n:,} documents...",
                    file=sys.stderr,
                )
                spec_n = {**spec, "corpus": str(path), "documents": n}
                name = f"{engine}-{row['subset']}-{row['fraction']:g}"
                row[engine] = run_engine(f"curve:{engine}", spec_n, work, name)
            rows.append(row)
            if path != source:
                path.unlink()
    return rows


CURVE_COLUMNS = (("index_s", "1 thread"), ("index_all_s", f"all cores ({os.cpu_count()})"))


def curve_table(rows: list[dict[str, Any]], engines: list[str]) -> str:
    head = ["fraction", "documents of", "documents", "MB"]
    for engine in engines:
        for _, threads in CURVE_COLUMNS:
            head += [f"{ENGINES[engine]['label']}, {threads} (s)", "docs/s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]
    for row in rows:
        cells = [
            f"{row['fraction']:g}",
            SUBSETS[row["subset"]],
            f"{row['docs']:,}",
            fmt(row["bytes"] / 1e6, 0),
        ]
        for engine in engines:
            r = row[engine]
            for key, _ in CURVE_COLUMNS:
                if "skipped" in r:
                    cells += ["—", r["skipped"] if key == "index_s" else "—"]
                else:
                    cells += [fmt(r[key], 2), fmt(row["docs"] / r[key], 0)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(
    results: dict[str, dict[str, Any]],
    curve: list[dict[str, Any]],
    engines: list[str],
    path: Path,
    title: str,
) -> bool:
    """QPS bars per engine (k = 10 and k = 1000, 1 thread, log scale) and the build curve
    (seconds against documents) in one PNG; False when matplotlib is missing."""
    if importlib.util.find_spec("matplotlib") is None:
        print("compare: no plot: `pip install 'rserini[plot]'`", file=sys.stderr)
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    measured = {e: r for e, r in results.items() if "qps10" in r}
    panels = int(bool(measured)) + int(bool(curve))
    if not panels:
        return False
    fig, axes = plt.subplots(1, panels, figsize=(6.5 * panels, 4.5), squeeze=False)
    ax_iter = iter(axes[0])
    if measured:
        ax = next(ax_iter)
        labels = [ENGINES[e]["label"] for e in measured]
        x = range(len(labels))
        width = 0.4
        for offset, key, name in (
            (-width / 2, "qps10", "k = 10"),
            (width / 2, "qps1000", "k = 1000"),
        ):
            ax.bar([i + offset for i in x], [r[key] for r in measured.values()], width, label=name)
        ax.set_xticks(list(x), labels, rotation=30, ha="right")
        ax.set_yscale("log")
        ax.set_ylabel("queries per second, 1 thread (log)")
        ax.set_title("Query throughput")
        ax.legend()
    if curve:
        ax = next(ax_iter)
        for engine in engines:
            for key, threads in CURVE_COLUMNS:
                label = f"{ENGINES[engine]['label']}, {threads}"
                color = None
                for subset, style in (("sample", "-"), ("first", ":")):
                    points = [
                        (row["docs"], row[engine][key])
                        for row in curve
                        if row["subset"] in (subset, "all") and key in row[engine]
                    ]
                    if points:
                        xs, ys = zip(*points, strict=True)
                        (line,) = ax.plot(
                            xs,
                            ys,
                            style,
                            marker="o",
                            color=color,
                            label=f"{label}, {SUBSETS[subset]}",
                        )
                        color = line.get_color()
        ax.set_xlabel("documents indexed")
        ax.set_ylabel("build time (s)")
        ax.set_title("Index build time")
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def section_heading(name: str) -> str:
    return f"{SECTION} ({name},"


def write_docs(name: str, text: str) -> None:
    """Replaces the section of corpus ``name`` in docs/benchmarks.md (its heading starts
    with ``## Comparison with other engines (NAME,``), or appends it; the sections of
    other corpora stay."""
    doc = DOCS.read_text(encoding="utf-8")
    heading = section_heading(name)
    start = doc.find(heading)
    if start >= 0:
        end = doc.find("\n## ", start + len(heading))
        rest = "\n" + doc[end + 1 :] if end >= 0 else ""  # a blank line before the next
        doc = doc[:start] + text.rstrip("\n") + "\n" + rest
    else:
        doc = doc.rstrip("\n") + "\n\n" + text
    DOCS.write_text(doc, encoding="utf-8")


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = ""
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            kb = int(next(line.split()[1] for line in f if line.startswith("MemTotal")))
        memory = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, StopIteration, ValueError):
        pass
    return f"{os.cpu_count()} cores ({cpu}){memory}, {platform.system()} {platform.release()}"


def docs_section(
    folder: Path,
    docs: int,
    queries: int,
    command: str,
    results: dict[str, dict[str, Any]],
    per_round: dict[str, list[dict[str, Any]]],
    curve: list[dict[str, Any]],
    curve_engines: list[str],
    judged: bool,
    builds: int,
    deep_k: int,
    image: Path | None,
) -> str:
    cap = f"; k = 1000 is capped at the {deep_k} documents" if deep_k < 1000 else ""
    date = time.strftime("%Y-%m-%d", time.gmtime())
    prose = (
        f"Measured on {date} on a shared machine, {machine()}: other jobs may have been "
        "running, so treat the figures and ratios as indications and rerun the command to "
        "compare. Each engine ran in its own process: peak RSS is that process's "
        "`ru_maxrss`, the Python interpreter included (for Pyserini, the JVM with `-Xmx4g`). "
    )
    rounds = rounds_of(per_round)
    if rounds > 1:
        prose += (
            f"The engines ran in turn, {rounds} rounds, each round in a rotated order, so "
            "that the machine's slower minutes fall on all of them; every figure is the "
            "median of the rounds (peak RSS the largest), and the ratio row adds the lowest "
            "and the highest ratio measured within one round. "
        )
    prose += (
        "Query times cover the whole loop from query strings to lists of `(docid, score)`, "
        f"one call per query at 1 thread, after a warm-up of {WARMUP} queries, the median "
        f"of passes repeated until they take {MIN_SECONDS:g} s and number {MIN_PASSES}, or "
        f"take {MAX_SECONDS:g} s (at most {MAX_PASSES} passes); "
        "batch columns time the engine's batch call over all the queries, where it offers "
        "one, with 1 and with 2 threads. Index times are "
        "one thread; rserini and Pyserini read the JSONL file, the others index documents "
        f"already in memory (median of {builds} build{'s' if builds > 1 else ''}"
        f"{' a round' if rounds > 1 else ''}){cap}. "
        "BM25 k1 = 0.9, b = 0.4 everywhere except tantivy (1.2 / 0.75, fixed). "
    )
    if judged:
        prose += (
            "rserini's and Pyserini's nDCG@10 are equal (identical rankings); the peers "
            "differ by analyzer and BM25 variant. "
        )
    else:
        prose += (
            f"The corpus has no relevance judgments: nDCG@10 is {NOT_JUDGED}; the queries "
            "are the first ones of queries.jsonl. "
        )
    prose += (
        "At k = 1000 much of rserini's time goes into building the Python `(docid, score)` "
        "pairs (1,000 per query), not into retrieval."
    )
    exact = results.get("rserini", {}).get("exact")
    text = (
        f"{section_heading(folder.name)} {docs:,} documents, {queries:,} queries)\n\n"
        f"```sh\n{command}\n```\n\n" + textwrap.fill(prose, 90) + "\n\n"
    )
    if exact:
        every = f", in each of the {rounds} rounds" if rounds > 1 and " / " not in exact else ""
        text += f"Exactness of rserini's pruning: {exact}{every}.\n\n"
    if results:
        text += table(results, per_round)
    if curve:
        about = (
            "Build time against corpus size, on two subsets of each size: the first "
            "documents of the corpus, and a sample by title (a document is kept when a "
            "hash of its title, or of its id when it has none, falls below the fraction: "
            "the documents of a title, in the Linux corpus a source file's chunks, are kept or "
            "left together, and each sample lies inside the larger ones). The first "
            "documents are one part of the corpus, which may hold other kinds of "
            "documents than the rest; a sample holds the same mix as the whole, though "
            "neighbouring documents in it come from titles further apart. Each "
            f"engine and subset in its own process, median of {builds} "
            f"build{'s' if builds > 1 else ''}; docs/s = documents ÷ seconds, so a flat "
            "docs/s column means a linear build."
        )
        text += "\n" + textwrap.fill(about, 90) + "\n\n" + curve_table(curve, curve_engines)
    if image is not None:
        text += f"\n![QPS and build time on {folder.name}](img/{image.name})\n"
    return text


def main() -> int:
    if sys.argv[1:2] == ["--worker"]:
        return worker(sys.argv[2], Path(sys.argv[3]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument(
        "--engines", default=",".join(ENGINES), help=f"comma-separated, of {', '.join(ENGINES)}"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="first 300 documents and 20 queries only"
    )
    parser.add_argument("--queries", type=int, default=None, help="run the first N queries")
    parser.add_argument(
        "--builds",
        type=int,
        default=None,
        help=f"index builds per engine and round (default {BUILDS})",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help=f"run the engines this many times in turn, rotating their order, and report "
        f"medians (default {ROUNDS}, 1 with --smoke)",
    )
    parser.add_argument(
        "--fractions",
        type=parse_fractions,
        default=None,
        help="build-time curve of rserini and tantivy on these fractions of the corpus "
        "(the first documents and a sample by title of each), e.g. 0.1,0.3,1",
    )
    parser.add_argument(
        "--curve-only", action="store_true", help="only the build-time curve (--fractions)"
    )
    parser.add_argument("--plot", type=Path, default=None, help="write the plot to this PNG")
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help=f"put the tables in {DOCS.relative_to(REPO)} and the plot in docs/img",
    )
    args = parser.parse_args()
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        parser.error(f"unknown engine(s) {', '.join(unknown)}; choose from {', '.join(ENGINES)}")
    if args.curve_only and not args.fractions:
        parser.error("--curve-only needs --fractions")
    if args.builds is not None and args.builds < 1:
        parser.error("--builds must be at least 1")
    if args.rounds is not None and args.rounds < 1:
        parser.error("--rounds must be at least 1")
    folder = args.corpus.resolve()
    source, queries_file, qrels_file = collection_files(folder)
    qrels = read_qrels(qrels_file)
    limit = args.queries if args.queries is not None else SMOKE_QUERIES if args.smoke else None
    queries = read_queries(queries_file, qrels, limit)
    builds = args.builds or (1 if args.smoke else BUILDS)
    rounds = args.rounds or (1 if args.smoke else ROUNDS)
    spec: dict[str, Any] = {"queries": queries, "builds": builds}
    spec["min_seconds"] = 0.0 if args.smoke else MIN_SECONDS
    results: dict[str, dict[str, Any]] = {}
    per_round: dict[str, list[dict[str, Any]]] = {}
    curve: list[dict[str, Any]] = []
    curve_engines = [e for e in CURVE_ENGINES if e in engines]
    with tempfile.TemporaryDirectory(prefix="rserini-compare-") as tmp:
        work = Path(tmp)
        if args.smoke or source.suffix == ".gz":
            corpus = work / "corpus.jsonl"
            docs = copy_corpus(source, corpus, SMOKE_DOCS if args.smoke else None)
        else:  # read in place: no copy of a gigabyte corpus
            corpus, docs = source, count_docs(source)
        print(f"compare: {docs:,} documents, {len(queries):,} queries", file=sys.stderr)
        spec.update(corpus=str(corpus), documents=docs, deep_k=min(1000, docs))
        if not args.curve_only:
            results, per_round = run_rounds(engines, spec, work, rounds)
            for result in results.values():
                run = result.pop("run", None)
                if run is not None and qrels is not None:
                    result["ndcg10"] = ndcg10(run, qrels)
        if args.fractions and curve_engines:
            curve = build_curve(curve_engines, args.fractions, corpus, docs, spec)
    text = table(results, per_round) if results else ""
    if curve:
        text += ("\n" if text else "") + curve_table(curve, curve_engines)
    print(text, end="")
    image = args.plot
    if args.write_docs and image is None:
        image = IMAGES / f"bench-{folder.name}.png"
    title = f"{folder.name}: {docs:,} documents, {len(queries):,} queries"
    if image is not None and not plot(results, curve, curve_engines, image, title):
        image = None
    if args.write_docs:
        command = "python benches/compare.py " + shlex.join(sys.argv[1:])
        command = command.replace(str(Path.home()) + "/", "~/")
        section = docs_section(
            folder,
            docs,
            len(queries),
            command.strip(),
            results,
            per_round,
            curve,
            curve_engines,
            qrels is not None,
            builds,
            spec["deep_k"],
            image if image is not None and image.parent == IMAGES else None,
        )
        write_docs(folder.name, section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
