"""Rankings as four flat numpy arrays: the compact form in which many rankings travel
between processes (``Index.batch_search_columns``, ``merge_topk``).

A list of ``(docid, score)`` tuples pickles as one object per hit; ``Columns`` pickles
as four buffers, whatever the number of hits.
"""

from __future__ import annotations

from itertools import pairwise
from typing import NamedTuple

import numpy as np
import numpy.typing as npt


class Columns(NamedTuple):
    """Rankings, one row per query: row ``i``'s hits are positions
    ``row_offsets[i]:row_offsets[i + 1]`` of ``scores``, hit ``j``'s docid is
    ``docid_bytes[docid_offsets[j]:docid_offsets[j + 1]]`` (UTF-8)."""

    row_offsets: npt.NDArray[np.int64]
    """int64, ``rows + 1`` offsets into ``scores``, from 0 to ``len(scores)``."""
    scores: npt.NDArray[np.float32]
    """float32, every row's scores, best first within a row."""
    docid_offsets: npt.NDArray[np.int64]
    """int64, ``len(scores) + 1`` offsets into ``docid_bytes``."""
    docid_bytes: npt.NDArray[np.uint8]
    """uint8, the docids' UTF-8 bytes, concatenated."""

    @property
    def rows(self) -> int:
        """The number of rankings."""
        return len(self.row_offsets) - 1

    def to_pairs(self) -> list[list[tuple[str, float]]]:
        """The rankings as ``batch_search_pairs`` gives them: one list of
        ``(docid, score)`` tuples per row."""
        raw = self.docid_bytes.tobytes()
        bounds = self.docid_offsets.tolist()
        docids = [raw[a:b].decode() for a, b in pairwise(bounds)]
        scores = self.scores.tolist()
        rows = self.row_offsets.tolist()
        return [list(zip(docids[a:b], scores[a:b], strict=True)) for a, b in pairwise(rows)]


__all__ = ["Columns"]
