"""Lucene indexes for the tests: built live by the installed Pyserini's Anserini (Lucene 9.9),
or committed under tests/data/lucene (Lucene 9.9, 9.3 and 8.11) with Pyserini's outputs.

The session fixture ``lucene_index`` builds a :class:`LuceneBuild` once per test session
(in a temporary folder) and returns its folder; it skips, loudly, without Pyserini and Java
(fails under CI). Build times on two cores (Anserini 1.7.1, one ``java`` run each): adi about
3 s, cranfield and cacm 5 to 7 s, scifact 9 to 12 s, npl 12 to 15 s (``-storeDocvectors``
and positions add a little).

The session fixture ``lucene_grid`` builds the acceptance grid (:data:`GRID`: two builds of
every collection) and records Pyserini's outputs on all of them in one child process, one
JVM (15 minutes on two heavily shared cores, almost all of it Pyserini's searches at
k = 1000, which load every hit's stored document).

Register a fixture in a test module with ``from lucene_fixtures import lucene_index``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rserini.parity.lucene_build import LuceneBuild, build, read_beir_corpus
from rserini.parity.lucene_expected import default_runs, feedback_runs, pyserini_outputs_many
from support import DATA, collection, require_pyserini

LUCENE_DATA = Path(__file__).resolve().parent / "data" / "lucene"
"""The committed fixtures: ``<lucene-version>/<build>/`` and ``expected/<build>.json.gz``."""
COMMITTED_VERSIONS = ("9.9.1", "9.3.0", "8.11.0")
"""The Lucene versions of the committed fixtures, newest first."""

__all__ = [
    "COMMITTED_VERSIONS",
    "GRID",
    "LUCENE_DATA",
    "GridIndex",
    "LuceneBuild",
    "committed_build",
    "committed_indexes",
    "expected_outputs",
    "folder_digest",
    "lucene_grid",
    "lucene_index",
    "pyserini_runtime",
    "read_queries",
]


def pyserini_runtime() -> tuple[Path, Path]:
    """The ``java`` launcher and Anserini jar of the installed Pyserini, or a loud skip
    (a failure under CI)."""
    runtime, jar = require_pyserini()
    return runtime.java, jar


@pytest.fixture(scope="session")
def lucene_index(tmp_path_factory: pytest.TempPathFactory) -> Callable[[LuceneBuild], Path]:
    """``lucene_index(LuceneBuild("adi", files=3, threads=2))``: the folder of that Lucene
    index, built by Pyserini's Anserini the first time it is asked for in the session."""
    root = tmp_path_factory.mktemp("lucene")
    built: dict[LuceneBuild, Path] = {}

    def make(spec: LuceneBuild) -> Path:
        if spec not in built:
            java, jar = pyserini_runtime()
            if not (DATA / spec.collection).is_dir():
                pytest.skip(f"test collection {spec.collection!r} not found under {DATA}")
            built[spec] = build(spec, DATA, root / spec.name, java=java, jar=jar).index
        return built[spec]

    return make


GRID_COLLECTIONS = ("adi", "cacm", "cranfield", "npl", "scifact")
"""Every collection of ../shared/data; all but npl have titles."""
TITLED = ("adi", "cacm", "cranfield", "scifact")


def _grid() -> list[LuceneBuild]:
    """Per collection, A: one input file and thread (one segment), flat, nothing stored; B:
    three files and two threads (two segments), ``-storeRaw -storePositions
    -storeDocvectors``, ``-fields title`` where the collection has titles; adi's B also
    replaces five documents under ``-uniqueDocid`` (deleted documents)."""
    grid = []
    for name in GRID_COLLECTIONS:
        grid.append(LuceneBuild(name))
        grid.append(
            LuceneBuild(
                name,
                files=3,
                threads=2,
                store_raw=True,
                store_positions=True,
                store_docvectors=True,
                fields=("title",) if name in TITLED else (),
                replaced=5 if name == "adi" else 0,
            )
        )
    return grid


GRID = _grid()
"""The acceptance grid: every option on in one build and off in the other, per collection."""


