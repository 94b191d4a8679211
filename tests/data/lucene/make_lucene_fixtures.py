"""Rebuilds the committed Lucene fixtures and Pyserini's expected outputs on them:

    python tests/data/lucene/make_lucene_fixtures.py [--jars DIR]

Each fixture is built from ../shared/data/adi by the Anserini jar of a Pyserini release
(run with ``java`` in a subprocess: see ``rserini.parity.lucene_build``), into
``<lucene-version>/<name>/``. Pyserini 1.6.0 (the installed one) is then run on every copy;
its outputs (BM25 at three (k1, b), QLD, multifield BM25, documents) go to
``expected/<name>.json.gz``: the documents must be the same on every version's copy of a
build; what differs per copy (Lucene docids, segments, and the runs on a Lucene 8 index,
which Anserini scores without rounding or its docid tie rule) goes under ``"indexes"``.
``README.md`` is rewritten.

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

from rserini.parity._java import anserini_jar, find_java
from rserini.parity.lucene_build import LuceneBuild, build, lucene_version
from rserini.parity.lucene_expected import default_runs, pyserini_outputs

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[2].parent / "shared" / "data"
COLLECTION = "adi"

# Pyserini release -> (Anserini jar inside its wheel, Lucene version).
RELEASES = {
    "1.6.0": ("anserini-1.7.1-fatjar.jar", "9.9.1"),
    "0.19.0": ("anserini-0.16.1-fatjar.jar", "9.3.0"),
    "0.17.0": ("anserini-0.14.3-fatjar.jar", "8.11.0"),
}
BUILDS: list[tuple[LuceneBuild, tuple[str, ...]]] = [
    (LuceneBuild(COLLECTION, store_raw=True), ("1.6.0", "0.19.0", "0.17.0")),
    (
        LuceneBuild(COLLECTION, files=3, threads=2, fields=("title",), store_raw=True),
        ("1.6.0", "0.19.0"),
    ),
    (LuceneBuild(COLLECTION, files=3, threads=2, store_raw=True, replaced=5), ("1.6.0", "0.19.0")),
    (LuceneBuild(COLLECTION, files=3, threads=2, compound=True, drop=3), ("1.6.0", "0.19.0")),
]
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


def queries() -> list[tuple[str, str]]:
    """The collection's queries as ``(qid, text)``."""
    lines = (DATA / COLLECTION / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [(str(q["_id"]), q["text"]) for q in map(json.loads, filter(None, lines))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jars", type=Path, default=Path.home() / ".cache/rserini/anserini-jars")
    parser.add_argument("--only", nargs="*", help="rebuild only these builds (by name)")
    args = parser.parse_args()
    java = find_java().java
    topics = queries()
    (HERE / "expected").mkdir(exist_ok=True)
    for spec, releases in BUILDS:
        if args.only and spec.name not in args.only:
            continue
        shared: dict[str, Any] | None = None
        indexes: dict[str, Any] = {}
        for release in releases:
            jar = release_jar(release, args.jars)
            version = lucene_version(jar)
            if version != RELEASES[release][1]:
                raise SystemExit(f"{jar.name} bundles Lucene {version}, not {RELEASES[release][1]}")
            target = HERE / version / spec.name
            if target.exists():
                shutil.rmtree(target)
            target.parent.mkdir(exist_ok=True)
            result = build(spec, DATA, target, java=java, jar=jar)
            fields = ("contents", *spec.fields)
            out = pyserini_outputs(target, topics, default_runs(spec.fields), DOCIDS, fields=fields)
            lucene_docids = {d: v["lucene_docid"] for d, v in out["docs"].items() if v}
            for doc in out["docs"].values():
                if doc:
                    del doc["lucene_docid"]
            if shared is None:
                shared = {"runs": out["runs"], "docs": out["docs"]}
            elif out["docs"] != shared["docs"]:
                difference = first_difference(shared["docs"], out["docs"])
                raise SystemExit(f"{spec.name}: Pyserini's documents differ: {difference}")
            command = [
                "<input>" if part.startswith(tempfile.gettempdir()) else part
                for part in result.command
            ]
            command = [Path(c).name if c.endswith((".jar", "/java")) else c for c in command]
            command[-1] = f"{version}/{spec.name}"
            if result.merge_command:
                merge = [*result.merge_command[:3], f"{version}/{spec.name}"]
                command += ["&&", *merge, *result.merge_command[4:]]
            indexes[version] = {
                "pyserini_release": release,
                "jar": jar.name,
                "command": shlex.join(command).replace("'&&'", "&&"),
                "segments": result.segments,
                "deletions": result.deletions,
                "stats": out["stats"],
                "order": out["order"],
                "lucene_docids": lucene_docids,
            }
            if out["runs"] != shared["runs"]:
                # Anserini searches Lucene 8 indexes without its tie rule and score rounding.
                indexes[version]["runs"] = out["runs"]
            print(f"{version}/{spec.name}: {result.segments} segments", flush=True)
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


def write_readme() -> None:
    """The README's table of folders and their commands, from the expected files."""
    rows = []
    for spec, _ in BUILDS:
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
