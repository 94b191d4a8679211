"""Builds two large BEIR folders from the Linux kernel sources of Debian's linux-source-6.1.

    python benches/linux_corpus.py [--output DIR] [--tarball PATH] [--no-install]
                                   [--chunk-lines 32] [--queries 1000] [--seed 0]

The tarball (/usr/src/linux-source-6.1.tar.xz) is installed with ``apt-get install
linux-source-6.1`` when it is missing (``--no-install`` fails instead), then read once as
a stream, without extracting it, and two folders are written under DIR
(``$RSERINI_BENCH_DATA``, else ``~/.cache/rserini/bench``):

``linux-files``
    one document per text file: ``_id`` and ``title`` the file's path inside the tree
    (the tarball's top folder ``linux-source-6.1/`` dropped), ``text`` its contents.
``linux-chunks``
    one document per run of 32 lines of each file (the last one shorter): ``_id``
    ``PATH:FIRST-LAST`` (1-based, inclusive, e.g. ``kernel/fork.c:1-32``), ``title`` the
    path, ``text`` the lines joined with ``\\n``.

Text files: regular, non-empty members of at most 1 MiB (``--max-file-bytes``) with no
NUL byte whose bytes decode as strict UTF-8. Anything else is skipped (and counted in the
manifest). Over 1 MiB are 84 files of 6.1, mostly generated (75 GPU register headers,
test vectors, event tables; a tenth of all lines), left out so that the corpus is source
as people write it. The five files of 6.1 with a NUL byte or invalid UTF-8 are skipped rather than
decoded with ``errors="replace"``: replacement characters would only add noise. Lines are
split on ``\\n`` alone (a ``\\r`` stays in its line); a final newline ends the last line.

Queries (the same 1,000 in both folders, ``queries.jsonl``; there are no qrels): a
reservoir of 4 x 1,000 chunks is sampled uniformly with ``random.Random(seed)`` during
the pass, shuffled with the same generator, and visited in that order; in each, one line
is drawn uniformly among those with at least 3 whitespace-separated words, then a run of
3 to 6 consecutive words (length uniform, capped by the line's word count; start
uniform). A query with no letter or digit, or equal to one already taken, is passed over.
Each query keeps its source chunk as ``metadata.source``.

Each folder gets ``corpus.jsonl`` (plain: the fastest for compare.py and rserini to read),
``queries.jsonl`` and ``manifest.json`` (counts, bytes, and the SHA-256 of the tarball
with the options). A folder whose manifest matches and whose files have the recorded
sizes is complete: a second run does nothing. Progress goes to stderr; the folders are
printed on stdout at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PACKAGE = "linux-source-6.1"
TARBALL = Path("/usr/src/linux-source-6.1.tar.xz")
CHUNK_LINES = 32
MAX_FILE_BYTES = 1 << 20
QUERIES = 1000
SEED = 0
MIN_WORDS, MAX_WORDS = 3, 6
RESERVOIR_FACTOR = 4
FORMAT = 1
"""Bumped whenever the output changes for the same tarball and options."""
NAMES = ("linux-files", "linux-chunks")


def default_output() -> Path:
    env = os.environ.get("RSERINI_BENCH_DATA")
    return Path(env) if env else Path.home() / ".cache" / "rserini" / "bench"


def log(message: str) -> None:
    print(f"linux_corpus: {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------
# Input


def ensure_tarball(path: Path, install: bool) -> None:
    """Installs linux-source-6.1 with apt-get when ``path`` is missing (and is the
    package's tarball)."""
    if path.is_file():
        return
    if path != TARBALL:
        raise SystemExit(f"linux_corpus: {path} is missing")
    if not install:
        raise SystemExit(
            f"linux_corpus: {path} is missing; install it with `apt-get install {PACKAGE}` "
            "(as root) or run without --no-install"
        )
    if shutil.which("apt-get") is None:
        raise SystemExit(f"linux_corpus: {path} is missing and there is no apt-get to install it")
    command = ["apt-get", "install", "-y", "--no-install-recommends", PACKAGE]
    if os.geteuid() != 0:
        command = ["sudo", *command]
    log(f"{path} is missing: running `{' '.join(command)}` (use --no-install to fail instead)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if subprocess.run(command, env=env, check=False).returncode != 0:
        log("apt-get install failed: updating the package lists and trying again")
        update = [*command[: command.index("install")], "update"]
        subprocess.run(update, env=env, check=True)
        subprocess.run(command, env=env, check=True)
    if not path.is_file():
        raise SystemExit(f"linux_corpus: {PACKAGE} is installed but {path} is not there")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def tree_path(name: str) -> str:
    """The member's path inside the tree: the tarball's top folder dropped."""
    name = name.removeprefix("./")
    return name.split("/", 1)[1] if "/" in name else name


def text_files(
    tarball: Path, skipped: dict[str, int], max_bytes: int = MAX_FILE_BYTES
) -> Iterator[tuple[str, str, int]]:
    """``(path, text, bytes)`` of each text file of the tarball, in tar order, streamed;
    counts what is passed over in ``skipped``."""
    with tarfile.open(tarball, "r|*") as tar:
        for member in tar:
            if not member.isfile():
                continue
            if member.size > max_bytes:
                skipped[f"over {max_bytes:,} bytes"] += 1
                continue
            f = tar.extractfile(member)
            data = f.read() if f is not None else b""
            if not data:
                skipped["empty"] += 1
                continue
            if b"\0" in data:
                skipped["binary (NUL byte)"] += 1
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                skipped["not UTF-8"] += 1
                continue
            yield tree_path(member.name), text, len(data)


def chunks(text: str, size: int) -> Iterator[tuple[int, int, str]]:
    """``(first, last, text)`` of each run of ``size`` lines (1-based, inclusive)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line
    for start in range(0, len(lines), size):
        part = lines[start : start + size]
        yield start + 1, start + len(part), "\n".join(part)


# --------------------------------------------------------------------------------------
# Queries


class Reservoir:
    """A uniform sample of ``size`` items of a stream (Algorithm R)."""

    def __init__(self, size: int, rng: random.Random) -> None:
        self.size, self.rng, self.seen = size, rng, 0
        self.items: list[tuple[str, str]] = []

    def offer(self, item: tuple[str, str]) -> None:
        if len(self.items) < self.size:
            self.items.append(item)
        else:
            j = self.rng.randrange(self.seen + 1)
            if j < self.size:
                self.items[j] = item
        self.seen += 1


def pick_query(text: str, rng: random.Random) -> str | None:
    """3 to 6 consecutive words of a line of ``text`` with at least 3 words, or None."""
    lines = [w for w in (line.split() for line in text.split("\n")) if len(w) >= MIN_WORDS]
    if not lines:
        return None
    words = rng.choice(lines)
    n = rng.randint(MIN_WORDS, min(MAX_WORDS, len(words)))
    start = rng.randint(0, len(words) - n)
    return " ".join(words[start : start + n])


def sample_queries(reservoir: Reservoir, count: int, rng: random.Random) -> list[dict[str, Any]]:
    items = list(reservoir.items)
    rng.shuffle(items)
    queries: list[dict[str, Any]] = []
    seen: set[str] = set()
    for docid, text in items:
        query = pick_query(text, rng)
        if query is None or query in seen or not re.search(r"\w", query):
            continue
        seen.add(query)
        queries.append({"_id": str(len(queries)), "text": query, "metadata": {"source": docid}})
        if len(queries) == count:
            break
    return queries


# --------------------------------------------------------------------------------------
# Output


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def complete(folder: Path, key: dict[str, Any]) -> bool:
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if manifest.get("key") != key:
        return False
    files = manifest.get("files", {})
    return bool(files) and all(
        (folder / name).is_file() and (folder / name).stat().st_size == size
        for name, size in files.items()
    )


def build(
    tarball: Path,
    output: Path,
    chunk_lines: int = CHUNK_LINES,
    queries: int = QUERIES,
    seed: int = SEED,
    max_file_bytes: int = MAX_FILE_BYTES,
    progress_seconds: float = 5.0,
) -> list[Path]:
    """Writes (or finds complete) the two folders under ``output``; returns them."""
    folders = [output / name for name in NAMES]
    log(f"checksum of {tarball}...")
    key = {
        "format": FORMAT,
        "tarball": tarball.name,
        "tarball_sha256": sha256(tarball),
        "chunk_lines": chunk_lines,
        "max_file_bytes": max_file_bytes,
        "queries": queries,
        "seed": seed,
        "reservoir": RESERVOIR_FACTOR * queries,
        "words": [MIN_WORDS, MAX_WORDS],
    }
    if all(complete(folder, key) for folder in folders):
        log("up to date, nothing to do")
        return folders
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "manifest.json").unlink(missing_ok=True)
    start = time.monotonic()
    rng = random.Random(seed)
    reservoir = Reservoir(RESERVOIR_FACTOR * queries, rng)
    skipped = {f"over {max_file_bytes:,} bytes": 0, "empty": 0, "binary (NUL byte)": 0}
    skipped["not UTF-8"] = 0
    counts = {"files": 0, "chunks": 0, "bytes": 0}
    parts = [folder / "corpus.jsonl.part" for folder in folders]
    last = start
    with (
        open(parts[0], "w", encoding="utf-8") as files,
        open(parts[1], "w", encoding="utf-8") as cs,
    ):
        for path, text, size in text_files(tarball, skipped, max_file_bytes):
            files.write(json.dumps({"_id": path, "title": path, "text": text}, ensure_ascii=False))
            files.write("\n")
            counts["files"] += 1
            counts["bytes"] += size
            for first, end, part in chunks(text, chunk_lines):
                docid = f"{path}:{first}-{end}"
                cs.write(
                    json.dumps({"_id": docid, "title": path, "text": part}, ensure_ascii=False)
                )
                cs.write("\n")
                reservoir.offer((docid, part))
                counts["chunks"] += 1
            if time.monotonic() - last >= progress_seconds:
                last = time.monotonic()
                log(
                    f"{counts['files']:,} files, {counts['chunks']:,} chunks, "
                    f"{counts['bytes'] / 1e6:,.0f} MB of text, {last - start:.0f} s"
                )
    sampled = sample_queries(reservoir, queries, rng)
    if len(sampled) < queries:
        log(f"only {len(sampled)} queries could be drawn (asked for {queries})")
    seconds = time.monotonic() - start
    for folder, part, docs in zip(folders, parts, (counts["files"], counts["chunks"]), strict=True):
        corpus = folder / "corpus.jsonl"
        os.replace(part, corpus)
        write_jsonl(folder / "queries.jsonl", sampled)
        manifest = {
            "key": key,
            "documents": docs,
            "queries": len(sampled),
            "text_files": counts["files"],
            "text_bytes": counts["bytes"],
            "skipped_files": skipped,
            "seconds": round(seconds, 1),
            "files": {
                name: (folder / name).stat().st_size for name in ("corpus.jsonl", "queries.jsonl")
            },
        }
        (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    log(
        f"done in {seconds:.0f} s: {counts['files']:,} files ({counts['bytes'] / 1e6:,.0f} MB), "
        f"{counts['chunks']:,} chunks, {len(sampled):,} queries; skipped {skipped}"
    )
    return folders


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=None, help=f"default: {default_output()}")
    parser.add_argument("--tarball", type=Path, default=TARBALL, help="default: %(default)s")
    parser.add_argument(
        "--no-install",
        action="store_true",
        help=f"fail when the tarball is missing instead of running apt-get install {PACKAGE}",
    )
    parser.add_argument("--chunk-lines", type=int, default=CHUNK_LINES)
    parser.add_argument("--queries", type=int, default=QUERIES)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--max-file-bytes", type=int, default=MAX_FILE_BYTES, help="larger files are skipped"
    )
    args = parser.parse_args()
    ensure_tarball(args.tarball, not args.no_install)
    output = (args.output or default_output()).expanduser().resolve()
    folders = build(
        args.tarball, output, args.chunk_lines, args.queries, args.seed, args.max_file_bytes
    )
    for folder in folders:
        print(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
