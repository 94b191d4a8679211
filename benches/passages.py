"""Passage selection: the best windows of a document for a query, as the agent tools pick
them (``excerpt_mode="passage"`` and ``find_in_document``).

    python benches/passages.py [CORPUS] [--queries N] [--repeat R]

CORPUS is a BEIR folder (default ``../shared/data/scifact``), indexed in memory. For each
query, the top 50 documents are fetched once (untimed); then, timed:

- ``excerpt``: each document cut into runs of words of at most 110 characters, the best
  window of two runs (``best_excerpt``'s call), for all 50 documents;
- ``find``: each document cut into sentences, the 3 best windows of 3 sentences
  (``find_in_document``'s call), for all 50 documents.

Each cell is the best of R passes (default 5) over all queries; the table gives the
microseconds per document and a checksum of the chosen windows (equal checksums: equal
selections).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))

import rserini  # noqa: E402
from rserini.agent.tools.passages import PassageScorer, word_runs  # noqa: E402
from rserini.formats import beir_files  # noqa: E402

DEPTH = 50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", default=str(REPO.parent / "shared/data/scifact"))
    parser.add_argument("--queries", type=int, default=100, help="the first N queries")
    parser.add_argument("--repeat", type=int, default=5, help="passes per cell (best kept)")
    args = parser.parse_args()
    folder = Path(args.corpus)
    found = beir_files(folder)
    if found is None:
        raise SystemExit(f"no corpus.jsonl[.gz] in {folder}")
    index = rserini.Index.from_jsonl(found[0], progress=False)
    queries = [text for _, text in rserini.read_queries(folder / "queries.jsonl")][: args.queries]
    work = []
    for query in queries:
        texts = [index.contents(docid) for docid, _ in index.search_pairs(query, k=DEPTH)]
        work.append(
            (
                query,
                [word_runs(t, 110) for t in texts],
                [re.split(r"(?<=\.) ", t) for t in texts],
            )
        )
    documents = sum(len(runs) for _, runs, _ in work)
    print(f"{len(index):,} documents, {len(queries)} queries, {documents:,} (query, document)s")
    print(f"{'call':<10}{'us/document':>14}  checksum")
    for name, window, k, part in (("excerpt", 2, 1, 1), ("find", 3, 3, 2)):
        best = float("inf")
        digest = ""
        for _ in range(args.repeat):
            chosen = []
            start = time.perf_counter()
            for item in work:
                scorer = PassageScorer(index, item[0])
                chosen.extend(scorer.best(units, window, k) for units in item[part])
            best = min(best, time.perf_counter() - start)
            digest = hashlib.sha256(repr(chosen).encode()).hexdigest()[:12]
        print(f"{name:<10}{best / documents * 1e6:>14.1f}  {digest}")


if __name__ == "__main__":
    main()
