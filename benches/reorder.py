"""Document reordering by recursive graph bisection (``reorder="bp"``) against the plain
document order on one corpus: index build time (1 thread), peak memory, size on disk and
``batch_search`` QPS at k = 10 and 1000 (1 thread).

    python benches/reorder.py CORPUS [--rounds N] [--repeat N] [--queries N] [--store]
        [--keep DIR]

CORPUS is a BEIR folder (corpus.jsonl[.gz] and queries.jsonl; the judged queries of
qrels/test.tsv when it exists, else every query). Each build runs in its own process
(``from_jsonl(threads=1)``, no document store unless --store), plain and bp alternating,
--rounds times; each row gives wall and CPU seconds, the process's peak RSS and the load
average when it ended. Queries then run on both saved indexes, alternating, best of
--repeat passes of ``batch_search(threads=1, algorithm="auto")``, after checking that
both return the same docids and bitwise-equal scores for every query. With --keep DIR
the two indexes are saved in DIR, and a later run with the same DIR times the queries
only.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# numpy's OpenBLAS starts a pool of worker threads that busy-wait; see algorithms.py.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

import rserini

MODES = ("none", "bp")


def load_queries(folder: Path) -> list[str]:
    judged = folder / "qrels" / "test.tsv"
    keep = None
    if judged.exists():
        lines = judged.read_text(encoding="utf-8").splitlines()
        keep = {line.split("\t")[0] for line in lines[1:] if line.strip()}
    queries = []
    for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            if keep is None or q["_id"] in keep:
                queries.append(q["text"])
    return queries


def build_one(source: Path, mode: str, out: Path, store: bool) -> None:
    """Child process: one build, saved to ``out``; prints its figures as JSON."""
    wall, cpu = time.perf_counter(), time.process_time()
    index = rserini.Index.from_jsonl(source, store=store, threads=1, progress=False, reorder=mode)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    index.save(out)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"wall": wall, "cpu": cpu, "rss_mb": rss_mb, "load": os.getloadavg()[0]}))


def folder_mb(path: Path, suffixes: tuple[str, ...] = ()) -> float:
    files = [p for p in path.iterdir() if p.is_file()]
    if suffixes:
        files = [p for p in files if p.suffix in suffixes]
    return sum(p.stat().st_size for p in files) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a BEIR folder")
    parser.add_argument("--rounds", type=int, default=2, help="builds per mode (alternating)")
    parser.add_argument("--repeat", type=int, default=5, help="query passes per cell (best kept)")
    parser.add_argument("--queries", type=int, default=None, help="the first N queries only")
    parser.add_argument("--store", action="store_true", help="keep a document store")
    parser.add_argument(
        "--keep",
        type=Path,
        help="save the two indexes in this folder and keep them; if they are there "
        "already, time only the queries",
    )
    parser.add_argument(
        "--build-one", nargs=3, metavar=("SOURCE", "MODE", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.build_one:
        source, mode, out = args.build_one
        build_one(Path(source), mode, Path(out), args.store)
        return

    source = next(
        p for p in (args.corpus / "corpus.jsonl.gz", args.corpus / "corpus.jsonl") if p.exists()
    )
    queries = load_queries(args.corpus)[: args.queries]
    print(f"{args.corpus.name}: {len(queries):,} queries; {os.cpu_count()} cores\n")
    with tempfile.TemporaryDirectory(prefix="rserini-reorder-") as scratch:
        tmp = args.keep or Path(scratch)
        built = all((tmp / mode / "meta.json").exists() for mode in MODES)
        print("| order | round | build wall (s) | build CPU (s) | peak RSS (MB) | load |")
        print("|---|---:|---:|---:|---:|---:|")
        for r in range(0 if built else args.rounds):
            for mode in MODES if r % 2 == 0 else MODES[::-1]:
                command = [
                    sys.executable,
                    __file__,
                    str(args.corpus),
                    "--build-one",
                    str(source),
                    mode,
                ]
                command += [str(Path(tmp) / mode)] + (["--store"] if args.store else [])
                done = subprocess.run(command, capture_output=True, text=True, check=True)
                f = json.loads(done.stdout.splitlines()[-1])
                print(
                    f"| {mode} | {r + 1} | {f['wall']:.2f} | {f['cpu']:.2f} | {f['rss_mb']:,.0f} "
                    f"| {f['load']:.1f} |"
                )
        indexes = {mode: rserini.Index.load(Path(tmp) / mode) for mode in MODES}
        print("\n| order | index on disk (MB) | postings + block table (MB) |")
        print("|---|---:|---:|")
        for mode in MODES:
            folder = Path(tmp) / mode
            postings = folder_mb(folder, (".postings", ".blocks"))
            print(f"| {mode} | {folder_mb(folder):.2f} | {postings:.2f} |")

        print("\n| k | plain QPS | bp QPS | bp ÷ plain | load |")
        print("|---:|---:|---:|---:|---:|")
        for k in (10, 1000):
            results = {m: indexes[m].batch_search(queries, k, threads=1) for m in MODES}
            plain, bp = results["none"], results["bp"]
            for row in range(len(queries)):
                a, b = plain[0][row], bp[0][row]
                same = indexes["none"].docids(a[a >= 0]) == indexes["bp"].docids(b[b >= 0])
                if not same or not np.array_equal(
                    plain[1][row].view(np.uint32), bp[1][row].view(np.uint32)
                ):
                    raise SystemExit(
                        f"query {row} differs between the plain and bp indexes at k={k}"
                    )
            best = dict.fromkeys(MODES, float("inf"))
            for r in range(args.repeat):
                for mode in MODES if r % 2 == 0 else MODES[::-1]:
                    start = time.process_time()
                    indexes[mode].batch_search(queries, k, threads=1)
                    best[mode] = min(best[mode], time.process_time() - start)
            qps = {m: len(queries) / best[m] for m in MODES}
            print(
                f"| {k} | {qps['none']:,.0f} | {qps['bp']:,.0f} | {qps['bp'] / qps['none']:.2f}x "
                f"| {os.getloadavg()[0]:.1f} |"
            )


if __name__ == "__main__":
    main()
