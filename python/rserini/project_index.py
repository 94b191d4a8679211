"""The cached, incrementally refreshed chunk index of a project folder.

``rserini search`` without ``--index`` searches the files under a root folder through a
:class:`ProjectIndex`. Its cache lives in ``<root>/.rserini/``:

- ``index/``: an :class:`~rserini.Index` of the files' line chunks
  (:func:`rserini.project.load_chunk_documents`), docid ``path:start-end``;
- ``manifest.json``: per file, its size, ``mtime_ns``, content hash (BLAKE3) and chunk
  spans (or why it is skipped), the settings and the index generation it describes;
- ``.gitignore`` holding ``*``, so the cache is never committed;
- ``CACHEDIR.TAG``, rserini's mark on a folder it made (:mod:`rserini.safe_fs`).

The cache is written only into a real ``.rserini`` folder: one that is a symbolic link,
a FIFO or a file (as a cloned repository could carry) is refused, the search then runs
on an index built in memory, and :attr:`Refresh.note` says why. Cache files are read
as index files are (no links, no FIFOs, a size cap), and the index folder is deleted
for a rebuild only inside a ``.rserini`` that rserini made.

Each :meth:`ProjectIndex.open` lists the files (their stat only) and compares them with
the manifest. A file whose size and ``mtime_ns`` are unchanged is not read. A changed,
new or re-touched file is read: if its hash is the recorded one, only its stat is
updated; otherwise its old chunks are deleted and its new chunks added. Vanished files
lose their chunks. All changes go in one :meth:`~rserini.Index.commit`. The index is
rebuilt from scratch when the manifest is missing (as after a cache written by older
versions, which indexed whole files), unreadable, written with other settings, or does
not describe the index's generation.

A file modified within two seconds of the scan could change again within the same
timestamp tick after it was read; its entry is marked to be read again next time
(git's "racily clean" entries), which costs one read and, if nothing changed, nothing
else.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from rserini._core import Analyzer, Index
from rserini.exceptions import IndexLockedError, RseriniError
from rserini.project import (
    CHUNK_LINES,
    DEFAULT_RULES,
    Skipped,
    SkipRules,
    SourceFile,
    _check_chunk_lines,
    chunk_file,
    list_files,
    read_files,
)
from rserini.safe_fs import own_dir, read_bounded, real_dir, remove_own, write_atomically
from rserini.searchable import Model, ranked

__all__ = [
    "CACHE_DIR",
    "ProjectHit",
    "ProjectIndex",
    "Refresh",
]

#: The cache folder under the project root.
CACHE_DIR = ".rserini"
#: Version of ``manifest.json``; another value rebuilds the index.
MANIFEST_FORMAT = 1
#: The largest manifest read (a bound, as for index files; far above any project's).
MANIFEST_MAX_BYTES = 1 << 30
#: The largest ``meta.json`` read for its generation (the core's cap).
META_MAX_BYTES = 16 << 20
#: Files modified this close to the scan are read again at the next one.
RACY_NS = 2_000_000_000


@dataclass(frozen=True)
class ProjectHit:
    """A chunk found by :meth:`ProjectIndex.search`.

    ``line`` is the chunk's first line holding a query term (without its line end).
    """

    rank: int
    docid: str
    score: float
    path: str
    start_line: int
    end_line: int
    line: str

    def to_dict(self) -> dict[str, object]:
        """The hit as JSON values, in field order."""
        return asdict(self)


@dataclass
class Refresh:
    """What :meth:`ProjectIndex.open` did to bring the index up to date."""

    files: int = 0
    """Text files in the index."""
    chunks: int = 0
    """Chunks in the index."""
    read: int = 0
    """Files read (changed, new, touched or racy ones; all of them on a rebuild)."""
    reindexed: int = 0
    """Files whose chunks were replaced or added."""
    removed: int = 0
    """Files whose chunks were deleted (gone, or now skipped or unreadable)."""
    rebuilt: str | None = None
    """Why the index was rebuilt from scratch, or ``None``."""
    skipped: Skipped = field(default_factory=Skipped)
    """Files left out, by reason."""
    note: str | None = None
    """A problem that kept the cache from being brought up to date."""
    seconds: float = 0.0

    def __str__(self) -> str:
        head = (
            f"rebuilt the index ({self.rebuilt}): {self.read:,} files read"
            if self.rebuilt
            else f"{self.read:,} re-read, {self.reindexed:,} re-indexed, {self.removed:,} removed"
        )
        text = (
            f"{head}; {self.files:,} files, {self.chunks:,} chunks; "
            f"skipped {self.skipped}; {self.seconds:.2f}s"
        )
        return f"{text}; {self.note}" if self.note else text


@dataclass
class _Entry:
    """One file in the manifest."""

    size: int
    mtime_ns: int
    hash: str | None
    spans: list[tuple[int, int]] = field(default_factory=list)
    skip: str | None = None
    racy: bool = False

    def docids(self, path: str) -> list[str]:
        return [f"{path}:{start}-{end}" for start, end in self.spans]

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"size": self.size, "mtime_ns": self.mtime_ns, "hash": self.hash}
        if self.skip is None:
            out["chunks"] = [list(span) for span in self.spans]
        else:
            out["skip"] = self.skip
        if self.racy:
            out["racy"] = True
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> _Entry:
        size, mtime_ns, hash_ = data["size"], data["mtime_ns"], data["hash"]
        skip, racy = data.get("skip"), data.get("racy", False)
        chunks = data.get("chunks", [])
        if not (
            isinstance(size, int)
            and isinstance(mtime_ns, int)
            and isinstance(hash_, str | None)
            and isinstance(skip, str | None)
            and isinstance(racy, bool)
            and isinstance(chunks, list)
        ):
            raise ValueError("malformed manifest entry")
        spans = [(int(s), int(e)) for s, e in chunks]
        return cls(size, mtime_ns, hash_, spans, skip, racy)


def _read_manifest(
    path: Path, settings: Mapping[str, object]
) -> tuple[int | None, dict[str, _Entry], str | None]:
    """The manifest's index generation and entries, and why it cannot be used (or ``None``)."""
    try:
        data = json.loads(read_bounded(path, MANIFEST_MAX_BYTES))
    except FileNotFoundError:
        return None, {}, "no manifest"
    except (OSError, ValueError):
        return None, {}, "unreadable manifest"
    if not isinstance(data, dict) or data.get("settings") != settings:
        return None, {}, "other settings"
    try:
        files = {str(p): _Entry.from_json(e) for p, e in data["files"].items()}
        return int(data["generation"]), files, None
    except (KeyError, TypeError, ValueError, AttributeError):
        return None, {}, "unreadable manifest"


