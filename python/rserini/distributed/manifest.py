"""``sharded.json``: what a sharded index is, written last and checked at open.

A sharded index is a folder of ordinary index folders (``shard-00000`` ...) and
this manifest. The manifest names the partition rule, the analyzer every shard
shares and, per shard, its folder, document count, generation and the SHA-256 of
its ``meta.json`` (which lists the size and CRC32 of every file of the shard, so
it identifies the shard's content). It ends with the SHA-256 of everything before
its ``"checksum"`` key, is written once every shard is saved, and replaces any
earlier manifest atomically: a folder whose manifest is readable is complete.

A commit first records, per shard it will change, the id of that change
(``pending``: a SHA-256 of the shard's recorded state and the change itself), and
the shard's commit records the same id in its ``meta.json`` (its ``source``). A
shard whose state is not the recorded one is then accepted only as the outcome of
the change the manifest announces; the manifest's rewrite after the commit drops
the ids. Builds write no id, so the same inputs still give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rserini._core import ANALYZER_PRESETS, Analyzer, Index
from rserini.distributed.partition import DOCID_HASH

MANIFEST = "sharded.json"
FORMAT = "rserini-sharded"
FORMAT_VERSION = 1
_HEX64 = re.compile(r"[0-9a-f]{64}")


class ManifestError(ValueError):
    """Raised inside this module; callers turn it into the error they document."""


@dataclass(frozen=True)
class ShardEntry:
    """One shard as the manifest records it."""

    path: str
    documents: int
    generation: int
    meta_sha256: str
    #: The id of a change under way (a commit announced, its manifest not yet rewritten).
    pending: str | None = None


@dataclass(frozen=True)
class Manifest:
    """The parsed ``sharded.json``."""

    partition: str
    hash: str
    analyzer: dict[str, Any]
    store: bool
    shards: tuple[ShardEntry, ...]
    rserini_version: str

    @property
    def num_shards(self) -> int:
        return len(self.shards)

    @property
    def documents(self) -> int:
        return sum(s.documents for s in self.shards)

    def to_json(self) -> str:
        body = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "rserini_version": self.rserini_version,
            "partition": {"scheme": self.partition, "hash": self.hash, "shards": self.num_shards},
            "analyzer": self.analyzer,
            "store": self.store,
            "documents": self.documents,
            "shards": [_entry_json(s) for s in self.shards],
        }
        text = json.dumps(body, indent=2)[:-2]  # reopen the object to append the checksum
        return f'{text},\n  "checksum": "sha256:{_sha256(text)}"\n}}\n'


def _entry_json(entry: ShardEntry) -> dict[str, Any]:
    out: dict[str, Any] = {
        "path": entry.path,
        "documents": entry.documents,
        "generation": entry.generation,
        "meta_sha256": entry.meta_sha256,
    }
    if entry.pending is not None:
        out["pending"] = entry.pending
    return out


#: How a shard's ``meta.json`` ``source`` records the change that saved it.
_UPDATE_MARK = " | update sha256:"


def update_id(entry: ShardEntry, deletes: list[str], adds: list[Any], duplicates: str) -> str:
    """The id of a change (``deletes``, then ``adds``, documents by their JSON or else
    their ``repr``) applied to the shard state ``entry`` records: the same change to the
    same state, the same id. Hashed one line at a time (a commit may be large)."""
    digest = hashlib.sha256()
    for part in (entry.path, entry.meta_sha256, duplicates, len(deletes), *deletes, *adds):
        digest.update(json.dumps(part, default=repr).encode("ascii") + b"\n")
    return digest.hexdigest()


def with_update(source: str | None, update: str) -> str:
    """``source`` (a shard's origin) recording ``update`` as the change that saved it."""
    return f"{(source or '').partition(_UPDATE_MARK)[0]}{_UPDATE_MARK}{update}"


def update_of(source: str | None) -> str | None:
    """The change :func:`with_update` recorded in ``source``, if any."""
    _, mark, update = (source or "").partition(_UPDATE_MARK)
    return update if mark else None


def analyzer_from_config(config: dict[str, Any]) -> Analyzer:
    """The :class:`Analyzer` whose ``config`` is ``config`` (a preset's name kept)."""
    # `language` is not an option: it comes with a `lucene-<code>` base preset.
    options = {k: v for k, v in config.items() if k not in ("name", "language")}
    name = config.get("name")
    language = config.get("language")
    base = f"lucene-{language}" if language else "plain"
    return Analyzer(name if name in ANALYZER_PRESETS else base, **options)


def meta_sha256(shard_dir: Path) -> str:
    """The SHA-256 (hex) of a shard's ``meta.json``: the shard's identity."""
    return hashlib.sha256((shard_dir / "meta.json").read_bytes()).hexdigest()


def shard_entry(shard_dir: Path, index: Index) -> ShardEntry:
    """The manifest's entry for the shard saved in ``shard_dir`` (``index``, loaded
    from there or just saved there)."""
    return ShardEntry(
        path=shard_dir.name,
        documents=len(index),
        generation=int(index.info()["generation"]),
        meta_sha256=meta_sha256(shard_dir),
    )


def write_manifest(folder: Path, manifest: Manifest) -> Path:
    """Writes ``folder/sharded.json`` atomically (temporary file, fsync, rename)."""
    path = folder / MANIFEST
    tmp = folder / f".{MANIFEST}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(manifest.to_json())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def read_manifest(folder: Path) -> Manifest:
    """Parses and checks ``folder/sharded.json`` on its own (the shards are checked by
    the opener). Raises :class:`ManifestError` saying what is wrong."""
    path = folder / MANIFEST
    text = path.read_text(encoding="utf-8")
    head, sep, tail = text.rpartition(',\n  "checksum": "sha256:')
    if not sep or tail[:64] != _sha256(head) or tail[64:] != '"\n}\n':
        raise ManifestError(f"{path}: damaged (its checksum does not match its content)")
    try:
        data = json.loads(text)
        if data["format"] != FORMAT:
            raise ManifestError(f"{path}: not a sharded rserini index")
        if data["format_version"] != FORMAT_VERSION:
            raise ManifestError(
                f"{path}: sharded format version {data['format_version']}, this rserini "
                f"reads version {FORMAT_VERSION}"
            )
        part = data["partition"]
        shards = tuple(
            ShardEntry(
                path=str(s["path"]),
                documents=int(s["documents"]),
                generation=int(s["generation"]),
                meta_sha256=str(s["meta_sha256"]),
                pending=None if s.get("pending") is None else str(s["pending"]),
            )
            for s in data["shards"]
        )
        manifest = Manifest(
            partition=str(part["scheme"]),
            hash=str(part["hash"]),
            analyzer=dict(data["analyzer"]),
            store=bool(data["store"]),
            shards=shards,
            rserini_version=str(data["rserini_version"]),
        )
        declared_shards, declared_docs = int(part["shards"]), int(data["documents"])
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        if isinstance(e, ManifestError):
            raise
        raise ManifestError(f"{path}: malformed ({type(e).__name__}: {e})") from None
    if manifest.hash != DOCID_HASH:
        raise ManifestError(f"{path}: unknown docid hash {manifest.hash!r}")
    if declared_shards < 1 or declared_shards != manifest.num_shards:
        raise ManifestError(
            f"{path}: declares {declared_shards} shards but lists {manifest.num_shards}"
        )
    if declared_docs != manifest.documents:
        raise ManifestError(
            f"{path}: declares {declared_docs} documents but its shards hold {manifest.documents}"
        )
    for i, shard in enumerate(shards):
        if shard.pending is not None and not _HEX64.fullmatch(shard.pending):
            raise ManifestError(f"{path}: shard {i} pending change {shard.pending!r} is no id")
        p = Path(shard.path)
        if p.is_absolute() or len(p.parts) != 1 or p.name in (".", ".."):
            raise ManifestError(f"{path}: shard {i} path {shard.path!r} is not a folder name")
    return manifest


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
