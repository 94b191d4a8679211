"""Helpers of the sharded-index tests: corpora on disk, and byte images of index folders."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import rserini


def write_corpus(path: Path, docs: Iterable[tuple[str, str]]) -> Path:
    """Writes ``(docid, text)`` pairs as a Pyserini JSONL file; returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for docid, text in docs:
            f.write(json.dumps({"id": docid, "contents": text}) + "\n")
    return path


def folder_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by relative path (the write lock aside: it is empty and
    only there while a writer holds the folder)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "write.lock"
    }


def single_index(corpus: Path, **options: object) -> rserini.Index:
    return rserini.Index.from_jsonl(corpus, progress=False, **options)  # type: ignore[arg-type]
