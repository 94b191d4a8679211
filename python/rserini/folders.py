"""What a folder given as an index is: an rserini index, a sharded one, or something else
(a Lucene index, an empty or a foreign folder), so that a command can say which instead of
reporting a damaged index."""

from __future__ import annotations

import os
import re
from enum import Enum
from pathlib import Path

from rserini.exceptions import NotAnIndexError

# Lucene's commit points: segments_N, N in base 36.
LUCENE_COMMIT = re.compile(r"segments_[0-9a-z]+")
# The files of an rserini index besides meta.json (docs/index-format.md): seg<N>.<part>.
RSERINI_FILE = re.compile(r"seg[0-9]+\.[a-z0-9.]+")

BUILD_HINT = "build one with `rserini index --input CORPUS --index {path}`"


class FolderKind(Enum):
    """What :func:`folder_kind` finds at a path."""

    MISSING = "missing"
    FILE = "file"
    INDEX = "index"
    SHARDED = "sharded"
    LUCENE = "lucene"
    EMPTY = "empty"
    FOREIGN = "foreign"


def folder_kind(path: str | os.PathLike[str]) -> FolderKind:
    """What ``path`` is. An rserini index is a folder with ``meta.json`` or with its segment
    files (one without ``meta.json`` is a damaged index, which loading reports); a sharded
    one has ``sharded.json``; a Lucene index has a ``segments_N`` commit point."""
    folder = Path(path)
    if not folder.exists():
        return FolderKind.MISSING
    if not folder.is_dir():
        return FolderKind.FILE
    if (folder / "sharded.json").is_file():
        return FolderKind.SHARDED
    names = os.listdir(folder)
    if "meta.json" in names or any(RSERINI_FILE.fullmatch(n) for n in names):
        return FolderKind.INDEX
    if any(LUCENE_COMMIT.fullmatch(n) for n in names):
        return FolderKind.LUCENE
    return FolderKind.EMPTY if not names else FolderKind.FOREIGN


def check_index_folder(path: str | os.PathLike[str]) -> FolderKind:
    """The kind of an index folder (:attr:`FolderKind.INDEX` or :attr:`FolderKind.SHARDED`).

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    NotADirectoryError
        If it is a file.
    NotAnIndexError
        If it is a Lucene index, an empty folder or a folder of other files; the message
        says which, and what to do instead.
    """
    kind = folder_kind(path)
    hint = BUILD_HINT.format(path=path)
    if kind is FolderKind.MISSING:
        raise FileNotFoundError(f"no such index folder: {path} ({hint})")
    if kind is FolderKind.FILE:
        raise NotADirectoryError(f"{path} is a file, not an index folder")
    if kind is FolderKind.LUCENE:
        commits = [n for n in os.listdir(path) if LUCENE_COMMIT.fullmatch(n)]
        commit = max(commits, key=lambda n: int(n.removeprefix("segments_"), 36))
        raise NotAnIndexError(
            f"{path} is a Lucene index ({commit}), not an rserini index: rserini searches "
            f"it as it is (search, run, explain, info) but never writes to a Lucene folder; "
            f"to change it, index the same documents with `rserini index --input CORPUS "
            f"--index NEW_FOLDER`",
            str(path),
        )
    if kind is FolderKind.EMPTY:
        raise NotAnIndexError(f"{path} is an empty folder, not an index: {hint}", str(path))
    if kind is FolderKind.FOREIGN:
        raise NotAnIndexError(
            f"{path} is not an rserini index (it has no meta.json or sharded.json): give the "
            f"folder an index was saved to, or {hint.replace(str(path), 'NEW_FOLDER')}",
            str(path),
        )
    return kind
