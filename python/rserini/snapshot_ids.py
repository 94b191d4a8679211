"""The ids array of :meth:`rserini.Index.batch_search`: internal ids that carry the
snapshot they came from.

Internal ids are positions in one snapshot of an index: after a commit the same number
can name another document. The array ``batch_search`` returns is a
:class:`SnapshotIdArray`: its views and slices, ``.copy()``, ``.astype()``,
``copy.deepcopy`` and the results of arithmetic on it carry the snapshot, and its
``.tolist()`` is a :class:`SnapshotIdList` (rows included) that carries it too.
:meth:`rserini.Index.docids` reads all of them in that snapshot, whatever was committed
since. One that lost its snapshot (unpickled, in this process or another) is refused
with ``ValueError`` rather than read in another snapshot.

Numbers taken out of any container of this module (``np.array(ids)`` and
``np.copy(ids)``, which make plain arrays; ``int(ids[0, 0])``; a slice of the list)
are plain internal ids, read in the current snapshot, as ids from
:meth:`rserini.Index.internal_id` are. The numbers themselves carry no snapshot on
purpose: they stay positions (what ``internal_id`` returns, what per-document arrays
are indexed by), int32 and comparable across searches; a snapshot tag in their bits
would change all three.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class SnapshotIdArray(np.ndarray):  # type: ignore[type-arg]
    """An int32 array of internal ids bound to the snapshot that produced them."""

    #: The snapshot's owner (set by the core), ``None`` once lost.
    _snapshot: object = None

    def __array_finalize__(self, obj: Any) -> None:
        self._snapshot = getattr(obj, "_snapshot", None)

    def tolist(self) -> Any:
        return _bound(super().tolist(), self._snapshot)


class SnapshotIdList(list):  # type: ignore[type-arg]
    """``SnapshotIdArray.tolist()``: a list of ids (or of rows of ids) bound to the
    snapshot that produced them. Pickling keeps the numbers, not the snapshot."""

    __slots__ = ("_snapshot",)

    def __init__(self, items: Any = (), snapshot: object = None) -> None:
        super().__init__(items)
        self._snapshot = snapshot

    def __reduce__(self) -> tuple[Any, ...]:
        return (SnapshotIdList, ([*self],))

    def __copy__(self) -> SnapshotIdList:
        return SnapshotIdList(self, self._snapshot)

    def __deepcopy__(self, memo: dict[int, Any]) -> SnapshotIdList:
        return _bound([*self], self._snapshot)


def _bound(value: Any, snapshot: object) -> Any:
    if isinstance(value, list):
        return SnapshotIdList([_bound(v, snapshot) for v in value], snapshot)
    return value
