"""Shipping rankings between processes: ``Columns`` against lists of tuples.

    python benches/columns_transport.py [CORPUS_DIR] [--rounds 7]

Searches every query of the corpus (SciFact's 1,109 by default) at k = 10 and 1000 with
``batch_search_columns`` and ``batch_search_pairs`` (the same rankings), then prints,
for each form, the pickled size (protocol 5, as multiprocessing and Ray use) and the
best round of ``pickle.loads(pickle.dumps(x))``; also the time to make each form.
"""

from __future__ import annotations

import argparse
import pickle
import time
from collections.abc import Callable
from pathlib import Path

import rserini

REPO = Path(__file__).resolve().parent.parent


def best(rounds: int, f: Callable[[], object]) -> float:
    """The fastest of ``rounds`` calls of ``f``, in seconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "corpus", nargs="?", type=Path, default=REPO.parent / "shared" / "data" / "scifact"
    )
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    index = rserini.Index.from_jsonl(args.corpus, store=False, progress=False)
    queries = [text for _, text in rserini.read_queries(args.corpus / "queries.jsonl")]
    print(f"{len(index)} documents, {len(queries)} queries, best of {args.rounds} rounds")
    header = ("k", "form", "hits", "make ms", "pickled bytes", "dumps+loads ms")
    print("{:>5} {:<8} {:>8} {:>8} {:>14} {:>15}".format(*header))
    for k in (10, 1000):
        forms = {
            "tuples": lambda k=k: index.batch_search_pairs(queries, k, threads=1),
            "columns": lambda k=k: index.batch_search_columns(queries, k, threads=1),
        }
        for name, make in forms.items():
            value = make()
            rows = value.to_pairs() if isinstance(value, rserini.Columns) else value
            hits = sum(len(r) for r in rows)
            made = best(args.rounds, make)
            size = len(pickle.dumps(value, protocol=5))
            trip = best(args.rounds, lambda v=value: pickle.loads(pickle.dumps(v, protocol=5)))
            print(f"{k:>5} {name:<8} {hits:>8} {made * 1e3:>8.1f} {size:>14,} {trip * 1e3:>15.2f}")


if __name__ == "__main__":
    main()
