"""Latency of the agent tools: one call as an agent makes it, from arguments to result text.

    python benches/agent_tools.py [CORPUS] [--index DIR] [--queries N] [--repeat R]

CORPUS is a BEIR folder (``corpus.jsonl[.gz]`` and ``queries.jsonl``; default
``../shared/data/scifact``), indexed in memory with the document store, or ``--index`` a
saved index (queries still from CORPUS). For each query, at each BM25 setting (k1 = 0.9,
b = 0.4 and k1 = 25, b = 1), the bench times through :meth:`SearchSession.call` (schema
validation, budget check, the tool, event recording):

- ``search``: 1000 hits ranked, cached, and the first page (ranks 1-5 with excerpts)
  rendered;
- ``read_search_results``: the default page (ranks 6-15, excerpts);
- ``read_document``: the first 200 lines of the top hit;
- with ``--improved``, the same with every improvement on, plus ``find_in_document``;
- and, for comparison, the ranking alone: ``Index.search_pairs(query, k=1000)``.

Each call is timed R times (default 3), each time in a fresh session (a browse after an
untimed search), and its median kept; the table gives the median, p90 and p99 of those
over the queries, in milliseconds, after 20 warm-up queries.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))

import rserini  # noqa: E402
from rserini.agent import SearchSession, TimeBudget, ToolOptions  # noqa: E402
from rserini.formats import beir_files  # noqa: E402


def read_queries(folder: Path, limit: int | None) -> list[str]:
    queries = [text for _, text in rserini.read_queries(folder / "queries.jsonl")]
    return queries[:limit] if limit else queries


def corpus_file(folder: Path) -> Path:
    found = beir_files(folder)
    if found is None:
        raise SystemExit(f"no corpus.jsonl[.gz] in {folder}")
    return found[0]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench(
    index: rserini.Index, queries: list[str], k1: float, b: float, options: ToolOptions, repeat: int
) -> dict[str, list[float]]:
    """Per call name, the median time of each query's call (ms)."""
    times: dict[str, list[float]] = {}

    def fresh() -> SearchSession:
        return SearchSession(index, k1=k1, b=b, options=options, budget=TimeBudget(0))

    for i, query in enumerate(queries):
        with fresh() as probe:
            top = probe.call("search", {"reason": "bench", "query": query}).details
        docids = top["previewedDocids"]
        assert isinstance(docids, list)
        calls: list[tuple[str, dict[str, object]]] = [
            ("search", {"reason": "bench", "query": query}),
            ("read_search_results", {"reason": "bench", "search_id": "s1"}),
        ]
        if docids:
            calls.append(("read_document", {"reason": "bench", "docid": docids[0]}))
            if options.find_in_document:
                calls.append(
                    ("find_in_document", {"reason": "bench", "docid": docids[0], "query": query})
                )
        ranking = []
        for _ in range(repeat):
            start = time.perf_counter()
            index.search_pairs(query, k=1000, k1=k1, b=b)
            ranking.append((time.perf_counter() - start) * 1000)
        if i >= 20 or len(queries) <= 20:
            times.setdefault("(search_pairs, k=1000)", []).append(statistics.median(ranking))
        for name, args in calls:
            runs = []
            for _ in range(repeat):
                # Each timed call is a session's first of its kind: a browse renders its
                # excerpts then, and nothing is served from a previous call.
                with fresh() as session:
                    if name == "read_search_results":
                        session.call("search", {"reason": "bench", "query": query})
                    start = time.perf_counter()
                    result = session.call(name, args)
                    runs.append((time.perf_counter() - start) * 1000)
                    assert not result.is_error, result.text
            if i >= 20 or len(queries) <= 20:
                times.setdefault(name, []).append(statistics.median(runs))
    return times


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("corpus", nargs="?", type=Path, default=REPO.parent / "shared/data/scifact")
    p.add_argument("--index", type=Path, default=None, help="a saved index of CORPUS")
    p.add_argument("--queries", type=int, default=None, help="the first N queries only")
    p.add_argument("--repeat", type=int, default=3, help="timings per call (median kept)")
    p.add_argument("--improved", action="store_true", help="also time every improvement")
    args = p.parse_args()

    start = time.perf_counter()
    if args.index is not None:
        index = rserini.Index.load(args.index)
    else:
        index = rserini.Index.from_jsonl(corpus_file(args.corpus), progress=False)
    ready = time.perf_counter() - start
    queries = read_queries(args.corpus, args.queries)
    sizes = []
    opener = gzip.open if corpus_file(args.corpus).suffix == ".gz" else open
    with opener(corpus_file(args.corpus), "rt", encoding="utf-8") as f:  # type: ignore[operator]
        for n, line in enumerate(f):
            if n >= 2000:
                break
            doc = json.loads(line)
            sizes.append(len(doc.get("contents") or doc.get("text") or ""))
    print(
        f"{args.corpus.name}: {len(index):,} documents (mean {statistics.mean(sizes):,.0f} "
        f"characters over the first 2,000), index ready in {ready:.1f} s; "
        f"{len(queries):,} queries, median of {args.repeat} per call\n"
    )
    variants = [("faithful", ToolOptions())]
    if args.improved:
        variants.append(("improved", ToolOptions.improved()))
    print("| tools | k1, b | call | median ms | p90 ms | p99 ms |")
    print("|---|---|---|---:|---:|---:|")
    for label, options in variants:
        for k1, b in ((0.9, 0.4), (25.0, 1.0)):
            times = bench(index, queries, k1, b, options, args.repeat)
            for name, values in times.items():
                call = name if name.startswith("(") else f"`{name}`"
                print(
                    f"| {label} | {k1:g}, {b:g} | {call} | {statistics.median(values):.2f} | "
                    f"{percentile(values, 0.9):.2f} | {percentile(values, 0.99):.2f} |"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
