"""Splitting a corpus into per-shard spill files, in one streaming pass.

Each non-blank line of the corpus files (:func:`rserini.formats.corpus_files`,
read exactly as :meth:`rserini.Index.from_jsonl` reads them: gzip when the name
ends ``.gz``, a byte order mark opening a file skipped) is checked with
:func:`rserini.formats.document_fields`, routed by its docid's hash and appended
unchanged to its shard's spill, so that a shard built from its spill stores each
document's JSON exactly as one index built from the whole corpus would. The
order of the lines within a spill is the corpus order, which makes the shards
the same bytes whoever builds them.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import IO, cast

from rserini._core import corpus_files, document_fields
from rserini.distributed.partition import shard_of
from rserini.exceptions import DocumentError, ParseError

_BOM = b"\xef\xbb\xbf"
_BLANK = b" \t\n\r\x0c"


def spill_name(shard: int) -> str:
    return f"shard-{shard:05d}.jsonl"


def split_corpus(
    inputs: Sequence[Path], spill_dir: Path, num_shards: int, *, max_line_bytes: int
) -> list[int]:
    """Writes ``spill_dir/shard-NNNNN.jsonl`` for every shard; returns the number of
    documents of each. Raises :class:`ParseError` (``path``, ``line`` set) for a line
    that is not a document, before any shard is built."""
    counts = [0] * num_shards
    with ExitStack() as stack:
        spills = [
            stack.enter_context(open(spill_dir / spill_name(i), "wb")) for i in range(num_shards)
        ]
        for source in inputs:
            for path in corpus_files(source):
                with _open(path) as f:
                    for line_no, line in _lines(f, path, max_line_bytes):
                        shard = shard_of(_docid(line, path, line_no), num_shards)
                        spills[shard].write(line if line.endswith(b"\n") else line + b"\n")
                        counts[shard] += 1
    return counts


def _open(path: Path) -> IO[bytes]:
    if path.name.endswith(".gz"):
        return cast("IO[bytes]", gzip.open(path, "rb"))
    return open(path, "rb")


def _lines(f: IO[bytes], path: Path, max_line_bytes: int) -> Iterator[tuple[int, bytes]]:
    line_no = 0
    while True:
        line = f.readline(max_line_bytes + 1)
        if not line:
            return
        line_no += 1
        if len(line) > max_line_bytes and not (
            len(line) == max_line_bytes + 1 and line.endswith(b"\n")
        ):
            raise _parse_error(
                path,
                line_no,
                f"line longer than {max_line_bytes} bytes; raise max_line_bytes to read it",
            )
        if line_no == 1 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        if line.strip(_BLANK):  # Rust's is_ascii_whitespace: no vertical tab
            yield line_no, line


def _docid(line: bytes, path: Path, line_no: int) -> str:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _parse_error(
            path,
            line_no,
            f"not valid UTF-8 (bad byte at column {e.start + 1}); re-encode the file as UTF-8",
        ) from None
    try:
        return document_fields(text)[0]
    except (DocumentError, TypeError) as e:
        raise _parse_error(path, line_no, str(e)) from None


def _parse_error(path: Path, line: int, message: str) -> ParseError:
    err = ParseError(f"{path}:{line}: {message}")
    err.path = str(path)
    err.line = line
    return err
