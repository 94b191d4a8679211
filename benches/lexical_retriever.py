"""LexicalRetriever benchmark: index time and per-query latency on a BEIR corpus, rserini
against the pure-Python implementation of agentic-retrieval's algorithm in
``tests/lexical_reference.py`` (each arm tokenizes every document; each query zero-fills
and sorts the whole corpus in both arms, then fuses both full rankings).

    python benches/lexical_retriever.py [CORPUS_DIR] [--tokenizer plain|code] [--builds N]
        [--repeat N]

CORPUS_DIR defaults to ../shared/data/scifact. Index time is measured two ways, best of
``--builds`` each: each engine alone in a fresh process of its own (as ``compare.py`` runs
peers), and both in this process, builds alternating (each engine then starts on caches
the other has just filled with its own objects). Each query runs once in the reference and
``--repeat`` times in rserini (best kept), alternating query by query, ``search(query,
10)`` with the default parameters. Also checks that both return the same top 10. Prints a
Markdown table, after the load average and rserini's thread count (``RAYON_NUM_THREADS``,
else one per core).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

import rserini
from rserini.formats import beir_files, read_documents, read_queries

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
import lexical_reference as ref  # noqa: E402

DEFAULT = REPO.parent / "shared" / "data" / "scifact"


def load(folder: Path) -> tuple[list[tuple[str, str]], list[str]]:
    found = beir_files(folder)
    if found is None or found[1] is None:
        raise SystemExit(f"{folder}: not a BEIR folder with queries.jsonl")
    corpus, queries, _ = found
    return read_documents(corpus), [q for _, q in read_queries(queries)]


def timed_builds(engine: str, folder: Path, tokenizer: str, n: int) -> list[tuple[float, float]]:
    """``n`` builds by ``engine`` in this process: (wall, CPU) seconds each. The
    documents are made before the clock starts."""
    docs, _ = load(folder)
    documents = [rserini.Document(d, t) for d, t in docs]
    out = []
    for _ in range(n):
        start, cpu = time.perf_counter(), time.process_time()
        if engine == "reference":
            ref.Lexical(tokenizer=tokenizer).index(docs)
        else:
            rserini.LexicalRetriever(tokenizer=tokenizer).index(documents)
        out.append((time.perf_counter() - start, time.process_time() - cpu))
    return out


def builds_alone(engine: str, folder: Path, tokenizer: str, n: int) -> list[tuple[float, float]]:
    """:func:`timed_builds` in a fresh process of its own."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(timed_builds, (engine, folder, tokenizer, n))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--tokenizer", default="plain", choices=["plain", "code"])
    parser.add_argument("--builds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    docs, queries = load(args.corpus)
    documents = [rserini.Document(d, t) for d, t in docs]

    # Wall time, and CPU time of the process (all threads): on a loaded machine the
    # second shows the work done, whatever the waiting.
    alone = {
        e: builds_alone(e, args.corpus, args.tokenizer, args.builds)
        for e in ("reference", "rserini")
    }
    builds: dict[str, list[tuple[float, float]]] = {"reference": [], "rserini": []}
    for _ in range(args.builds):
        start, cpu = time.perf_counter(), time.process_time()
        reference = ref.Lexical(tokenizer=args.tokenizer)
        reference.index(docs)
        builds["reference"].append((time.perf_counter() - start, time.process_time() - cpu))
        start, cpu = time.perf_counter(), time.process_time()
        ours = rserini.LexicalRetriever(tokenizer=args.tokenizer)
        ours.index(documents)
        builds["rserini"].append((time.perf_counter() - start, time.process_time() - cpu))

    latency: dict[str, list[float]] = {"reference": [], "rserini": []}
    differ = 0
    for q in queries:
        start = time.perf_counter()
        expected = reference.search(q, 10)
        latency["reference"].append(time.perf_counter() - start)
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            got = ours.search(q, 10)
            best = min(best, time.perf_counter() - start)
        latency["rserini"].append(best)
        differ += got != expected

    ref_q, our_q = statistics.mean(latency["reference"]), statistics.mean(latency["rserini"])
    threads = os.environ.get("RAYON_NUM_THREADS") or os.cpu_count()
    loadavg = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{args.corpus.name}: {len(docs):,} documents, {len(queries)} queries, "
        f"tokenizer {args.tokenizer}; top-10 lists differing: {differ}; "
        f"rserini threads: {threads}; load average (1, 5, 15 min): {loadavg}\n"
    )
    print("| | pure Python (reference algorithm) | rserini | speed-up |")
    print("|---|---|---|---|")
    for how, times in (("each engine in its own process", alone), ("alternating", builds)):
        ref_build, our_build = (min(b[0] for b in times[e]) for e in ("reference", "rserini"))
        ref_cpu, our_cpu = (min(b[1] for b in times[e]) for e in ("reference", "rserini"))
        print(
            f"| index, {how} (best of {args.builds}) | {ref_build:.2f} s "
            f"| {our_build * 1e3:.1f} ms | {ref_build / our_build:.0f}x |"
        )
        print(
            f"| index, {how}, CPU time | {ref_cpu:.2f} s | {our_cpu * 1e3:.1f} ms "
            f"| {ref_cpu / our_cpu:.0f}x |"
        )
    print(f"| query, mean | {ref_q * 1e3:.2f} ms | {our_q * 1e6:.0f} µs | {ref_q / our_q:.0f}x |")
    p50 = (statistics.median(latency["reference"]), statistics.median(latency["rserini"]))
    print(
        f"| query, median | {p50[0] * 1e3:.2f} ms | {p50[1] * 1e6:.0f} µs "
        f"| {p50[0] / p50[1]:.0f}x |"
    )


if __name__ == "__main__":
    main()
