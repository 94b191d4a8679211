"""Pyserini's language analyzers in a child process: ``python pyserini_languages.py IN OUT``.

``IN`` is JSON ``{code: [text, ...]}``; ``OUT`` receives ``{code: [[token, ...], ...]}``,
each text analyzed on its own by ``Analyzer(get_lucene_analyzer(language=code))``.
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
    for code, items in texts.items():
        analyzer = Analyzer(get_lucene_analyzer(language=code))
        out[code] = [analyzer.analyze(text) for text in items]
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
