"""Building a sharded index from JSONL, and merging one back into a single index."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from rserini._core import (
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MEMORY_MB,
    Analyzer,
    Index,
    __version__,
)
from rserini.distributed.engine import EngineName, build_jobs
from rserini.distributed.manifest import (
    MANIFEST,
    Manifest,
    ShardEntry,
    analyzer_from_config,
    shard_entry,
    write_manifest,
)
from rserini.distributed.open_shards import manifest_or_error
from rserini.distributed.partition import DOCID_HASH, PARTITIONS
from rserini.distributed.spill import spill_name, split_corpus
from rserini.exceptions import DocumentError, QueryError

StrPath = str | os.PathLike[str]


@dataclass(frozen=True)
class ShardJob:
    """Everything one worker needs to build one shard (picklable)."""

    spill: str
    dest: str
    source: str
    analyzer: dict[str, Any]
    store: bool
    threads: int | None
    memory_mb: float
    duplicates: Literal["error", "keep"]
    max_line_bytes: int
    reorder: Literal["bp", "none"] | None


def build_shard(job: ShardJob) -> ShardEntry:
    """Builds and saves one shard from its spill; runs in a thread or a Ray task."""
    index = Index.from_jsonl(
        job.spill,
        analyzer=analyzer_from_config(job.analyzer),
        store=job.store,
        threads=job.threads,
        progress=False,
        memory_mb=job.memory_mb,
        duplicates=job.duplicates,
        max_line_bytes=job.max_line_bytes,
        reorder=job.reorder,
    )
    # Recorded as the corpus, not the spill (a path under the output folder), so
    # that the same inputs give the same bytes wherever they are built.
    saved = index._with_source(job.source)
    saved.save(job.dest)
    return shard_entry(Path(job.dest), saved)


def build_shards(
    inputs: StrPath | Sequence[StrPath],
    out_dir: StrPath,
    num_shards: int,
    *,
    partition: str = "docid-hash",
    engine: EngineName = "local",
    address: str | None = None,
    analyzer: str | Analyzer = "lucene-english",
    store: bool = True,
    threads: int | None = None,
    workers: int | None = None,
    memory_mb: float = DEFAULT_MEMORY_MB,
    duplicates: Literal["error", "keep"] = "error",
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    reorder: Literal["bp", "none"] | None = None,
) -> Path:
    """Indexes JSONL documents into ``num_shards`` shards under ``out_dir``.

    ``inputs`` is a JSONL file or folder (read as :meth:`rserini.Index.from_jsonl`
    reads it) or a list of them. One streaming pass splits the documents by the hash
    of their docid (:mod:`rserini.distributed.partition`) into per-shard spill files
    under ``out_dir``; the shards are then built in parallel, ``workers`` at a time
    (default: as many as shards) with ``threads`` each, in this process's threads
    (``engine="local"``) or as Ray tasks (``engine="ray"``, on the cluster at
    ``address``; every node must see ``out_dir`` at the same path). ``sharded.json``
    is written last. The shards are the same bytes whatever ``out_dir``, the engine,
    ``workers`` and ``threads`` (each ``meta.json`` records the inputs as given).
    ``analyzer``, ``store``, ``memory_mb``, ``duplicates``, ``max_line_bytes`` and
    ``reorder`` are :meth:`rserini.Index.from_jsonl`'s.
    Returns ``out_dir``.

    Raises
    ------
    ValueError
        For ``num_shards`` below 1 or an unknown ``partition``.
    FileExistsError
        If ``out_dir`` exists and is not an empty folder.
    ParseError
        For a line that is not a document (before any shard is built).
    DocumentError
        For a duplicate docid (unless ``duplicates="keep"``).
    """
    if isinstance(num_shards, bool) or not isinstance(num_shards, int) or num_shards < 1:
        raise ValueError(f"num_shards must be an integer >= 1, not {num_shards!r}")
    if partition not in PARTITIONS:
        raise ValueError(f"unknown partition {partition!r}; known: {', '.join(PARTITIONS)}")
    if duplicates not in ("error", "keep"):
        raise QueryError(f"unknown duplicates policy {duplicates!r}: 'error' or 'keep'")
    sources = (
        [Path(inputs)] if isinstance(inputs, (str, os.PathLike)) else [Path(p) for p in inputs]
    )
    if not sources:
        raise DocumentError("no input to index")
    config = (analyzer if isinstance(analyzer, Analyzer) else Analyzer(analyzer)).config
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(f"{out} exists and is not an empty folder")
    out.mkdir(parents=True, exist_ok=True)
    spill_dir = out / ".spill"
    spill_dir.mkdir()
    try:
        split_corpus(sources, spill_dir, num_shards, max_line_bytes=max_line_bytes)
        jobs = [
            ShardJob(
                spill=str(spill_dir / spill_name(i)),
                dest=str(out / shard_dir_name(i)),
                source=shard_source(sources, i, num_shards),
                analyzer=dict(config),
                store=store,
                threads=threads,
                memory_mb=memory_mb,
                duplicates=duplicates,
                max_line_bytes=max_line_bytes,
                reorder=reorder,
            )
            for i in range(num_shards)
        ]
        entries = build_jobs(build_shard, jobs, engine=engine, address=address, workers=workers)
    finally:
        shutil.rmtree(spill_dir, ignore_errors=True)
    manifest = Manifest(
        partition=partition,
        hash=DOCID_HASH,
        analyzer=dict(config),
        store=store,
        shards=tuple(entries),
        rserini_version=__version__,
    )
    write_manifest(out, manifest)
    return out


def shard_dir_name(shard: int) -> str:
    return f"shard-{shard:05d}"


def shard_source(inputs: Sequence[Path], shard: int, num_shards: int) -> str:
    """What a shard's ``meta.json`` records as its source: the corpus as given (as
    :meth:`rserini.Index.from_jsonl` records it) and the shard's place in it.

    >>> shard_source([Path("corpus")], 3, 4)
    'jsonl:corpus (shard 3 of 4)'
    """
    return f"jsonl:{', '.join(str(p) for p in inputs)} (shard {shard} of {num_shards})"


def is_sharded(path: StrPath) -> bool:
    """Whether ``path`` is a sharded index folder (holds ``sharded.json``)."""
    return (Path(path) / MANIFEST).is_file()


def merge_shards(
    sharded_dir: StrPath,
    out_index: StrPath,
    *,
    threads: int | None = None,
    memory_mb: float = DEFAULT_MEMORY_MB,
    progress: bool = False,
) -> Index:
    """Builds one index holding every document of a sharded index (built with
    ``store=True``) and saves it to ``out_index``; returns it. Its rankings are the
    sharded index's (ties break by docid, not by document order).

    Raises
    ------
    QueryError
        If the shards keep no documents (built with ``store=False``).
    """
    folder = Path(sharded_dir)
    manifest = manifest_or_error(folder)
    if not manifest.store:
        raise QueryError(
            f"{folder}: built with store=False, so its documents cannot be read back; "
            "index the corpus again instead"
        )
    with tempfile.TemporaryDirectory(prefix=".merge-", dir=Path(out_index).parent) as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        with open(corpus, "w", encoding="utf-8") as f:
            for entry in manifest.shards:
                shard = Index.load(folder / entry.path)
                stats = shard.stats()
                ids = list(range(stats.num_docs + stats.num_deleted))
                docids = cast("list[str]", shard.docids(ids))
                for docid in dict.fromkeys(docids):  # a kept copy: once
                    if docid in shard:  # live
                        f.write(json.dumps(shard.doc(docid), ensure_ascii=False) + "\n")
        index = Index.from_jsonl(
            corpus,
            analyzer=analyzer_from_config(manifest.analyzer),
            store=True,
            threads=threads,
            progress=progress,
            memory_mb=memory_mb,
            duplicates="keep",
        )
    index.save(out_index)
    return index
