"""Index storage benchmark: build time, disk size, and load time and memory of a saved
index, memory-mapped and read, each load in a fresh process.

    python benches/storage.py [CORPUS] [--repeat N]

CORPUS defaults to ../shared/data/scifact/corpus.jsonl.gz. "cold" loads run right after
the page cache was asked to drop the index files (posix_fadvise DONTNEED), "warm" loads
after one load has read them. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import rserini

REPO = Path(__file__).resolve().parent.parent
DEFAULT = REPO.parent / "shared" / "data" / "scifact" / "corpus.jsonl.gz"

LOAD = """
import re, sys, time
import rserini
start = time.perf_counter()
index = rserini.Index.load(sys.argv[1], mmap=sys.argv[2] == "1")
elapsed = time.perf_counter() - start
hits = index.search("protein expression in cells", k=10)
assert hits, "the loaded index answers"
# The peak RSS of this process's own memory: getrusage's ru_maxrss would keep
# the parent's peak across fork and exec.
with open("/proc/self/status") as status:
    peak_kb = int(re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1))
print(elapsed, peak_kb)
"""


def drop_cache(folder: Path) -> None:
    for path in folder.iterdir():
        with open(path, "rb") as f:
            os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def load_once(folder: Path, mmap: bool) -> tuple[float, int]:
    out = subprocess.run(
        [sys.executable, "-c", LOAD, str(folder), "1" if mmap else "0"],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, rss_kb = out.stdout.split()
    return float(seconds), int(rss_kb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "index"
        start = time.perf_counter()
        index = rserini.Index.from_jsonl(args.corpus, progress=False)
        build = time.perf_counter() - start
        index.save(folder)
        sizes = {p.name.split(".", 1)[1]: p.stat().st_size for p in folder.glob("seg*")}
        total = sum(sizes.values())
        store = sizes.get("store", 0)
        print(f"corpus: {args.corpus} ({len(index):,} documents)")
        print(f"build (all cores): {build:.2f} s")
        print(
            f"disk: {total / 1e6:.2f} MB in all, {(total - store) / 1e6:.2f} MB without the "
            f"document store ({store / 1e6:.2f} MB)"
        )
        print()
        print("| load | mode | median time | max RSS |")
        print("|---|---|---:|---:|")
        for mmap in (True, False):
            for state in ("cold", "warm"):
                times, rss = [], []
                for _ in range(args.repeat):
                    if state == "cold":
                        drop_cache(folder)
                    else:
                        load_once(folder, mmap)
                    t, r = load_once(folder, mmap)
                    times.append(t)
                    rss.append(r)
                mode = "mmap" if mmap else "read"
                print(
                    f"| {state} | {mode} | {statistics.median(times) * 1e3:.1f} ms "
                    f"| {statistics.median(rss) / 1024:.0f} MB |"
                )


if __name__ == "__main__":
    main()
