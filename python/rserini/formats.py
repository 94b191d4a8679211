"""Readers and writers of the evaluation formats of the field.

- TREC run files: ``qid Q0 docid rank score tag``, whitespace separated.
- TREC qrels: ``qid iteration docid relevance``, and BEIR ``qrels/*.tsv``
  (``query-id<TAB>corpus-id<TAB>score`` after a header line); :func:`read_qrels`
  recognises both.
- Topics: BEIR ``queries.jsonl`` and ``qid<TAB>text`` files (:func:`read_queries`,
  the core's reader).
- BEIR collection folders: ``corpus.jsonl`` or ``corpus.jsonl.gz``, ``queries.jsonl``
  and ``qrels/<split>.tsv`` (:func:`beir_collection`; :func:`beir_files` finds them).
- Corpora, read as :meth:`rserini.Index.from_jsonl` reads them (the core's rules):
  :func:`read_documents` gives ``(docid, indexed text)`` pairs, :func:`corpus_files`
  the files a path stands for and :func:`document_fields` the pair of one JSON line.

In memory, a run is ``{qid: {docid: score}}`` and qrels are ``{qid: {docid: relevance}}``,
the shapes ``ir_measures`` and ``pytrec_eval`` take. A malformed line raises
:class:`~rserini.exceptions.ParseError` with ``path`` and ``line`` (1-based) set.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from rserini._core import (
    beir_files,
    corpus_files,
    document_fields,
    read_documents,
    read_queries,
)
from rserini.exceptions import DocumentError, ParseError, QueryError

Run: TypeAlias = dict[str, dict[str, float]]
"""A ranking per query: ``{qid: {docid: score}}``."""
RankedRun: TypeAlias = dict[str, list[tuple[str, float]]]
"""Each query's hits as an engine ranked them: ``{qid: [(docid, score), ...]}``, best first."""
Qrels: TypeAlias = dict[str, dict[str, int]]
"""Relevance judgements: ``{qid: {docid: relevance}}``."""
Queries: TypeAlias = list[tuple[str, str]]
"""Topics in file order: ``[(qid, text), ...]``."""
StrPath: TypeAlias = str | os.PathLike[str]

BEIR_QRELS_HEADER = ("query-id", "corpus-id", "score")

__all__ = [
    "BEIR_QRELS_HEADER",
    "BeirCollection",
    "Qrels",
    "Queries",
    "RankedRun",
    "Run",
    "beir_collection",
    "beir_files",
    "check_run_ids",
    "corpus_files",
    "document_fields",
    "parse_error",
    "ranked",
    "read_documents",
    "read_qrels",
    "read_queries",
    "read_run",
    "write_qrels",
    "write_queries",
    "write_run",
]


def parse_error(path: StrPath, line: int, message: str) -> ParseError:
    """A :class:`ParseError` reading ``path:line: message`` with ``path`` and ``line`` set.

    Parameters
    ----------
    path
        The file.
    line
        The 1-based line number.
    message
        What is wrong with the line.

    Returns
    -------
    ParseError
        The exception, ready to raise.
    """
    error = ParseError(f"{os.fspath(path)}:{line}: {message}")
    error.path = os.fspath(path)
    error.line = line
    return error


