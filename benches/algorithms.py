"""Top-k algorithms side by side on one corpus: exhaustive scoring, MaxScore, block-max
WAND and the automatic choice, at k = 10 and k = 1000, one thread.

    python benches/algorithms.py CORPUS [--queries N] [--repeat N]

CORPUS is a BEIR folder (corpus.jsonl[.gz] and queries.jsonl; the judged queries of
qrels/test.tsv when it exists, else every query) or a saved rserini index folder with
--queries-file. Every algorithm's results are checked against the exhaustive ones
(docids, order and float32 scores, bit for bit) before its time counts. Times are
``batch_search(threads=1)`` over all queries (no Python objects per hit), best of
--repeat passes, in CPU seconds of this process. Prints a Markdown table, then the
speed-up of ``batch_search`` from one thread to two (wall time, best of --repeat).

``--per-query`` times each query alone instead (``search``, best of --repeat, the
algorithms taken in turn) at k = 10, 100 and 1000: exhaustive scoring, MaxScore, auto,
and the faster of the first two for each query, the most any choice between them could
give (what ``auto``'s rule is fitted against).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

# numpy's OpenBLAS starts a pool of worker threads that busy-wait; rserini uses no BLAS,
# and on a two-core machine those threads take time from the ones measured.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

import rserini
from rserini.formats import beir_files, read_qrels, read_queries

ALGORITHMS = ("exhaustive", "maxscore", "bmw", "auto")


def load_queries(path: Path, judged: Path | None) -> list[str]:
    keep = read_qrels(judged) if judged is not None else None
    return [text for qid, text in read_queries(path) if keep is None or qid in keep]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a BEIR folder or a saved index folder")
    parser.add_argument("--queries-file", type=Path, help="queries.jsonl (for an index folder)")
    parser.add_argument("--queries", type=int, default=None, help="the first N queries only")
    parser.add_argument("--repeat", type=int, default=3, help="passes per cell (best is kept)")
    parser.add_argument(
        "--per-query",
        action="store_true",
        help="time each query alone, and the faster of exhaustive and MaxScore per query",
    )
    args = parser.parse_args()

    if (args.corpus / "meta.json").exists():
        index = rserini.Index.load(args.corpus)
        queries_file = args.queries_file
        judged = None
        if queries_file is None:
            parser.error("an index folder needs --queries-file")
    else:
        found = beir_files(args.corpus)
        if found is None:
            parser.error(f"{args.corpus} is neither a BEIR folder nor an index folder")
        source, queries_file, judged = found
        start = time.perf_counter()
        index = rserini.Index.from_jsonl(source, store=False, progress=False)
        print(f"indexed {len(index):,} documents in {time.perf_counter() - start:.1f} s")
        queries_file = args.queries_file or queries_file
        if queries_file is None:
            parser.error(f"{args.corpus} holds no queries.jsonl: give --queries-file")
    queries = load_queries(queries_file, judged)[: args.queries]
    print(f"{len(queries):,} queries, {len(index):,} documents\n")
    if args.per_query:
        per_query(index, queries, args.repeat)
        return
    print("| k | " + " | ".join(ALGORITHMS) + " |")
    print("|---:|" + "---:|" * len(ALGORITHMS))
    for k in (10, 1000):
        cells = []
        expected = None
        for algorithm in ALGORITHMS:
            best = float("inf")
            for _ in range(args.repeat):
                start = time.process_time()
                ids, scores = index.batch_search(queries, k, threads=1, algorithm=algorithm)
                best = min(best, time.process_time() - start)
            if expected is None:
                expected = (ids, scores)
            same = np.array_equal(ids, expected[0]) and np.array_equal(
                scores.view(np.uint32), expected[1].view(np.uint32)
            )
            if not same:
                raise SystemExit(f"{algorithm} differs from exhaustive at k = {k}")
            cells.append(f"{len(queries) / best:,.0f}")
        print(f"| {k} | " + " | ".join(cells) + " |")
    print("\nQPS, one thread; every algorithm returned exactly the exhaustive results.")
    print("\n`batch_search` (auto) on two threads against one, wall time:")
    for k in (10, 1000):
        wall = {}
        for threads in (1, 2):
            wall[threads] = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                index.batch_search(queries, k, threads=threads)
                wall[threads] = min(wall[threads], time.perf_counter() - start)
        print(
            f"- k = {k}: {len(queries) / wall[1]:,.0f} -> {len(queries) / wall[2]:,.0f} QPS, "
            f"{wall[1] / wall[2]:.2f}x"
        )


def per_query(index: rserini.Index, queries: list[str], repeat: int) -> None:
    """QPS of single ``search`` calls by algorithm, from each query's best of ``repeat``
    (the algorithms in turn, so that a slow spell of the machine hits all of them), and
    of the faster of exhaustive scoring and MaxScore chosen per query."""
    chosen = ("exhaustive", "maxscore", "auto")
    print("| k | " + " | ".join(chosen) + " | faster of the first two, per query |")
    print("|---:|" + "---:|" * (len(chosen) + 1))
    for k in (10, 100, 1000):
        totals = dict.fromkeys(chosen, 0.0)
        best_of_two = 0.0
        for query in queries:
            best = dict.fromkeys(chosen, float("inf"))
            for _ in range(repeat):
                for algorithm in chosen:
                    start = time.perf_counter()
                    index.search(query, k, algorithm=algorithm)
                    best[algorithm] = min(best[algorithm], time.perf_counter() - start)
            for algorithm in chosen:
                totals[algorithm] += best[algorithm]
            best_of_two += min(best["exhaustive"], best["maxscore"])
        cells = [f"{len(queries) / totals[a]:,.0f}" for a in chosen]
        cells.append(f"{len(queries) / best_of_two:,.0f}")
        print(f"| {k} | " + " | ".join(cells) + " |")
    print("\nQPS, one thread, single `search` calls, each query's best of its passes.")


if __name__ == "__main__":
    main()
