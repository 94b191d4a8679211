"""Pyserini indexes and searches a collection in a language in a child process:
``python pyserini_language_search.py CODE DOCS QUERIES INDEX OUT``.

``DOCS`` is a folder of JsonCollection files, ``QUERIES`` JSON ``[[qid, text], ...]``;
``OUT`` receives ``{qid: [[docid, score], ...]}``, the top 1,000 of
``LuceneSearcher(INDEX)`` with ``set_language(CODE)`` and BM25 (0.9, 0.4).
"""

from __future__ import annotations

import json
import sys

from rserini.parity._java import boot


def main() -> None:
    code, docs, queries, index, out = sys.argv[1:6]
    boot("1g")
    from jnius import autoclass

    autoclass("io.anserini.index.IndexCollection").main(
        [
            "-collection", "JsonCollection", "-input", docs, "-index", index,
            "-generator", "DefaultLuceneDocumentGenerator", "-threads", "1",
            "-language", code, "-quiet",
        ]
    )  # fmt: skip
    from pyserini.search.lucene import LuceneSearcher

    searcher = LuceneSearcher(index)
    searcher.set_language(code)
    searcher.set_bm25(0.9, 0.4)
    with open(queries, encoding="utf-8") as f:
        pairs = json.load(f)
    hits = {qid: [[h.docid, h.score] for h in searcher.search(q, 1000)] for qid, q in pairs}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(hits, f)


if __name__ == "__main__":
    main()
