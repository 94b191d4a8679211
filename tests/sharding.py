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


def delete_everywhere(
    sharded: Path, num_shards: int, single: rserini.Index, docids: list[str]
) -> None:
    """Deletes ``docids`` from the shards holding them (each a commit: a new generation)
    and from ``single``, the one index of the same documents."""
    from rserini.distributed import shard_of

    for docid in docids:
        shard = rserini.Index.load(sharded / f"shard-{shard_of(docid, num_shards):05d}")
        shard.delete([docid])
        shard.commit()
    single.delete(docids)
    single.commit()
