"""Sharded indexes against one index: build time, QPS, the statistics round, bytes shipped.

    python benches/sharded.py CORPUS [--queries FILE] [--shards 1 2 4] [--engines local ray]
                              [--k 10 1000] [--limit N] [--work DIR]

Builds one index of CORPUS and, for each shard count and engine, a sharded index
(``engine="ray"`` starts a one-machine Ray instance); then runs the queries in one batch
on each at every k and prints markdown tables: build seconds; queries per second; the
statistics round (round 1 alone, timed with nothing cached: the batch's terms and their
summed statistics from every shard, and its share of a batch that gathers them first);
the bytes a round trip pickles per query (round 1's request and answers, round 2's
request and ``Columns`` answers, protocol 5 as Ray ships them); and the
mean latency of one ``search_pairs`` call at k = 10. Each build's row also gives the
machine's CPU seconds over its wall time (all processes, from ``/proc/stat``: Ray's
workers are not this process's children) and the load average after it, so that a
build slowed by other work on the machine shows as such.
"""

from __future__ import annotations

import argparse
import os
import pickle
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import rserini
from rserini.distributed import ShardedIndex, build_shards
from rserini.distributed.shard import ShardServer


def timed(f: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    value = f()
    return time.perf_counter() - start, value


def machine_cpu_seconds() -> float:
    """CPU time used by every process on the machine so far (Linux ``/proc/stat``)."""
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    user, nice, system = (int(x) for x in fields[:3])
    return (user + nice + system) / os.sysconf("SC_CLK_TCK")


def timed_build(f: Callable[[], object]) -> tuple[tuple[float, float, float], object]:
    """Wall seconds, the machine's CPU seconds and the 1-minute load average after."""
    cpu = machine_cpu_seconds()
    seconds, value = timed(f)
    return (seconds, machine_cpu_seconds() - cpu, os.getloadavg()[0]), value


def best(rounds: int, f: Callable[[], object]) -> float:
    return min(timed(f)[0] for _ in range(rounds))


def shipped_bytes(folder: Path, queries: list[str], k: int) -> tuple[float, float]:
    """Pickled bytes per query of round 1 and of round 2, over every shard."""
    servers = [ShardServer(str(p)) for p in sorted(folder.glob("shard-*"))]
    analyzer = servers[0].snapshot[0].analyzer
    terms = sorted({t for q in analyzer.analyze_batch(queries) for t in q})
    answers = [s.round1(terms) for s in servers]
    stats = rserini.GlobalStats.sum([a[1] for a in answers])
    round1 = sum(len(pickle.dumps(("round1", (terms,)), 5)) for _ in servers)
    round1 += sum(len(pickle.dumps((True, a), 5)) for a in answers)
    round2 = 0
    for s, (generation, _) in zip(servers, answers, strict=True):
        request = ("round2", (generation, queries, k, stats, {}))
        round2 += len(pickle.dumps(request, 5))
        round2 += len(pickle.dumps((True, s.round2(generation, queries, k, stats, {})), 5))
    return round1 / len(queries), round2 / len(queries)


def gather(index: ShardedIndex, queries: list[str]) -> None:
    """Round 1 alone, as a batch runs it with nothing cached: the queries' terms, then
    their statistics from every shard."""
    index.clear_stats_cache()
    terms = {t for q in index.analyzer.analyze_batch(queries) for t in q}
    index._round1(terms, False, False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--queries", type=Path, default=None)
    parser.add_argument("--shards", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--engines", nargs="+", default=["local", "ray"])
    parser.add_argument("--k", type=int, nargs="+", default=[10, 1000])
    parser.add_argument("--limit", type=int, default=None, help="first N queries only")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    queries_file = args.queries or args.corpus / "queries.jsonl"
    queries = [text for _, text in rserini.read_queries(queries_file)][: args.limit]
    work = args.work or Path(tempfile.mkdtemp(prefix="sharded-bench-"))
    if "ray" in args.engines:
        import ray

        ray.init(logging_level="WARNING", log_to_driver=False, include_dashboard=False)

    builds: dict[str, tuple[float, float, float]] = {}
    figures, single = timed_build(lambda: rserini.Index.from_jsonl(args.corpus, progress=False))
    builds["single index"] = figures
    folders: dict[tuple[str, int], Path] = {}
    for shards in args.shards:
        for engine in args.engines:
            out = work / f"{engine}-{shards}"
            shutil.rmtree(out, ignore_errors=True)
            builds[f"{shards} shards, {engine}"], _ = timed_build(
                lambda out=out, shards=shards, engine=engine: build_shards(
                    args.corpus, out, shards, engine=engine
                )
            )
            folders[engine, shards] = out
    print(f"{len(single):,} documents, {len(queries):,} queries\n")
    print("| build | seconds | machine CPU seconds | load average after |\n|---|---:|---:|---:|")
    for name, (seconds, cpu, load) in builds.items():
        print(f"| {name} | {seconds:.1f} | {cpu:.1f} | {load:.1f} |")

    rows = []
    for k in args.k:
        qps = len(queries) / best(args.rounds, lambda k=k: single.batch_search_pairs(queries, k))
        rows.append((f"single index, k = {k}", qps))
    latency_single = best(1, lambda: [single.search_pairs(q, 10) for q in queries[:100]])
    latencies = {"single index": latency_single / len(queries[:100])}
    for (engine, shards), folder in folders.items():
        with ShardedIndex.open(folder, engine=engine) as index:
            for k in args.k:
                index.batch_search_pairs(queries, k)  # warm: statistics cached, pages read
                warm = best(args.rounds, lambda k=k, i=index: i.batch_search_pairs(queries, k))

                gathering = best(args.rounds, lambda i=index: gather(i, queries))
                r1, r2 = shipped_bytes(folder, queries, k)
                name = f"{shards} shards, {engine}, k = {k}"
                rows.append((name, len(queries) / warm, gathering, warm, r1, r2))
            index.search_pairs(queries[0], 10)
            took = best(1, lambda i=index: [i.search_pairs(q, 10) for q in queries[:100]])
            latencies[f"{shards} shards, {engine}"] = took / len(queries[:100])
    print("\n| search (one batch) | queries/s | statistics round, ms (share) "
          "| bytes/query round 1 | bytes/query round 2 |\n|---|---:|---:|---:|---:|")  # fmt: skip
    for name, qps, *rest in rows:
        if not rest:
            print(f"| {name} | {qps:,.0f} | | | |")
        else:
            gathering, warm, r1, r2 = rest
            share = gathering / (gathering + warm)
            print(
                f"| {name} | {qps:,.0f} | {gathering * 1e3:.1f} ({share:.1%}) "
                f"| {r1:,.0f} | {r2:,.0f} |"
            )
    print("\n| one search_pairs call, k = 10 | mean ms |\n|---|---:|")
    for name, seconds in latencies.items():
        print(f"| {name} | {seconds * 1000:.2f} |")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
