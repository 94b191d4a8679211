"""Stored documents in the shape of Pyserini's ``Document``, read from an rserini index or
from a Lucene one, for :mod:`rserini.pyserini`'s searcher and index reader.

An rserini index keeps each document's original JSON fields and its indexed text. A Lucene
index keeps what Anserini stored: always the ``id``, the ``contents`` field only with
``-storeContents`` and the ``raw`` field (the document as Anserini wrote it, for JSON a
pretty-printed object) only with ``-storeRaw``; what was not stored is ``None``, as in
Pyserini.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from rserini._core import Index
from rserini.exceptions import QueryError, RseriniError, UnknownDocidError
from rserini.folders import FolderKind, folder_kind

__all__ = ["Document", "NotSupportedError", "docid_at", "is_lucene", "read_document"]


class NotSupportedError(RseriniError, NotImplementedError):
    """A Pyserini feature this facade does not provide."""


NO_LUCENE_OBJECTS = (
    "there are no Lucene (Java) document objects: use LuceneSearcher.doc(docid) instead"
)
_NO_STORE = (
    "this index stores no documents (it was built with store=False), so doc() and "
    "batch_get_docs() are not available; keep the corpus alongside the index"
)


class Document:
    """A stored document, shaped like Pyserini's ``Document``.

    Parameters
    ----------
    docid
        Its id.
    fields
        Its original fields (the JSON object it was read from), or for a Lucene index its
        stored fields (``id``, and ``contents`` and ``raw`` when they were stored).
    contents
        The text that was indexed, if stored.
    lucene
        Whether the document comes from a Lucene index.
    """

    def __init__(
        self,
        docid: str,
        fields: Mapping[str, object],
        contents: str | None,
        *,
        lucene: bool = False,
    ) -> None:
        self._docid = docid
        self._fields = dict(fields)
        self._contents = contents
        # A Lucene document's fields are its stored fields (id, contents, raw).
        self._lucene = lucene

    def __repr__(self) -> str:
        return f"Document({self._docid!r})"

    def docid(self) -> str:
        """The document's id."""
        return self._docid

    def id(self) -> str:
        """The document's id (Pyserini's alias of :meth:`docid`)."""
        return self._docid

    def contents(self) -> str | None:
        """The indexed text (of a Lucene index: its stored ``contents`` field, ``None``
        when it was indexed without ``-storeContents``)."""
        return self._contents

    def raw(self) -> str | None:
        """The original document: of an rserini index, its fields as a JSON object; of a
        Lucene index, its stored ``raw`` field as Anserini wrote it (``None`` when it was
        indexed without ``-storeRaw``)."""
        if self._lucene:
            return self.get("raw")
        return json.dumps(self._fields, ensure_ascii=False)

    def get(self, field: str) -> str | None:
        """One original field as a string (``None`` when absent)."""
        value = self._fields.get(field)
        return None if value is None else str(value)

    def lucene_document(self) -> Any:
        """Not available: there are no Lucene documents.

        Raises
        ------
        NotSupportedError
            Always.
        """
        raise NotSupportedError(NO_LUCENE_OBJECTS)


def is_lucene(index_dir: str | os.PathLike[str] | Index) -> bool:
    """Whether ``index_dir`` is a Lucene index folder (an open :class:`Index` is taken
    as an rserini index)."""
    return not isinstance(index_dir, Index) and folder_kind(index_dir) is FolderKind.LUCENE


def docid_at(index: Index, internal: int) -> str | None:
    """The docid at an internal id (for a Lucene index, Lucene's docid), ``None`` past
    the last one."""
    if internal < 0:
        return None
    try:
        found = index.docids(np.array([internal], dtype=np.int32))
    except (IndexError, ValueError, RseriniError):
        return None
    return str(found[0]) if found else None


def read_document(
    index: Index, docid: str, lucene: bool, contents_stored: bool = True
) -> Document | None:
    """The live document ``docid`` of ``index`` (``lucene``: opened from a Lucene
    folder, which stores ``contents`` if ``contents_stored``), ``None`` if there is none.

    Raises
    ------
    NotSupportedError
        For an rserini index built without its documents (``store=False``).
    """
    if docid not in index:
        return None
    if lucene:
        return _lucene_document(index, docid, contents_stored)
    try:
        fields = index.doc(docid)
        contents = index.contents(docid)
    except UnknownDocidError:
        return None
    except QueryError as e:
        raise NotSupportedError(f"{_NO_STORE} ({e})") from None
    return Document(docid, fields, contents)


def _lucene_document(index: Index, docid: str, contents_stored: bool) -> Document:
    try:
        raw = index.raw(docid)
        # Without a stored contents field the index holds the one of the raw JSON (for
        # feedback), or empty text.
        contents = index.contents(docid) if contents_stored else None
    except QueryError:  # nothing but the ids was stored
        raw = contents = None
    stored: dict[str, Any] = {"id": docid, "contents": contents, "raw": raw}
    fields = {name: value for name, value in stored.items() if value is not None}
    return Document(docid, fields, contents, lucene=True)
