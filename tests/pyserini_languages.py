"""Pyserini's language analyzers in a child process: ``python pyserini_languages.py IN OUT``.

``IN`` is JSON ``{code: [text, ...]}``; ``OUT`` receives ``{code: [[token, ...], ...]}``,
each text analyzed on its own by ``Analyzer(get_lucene_analyzer(language=code))``. With a
third argument ``offsets``, each token is ``[token, start, end]`` instead: Lucene's
``OffsetAttribute`` (UTF-16 units) from the analyzer's own token stream, empty terms left
out as Pyserini's ``analyze`` does.
"""

from __future__ import annotations

import json
import sys

from rserini.parity._java import boot


def main() -> None:
    boot("1g")
    from pyserini.analysis import Analyzer, get_lucene_analyzer

    with open(sys.argv[1], encoding="utf-8") as f:
        texts = json.load(f)
    out = {}
    offsets = sys.argv[3:] == ["offsets"]
    for code, items in texts.items():
        if offsets:
            lucene = get_lucene_analyzer(language=code)
            out[code] = [with_offsets(lucene, text) for text in items]
        else:
            analyzer = Analyzer(get_lucene_analyzer(language=code))
            out[code] = [analyzer.analyze(text) for text in items]
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)


def with_offsets(lucene: object, text: str) -> list[list[object]]:
    """The terms of ``text`` by the Lucene analyzer ``lucene``, each with its offsets."""
    from jnius import autoclass, cast

    attributes = "org.apache.lucene.analysis.tokenattributes."
    term_class = autoclass("java.lang.Class").forName(attributes + "CharTermAttribute")
    offset_class = autoclass("java.lang.Class").forName(attributes + "OffsetAttribute")
    stream = lucene.tokenStream("contents", text)  # type: ignore[attr-defined]
    term = cast(attributes + "CharTermAttribute", stream.addAttribute(term_class))
    offset = cast(attributes + "OffsetAttribute", stream.addAttribute(offset_class))
    out: list[list[object]] = []
    stream.reset()
    while stream.incrementToken():
        token = term.toString()
        if token:
            out.append([token, offset.startOffset(), offset.endOffset()])
    stream.end()
    stream.close()
    return out


if __name__ == "__main__":
    main()
