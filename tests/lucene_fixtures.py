"""Lucene indexes for the tests: built live by the installed Pyserini's Anserini (Lucene 9.9),
or committed under tests/data/lucene (Lucene 9.9, 9.3 and 8.11) with Pyserini's outputs.

The session fixture ``lucene_index`` builds a :class:`LuceneBuild` once per test session
(in a temporary folder) and returns its folder; it skips, loudly, without Pyserini and Java
(fails under CI). Build times on two cores (Anserini 1.7.1, one ``java`` run each): adi about
3 s, cranfield and cacm 5 to 7 s, scifact 9 to 12 s, npl 12 to 15 s (``-storeDocvectors``
and positions add a little).

Register the fixture in a test module with ``from lucene_fixtures import lucene_index``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from rserini.parity import PyseriniUnavailableError, check_available
from rserini.parity.lucene_build import LuceneBuild, build
from support import DATA

LUCENE_DATA = Path(__file__).resolve().parent / "data" / "lucene"
"""The committed fixtures: ``<lucene-version>/<build>/`` and ``expected/<build>.json.gz``."""
COMMITTED_VERSIONS = ("9.9.1", "9.3.0", "8.11.0")
"""The Lucene versions of the committed fixtures, newest first."""

__all__ = [
    "COMMITTED_VERSIONS",
    "LUCENE_DATA",
    "LuceneBuild",
    "committed_build",
    "committed_indexes",
    "expected_outputs",
    "folder_digest",
    "lucene_index",
    "pyserini_runtime",
]


def pyserini_runtime() -> tuple[Path, Path]:
    """The ``java`` launcher and Anserini jar of the installed Pyserini, or a loud skip
    (a failure under CI)."""
    try:
        runtime, jar = check_available()
    except PyseriniUnavailableError as e:
        message = f"Pyserini is not available to build Lucene indexes: {e}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
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


def expected_outputs(name: str, version: str = "9.9.1") -> dict[str, Any]:
    """Pyserini 1.6.0's outputs on the committed build ``name`` (see tests/data/lucene/
    README.md), with ``runs`` replaced by the version's own where Pyserini's differ there
    (Lucene 8) and the version's ``indexes`` entry under ``"index"``."""
    outputs: dict[str, Any] = json.loads(_expected(name))
    index = outputs["indexes"][version]
    outputs["index"] = index
    if "runs" in index:
        outputs["runs"] = index["runs"]
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
