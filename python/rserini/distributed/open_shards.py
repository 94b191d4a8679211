"""Opening a sharded index's manifest and checking its shards against it.

A manifest that lies is refused at open with the reason: a shard folder missing,
one the manifest does not list, a shard built with another analyzer, or one
whose ``meta.json`` is not the one recorded (a shard from another build, or
changed since), or whose documents do not hash to it (a manifest written for
another number of shards). One other state is accepted: a later generation saved
by the change the manifest announces for that shard (``pending``, recorded in the
shard's ``meta.json`` too): a commit saved the shard, and the manifest's rewrite,
which follows, has not happened (yet).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import cast

from rserini._core import Index
from rserini.distributed.manifest import (
    MANIFEST,
    Manifest,
    ManifestError,
    analyzer_from_config,
    meta_sha256,
    read_manifest,
    update_of,
)
from rserini.distributed.partition import shard_of
from rserini.exceptions import IndexCorruptedError

#: Documents per shard whose docid hash is checked at open.
ROUTING_SAMPLE = 16

_SHARD_DIR = re.compile(r"shard-\d{5}")


def _corrupted(path: Path, message: str) -> IndexCorruptedError:
    err = IndexCorruptedError(message)
    err.path = str(path)
    return err


def manifest_or_error(folder: Path) -> Manifest:
    """``folder``'s manifest, or :class:`FileNotFoundError` (no ``sharded.json``) or
    :class:`~rserini.exceptions.IndexCorruptedError` (a damaged one)."""
    if not (folder / MANIFEST).is_file():
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder}: no such folder")
        raise FileNotFoundError(f"{folder}: not a sharded index (no {MANIFEST})")
    try:
        return read_manifest(folder)
    except ManifestError as e:
        raise _corrupted(folder / MANIFEST, str(e)) from None


def check_shards(folder: Path, manifest: Manifest) -> None:
    """Checks every shard folder against ``manifest``; raises
    :class:`~rserini.exceptions.IndexCorruptedError` naming the first shard that
    does not match and why."""
    listed = {s.path for s in manifest.shards}
    extra = sorted(
        p.name
        for p in folder.iterdir()
        if p.is_dir() and _SHARD_DIR.fullmatch(p.name) and p.name not in listed
    )
    if extra:
        raise _corrupted(
            folder / MANIFEST,
            f"{folder} holds shard folder(s) {', '.join(extra)} that {MANIFEST} does not list "
            f"({manifest.num_shards} shards): the manifest is not this index's",
        )
    for i in range(manifest.num_shards):
        check_shard(folder, manifest, i)


def check_shard(folder: Path, manifest: Manifest, i: int) -> Index:
    """Shard ``i`` of ``folder``, loaded, once checked against ``manifest``; raises
    :class:`~rserini.exceptions.IndexCorruptedError` saying why it does not match."""
    n = manifest.num_shards
    entry = manifest.shards[i]
    path = folder / entry.path
    if not (path / "meta.json").is_file():
        raise _corrupted(path, f"shard {i} of {n} is missing: {path} holds no index")
    index = Index.load(path)
    if index.analyzer != analyzer_from_config(manifest.analyzer):
        raise _corrupted(
            path,
            f"shard {i} ({path}) was built with analyzer {index.analyzer.config}, but "
            f"{MANIFEST} "
            f"says {manifest.analyzer}: every shard must analyze as the others do",
        )
    generation = int(index.info()["generation"])
    # A shard newer than its entry, saved by the change the manifest announces for it,
    # is whole (each commit saves a shard atomically) and the manifest lags it: a
    # crash, or a commit under way, between the shard's save and the manifest's
    # rewrite. The shard's latest state is served.
    announced = (
        entry.pending is not None
        and generation > entry.generation
        and update_of(index.source) == entry.pending
    )
    if meta_sha256(path) != entry.meta_sha256 and not announced:
        raise _corrupted(
            path,
            f"shard {i} ({path}) is not the one {MANIFEST} was written with (another "
            f"build, or changed since): it holds {len(index):,} documents at generation "
            f"{generation}, the manifest records {entry.documents:,} at "
            f"generation {entry.generation}",
        )
    sample = min(len(index), ROUTING_SAMPLE)
    for docid in cast("list[str]", index.docids(list(range(sample)))):
        if shard_of(docid, n) != i:
            raise _corrupted(
                path,
                f"shard {i} ({path}) holds {docid!r}, whose hash routes it to shard "
                f"{shard_of(docid, n)} of {n}: the shard belongs to another partition",
            )
    return index
