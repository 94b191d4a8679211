"""The exceptions rserini raises.

Every error of the core maps to exactly one class here. Classes that describe
bad input also subclass the matching builtin, so ``except ValueError`` keeps
working. File-system problems are the builtin ``OSError`` subclasses
(``FileNotFoundError``, ``PermissionError``, ``FileExistsError``).
"""

from __future__ import annotations


class RseriniError(Exception):
    """Base class of every rserini-specific error."""


class AnalyzerError(RseriniError, ValueError):
    """An unknown analyzer preset, tokenizer, stemmer or stopword list."""


class QueryError(RseriniError, ValueError):
    """A query that cannot run: empty text, ``k <= 0``, invalid BM25 parameters."""


class DocumentError(RseriniError, ValueError):
    """Documents that cannot be indexed: empty or duplicate docids, no documents."""


class ParseError(DocumentError):
    """A malformed line of an input file; ``path`` and ``line`` (1-based) locate it."""

    path: str
    line: int


class UnknownDocidError(RseriniError, KeyError):
    """A docid that is not in the index."""

    def __str__(self) -> str:
        # KeyError would quote the message; show it as written.
        return str(self.args[0]) if self.args else ""


class IndexCorruptedError(RseriniError):
    """An index file that is damaged, truncated or not an rserini file; ``path`` names it."""

    path: str


class IndexVersionError(IndexCorruptedError):
    """An index written in a format version this build does not read."""


class IndexLockedError(RseriniError):
    """Another writer holds the index folder's ``write.lock``; ``path`` names it."""

    path: str


class NotAnIndexError(RseriniError):
    """A folder that is not an rserini index at all (a Lucene index, an empty or a foreign
    folder), as opposed to a damaged one; ``path`` names it."""

    path: str

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path

    def __reduce__(self) -> tuple[type[NotAnIndexError], tuple[str, str]]:
        return type(self), (str(self), self.path)


class ShardUnavailableError(RseriniError):
    """No replica of a shard of a sharded index answered (all dead, or past their
    deadline); ``shard`` is its number (0-based)."""

    shard: int

    def __init__(self, message: str, shard: int = -1) -> None:
        super().__init__(message)
        self.shard = shard

    def __reduce__(self) -> tuple[type[ShardUnavailableError], tuple[str, int]]:
        return type(self), (str(self), self.shard)


__all__ = [
    "AnalyzerError",
    "DocumentError",
    "IndexCorruptedError",
    "IndexLockedError",
    "IndexVersionError",
    "NotAnIndexError",
    "ParseError",
    "QueryError",
    "RseriniError",
    "ShardUnavailableError",
    "UnknownDocidError",
]
