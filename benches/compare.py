"""Side-by-side comparison of rserini with other BM25 engines on one BEIR corpus.

    python benches/compare.py [CORPUS_DIR] [--engines rserini,pyserini,...] [--smoke]
                              [--write-docs]

CORPUS_DIR is a BEIR folder (corpus.jsonl[.gz] of {"_id", "title", "text"}, indexed as
title + " " + text; queries.jsonl; qrels/test.tsv) and defaults to ../shared/data/scifact.
The judged queries of qrels/test.tsv are run, in file order, by every engine.

Each engine runs in its own subprocess (``python benches/compare.py --worker ENGINE SPEC``),
so the peak RSS reported (``ru_maxrss`` from ``wait4``) is that engine's alone. A worker
builds the index with one thread, then, after a warm-up of a few queries, times with
``time.perf_counter`` the whole loop of single-query calls from the query string to a
list of ``(docid, score)``: at k = 10 (also giving per-query p50/p99 latency) and at
k = 1000, and at 2 threads where the engine offers batch retrieval. nDCG@10 of the k = 10
run is computed with ``ir_measures``. A missing engine gets a "not installed" row naming
its pip command; an engine that fails gets a row with the error; the run goes on.

``--smoke`` keeps the first 300 documents and 20 judged queries (seconds, for CI);
``--write-docs`` replaces this driver's section of docs/benchmarks.md with the table.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "data" / "scifact"
DOCS = REPO / "docs" / "benchmarks.md"
SECTION = "## Comparison with other engines"

K1, B = 0.9, 0.4
WARMUP = 20
"""Queries run at each k before timing (the JVM needs more than a handful)."""
BUILDS = 3
"""Index builds per engine; the median time is reported."""
MIN_SECONDS, MAX_PASSES = 1.0, 50
"""Fast loops are timed several times (median), so that one pass of milliseconds is not
all that is measured."""
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
}


# --------------------------------------------------------------------------------------
# Input


def corpus_file(folder: Path) -> Path:
    for name in ("corpus.jsonl", "corpus.jsonl.gz"):
        if (folder / name).is_file():
            return folder / name
    raise SystemExit(f"compare: no corpus.jsonl[.gz] in {folder}")


def read_corpus(path: Path, limit: int | None) -> list[dict[str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    docs = []
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            docs.append(json.loads(line))
            if limit is not None and len(docs) >= limit:
                break
    return docs


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0] != "query-id":
                qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
            elif len(parts) == 4:
                qrels.setdefault(parts[0], {})[parts[2]] = int(parts[3])
    return qrels


def read_queries(path: Path, judged: dict[str, dict[str, int]]) -> list[tuple[str, str]]:
    queries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                q = json.loads(line)
                if str(q["_id"]) in judged:
                    queries.append((str(q["_id"]), q["text"]))
    return queries


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

    def single(self, search: Any, deep_limit: int | None = None) -> None:
        """``search(text, k) -> [(docid, score), ...]``, one call per query."""
        texts = [text for _, text in self.queries]
        for text in texts[:WARMUP]:
            search(text, 10)
            search(text, self.deep_k)
        run: dict[str, dict[str, float]] = {}
        latencies: list[float] = []

        def k10() -> None:
            for qid, text in self.queries:
                t0 = time.perf_counter()
                hits = search(text, 10)
                latencies.append(time.perf_counter() - t0)
                run[qid] = {docid: float(score) for docid, score in hits}

        self.result["qps10"] = len(texts) / self.passes(k10)
        self.result["p50_ms"] = 1000 * statistics.median(latencies)
        self.result["p99_ms"] = 1000 * quantile(latencies, 0.99)
        self.result["run"] = run
        deep = texts if deep_limit is None else texts[:deep_limit]

        def k1000() -> None:
            for text in deep:
                search(text, self.deep_k)

        self.result["qps1000"] = len(deep) / self.passes(k1000)
        self.result["deep_queries"] = len(deep)

    def batch(self, search: Any, threads: int) -> None:
        """``search(texts, k, threads) -> [[(docid, score), ...], ...]``."""
        texts = [text for _, text in self.queries]
        search(texts[:WARMUP], 10, threads)
        for k, key in ((10, "qps10_t2"), (self.deep_k, "qps1000_t2")):
            self.result[key] = len(texts) / self.passes(lambda k=k: search(texts, k, threads))

    def build(self, make: Any, key: str = "index_s") -> Any:
        """Runs ``make(attempt)`` ``builds`` times (BUILDS; 1 with --smoke), each into a fresh
        place; records the median seconds under ``key`` and returns the last index."""
        times, index = [], None
        for attempt in range(self.builds):
            start = time.perf_counter()
            index = make(attempt)
            times.append(time.perf_counter() - start)
        self.result[key] = statistics.median(times)
        return index

    def passes(self, loop: Any) -> float:
        """Median seconds of one pass of ``loop``, each pass timed as a whole; passes are
        repeated until they add up to ``min_seconds`` (MIN_SECONDS; 0 with --smoke), at
        most MAX_PASSES times, at least once."""
        times: list[float] = []
        while not times or (sum(times) < self.min_seconds and len(times) < MAX_PASSES):
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

    def search(text: str, k: int) -> list[tuple[str, float]]:
        return [(h.docid, h.score) for h in index.search(text, k, k1=K1, b=B)]

    def batch(texts: list[str], k: int, threads: int) -> list[list[tuple[str, float]]]:
        ids, scores = index.batch_search(texts, k, threads=threads, k1=K1, b=B)
        docids = index.docids(ids)
        return [list(zip(d, s.tolist(), strict=False)) for d, s in zip(docids, scores, strict=True)]

    timer.single(search)
    timer.batch(batch, 2)
    timer.result["notes"] = (
        f"all cores ({os.cpu_count()}): index {timer.result['index_all_s']:.3f} s; "
        "no document store; 2 threads: batch_search(threads=2)"
    )


def work_pyserini(spec: dict[str, Any], timer: Timer) -> None:
    from rserini.parity._java import boot

    boot("4g")
    from jnius import autoclass

    work = Path(spec["work"])
    collection = work / "collection"
    collection.mkdir()
    with (
        open(collection / "docs.jsonl", "w", encoding="utf-8") as out,
        open(spec["corpus"], encoding="utf-8") as src,
    ):
        for line in src:
            d = json.loads(line)
            text = f"{d.get('title', '')} {d.get('text', '')}"
            out.write(json.dumps({"id": str(d["_id"]), "contents": text}) + "\n")

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
    timer.batch(batch, 2)
    timer.result["notes"] = (
        "Anserini IndexCollection (positions, docid stored); JVM -Xmx4g; 2 threads: batch_search"
    )


def work_bm25s(spec: dict[str, Any], timer: Timer) -> None:
    import bm25s
    import Stemmer

    backend = "numba" if importlib.util.find_spec("numba") else "numpy"
    docs = read_corpus(Path(spec["corpus"]), None)
    ids = [str(d["_id"]) for d in docs]
    texts = [f"{d.get('title', '')} {d.get('text', '')}" for d in docs]
    stemmer = Stemmer.Stemmer("english")

    def make(_: int) -> Any:
        tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
        retriever = bm25s.BM25(method="lucene", k1=K1, b=B, backend=backend)
        retriever.index(tokens, show_progress=False)
        return retriever

    retriever = timer.build(make)
    retriever.save(str(Path(spec["work"]) / "index"))
    timer.result["disk_bytes"] = folder_size(Path(spec["work"]) / "index")
    if backend == "numba":  # compile the kernels before timing
        retriever.retrieve(bm25s.tokenize(["warm up"], show_progress=False), k=5)

    def run(qs: list[str], k: int, threads: int) -> list[list[tuple[str, float]]]:
        q = bm25s.tokenize(qs, stopwords="en", stemmer=stemmer, show_progress=False)
        kk = min(k, len(ids))
        res, scores = retriever.retrieve(q, k=kk, n_threads=threads, show_progress=False)
        return [
            [(ids[i], float(s)) for i, s in zip(r, sc, strict=True) if s > 0]
            for r, sc in zip(res.tolist(), scores.tolist(), strict=True)
        ]

    timer.single(lambda text, k: run([text], k, 1)[0])
    timer.batch(run, 2)
    timer.result["notes"] = (
        f"{backend} backend; English stopwords, Snowball stemmer; 2 threads: retrieve(n_threads=2)"
    )


def work_tantivy(spec: dict[str, Any], timer: Timer) -> None:
    import tantivy

    docs = read_corpus(Path(spec["corpus"]), None)
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
    schema = builder.build()

    def make(attempt: int) -> tuple[Any, Path]:
        path = Path(spec["work"]) / f"index-{attempt}"
        path.mkdir()
        index = tantivy.Index(schema, path=str(path))
        writer = index.writer(heap_size=200_000_000, num_threads=1)
        for d in docs:
            body = f"{d.get('title', '')} {d.get('text', '')}"
            writer.add_document(tantivy.Document(id=str(d["_id"]), body=body))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        return index, path

    index, path = timer.build(make)
    timer.result["disk_bytes"] = folder_size(path)
    searcher = index.searcher()
    # Doc address -> docid, read once (outside the timings) so that hits are not fetched
    # from the document store one by one.
    everything = searcher.search(tantivy.Query.all_query(), limit=len(docs)).hits
    docid = {(a.segment_ord, a.doc): searcher.doc(a)["id"][0] for _, a in everything}

    def search(text: str, k: int) -> list[tuple[str, float]]:
        terms = words(text)
        if not terms:
            return []
        query = index.parse_query(" ".join(terms), ["body"])
        hits = searcher.search(query, limit=k).hits
        return [(docid[(a.segment_ord, a.doc)], s) for s, a in hits]

    timer.single(search)
    timer.result["notes"] = "en_stem tokenizer; k1 = 1.2, b = 0.75 fixed by tantivy"


def work_rank_bm25(spec: dict[str, Any], timer: Timer) -> None:
    import numpy as np
    from rank_bm25 import BM25Okapi

    docs = read_corpus(Path(spec["corpus"]), None)
    if len(docs) > RANK_BM25_MAX_DOCS:
        raise SkipError(f"skipped: {len(docs):,} documents > {RANK_BM25_MAX_DOCS:,}")
    ids = [str(d["_id"]) for d in docs]
    bm25 = timer.build(
        lambda _: BM25Okapi(
            [words(f"{d.get('title', '')} {d.get('text', '')}") for d in docs], k1=K1, b=B
        )
    )

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
    import pandas as pd
    from pyterrier_pisa import PisaIndex

    docs = read_corpus(Path(spec["corpus"]), None)

    def make(attempt: int) -> tuple[Any, Path]:
        path = Path(spec["work"]) / f"index-{attempt}"
        index = PisaIndex(str(path), stemmer="porter2", threads=1)
        index.index(
            {"docno": str(d["_id"]), "text": f"{d.get('title', '')} {d.get('text', '')}"}
            for d in docs
        )
        return index, path

    index, path = timer.build(make)
    timer.result["disk_bytes"] = folder_size(path)
    retrievers: dict[tuple[int, int], Any] = {}

    def retriever(k: int, threads: int) -> Any:
        if (k, threads) not in retrievers:
            retrievers[(k, threads)] = index.bm25(k1=K1, b=B, num_results=k, threads=threads)
        return retrievers[(k, threads)]

    def search(text: str, k: int) -> list[tuple[str, float]]:
        q = " ".join(words(text)) or "x"
        res = retriever(k, 1).search(q)
        return list(zip(res["docno"].tolist(), res["score"].tolist(), strict=True))

    def batch(texts: list[str], k: int, threads: int) -> list[list[tuple[str, float]]]:
        frame = pd.DataFrame({"qid": [str(i) for i in range(len(texts))]})
        frame["query"] = [" ".join(words(t)) or "x" for t in texts]
        res = retriever(k, threads).transform(frame)
        groups = {q: g for q, g in res.groupby("qid")}
        return [
            list(zip(g["docno"], g["score"], strict=True))
            if (g := groups.get(q)) is not None
            else []
            for q in frame["qid"]
        ]

    timer.single(search)
    timer.batch(batch, 2)
    timer.result["notes"] = "Porter2 stemmer, default stopwords; 2 threads: bm25(threads=2)"


class SkipError(Exception):
    """An engine that does not apply to this corpus."""


WORKERS = {
    "rserini": work_rserini,
    "pyserini": work_pyserini,
    "bm25s": work_bm25s,
    "tantivy": work_tantivy,
    "pisa": work_pisa,
    "rank_bm25": work_rank_bm25,
}


def worker(engine: str, spec_path: Path) -> int:
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


def run_engine(engine: str, spec: dict[str, Any], work: Path) -> dict[str, Any]:
    if importlib.util.find_spec(ENGINES[engine]["module"]) is None:
        return {"skipped": f"not installed: `{ENGINES[engine]['pip']}`"}
    folder = work / engine
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
    ("qps10", "QPS k=10, 1 thread"),
    ("qps1000", "QPS k=1000, 1 thread"),
    ("qps10_t2", "QPS k=10, 2 threads"),
    ("qps1000_t2", "QPS k=1000, 2 threads"),
)


def table(results: dict[str, dict[str, Any]]) -> str:
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
            fmt(r["ndcg10"], 4),
            r.get("notes", ""),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    ours = results.get("rserini", {})
    peers = {e: r for e, r in results.items() if e != "rserini" and "skipped" not in r}
    if "skipped" not in ours and ours and peers:
        cells = ["**rserini ÷ fastest peer**"]
        fastest = min(peers, key=lambda e: peers[e]["index_s"])
        ratio = peers[fastest]["index_s"] / ours["index_s"]
        cells += [f"{ratio:.2f}x ({ENGINES[fastest]['label']})", "", ""]
        for key, _ in QPS_COLUMNS:
            have = {e: r[key] for e, r in peers.items() if r.get(key)}
            if ours.get(key) and have:
                best = max(have, key=have.__getitem__)
                cells.append(f"{ours[key] / have[best]:.2f}x ({ENGINES[best]['label']})")
            else:
                cells.append("—")
        cells += ["", "", "", "QPS ratios: rserini ÷ best peer; index: best peer time ÷ rserini"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_docs(text: str) -> None:
    doc = DOCS.read_text(encoding="utf-8")
    start = doc.find(SECTION)
    if start >= 0:
        end = doc.find("\n## ", start + len(SECTION))
        doc = doc[:start] + text + (doc[end + 1 :] if end >= 0 else "")
    else:
        doc = doc.rstrip("\n") + "\n\n" + text
    DOCS.write_text(doc, encoding="utf-8")


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
    parser.add_argument(
        "--write-docs", action="store_true", help=f"put the table in {DOCS.relative_to(REPO)}"
    )
    args = parser.parse_args()
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        parser.error(f"unknown engine(s) {', '.join(unknown)}; choose from {', '.join(ENGINES)}")
    folder = args.corpus.resolve()
    qrels = read_qrels(folder / "qrels" / "test.tsv")
    docs = read_corpus(corpus_file(folder), SMOKE_DOCS if args.smoke else None)
    queries = read_queries(folder / "queries.jsonl", qrels)
    if args.smoke:
        queries = queries[:SMOKE_QUERIES]
    deep_k = min(1000, len(docs))
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="rserini-compare-") as tmp:
        work = Path(tmp)
        corpus = work / "corpus.jsonl"
        with open(corpus, "w", encoding="utf-8") as f:
            for d in docs:
                f.write(json.dumps(d, ensure_ascii=False) + "\n")
        spec = {"corpus": str(corpus), "queries": queries, "deep_k": deep_k}
        spec["min_seconds"] = 0.0 if args.smoke else MIN_SECONDS
        spec["builds"] = 1 if args.smoke else BUILDS
        for engine in engines:
            print(f"compare: {engine}...", file=sys.stderr, flush=True)
            result = run_engine(engine, spec, work)
            if "run" in result:
                result["ndcg10"] = ndcg10(result.pop("run"), qrels)
            results[engine] = result
    text = table(results)
    print(text, end="")
    if args.write_docs:
        command = "python benches/compare.py" + (" --smoke" if args.smoke else "")
        if args.corpus.resolve() != DEFAULT_CORPUS.resolve():
            command += f" {args.corpus}"
        if args.engines != ",".join(ENGINES):
            command += f" --engines {args.engines}"
        cpus = os.cpu_count()
        cap = f"; k = 1000 is capped at the {deep_k} documents" if deep_k < 1000 else ""
        prose = (
            f"Measured on a shared machine with {cpus} cores: other jobs may have been running, "
            "so treat the figures and ratios as indications and rerun the command to compare. "
            "Each engine ran in its own process: peak RSS is that process's `ru_maxrss`, the "
            "Python interpreter included (for Pyserini, the JVM with `-Xmx4g`). Query times "
            "cover the whole loop from query strings to lists of `(docid, score)`, one call "
            f"per query at 1 thread, after a warm-up of {WARMUP} queries, the median of passes "
            f"repeated until they take {MIN_SECONDS:g} s (at most {MAX_PASSES}); 2-thread "
            "figures use "
            "the engine's batch call where it offers one. Index times are one thread; rserini "
            "and Pyserini read the JSONL file, the others index documents already in memory "
            f"(median of {BUILDS} builds)"
            f"{cap}. BM25 k1 = 0.9, b = 0.4 everywhere except tantivy (1.2 / 0.75, fixed). "
            "rserini's and Pyserini's nDCG@10 are equal (identical rankings); the peers differ "
            "by analyzer and BM25 variant. At k = 1000 most of rserini's time goes into "
            "building the Python `(docid, score)` pairs (1,000 per query), not into retrieval."
        )
        section = (
            f"{SECTION} ({folder.name}, {len(docs):,} documents, {len(queries)} queries)\n\n"
            f"```sh\n{command}\n```\n\n" + textwrap.fill(prose, 90) + "\n\n" + text
        )
        write_docs(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
