"""Searching a Lucene index built by Pyserini: rserini (``Index.load`` of the folder, no
JVM) against Pyserini's ``LuceneSearcher`` on the same folder, each in its own process.

    python benches/lucene_index.py LUCENE_DIR QUERIES.jsonl
        [--engines rserini-memory rserini rserini-cached pyserini] [--queries 1000] [--repeat 3]

rserini's engines: ``rserini-memory`` converts the folder in memory (``cache=False``),
``rserini`` opens it with an empty conversion cache (a temporary folder: it converts and
writes the cache entry), ``rserini-cached`` opens it again from that entry.

For each engine: the time to first query (a fresh process: import, open the folder, and
for rserini its conversion or cache; then one search at k = 10), and the queries answered per
second on one thread at k = 10 and k = 1000 (one search call per query, Lucene BM25 with
Pyserini's defaults k1 = 0.9, b = 0.4; best of ``--repeat`` passes). The rankings of both
engines are compared on the way (the share of queries with the same top 10 docids).
Results go to stdout as JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

K1, B = 0.9, 0.4


def _queries(path: Path, limit: int) -> list[str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [str(row["text"]) for row in rows[:limit]]


def _rserini(folder: str, queries: list[str], repeat: int, cache: str | None) -> dict[str, Any]:
    start = time.perf_counter()
    import rserini

    index = rserini.Index.load(folder, cache=False if cache is None else cache)
    opened = time.perf_counter() - start
    index.search_pairs(queries[0], 10, k1=K1, b=B)
    first = time.perf_counter() - start
    out: dict[str, Any] = {
        "time_to_first_query_s": first,
        "import_and_open_s": opened,
        "documents": len(index),
    }
    for k in (10, 1000):
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            runs = [index.search_pairs(q, k, k1=K1, b=B) for q in queries]
            best = min(best, time.perf_counter() - start)
        out[f"qps_k{k}"] = len(queries) / best
        out[f"top10_k{k}"] = [[d for d, _ in run[:10]] for run in runs]
    return out


def _pyserini(folder: str, queries: list[str], repeat: int) -> dict[str, Any]:
    start = time.perf_counter()
    from rserini.parity._java import boot

    boot("4g")  # the JVM and Pyserini's jar, as the parity harness starts them
    from pyserini.search.lucene import LuceneSearcher

    searcher = LuceneSearcher(folder)
    searcher.set_bm25(K1, B)
    searcher.search(queries[0], 10)
    first = time.perf_counter() - start
    out: dict[str, Any] = {"time_to_first_query_s": first, "documents": searcher.num_docs}
    for k in (10, 1000):
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            runs = [searcher.search(q, k) for q in queries]
            best = min(best, time.perf_counter() - start)
        out[f"qps_k{k}"] = len(queries) / best
        out[f"top10_k{k}"] = [[h.docid for h in run[:10]] for run in runs]
    return out


def _child(
    engine: str, folder: str, queries_path: str, limit: int, repeat: int, cache: str | None
) -> None:
    queries = _queries(Path(queries_path), limit)
    if engine == "pyserini":
        print(json.dumps(_pyserini(folder, queries, repeat)))
    else:
        print(json.dumps(_rserini(folder, queries, repeat, cache)))


def _size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    parser.add_argument("queries")
    parser.add_argument(
        "--engines",
        nargs="+",
        default=["rserini-memory", "rserini", "rserini-cached", "pyserini"],
        choices=["rserini-memory", "rserini", "rserini-cached", "pyserini"],
    )
    parser.add_argument("--queries", dest="limit", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.folder, args.queries, args.limit, args.repeat, args.cache)
        return
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="rserini-cache-") as cache:
        for engine in args.engines:
            command = [sys.executable, __file__, args.folder, args.queries, "--child", engine]
            command += ["--queries", str(args.limit), "--repeat", str(args.repeat)]
            if engine in ("rserini", "rserini-cached"):
                command += ["--cache", cache]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"{engine} failed:\n{done.stderr}")
            results[engine] = json.loads(done.stdout.strip().splitlines()[-1])
            if engine == "rserini":
                results[engine]["cache_entry_mb"] = _size_mb(Path(cache))
    if {"rserini", "pyserini"} <= results.keys():
        for k in (10, 1000):
            ours, theirs = results["rserini"][f"top10_k{k}"], results["pyserini"][f"top10_k{k}"]
            same = sum(a == b for a, b in zip(ours, theirs, strict=True))
            results[f"same_top10_k{k}"] = same / len(ours)
    for engine in args.engines:
        for k in (10, 1000):
            del results[engine][f"top10_k{k}"]
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