def _generation(index_dir: Path) -> int | None:
    """The generation of the saved index, or ``None`` if there is none."""
    try:
        meta = read_bounded(index_dir / "meta.json", META_MAX_BYTES)
        return int(json.loads(meta)["generation"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _unusable(cache: Path) -> str | None:
    """Why the cache folder cannot be used (a link, a FIFO, a file...), or ``None``."""
    try:
        if real_dir(cache):
            real_dir(cache / "index")
    except OSError as e:
        return str(e)
    return None


@dataclass
class _Read:
    """A file read by a refresh: its new manifest entry (``None`` if it could not be
    read) and its chunks as ``(docid, text)``."""

    path: str
    entry: _Entry | None
    chunks: list[tuple[str, str]]


class ProjectIndex:
    """The chunk index of the files under a folder, refreshed incrementally on open.

    Use :meth:`open`; ``index`` is the :class:`~rserini.Index`, ``refresh`` says what
    opening it did.
    """

    def __init__(self, root: Path, index: Index, refresh: Refresh) -> None:
        self.root = root
        self.index = index
        self.refresh = refresh

    @classmethod
    def open(
        cls,
        root: str | os.PathLike[str] = ".",
        *,
        analyzer: str | Analyzer = "code",
        chunk_lines: int = CHUNK_LINES,
        rules: SkipRules = DEFAULT_RULES,
        threads: int | None = None,
        progress: bool = False,
    ) -> ProjectIndex:
        """Opens the cached index of ``root``, bringing it up to date first.

        Raises:
            FileNotFoundError: If ``root`` is not a folder.
            AnalyzerError: For an unknown analyzer.
        """
        start = time.perf_counter()
        scan_ns = time.time_ns()
        _check_chunk_lines(chunk_lines)
        root = Path(root).resolve()
        analyzer = analyzer if isinstance(analyzer, Analyzer) else Analyzer(analyzer)
        settings = {
            "format": MANIFEST_FORMAT,
            "analyzer": analyzer.config,
            "chunk_lines": chunk_lines,
            "rules": rules.to_dict(),
        }
        listed = Skipped()
        files = list_files(root, rules, listed)
        refresh = Refresh(skipped=replace(listed))
        cache = root / CACHE_DIR
        index_dir = cache / "index"
        unusable = _unusable(cache)
        generation, entries, why = (
            (None, {}, unusable) if unusable else _read_manifest(cache / "manifest.json", settings)
        )
        if why == "no manifest" and _generation(index_dir) is not None:
            why = "a cache of whole files, from an older version"
        index = None
        if why is None and _generation(index_dir) != generation:
            why = "the index and the manifest disagree"
        if why is None:
            try:
                index = Index.load(index_dir)
            except (RseriniError, OSError):
                why = "unreadable index"
        updater = _Updater(root, settings, analyzer, chunk_lines, rules, threads, scan_ns)
        updater.unusable = unusable
        if index is not None:
            try:
                index = updater.update(index, files, entries, refresh)
            except RseriniError as e:
                if isinstance(e, IndexLockedError):
                    refresh.note = "another process is updating the cache; searched it as it was"
                else:
                    # The index did not match its manifest: start afresh.
                    why, index = f"the update failed: {e}", None
        if index is None:
            refresh = Refresh(rebuilt=why, skipped=replace(listed))
            index = updater.rebuild(files, refresh, progress)
        refresh.seconds = time.perf_counter() - start
        return cls(root, index, refresh)

    def search(
        self, query: str, k: int = 10, *, model: Model = "bm25", **params: object
    ) -> list[ProjectHit]:
        """The ``k`` best chunks for ``query`` (see :func:`ranked` for ``model`` and
        ``params``), each with its span and first matching line.

        Raises:
            QueryError: For an empty query, ``k <= 0`` or invalid BM25 parameters.
        """
        pairs = ranked(self.index, query, k, model=model, **params)
        terms = {term for term, _, _ in self.index.query_terms(query)}
        texts = [self.index.contents(docid).split("\n") for docid, _ in pairs]
        analyzed = self.index.analyzer.analyze_batch([line for lines in texts for line in lines])
        hits = []
        at = 0
        for rank, ((docid, score), lines) in enumerate(zip(pairs, texts, strict=True), 1):
            tokens, at = analyzed[at : at + len(lines)], at + len(lines)
            matching = (s for s, t in zip(lines, tokens, strict=True) if terms.intersection(t))
            first = next(matching, "").rstrip("\r")
            path, _, span = docid.rpartition(":")
            start, _, end = span.partition("-")
            hits.append(ProjectHit(rank, docid, score, path, int(start), int(end), first))
        return hits


class _Updater:
    """Builds and refreshes the index and manifest of one project under given settings."""

    def __init__(
        self,
        root: Path,
        settings: dict[str, object],
        analyzer: Analyzer,
        chunk_lines: int,
        rules: SkipRules,
        threads: int | None,
        scan_ns: int,
    ) -> None:
        self.root = root
        self.cache = root / CACHE_DIR
        self.settings = settings
        self.analyzer = analyzer
        self.chunk_lines = chunk_lines
        self.rules = rules
        self.threads = threads
        self.scan_ns = scan_ns
        self.unusable: str | None = None

    def _read(self, files: list[SourceFile], refresh: Refresh) -> list[_Read]:
        """Reads ``files``: each one's new entry and chunks."""
        out = []
        reads = read_files(self.root, [f.path for f in files], self.rules)
        for f, read in zip(files, reads, strict=True):
            if read.hash is None:
                # Unreadable, or grown past the size limit since it was listed: not
                # recorded, so that it is tried again next time.
                refresh.skipped.add(read.skip or "unreadable")
                out.append(_Read(f.path, None, []))
                continue
            refresh.read += 1
            racy = f.mtime_ns > self.scan_ns - RACY_NS
            entry = _Entry(f.size, f.mtime_ns, read.hash, [], read.skip, racy)
            chunks = []
            if read.skip is None:
                docs = chunk_file(f.path, read.text or "", self.chunk_lines)
                entry.spans = [(d.start_line or 0, d.end_line or 0) for d in docs]
                chunks = [(d.docid, d.text) for d in docs]
            out.append(_Read(f.path, entry, chunks))
        return out

    def _finish(self, entries: dict[str, _Entry], refresh: Refresh) -> None:
        for entry in entries.values():
            if entry.skip is None:
                refresh.files += 1
                refresh.chunks += len(entry.spans)

    def _save_manifest(self, entries: dict[str, _Entry], generation: int | None) -> None:
        data = {
            "settings": self.settings,
            "generation": generation,
            "files": {path: entries[path].to_json() for path in sorted(entries)},
        }
        text = json.dumps(data, separators=(",", ":"))
        write_atomically(self.cache, "manifest.json", text.encode())

    def _prepare_cache(self) -> None:
        own_dir(self.cache)
        try:
            ignored = read_bounded(self.cache / ".gitignore", 64) == b"*\n"
        except OSError:
            ignored = False
        if not ignored:
            write_atomically(self.cache, ".gitignore", b"*\n")

    def rebuild(self, files: list[SourceFile], refresh: Refresh, progress: bool) -> Index:
        """Indexes every file afresh and saves the index and its manifest."""
        entries: dict[str, _Entry] = {}
        docs: list[tuple[str, str]] = []
        for read in self._read(files, refresh):
            if read.entry is None:
                continue
            entries[read.path] = read.entry
            if read.entry.skip is not None:
                refresh.skipped.add(read.entry.skip)
            docs.extend(read.chunks)
        refresh.reindexed = sum(1 for e in entries.values() if e.skip is None)
        self._finish(entries, refresh)
        index = Index.build(docs, analyzer=self.analyzer, threads=self.threads, progress=progress)
        index_dir = self.cache / "index"
        if self.unusable:
            refresh.note = f"not cached: {self.unusable}"
            return index
        try:
            self._prepare_cache()
            try:
                index.save(index_dir)
            except (FileExistsError, RseriniError) as e:
                if isinstance(e, IndexLockedError):
                    raise
                # Not a loadable rserini index: replaced only inside a cache rserini made.
                remove_own(index_dir)
                index.save(index_dir)
            self._save_manifest(entries, _generation(index_dir))
        except (OSError, IndexLockedError) as e:
            refresh.note = f"not cached: {e}"
        return index

    def update(
        self,
        index: Index,
        files: list[SourceFile],
        old: dict[str, _Entry],
        refresh: Refresh,
    ) -> Index:
        """Re-reads the files whose stat changed and commits the chunks that did."""
        listed = {f.path for f in files}
        entries = {p: e for p, e in old.items() if p in listed}
        deletes: list[str] = []
        for path in old.keys() - listed:
            deletes.extend(old[path].docids(path))
            if old[path].skip is None:
                refresh.removed += 1
        stale = [
            f
            for f in files
            if (e := old.get(f.path)) is None
            or e.racy
            or (e.size, e.mtime_ns) != (f.size, f.mtime_ns)
        ]
        adds: list[tuple[str, str]] = []
        for read in self._read(stale, refresh):
            before, entry = old.get(read.path), read.entry
            if before is not None and entry is not None and before.hash == entry.hash:
                entries[read.path] = entry  # Same bytes: a new stat, nothing else.
                continue
            if before is not None:
                deletes.extend(before.docids(read.path))
                del entries[read.path]
                if before.skip is None and (entry is None or entry.skip is not None):
                    refresh.removed += 1
            if entry is not None:
                entries[read.path] = entry
                if entry.skip is None:
                    refresh.reindexed += 1
                    adds.extend(read.chunks)
        for entry in entries.values():
            if entry.skip is not None:
                refresh.skipped.add(entry.skip)
        self._finish(entries, refresh)
        if deletes or adds:
            try:
                if deletes:
                    index.delete(deletes)
                if adds:
                    index.add(adds)
                index.commit(threads=self.threads)
            except BaseException:
                index.rollback()
                raise
        if entries != old:
            self._prepare_cache()
            self._save_manifest(entries, _generation(self.cache / "index"))
        return index
