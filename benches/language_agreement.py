"""Token agreement of the ``lucene-<code>`` analyzers with Pyserini, per language.

Analyzes each text of ``tests/data/languages/corpus.json.gz`` (real sentences and frequent
words, see ``build_corpus.py`` there) with ``rserini.Analyzer("lucene-<code>")`` and with
Pyserini's ``Analyzer(get_lucene_analyzer(language=<code>))`` in a child process, and prints
the Markdown table of ``docs/parity.md``. Needs Pyserini (``python -m rserini.parity
--install``).

Usage: ``python benches/language_agreement.py``
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from rserini import ANALYZER_PRESETS, Analyzer

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "languages" / "corpus.json.gz"
LUCENE = {
    "ar": "ArabicAnalyzer",
    "bn": "BengaliAnalyzer",
    "da": "DanishAnalyzer",
    "de": "GermanAnalyzer",
    "es": "SpanishAnalyzer",
    "fi": "FinnishAnalyzer",
    "fr": "FrenchAnalyzer",
    "hi": "HindiAnalyzer",
    "hu": "HungarianAnalyzer",
    "id": "IndonesianAnalyzer",
    "it": "ItalianAnalyzer",
    "ja": "JapaneseAnalyzer",
    "ko": "CJKAnalyzer",
    "nl": "DutchAnalyzer",
    "no": "NorwegianAnalyzer",
    "pt": "PortugueseAnalyzer",
    "ru": "RussianAnalyzer",
    "te": "TeluguAnalyzer",
    "tr": "TurkishAnalyzer",
    "zh": "CJKAnalyzer",
}


def pyserini_tokens(texts: dict[str, list[str]]) -> dict[str, list[list[str]]]:
    """Pyserini's tokens of every text, from a child process."""
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "in.json").write_text(json.dumps(texts), encoding="utf-8")
        paths = [str(ROOT / "python"), str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
        script = ROOT / "tests" / "pyserini_languages.py"
        args = [sys.executable, str(script), f"{work}/in.json", f"{work}/out.json"]
        subprocess.run(args, check=True, env=env)
        return json.loads((Path(work) / "out.json").read_text(encoding="utf-8"))


def main() -> None:
    corpus = json.loads(gzip.decompress(CORPUS.read_bytes()))
    codes = sorted(c for c in corpus if f"lucene-{c}" in ANALYZER_PRESETS)
    texts = {c: corpus[c]["sentences"] + corpus[c]["words"] for c in codes}
    theirs = pyserini_tokens(texts)
    print("| code | Lucene analyzer | sentences | words | tokens | identical texts |")
    print("|---|---|---:|---:|---:|---:|")
    for c in codes:
        ours = Analyzer(f"lucene-{c}").analyze_batch(texts[c])
        same = sum(a == b for a, b in zip(ours, theirs[c], strict=True))
        tokens = sum(map(len, theirs[c]))
        share = 100 * same / len(texts[c])
        print(
            f"| `{c}` | `{LUCENE[c]}` | {len(corpus[c]['sentences'])} | "
            f"{len(corpus[c]['words'])} | {tokens:,} | {same:,} / {len(texts[c]):,} "
            f"({share:.1f} %) |"
        )


if __name__ == "__main__":
    main()
