"""The run directory: one pretty-printed ``<query_id>.json`` record per query.

pi-serini's evaluators read only files named ``<digits>.json`` (numeric query ids) and
switch to a ``merged/`` subfolder when it holds records; :func:`read_runs` does the same by
default, and reads any ``<query_id>.json`` with ``numeric_only=False``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rserini.exceptions import RseriniError

__all__ = ["NUMERIC_NAME", "read_runs", "record_path", "write_record"]

NUMERIC_NAME = re.compile(r"^\d+\.json$")
"""Run files pi-serini's evaluators read."""
# Files of a run folder that are not per-query records.
_NOT_RECORDS = {"run_setup.json", "benchmark_manifest_snapshot.json", "evaluation_summary.json"}
# A query id must be usable as a file name as it is, so the record's name gives it back.
_SAFE_QID = re.compile(r"^[A-Za-z0-9._-]+$")


def record_path(directory: Path, query_id: str) -> Path:
    """``directory / f"{query_id}.json"``; refuses ids that are not plain file names."""
    if not _SAFE_QID.match(query_id) or query_id in (".", ".."):
        raise RseriniError(
            f"query id {query_id!r} cannot name a run file: use letters, digits, '.', '_', '-'"
        )
    return directory / f"{query_id}.json"


def write_record(directory: Path, record: Mapping[str, Any]) -> Path:
    """Writes one record as ``<query_id>.json`` (pretty-printed); returns its path."""
    path = record_path(directory, str(record["query_id"]))
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _record_files(directory: Path, numeric_only: bool) -> list[Path]:
    return [
        p
        for p in directory.iterdir()
        if p.is_file()
        and p.suffix == ".json"
        and p.name not in _NOT_RECORDS
        and (NUMERIC_NAME.match(p.name) if numeric_only else True)
    ]


def read_runs(directory: Path, *, numeric_only: bool = True) -> dict[str, dict[str, Any]]:
    """The records of a run folder, ``{query_id: record}`` in numeric-then-text id order.

    Parameters
    ----------
    directory
        The run folder (its ``merged/`` subfolder is read instead when it holds records).
    numeric_only
        Read only ``<digits>.json`` files, as pi-serini (default); else every
        ``<query_id>.json``.

    Raises
    ------
    RseriniError
        For a folder without any record, or a record that is not a JSON object.
    FileNotFoundError
        If the folder does not exist.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: no such run folder")
    merged = directory / "merged"
    if merged.is_dir() and _record_files(merged, numeric_only):
        directory = merged
    records: dict[str, dict[str, Any]] = {}
    for path in _record_files(directory, numeric_only):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise RseriniError(f"{path}: not a JSON run record ({e})") from None
        if not isinstance(record, dict):
            raise RseriniError(f"{path}: not a JSON run record (not an object)")
        records[path.name[: -len(".json")]] = record
    if not records:
        which = "<digits>.json" if numeric_only else "<query_id>.json"
        raise RseriniError(f"{directory}: no run record ({which})")
    return dict(sorted(records.items(), key=lambda item: _id_key(item[0])))


def _id_key(query_id: str) -> tuple[int, int, str]:
    """Numeric ids first, in numeric order, then the others as text."""
    return (0, int(query_id), "") if query_id.isdigit() else (1, 0, query_id)