def _lines(path: StrPath) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of each non-blank line, without the line ending.

    Lines are decoded one by one, so that a line that is not UTF-8 gets a
    :class:`ParseError` naming it.
    """
    with open(path, "rb") as f:
        for number, raw in enumerate(f, start=1):
            try:
                text = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as e:
                raise parse_error(
                    path, number, f"not UTF-8 text ({e.reason} at byte {e.start})"
                ) from None
            if text.strip():
                yield number, text


def read_run(path: StrPath) -> Run:
    """Reads a TREC run file: ``qid Q0 docid rank score tag`` per line.

    As in ``trec_eval``, the order of the lines and the rank column do not define the
    ranking: evaluation sorts each query's documents by score. Blank lines are skipped.

    Parameters
    ----------
    path
        The run file.

    Returns
    -------
    Run
        ``{qid: {docid: score}}``, queries in order of first appearance. An empty file
        gives an empty dict.

    Raises
    ------
    ParseError
        For a line without exactly six fields, a rank that is not an integer, a score
        that is not a finite number, or a document listed twice for the same query
        (``trec_eval`` rejects duplicates too).
    FileNotFoundError
        If the file does not exist.
    """
    run: Run = {}
    first_seen: dict[tuple[str, str], int] = {}
    for number, text in _lines(path):
        fields = text.split()
        if len(fields) != 6:
            raise parse_error(
                path,
                number,
                f"expected `qid Q0 docid rank score tag` (6 fields), got {len(fields)}",
            )
        qid, _, docid, rank, score_text, _ = fields
        try:
            int(rank)
        except ValueError:
            raise parse_error(path, number, f"rank {rank!r} is not an integer") from None
        try:
            score = float(score_text)
        except ValueError:
            raise parse_error(path, number, f"score {score_text!r} is not a number") from None
        if not math.isfinite(score):
            raise parse_error(path, number, f"score {score_text!r} is not finite")
        docs = run.setdefault(qid, {})
        if docid in docs:
            first = first_seen[(qid, docid)]
            raise parse_error(
                path,
                number,
                f"document {docid!r} listed twice for query {qid!r} (first at line {first})",
            )
        docs[docid] = score
        first_seen[(qid, docid)] = number
    return run


def ranked(docs: Mapping[str, float]) -> list[tuple[str, float]]:
    """One query's documents in rserini's order: score descending, then docid ascending.

    Parameters
    ----------
    docs
        ``{docid: score}``.

    Returns
    -------
    list of (str, float)
        ``(docid, score)`` pairs, best first.
    """
    return sorted(docs.items(), key=lambda item: (-item[1], item[0]))


def write_run(
    run: Mapping[str, Mapping[str, float] | Sequence[tuple[str, float]]],
    path: StrPath,
    *,
    tag: str = "rserini",
    precision: int = 6,
) -> int:
    """Writes a TREC run file: each query's documents ranked by :func:`ranked`, or kept
    in the order given.

    Every id is checked before the file is opened, so a run that cannot be written
    leaves an existing file as it was.

    Parameters
    ----------
    run
        Per query, in the mapping's order: ``{docid: score}`` (written ranked by
        :func:`ranked`) or ``[(docid, score), ...]`` already ranked (a
        :data:`RankedRun`; written as given, a repeated docid included).
    path
        The file to write (replaced if it exists).
    tag
        The run tag, the last column; it must not contain whitespace.
    precision
        Decimals of the score column (6, as Pyserini and ``rserini run``).

    Returns
    -------
    int
        The number of lines written.

    Raises
    ------
    ValueError
        If the tag, a qid or a docid is empty or contains whitespace.
    """
    _check_token(tag, "run tag")
    rows = {qid: ranked(docs) if isinstance(docs, Mapping) else docs for qid, docs in run.items()}
    for qid, hits in rows.items():
        check_run_ids(qid, [docid for docid, _ in hits])
    lines = 0
    with open(path, "w", encoding="utf-8") as out:
        for qid, hits in rows.items():
            for rank, (docid, score) in enumerate(hits, start=1):
                out.write(f"{qid} Q0 {docid} {rank} {score:.{precision}f} {tag}\n")
            lines += len(hits)
    return lines


def _check_token(value: str, what: str) -> None:
    if not value or len(value.split()) != 1 or value.strip() != value:
        raise _token_error(value, what)


def _token_error(value: str, what: str) -> ValueError:
    """A TREC file's columns are separated by whitespace: it cannot hold ``value``."""
    kind = QueryError if what == "query id" else DocumentError
    return kind(
        f"{what} {value!r} is empty or contains whitespace, which a TREC run cannot hold "
        "(its columns are separated by whitespace)"
    )


