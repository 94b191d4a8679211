"""Rebuilds the committed Lucene fixtures and Pyserini's expected outputs on them:

    python tests/data/lucene/make_lucene_fixtures.py [--jars DIR] [--only NAME...] [--record-only]

Each fixture is built from ../shared/data/adi by the Anserini jar of a Pyserini release
(run with ``java`` in a subprocess: see ``rserini.parity.lucene_build``), into
``<lucene-version>/<name>/``. Pyserini 1.6.0 (the installed one) is then run on every copy;
its outputs (BM25 at three (k1, b), QLD, multifield BM25, documents) go to
``expected/<name>.json.gz``: the documents must be the same on every version's copy of a
build; what differs per copy (Lucene docids, segments, and the runs on a Lucene 8 index,
which Anserini scores without rounding or its docid tie rule) goes under ``"indexes"``.
Each build records the runs it needs (see ``BUILDS``), every score as the shortest decimal
that reads back as the same float32 (Pyserini's scores are Java floats), so the files stay
small. ``--record-only`` records Pyserini's outputs again on the committed folders without
building (no old jar needed). ``README.md`` is rewritten.

The jars of older releases are taken from ``--jars`` (default
``~/.cache/rserini/anserini-jars``), or fetched there with ``pip download --no-deps
pyserini==X`` and unzipped from the wheel.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from rserini.parity._java import anserini_jar, find_java
from rserini.parity.lucene_build import LuceneBuild, anserini_command, build, lucene_version
from rserini.parity.lucene_expected import default_runs, pyserini_outputs_many

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[2].parent / "shared" / "data"
COLLECTION = "adi"

# Pyserini release -> (Anserini jar inside its wheel, Lucene version).
RELEASES = {
    "1.6.0": ("anserini-1.7.1-fatjar.jar", "9.9.1"),
    "0.19.0": ("anserini-0.16.1-fatjar.jar", "9.3.0"),
    "0.17.0": ("anserini-0.14.3-fatjar.jar", "8.11.0"),
}
BM25, BM25_K1B, BM25_EXTREME, QLD = default_runs()
MULTIFIELD = default_runs(("title",))[-1]
# Each build, the releases that write it, the runs recorded (all queries, k = 1000) and
# what it proves beyond the others.
BUILDS: list[tuple[LuceneBuild, tuple[str, ...], list[dict[str, Any]]]] = [
    # One plain segment with -storeRaw; on Lucene 8, the precise version error.
    (LuceneBuild(COLLECTION, store_raw=True), ("1.6.0", "0.17.0"), [BM25, BM25_K1B, QLD]),
    # Positions and term vectors in the files (read past), two segments, Lucene 9.3; every
    # BM25 setting and QLD on the late-2022 format.
    (
        LuceneBuild(
            COLLECTION,
            files=3,
            threads=2,
            store_raw=True,
            store_positions=True,
            store_docvectors=True,
        ),
        ("0.19.0",),
        [BM25, BM25_K1B, BM25_EXTREME, QLD],
    ),
    # -fields title: multifield search, two segments.
    (
        LuceneBuild(COLLECTION, files=3, threads=2, fields=("title",), store_raw=True),
        ("1.6.0", "0.19.0"),
        [BM25, MULTIFIELD],
    ),
    # Deleted documents in two segments (replaced under -uniqueDocid): statistics count them.
    (
        LuceneBuild(COLLECTION, files=3, threads=2, store_raw=True, replaced=5),
        ("0.19.0",),
        [BM25, QLD],
    ),
    # A compound-file segment with deletions, nothing stored.
    (
        LuceneBuild(COLLECTION, files=3, threads=2, compound=True, drop=3),
        ("1.6.0", "0.19.0"),
        [BM25, QLD],
    ),
]
LUCENE8_HITS = 10
"""Hits kept of Pyserini's (unrounded) runs on the Lucene 8 copy: enough to show the
difference, which rserini does not need (it reads no Lucene 8 index)."""
# Documents recorded: the first five (replaced in the build with deletions), a middle and
# the last one, and an id that is not there.
DOCIDS = ["1", "2", "3", "4", "5", "41", "82", "no-such-doc"]


def release_jar(release: str, jars: Path) -> Path:
    """The Anserini jar of a Pyserini release: the installed one for 1.6.0, else from
    ``jars`` (fetched from the package index when absent)."""
    name, _ = RELEASES[release]
    if release == "1.6.0":
        jar = anserini_jar()
        if jar.name != name:
            raise SystemExit(f"the installed Pyserini carries {jar.name}, not {name}")
        return jar
    jar = jars / name
    if jar.is_file():
        return jar
    jars.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pyserini-wheel-") as tmp:
        pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps"]
        subprocess.run([*pip, f"pyserini=={release}", "-d", tmp], check=True)
        (wheel,) = Path(tmp).glob("pyserini-*.whl")
        with zipfile.ZipFile(wheel) as z, z.open(f"pyserini/resources/jars/{name}") as src:
            partial = jar.with_suffix(".partial")
            with open(partial, "wb") as out:
                shutil.copyfileobj(src, out)
            partial.replace(jar)
    return jar


def first_difference(a: Any, b: Any, where: str = "") -> str:
    """Where two JSON values first differ, for the error message."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                return first_difference(a.get(key), b.get(key), f"{where}/{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{where}[{i}]")
    return f"{where}: {a!r:.200} != {b!r:.200}"


def float32_text(score: float) -> float:
    """The shortest decimal that reads back as the same float32 as ``score``."""
    value = np.float32(score)
    for digits in range(1, 10):
        short = float(f"{float(value):.{digits}g}")
        if np.float32(short) == value:
            return short
    return float(value)


def compact(runs: list[dict[str, Any]], hits: int | None = None) -> list[dict[str, Any]]:
    """``runs`` with their scores as :func:`float32_text`, each query's hits cut to ``hits``."""
    return [
        run
        | {
            "hits": {
                qid: [[docid, float32_text(score)] for docid, score in found[:hits]]
                for qid, found in run["hits"].items()
            }
        }
        for run in runs
    ]


def queries() -> list[tuple[str, str]]:
    """The collection's queries as ``(qid, text)``."""
    lines = (DATA / COLLECTION / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [(str(q["_id"]), q["text"]) for q in map(json.loads, filter(None, lines))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jars", type=Path, default=Path.home() / ".cache/rserini/anserini-jars")
    parser.add_argument("--only", nargs="*", help="rebuild only these builds (by name)")
    parser.add_argument(
        "--record-only", action="store_true", help="record Pyserini again, build nothing"
    )
    args = parser.parse_args()
    java = find_java().java
    topics = queries()
    (HERE / "expected").mkdir(exist_ok=True)
    chosen = [b for b in BUILDS if not args.only or b[0].name in args.only]
    commands: dict[tuple[str, str], dict[str, Any]] = {}
    jobs = []
    with tempfile.TemporaryDirectory(prefix="lucene-fixtures-") as tmp:
        for spec, releases, runs in chosen:
            for release in releases:
                jar_name, version = RELEASES[release]
                target = HERE / version / spec.name
                if args.record_only:
                    command = anserini_command(spec, java, Path(jar_name), Path("<input>"), target)
                    merge = []
                    if spec.compound:
                        merge = ["python", "-c", MERGE, str(target), *last_ids(spec)]
                else:
                    jar = release_jar(release, args.jars)
                    if lucene_version(jar) != version:
                        raise SystemExit(f"{jar.name} bundles Lucene {lucene_version(jar)}")
                    if target.exists():
                        shutil.rmtree(target)
                    target.parent.mkdir(exist_ok=True)
                    result = build(spec, DATA, target, java=java, jar=jar)
                    command, merge = result.command, result.merge_command
                commands[spec.name, version] = {
                    "pyserini_release": release,
                    "jar": jar_name,
                    "command": printed_command(command, merge, f"{version}/{spec.name}"),
                }
                if args.record_only:  # the command that built it, as recorded then
                    commands[spec.name, version] |= recorded(spec.name, version, "command")
                wanted = [BM25 | {"k": LUCENE8_HITS}] if version.startswith("8.") else runs
                jobs.append({
                    "index": str(target),
                    "out": f"{tmp}/{version}-{spec.name}.json",
                    "queries": [list(q) for q in topics],
                    "runs": wanted,
                    "docids": DOCIDS,
                    "fields": ["contents", *spec.fields],
                })  # fmt: skip
        pyserini_outputs_many(jobs)
        outputs = {Path(job["out"]).stem: json.loads(Path(job["out"]).read_text()) for job in jobs}
    for spec, releases, _ in chosen:
        shared: dict[str, Any] | None = None
        indexes: dict[str, Any] = {}
        for release in releases:
            version = RELEASES[release][1]
            out = outputs[f"{version}-{spec.name}"]
            target = HERE / version / spec.name
            lucene_docids = {d: v["lucene_docid"] for d, v in out["docs"].items() if v}
            for doc in out["docs"].values():
                if doc:
                    del doc["lucene_docid"]
            runs = compact(out["runs"])
            if shared is None:
                shared = {"runs": runs, "docs": out["docs"]}
            if out["docs"] != shared["docs"]:
                difference = first_difference(shared["docs"], out["docs"])
                raise SystemExit(f"{spec.name}: Pyserini's documents differ: {difference}")
            indexes[version] = commands[spec.name, version] | {
                "segments": sum(1 for p in target.iterdir() if p.suffix == ".si"),
                "deletions": any(p.suffix == ".liv" for p in target.iterdir()),
                "stats": out["stats"],
                "order": out["order"],
                "lucene_docids": lucene_docids,
            }
            if runs != shared["runs"]:
                # Anserini searches Lucene 8 indexes without its tie rule and score rounding.
                indexes[version]["runs"] = runs
            print(f"{version}/{spec.name}: {indexes[version]['segments']} segments", flush=True)
        assert shared is not None
        expected = {
            "build": {k: v for k, v in spec.__dict__.items()},
            "collection": COLLECTION,
            "pyserini_version": "1.6.0",
            "queries": len(topics),
            **shared,
            "indexes": indexes,
        }
        body = json.dumps(expected, ensure_ascii=False, sort_keys=True).encode("utf-8")
        # mtime=0: the same outputs give the same bytes.
        (HERE / "expected" / f"{spec.name}.json.gz").write_bytes(gzip.compress(body, mtime=0))
    write_readme()
    return 0


MERGE = "<IndexWriter.forceMerge(1), compound files>"


def recorded(name: str, version: str, key: str) -> dict[str, Any]:
    """``{key: value}`` of the version's entry in the committed expected file, if any."""
    path = HERE / "expected" / f"{name}.json.gz"
    if not path.is_file():
        return {}
    index = json.loads(gzip.decompress(path.read_bytes()))["indexes"].get(version, {})
    return {key: index[key]} if key in index else {}


def last_ids(spec: LuceneBuild) -> list[str]:
    """The ids a compound build deletes: the last ``drop`` of the corpus."""
    lines = (DATA / COLLECTION / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    ids = [str(json.loads(line)["_id"]) for line in lines if line.strip()]
    return ids[len(ids) - spec.drop :]


def printed_command(command: list[str], merge: list[str], target: str) -> str:
    """The build command as the README prints it: input folder, jar and java by name."""
    parts = ["<input>" if p.startswith(tempfile.gettempdir()) else p for p in command]
    parts = [Path(p).name if p.endswith((".jar", "/java")) else p for p in parts]
    parts[-1] = target
    if merge:
        parts += ["&&", *merge[:3], target, *merge[4:]]
    return shlex.join(parts).replace("'&&'", "&&")


def write_readme() -> None:
    """The README's table of folders and their commands, from the expected files."""
    rows = []
    for spec, _, _ in BUILDS:
        expected = json.loads(
            gzip.decompress((HERE / "expected" / f"{spec.name}.json.gz").read_bytes())
        )
        for version, index in expected["indexes"].items():
            folder = HERE / version / spec.name
            rows.append(
                (f"{version}/{spec.name}", index, sum(p.stat().st_size for p in folder.iterdir()))
            )
    head = (HERE / "README.md").read_text(encoding="utf-8").split("\n## Folders\n")[0]
    lines = [head.rstrip(), "", "## Folders", ""]
    lines.append(
        "| folder | Pyserini wheel | Anserini jar | segments | deleted | live / maxDoc | bytes |"
    )
    lines.append("| --- | --- | --- | ---: | --- | --- | ---: |")
    for folder, index, size in rows:
        stats = index["stats"]
        lines.append(
            f"| `{folder}` | {index['pyserini_release']} | `{index['jar']}` | "
            f"{index['segments']} | {'yes' if index['deletions'] else 'no'} | "
            f"{stats['num_docs']} / {stats['max_doc']} | {size:,} |"
        )
    lines += ["", "Commands (run from this folder; `<input>` is the JsonCollection input):", ""]
    lines += [f"- `{folder}`: `{index['command']}`" for folder, index, _ in rows]
    (HERE / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
