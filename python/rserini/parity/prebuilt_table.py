"""Writes the table of Pyserini's prebuilt Lucene inverted indexes that rserini ships:

    python -m rserini.parity.prebuilt_table [OUT]

It reads ``pyserini.prebuilt_index_info.TF_INDEX_INFO`` of the installed Pyserini (which
asks Anserini's ``PrebuiltInvertedIndex`` through the JVM) and keeps, per name, what
finding, fetching and checking an index takes: the tarball name Pyserini caches it under,
its md5, URLs, compressed size and Pyserini's document, term and vocabulary counts.
Aliases (``msmarco-passage``) are names of their own, as in Pyserini. The output
(default ``python/rserini/lucene/prebuilt_indexes.json.gz``) is compact gzip'd JSON.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_OUTPUT", "table_from_pyserini", "write_table"]

DEFAULT_OUTPUT = Path(__file__).resolve().parents[1] / "lucene" / "prebuilt_indexes.json.gz"
"""Where the package's table lives."""


def _tarball_name(info: Mapping[str, Any]) -> str:
    """The name Pyserini downloads an index under: its ``filename`` if any, else the last
    part of its first URL (``download_prebuilt_index`` -> ``download_and_unpack_index``)."""
    filename = info.get("filename")
    return str(filename) if filename else str(info["urls"][0]).split("/")[-1]


def _count(value: Any) -> int | None:
    return int(value) if value is not None else None


def table_from_pyserini(tf_index_info: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The table, from Pyserini's ``TF_INDEX_INFO``."""
    indexes = {}
    for name, info in sorted(tf_index_info.items()):
        indexes[name] = {
            "tarball": _tarball_name(info),
            "md5": str(info["md5"]),
            "urls": [str(u) for u in info["urls"]],
            "size": _count(info.get("size compressed (bytes)")),
            "documents": _count(info.get("documents")),
            "total_terms": _count(info.get("total_terms")),
            "unique_terms": _count(info.get("unique_terms")),
        }
    return {"indexes": indexes}


def write_table(table: Mapping[str, Any], out: Path) -> None:
    """``table`` as gzip'd compact JSON, byte-identical for the same table."""
    body = json.dumps(table, sort_keys=True, separators=(",", ":")).encode("utf-8")
    out.write_bytes(gzip.compress(body, compresslevel=9, mtime=0))


def main(argv: Sequence[str]) -> int:
    """Entry point: ``python -m rserini.parity.prebuilt_table [OUT]``."""
    from rserini.parity._java import PYSERINI_VERSION, boot

    out = Path(argv[0]) if argv else DEFAULT_OUTPUT
    boot("1g")
    import pyserini
    from pyserini.prebuilt_index_info import TF_INDEX_INFO

    table = table_from_pyserini(TF_INDEX_INFO)
    table["pyserini"] = getattr(pyserini, "__version__", PYSERINI_VERSION)
    write_table(table, out)
    print(f"{out}: {len(table['indexes'])} indexes, {out.stat().st_size} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
