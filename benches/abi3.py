"""Per-version extension against one stable-ABI (abi3) extension on deep rankings.

    python benches/abi3.py [CORPUS_DIR] [--k 1000] [--trials 5] [--rounds 5] [--lto]

Builds ``rserini._core`` twice from this checkout with the same Cargo profile, once for
the running CPython and once with PyO3's ``abi3-py310`` feature, puts each beside a copy
of the Python package under ``target/abi3-bench/``, and times ``search_pairs`` over the
corpus's judged queries in a fresh process per variant and trial, alternating the
variants so that a loaded machine slows both alike. Prints the best round of each trial,
the ratio of the best rounds overall and the median of the paired ratios. Without
``--lto`` the builds skip link-time optimisation (as development builds do): the calls
abi3 adds go into libpython, which LTO cannot inline either way.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "target" / "abi3-bench"
TARGET = REPO / "target" / "dev"

TIMER = r"""
import json, sys, time
from pathlib import Path
import rserini
folder, k, rounds, suffix = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
assert rserini._core.__file__.endswith(suffix), rserini._core.__file__
lines = (folder / "qrels" / "test.tsv").read_text().splitlines()[1:]
judged = {line.split("\t")[0] for line in lines}
queries = [t for q, t in rserini.read_queries(folder / "queries.jsonl") if q in judged]
index = rserini.Index.from_jsonl(folder, progress=False)
best, hits = float("inf"), 0
for _ in range(rounds):
    start = time.perf_counter()
    hits = sum(len(index.search_pairs(q, k=k)) for q in queries)
    best = min(best, time.perf_counter() - start)
print(json.dumps({"best_s": best, "queries": len(queries), "hits": hits}))
"""


def build(abi3: bool, lto: bool) -> Path:
    """Builds the extension and returns a folder holding it with the Python package."""
    env = dict(os.environ)
    if not lto:
        env |= {
            "CARGO_PROFILE_RELEASE_LTO": "false",
            "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
            "CARGO_PROFILE_RELEASE_INCREMENTAL": "true",
        }
    # target/dev: the cargo cache of development builds (same profile without --lto).
    cmd = ["cargo", "build", "--release", "-p", "rserini-py", "--target-dir", str(TARGET)]
    if abi3:
        cmd += ["--features", "pyo3/abi3-py310"]
    env["PYO3_PYTHON"] = sys.executable  # the per-version build is for this interpreter
    subprocess.run(cmd, cwd=REPO, env=env, check=True)
    variant = OUT / ("abi3" if abi3 else "per-version")
    shutil.rmtree(variant, ignore_errors=True)
    shutil.copytree(
        REPO / "python" / "rserini",
        variant / "rserini",
        ignore=shutil.ignore_patterns("*.so", "__pycache__"),
    )
    suffix = ".abi3.so" if abi3 else sysconfig.get_config_var("EXT_SUFFIX")
    shutil.copy2(TARGET / "release" / "lib_core.so", variant / "rserini" / f"_core{suffix}")
    return variant


def time_variant(variant: Path, corpus: Path, k: int, rounds: int, suffix: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", TIMER, str(corpus), str(k), str(rounds), suffix],
        env={**os.environ, "PYTHONPATH": str(variant)},
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return json.loads(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=REPO.parent / "shared/data/scifact")
    parser.add_argument("--k", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lto", action="store_true", help="the release profile's fat LTO")
    args = parser.parse_args()
    per_version = build(abi3=False, lto=args.lto)
    abi3 = build(abi3=True, lto=args.lto)
    suffixes = {per_version: sysconfig.get_config_var("EXT_SUFFIX"), abi3: ".abi3.so"}
    best: dict[Path, list[float]] = {per_version: [], abi3: []}
    for trial in range(args.trials):
        order = (per_version, abi3) if trial % 2 == 0 else (abi3, per_version)
        for variant in order:
            result = time_variant(variant, args.corpus, args.k, args.rounds, suffixes[variant])
            best[variant].append(result["best_s"])
            print(
                f"trial {trial + 1} {variant.name:>11}: {result['best_s'] * 1e3:8.1f} ms "
                f"for {result['queries']} queries, {result['hits']:,} hits",
                flush=True,
            )
    # On a loaded machine the minimum is the least disturbed figure; the ratios of the
    # two variants within a trial (run back to back) see nearly the same load.
    a, b = min(best[per_version]), min(best[abi3])
    paired = [y / x for x, y in zip(best[per_version], best[abi3], strict=True)]
    print(
        f"search_pairs k={args.k}, best of all rounds: per-version {a * 1e3:.1f} ms, "
        f"abi3 {b * 1e3:.1f} ms, abi3 / per-version = {b / a:.3f}; "
        f"median of the {args.trials} paired ratios = {statistics.median(paired):.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