def check_run_ids(qid: str, docids: Sequence[str]) -> None:
    """Checks that a query id and its ranked docids can be written as TREC run columns.

    One split of the joined row checks a deep ranking at C speed.

    Raises
    ------
    QueryError
        If ``qid`` is empty or contains whitespace.
    DocumentError
        If a docid is empty or contains whitespace.
    """
    _check_token(qid, "query id")
    if " ".join(docids).split() != list(docids):
        for docid in docids:
            _check_token(docid, "docid")


def read_qrels(path: StrPath) -> Qrels:
    """Reads relevance judgements: TREC qrels or a BEIR ``qrels/*.tsv`` file.

    TREC lines are ``qid iteration docid relevance`` (whitespace separated; the iteration
    column is ignored). BEIR files are tab separated ``query-id corpus-id score``, usually
    after that header line. The format is chosen by the first non-blank line (the header,
    or its number of fields: 4 for TREC, 3 for BEIR); every line must then follow it.

    Parameters
    ----------
    path
        The qrels file.

    Returns
    -------
    Qrels
        ``{qid: {docid: relevance}}``, queries in order of first appearance. A file with
        no judgement gives an empty dict.

    Raises
    ------
    ParseError
        For a line with the wrong number of fields, a relevance that is not an integer,
        or a (query, document) pair judged twice.
    FileNotFoundError
        If the file does not exist.
    """
    qrels: Qrels = {}
    first_seen: dict[tuple[str, str], int] = {}
    style: Literal["trec", "beir"] | None = None
    for number, text in _lines(path):
        if style is None:
            if tuple(f.strip() for f in text.split("\t")) == BEIR_QRELS_HEADER:
                style = "beir"
                continue
            width = len(text.split())
            if width == 4:
                style = "trec"
            elif width == 3:
                style = "beir"
            else:
                raise parse_error(
                    path,
                    number,
                    "expected TREC qrels `qid 0 docid relevance` or BEIR "
                    "`query-id<TAB>corpus-id<TAB>score`",
                )
        if style == "trec":
            fields = text.split()
            if len(fields) != 4:
                raise parse_error(
                    path, number, f"expected `qid 0 docid relevance` (4 fields), got {len(fields)}"
                )
            qid, _, docid, rel = fields
        else:
            fields = [f.strip() for f in text.split("\t")]
            if len(fields) != 3 or not all(fields):
                raise parse_error(path, number, "expected `query-id<TAB>corpus-id<TAB>score`")
            qid, docid, rel = fields
        try:
            relevance = int(rel)
        except ValueError:
            raise parse_error(path, number, f"relevance {rel!r} is not an integer") from None
        judged = qrels.setdefault(qid, {})
        if docid in judged:
            first = first_seen[(qid, docid)]
            raise parse_error(
                path,
                number,
                f"document {docid!r} judged twice for query {qid!r} (first at line {first})",
            )
        judged[docid] = relevance
        first_seen[(qid, docid)] = number
    return qrels


def write_qrels(
    qrels: Mapping[str, Mapping[str, int]],
    path: StrPath,
    *,
    style: Literal["trec", "beir"] = "trec",
) -> int:
    """Writes relevance judgements as TREC qrels or as a BEIR TSV file (with its header).

    Parameters
    ----------
    qrels
        ``{qid: {docid: relevance}}``.
    path
        The file to write (replaced if it exists).
    style
        ``"trec"`` (``qid 0 docid relevance``) or ``"beir"``
        (``query-id<TAB>corpus-id<TAB>score``).

    Returns
    -------
    int
        The number of judgements written.

    Raises
    ------
    ValueError
        For an unknown style, or an id that is empty or contains whitespace.
    """
    if style not in ("trec", "beir"):
        raise ValueError(f"unknown qrels style {style!r}: expected 'trec' or 'beir'")
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        if style == "beir":
            out.write("\t".join(BEIR_QRELS_HEADER) + "\n")
        for qid, judged in qrels.items():
            _check_token(qid, "query id")
            for docid, relevance in judged.items():
                _check_token(docid, "docid")
                if style == "trec":
                    out.write(f"{qid} 0 {docid} {int(relevance)}\n")
                else:
                    out.write(f"{qid}\t{docid}\t{int(relevance)}\n")
                count += 1
    return count


