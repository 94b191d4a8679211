"""A project folder's files as :class:`~rserini.Document` objects: whole files or line chunks.

The walk and the reading are the Rust core's: ``.gitignore`` honoured, hidden entries,
``.rserini/`` and symbolic links skipped (a link loop costs nothing), files read in
parallel. On top of that, :class:`SkipRules` leaves out huge, binary, non-UTF-8 and
generated files, and files whose path is not valid UTF-8 (no ``str`` docid could name
them without losing bytes); :class:`Skipped` counts each by reason.

>>> from rserini.project import load_chunk_documents
>>> docs = load_chunk_documents(".")                    # doctest: +SKIP
>>> docs[0].docid, docs[0].source_path, docs[0].start_line, docs[0].end_line  # doctest: +SKIP
('README.md:1-12', 'README.md', 1, 12)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields

from rserini._core import chunk_lines as _chunk_lines
from rserini._core import list_source_files, read_source_files
from rserini.retrieval.document import Document

__all__ = [
    "CHUNK_LINES",
    "DEFAULT_RULES",
    "SkipRules",
    "Skipped",
    "SourceFile",
    "SourceText",
    "chunk_file",
    "list_files",
    "load_chunk_documents",
    "load_documents",
    "read_files",
]

#: Lines per chunk. The reference chunks at 400 characters of whitespace-trimmed text.
#: Over this repository's 153 tracked files (29,082 lines) a line averages 36.6
#: characters, 31.0 without its indentation: 400 / 31.0 ≈ 13 and 400 / 36.6 ≈ 11, so
#: twelve lines hold about the reference's 400 characters.
CHUNK_LINES = 12

#: Files larger than this are skipped as ``huge``.
MAX_FILE_BYTES = 1 << 20

#: File names (globs, case-insensitive) of generated files: lock files, minified
#: bundles and source maps.
GENERATED_NAMES = (
    "*.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "packages.lock.json",
    "go.sum",
    "*.min.*",
    "*.map",
)

#: Words that tools write near the top of the files they generate.
GENERATED_MARKERS = ("@generated", "DO NOT EDIT")

#: How many first lines are searched for a marker.
HEADER_LINES = 5

#: A line longer than this (4 KiB, far past any hand-written line) marks minified code.
MAX_LINE_BYTES = 4096

#: Why a file is left out, in the order reports list them.
SKIP_REASONS = ("huge", "unreadable", "binary", "non_utf8", "generated", "non_utf8_name")


def _strings(value: object, name: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a sequence of str, not {type(value).__name__}")
    items = tuple(value)
    if not all(isinstance(item, str) for item in items):
        raise TypeError(f"{name} must hold only str")
    return items


def _count(value: object, name: str, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, not {value}")


@dataclass(frozen=True)
class SkipRules:
    """Which files of a project are left out, besides ignored, hidden and linked ones.

    Attributes:
        max_file_bytes: Larger files are skipped as ``huge``.
        generated_names: Globs matched (case-insensitively) against a file's name alone;
            a match is skipped as ``generated`` without being read.
        generated_markers: Words that mark a file as ``generated`` when one of its first
            ``header_lines`` lines holds them (``@generated``, Go's ``DO NOT EDIT``).
        header_lines: How many first lines are searched for a marker.
        max_line_bytes: A line longer than this marks a minified, ``generated`` file;
            ``None`` for no limit.

    ``SkipRules.keep_generated()`` keeps every generated file.
    """

    max_file_bytes: int = MAX_FILE_BYTES
    generated_names: tuple[str, ...] = GENERATED_NAMES
    generated_markers: tuple[str, ...] = GENERATED_MARKERS
    header_lines: int = HEADER_LINES
    max_line_bytes: int | None = MAX_LINE_BYTES

    def __post_init__(self) -> None:
        _count(self.max_file_bytes, "max_file_bytes")
        _count(self.header_lines, "header_lines")
        _count(self.max_line_bytes, "max_line_bytes", optional=True)
        object.__setattr__(
            self, "generated_names", _strings(self.generated_names, "generated_names")
        )
        object.__setattr__(
            self, "generated_markers", _strings(self.generated_markers, "generated_markers")
        )

    @classmethod
    def keep_generated(cls, max_file_bytes: int = MAX_FILE_BYTES) -> SkipRules:
        """Rules that skip only huge, unreadable, binary and non-UTF-8 files."""
        return cls(max_file_bytes, (), (), 0, None)

    def to_dict(self) -> dict[str, object]:
        """The rules as plain JSON values."""
        return {
            f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
            for f in fields(self)
        }


#: The default rules.
DEFAULT_RULES = SkipRules()


@dataclass
class Skipped:
    """How many files were left out, by reason (see :data:`SKIP_REASONS`)."""

    huge: int = 0
    unreadable: int = 0
    binary: int = 0
    non_utf8: int = 0
    generated: int = 0
    non_utf8_name: int = 0

    def add(self, reason: str, count: int = 1) -> None:
        """Counts ``count`` more files left out for ``reason``."""
        if reason not in SKIP_REASONS:
            raise ValueError(f"unknown skip reason {reason!r}")
        setattr(self, reason, getattr(self, reason) + count)

    @property
    def total(self) -> int:
        """Files left out for any reason."""
        return sum(getattr(self, reason) for reason in SKIP_REASONS)

    def __str__(self) -> str:
        parts = [
            f"{n:,} {reason.replace('_', '-')}"
            for reason in SKIP_REASONS
            if (n := getattr(self, reason))
        ]
        return ", ".join(parts) or "none"


@dataclass(frozen=True)
class SourceFile:
    """A file found by the walk, before reading: its POSIX path relative to the root."""

    path: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class SourceText:
    """A file as read: its text, or why it is left out (``skip``, one of :data:`SKIP_REASONS`).

    ``hash`` is the BLAKE3 hash of its bytes (64 hex digits), ``None`` if they could not
    be read.
    """

    path: str
    hash: str | None
    text: str | None
    skip: str | None


def list_files(
    root: str | os.PathLike[str],
    rules: SkipRules = DEFAULT_RULES,
    skipped: Skipped | None = None,
) -> list[SourceFile]:
    """The files under ``root`` that pass the size and name rules, sorted by path.

    Nothing is read. Files left out here (``huge``, ``generated`` by name,
    ``non_utf8_name``) are counted into ``skipped`` when given.

    Raises:
        FileNotFoundError: If ``root`` is not a folder.
    """
    listed, counts = list_source_files(
        root, max_file_bytes=rules.max_file_bytes, generated_names=list(rules.generated_names)
    )
    if skipped is not None:
        for reason, count in counts.items():
            skipped.add(reason, count)
    return [SourceFile(path, size, mtime_ns) for path, size, mtime_ns in listed]


def read_files(
    root: str | os.PathLike[str],
    paths: Sequence[str],
    rules: SkipRules = DEFAULT_RULES,
) -> list[SourceText]:
    """Reads the files ``paths`` (as :func:`list_files` gives them) in parallel, in order.

    A file that is binary, not UTF-8, generated by its content, unreadable, or that grew
    past ``rules.max_file_bytes`` since it was listed comes back with ``skip`` set.
    """
    reads = read_source_files(
        root,
        list(paths),
        max_file_bytes=rules.max_file_bytes,
        generated_markers=list(rules.generated_markers),
        header_lines=rules.header_lines,
        max_line_bytes=rules.max_line_bytes,
    )
    return [
        SourceText(path, hash_, text, skip)
        for path, (skip, hash_, text) in zip(paths, reads, strict=True)
    ]


def _check_chunk_lines(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"chunk_lines must be an int, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"chunk_lines must be at least 1, not {value}")
    return value


def chunk_file(path: str, text: str, chunk_lines: int = CHUNK_LINES) -> list[Document]:
    """Cuts one file's text into runs of ``chunk_lines`` lines (the last may be shorter).

    Each chunk is a ``Document(docid="path:start-end", text, source_path=path,
    start_line, end_line)`` with 1-based inclusive lines. Lines end at ``\\n``; the spans
    tile the file and the texts, joined, are the file. A blank file has no chunk.
    """
    n = _check_chunk_lines(chunk_lines)
    return [
        Document(
            docid=f"{path}:{start}-{end}",
            text=chunk,
            source_path=path,
            start_line=start,
            end_line=end,
        )
        for start, end, chunk in _chunk_lines(text, n)
    ]


def _texts(
    root: str | os.PathLike[str], rules: SkipRules, skipped: Skipped | None
) -> list[SourceText]:
    files = list_files(root, rules, skipped)
    texts = []
    for read in read_files(root, [f.path for f in files], rules):
        if read.skip is None:
            texts.append(read)
        elif skipped is not None:
            skipped.add(read.skip)
    return texts


def load_documents(
    root: str | os.PathLike[str],
    *,
    rules: SkipRules = DEFAULT_RULES,
    skipped: Skipped | None = None,
) -> list[Document]:
    """One ``Document(docid=<POSIX path relative to root>, text)`` per text file, sorted.

    As the reference's ``project_loader.load_documents``, with rserini's walk: see the
    module documentation for what is left out; ``skipped`` counts it when given.

    Raises:
        FileNotFoundError: If ``root`` is not a folder.
    """
    return [Document(docid=t.path, text=t.text or "") for t in _texts(root, rules, skipped)]


def load_chunk_documents(
    root: str | os.PathLike[str],
    *,
    chunk_lines: int = CHUNK_LINES,
    rules: SkipRules = DEFAULT_RULES,
    skipped: Skipped | None = None,
) -> list[Document]:
    """One ``Document`` per run of ``chunk_lines`` lines of each text file (see
    :func:`chunk_file`): docid ``path:start-end``, with ``source_path``,
    ``start_line`` and ``end_line`` set, in path then line order.

    Raises:
        FileNotFoundError: If ``root`` is not a folder.
        TypeError, ValueError: If ``chunk_lines`` is not an int >= 1.
    """
    n = _check_chunk_lines(chunk_lines)
    docs: list[Document] = []
    for text in _texts(root, rules, skipped):
        docs.extend(chunk_file(text.path, text.text or "", n))
    return docs
