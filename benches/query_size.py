"""Query time against the number of distinct query terms: linear, not quadratic.

    python benches/query_size.py [CORPUS] [--sizes 1000,2000,...] [--repeat R]

CORPUS is a BEIR folder (default ``../shared/data/cacm``), indexed in memory. For each
size n, a query of n distinct random words (four letters and a number, seeded; almost none in the
vocabulary, as in a hostile request) is timed through ``Index.query_terms`` (analysis
and deduplication) and ``Index.search_pairs(k=1000)`` (plus one dictionary lookup per
term and segment), best of R (default 3). The query limits are raised for the run. The
last column is the time per term, which stays flat when the cost is linear.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))

import rserini  # noqa: E402
from rserini.formats import beir_files  # noqa: E402


def best_of(repeat: int, run: object) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", nargs="?", default=str(REPO.parent / "shared/data/cacm"))
    parser.add_argument("--sizes", default="1000,2000,5000,10000,20000,40000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    found = beir_files(Path(args.corpus))
    if found is None:
        raise SystemExit(f"no corpus.jsonl[.gz] in {args.corpus}")
    index = rserini.Index.from_jsonl(found[0], progress=False)
    sizes = [int(s) for s in args.sizes.split(",")]
    rserini.set_query_limits(max_bytes=16 * max(sizes), max_terms=max(sizes))
    rng = random.Random(0)
    print("| distinct terms | query bytes | query_terms (ms) | search_pairs k=1000 (ms) |", end="")
    print(" µs per term |")
    print("|---:|---:|---:|---:|---:|")
    for n in sizes:
        # Letters then a distinct number: one token each, which no stemmer merges.
        words = ["".join(rng.choice("abcdefghij") for _ in range(4)) + str(i) for i in range(n)]
        rng.shuffle(words)
        query = " ".join(words)
        assert len(index.query_terms(query)) == n
        terms = best_of(args.repeat, lambda q=query: index.query_terms(q))
        search = best_of(args.repeat, lambda q=query: index.search_pairs(q, k=1000))
        print(
            f"| {n:,} | {len(query):,} | {terms * 1e3:.1f} | {search * 1e3:.1f} "
            f"| {search / n * 1e6:.2f} |"
        )


if __name__ == "__main__":
    main()