def read_queries(name: str) -> list[tuple[str, str]]:
    """A collection's queries as ``(qid, text)``."""
    text = (collection(name) / "queries.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [(str(q["_id"]), q["text"]) for q in rows]


@dataclass(frozen=True)
class GridIndex:
    """One index of the grid: its build, folder, the file of Pyserini's outputs on it and
    the folder's digest right after Pyserini read it."""

    spec: LuceneBuild
    folder: Path
    outputs_file: Path
    digest: dict[str, str]

    def outputs(self) -> dict[str, Any]:
        """Pyserini's outputs, read when asked (the ten files hold 140 MB of JSON)."""
        result: dict[str, Any] = json.loads(self.outputs_file.read_text(encoding="utf-8"))
        return result


@pytest.fixture(scope="session")
def lucene_grid(tmp_path_factory: pytest.TempPathFactory) -> dict[str, GridIndex]:
    """``{name: GridIndex}`` of :data:`GRID`: every index built by Pyserini's Anserini, then
    searched by Pyserini (BM25 at three settings, QLD, multifield BM25 where titled, RM3
    and Rocchio where the index has document vectors, all queries at k = 1000) and its
    documents read (the first, middle and last docid and one absent), in one JVM."""
    pyserini_runtime()
    for name in GRID_COLLECTIONS:
        collection(name)
    root = tmp_path_factory.mktemp("lucene-grid")
    jobs = []
    for spec in GRID:
        ids = [d["_id"] for d in read_beir_corpus(DATA / spec.collection)]
        runs = default_runs(spec.fields) + (feedback_runs() if spec.store_docvectors else [])
        jobs.append(
            {
                "index": str(root / spec.name),
                "out": str(root / f"{spec.name}.json"),
                "build": asdict(spec),
                "data_root": str(DATA),
                "queries": [list(q) for q in read_queries(spec.collection)],
                "runs": runs,
                "docids": [ids[0], ids[len(ids) // 2], ids[-1], "no-such-doc"],
                "fields": ["contents", *spec.fields],
            }
        )
    pyserini_outputs_many(jobs)
    return {
        spec.name: GridIndex(
            spec, root / spec.name, root / f"{spec.name}.json", folder_digest(root / spec.name)
        )
        for spec in GRID
    }


def committed_indexes() -> list[tuple[str, str, Path]]:
    """``(lucene_version, build_name, folder)`` of every committed fixture."""
    return [
        (version, folder.name, folder)
        for version in COMMITTED_VERSIONS
        for folder in sorted((LUCENE_DATA / version).iterdir())
        if folder.is_dir()
    ]


@cache
def _expected(name: str) -> str:
    return gzip.decompress((LUCENE_DATA / "expected" / f"{name}.json.gz").read_bytes()).decode()


def expected_outputs(name: str, version: str | None = None) -> dict[str, Any]:
    """Pyserini 1.6.0's outputs on the committed build ``name`` (see tests/data/lucene/
    README.md) on ``version`` (default: the newest it was committed in), with ``runs``
    replaced by the version's own where Pyserini's differ there (Lucene 8) and the
    version's ``indexes`` entry under ``"index"``. Scores are recorded as the shortest
    decimals of Pyserini's float32 scores and returned as those float32 values, exactly
    what Pyserini's ``score`` gives in Python."""
    outputs: dict[str, Any] = json.loads(_expected(name))
    if version is None:  # the newest version the build was committed in
        version = next(v for v in COMMITTED_VERSIONS if v in outputs["indexes"])
    index = outputs["indexes"][version]
    outputs["index"] = index
    runs = index.get("runs", outputs["runs"])
    outputs["runs"] = [
        run
        | {
            "hits": {
                qid: [[docid, float(np.float32(score))] for docid, score in hits]
                for qid, hits in run["hits"].items()
            }
        }
        for run in runs
    ]
    return outputs


def committed_build(name: str) -> LuceneBuild:
    """How the committed build ``name`` was made."""
    build: dict[str, Any] = json.loads(_expected(name))["build"]
    build["fields"] = tuple(build["fields"])
    return LuceneBuild(**build)


def folder_digest(folder: Path) -> dict[str, str]:
    """The SHA-256 of every file in ``folder`` (recursively), with each file's size and
    modification time: equal before and after means the folder was not modified."""
    digest = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            stat = path.stat()
            content = hashlib.sha256(path.read_bytes()).hexdigest()
            digest[str(path.relative_to(folder))] = f"{content} {stat.st_size} {stat.st_mtime_ns}"
    return digest