def write_queries(queries: Sequence[tuple[str, str]], path: StrPath) -> int:
    """Writes topics as BEIR ``queries.jsonl`` (``.jsonl`` suffix) or as ``qid<TAB>text``.

    Parameters
    ----------
    queries
        ``(qid, text)`` pairs.
    path
        The file to write; its suffix chooses the format.

    Returns
    -------
    int
        The number of queries written.

    Raises
    ------
    ValueError
        For a TSV query whose id or text contains a tab or a line break.
    """
    as_jsonl = Path(path).suffix == ".jsonl"
    with open(path, "w", encoding="utf-8") as out:
        for qid, text in queries:
            if as_jsonl:
                out.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")
            else:
                if any(c in qid + text for c in "\t\r\n"):
                    raise ValueError(f"query {qid!r} has a tab or line break: write it as .jsonl")
                out.write(f"{qid}\t{text}\n")
    return len(queries)


@dataclass(frozen=True)
class BeirCollection:
    """The files of a BEIR collection folder.

    Attributes
    ----------
    folder
        The collection folder.
    corpus
        ``corpus.jsonl`` or ``corpus.jsonl.gz`` (index it with
        :meth:`rserini.Index.from_jsonl`, which indexes ``title + " " + text``).
    queries_path
        ``queries.jsonl``.
    qrels_path
        ``qrels/<split>.tsv``.
    """

    folder: Path
    corpus: Path
    queries_path: Path
    qrels_path: Path

    @property
    def name(self) -> str:
        """The folder's name, e.g. ``"scifact"``."""
        return self.folder.name

    def queries(self, *, judged_only: bool = False) -> Queries:
        """The topics, in file order; with ``judged_only``, those the qrels judge."""
        queries = read_queries(self.queries_path)
        if judged_only:
            judged = self.qrels()
            queries = [q for q in queries if q[0] in judged]
        return queries

    def qrels(self) -> Qrels:
        """The relevance judgements of the split."""
        return read_qrels(self.qrels_path)


def beir_collection(
    folder: StrPath,
    *,
    split: str = "test",
    queries: StrPath | None = None,
    qrels: StrPath | None = None,
) -> BeirCollection:
    """Locates the files of a BEIR collection folder.

    Parameters
    ----------
    folder
        A folder holding ``corpus.jsonl`` or ``corpus.jsonl.gz``, ``queries.jsonl`` and
        ``qrels/<split>.tsv``.
    split
        The qrels split (``test``, ``dev``, ``train``).
    queries, qrels
        Files to use instead of the folder's own.

    Returns
    -------
    BeirCollection
        The resolved paths (the files are read lazily).

    Raises
    ------
    FileNotFoundError
        Naming the first file or folder that is missing.
    DocumentError
        If the folder holds both ``corpus.jsonl`` and ``corpus.jsonl.gz``.
    """
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a BEIR collection folder (no such folder)")
    found = beir_files(root, split)
    if found is None:
        raise FileNotFoundError(f"{root}: no corpus.jsonl or corpus.jsonl.gz in the folder")
    corpus, own_queries, own_qrels = found
    queries_path = Path(queries) if queries is not None else own_queries
    qrels_path = Path(qrels) if qrels is not None else own_qrels
    if queries_path is None:
        raise FileNotFoundError(f"{root}: no queries.jsonl in the folder")
    if qrels_path is None:
        raise FileNotFoundError(f"{root}: no qrels/{split}.tsv in the folder")
    for path in (queries_path, qrels_path):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    return BeirCollection(root, corpus, queries_path, qrels_path)
