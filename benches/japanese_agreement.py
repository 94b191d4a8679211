"""How often Lucene's ``JapaneseAnalyzer`` chain on Lindera's segmentation gives Pyserini's
Japanese tokens: the measurement behind the Japanese paragraph of ``docs/parity.md``.

rserini has no ``lucene-ja`` preset; this measures the candidate. Two steps, each in the
environment that has its engine:

1. ``python benches/japanese_agreement.py pyserini OUT.json`` (Pyserini installed, as
   ``python -m rserini.parity --install`` sets up): analyzes the Japanese texts of
   ``tests/data/languages/corpus.json.gz`` with ``get_lucene_analyzer(language="ja")`` and
   stores them with the tokens and Lucene's stop tags and stopwords.
2. ``python benches/japanese_agreement.py compare OUT.json [--dictionary DIR]``
   (``pip install lindera-python-ipadic``): Lindera's IPADIC segmentation in ``decompose``
   mode (Kuromoji's search-mode penalties), then the steps of ``JapaneseAnalyzer`` written
   here (punctuation discarded, base forms, part-of-speech stop tags, width folding,
   stopwords, katakana stemming, lowercase); prints the share of identical token lists and
   each difference. ``--dictionary`` names a Lindera dictionary built from other IPADIC
   sources (``lindera.build_dictionary``), else Lindera's embedded IPADIC is used.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import unicodedata
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "languages" / "corpus.json.gz"
RESOURCES = "org/apache/lucene/analysis/ja/"


def texts() -> tuple[list[str], int]:
    """The Japanese sentences then words of the corpus, and how many are sentences."""
    corpus = json.loads(gzip.decompress(CORPUS.read_bytes()))["ja"]
    return corpus["sentences"] + corpus["words"], len(corpus["sentences"])


def pyserini_side(out: Path) -> None:
    import zipfile

    from rserini.parity._java import boot

    boot("1g")
    import pyserini
    from pyserini.analysis import Analyzer, get_lucene_analyzer

    jar = next((Path(pyserini.__file__).parent / "resources" / "jars").glob("anserini-*.jar"))
    with zipfile.ZipFile(jar) as z:
        lists = {
            name: [
                line.strip()
                for line in z.read(RESOURCES + f"{name}.txt").decode("utf-8").splitlines()
                if line.strip() and not line.startswith("#")
            ]
            for name in ("stoptags", "stopwords")
        }
    analyzer = Analyzer(get_lucene_analyzer(language="ja"))
    items, _ = texts()
    data = {**lists, "tokens": [analyzer.analyze(t) for t in items]}
    out.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


# `JapaneseTokenizer.isPunctuation`: the general categories whose first character makes a
# token punctuation, discarded by the analyzer.
PUNCTUATION = {"Zs", "Zl", "Zp", "Cc", "Cf", "Pd", "Ps", "Pe", "Pc", "Po"}
PUNCTUATION |= {"Sm", "Sc", "Sk", "So", "Pi", "Pf"}


def width(term: str) -> str:
    """``CJKWidthFilter``: fullwidth ASCII to ASCII, halfwidth katakana to fullwidth."""
    term = "".join(chr(ord(c) - 0xFEE0) if 0xFF01 <= ord(c) <= 0xFF5E else c for c in term)
    # NFKC on runs of halfwidth katakana only: it composes a voiced mark with its kana.
    return re.sub("[\uff65-\uff9f]+", lambda m: unicodedata.normalize("NFKC", m[0]), term)


def katakana_stem(term: str) -> str:
    """``JapaneseKatakanaStemFilter``: a final prolonged sound mark off katakana of 4+."""
    katakana = all(0x30A0 <= ord(c) <= 0x30FF for c in term)
    return term[:-1] if katakana and len(term) > 3 and term.endswith("ー") else term


def compare(data: dict[str, Any], dictionary: str) -> None:
    import lindera

    builder = lindera.TokenizerBuilder()
    builder.set_mode("decompose")
    builder.set_dictionary(dictionary)
    tokenizer = builder.build()
    stoptags, stopwords = set(data["stoptags"]), set(data["stopwords"])

    def analyze(text: str) -> list[str]:
        out = []
        for token in tokenizer.tokenize(text):
            surface, details = token.surface, token.details
            if unicodedata.category(surface[0]) in PUNCTUATION:
                continue
            pos = "-".join(d for d in details[:4] if d != "*") if len(details) > 6 else "未知語"
            if pos in stoptags:
                continue
            term = width(details[6] if len(details) > 6 and details[6] != "*" else surface)
            if term not in stopwords:
                out.append(katakana_stem(term).lower())
        return out

    items, sentences = texts()
    differ = [(i, t) for i, t in enumerate(items) if analyze(t) != data["tokens"][i]]
    same_sentences = sentences - sum(i < sentences for i, _ in differ)
    same = len(items) - len(differ)
    print(f"identical: {same} / {len(items)} ({100 * same / len(items):.1f} %)")
    print(f"sentences: {same_sentences} / {sentences}")
    for i, text in differ:
        print(f"{text!r}\n  pyserini: {data['tokens'][i]}\n  lindera:  {analyze(text)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("side", choices=("pyserini", "compare"))
    parser.add_argument("file", type=Path)
    parser.add_argument("--dictionary", default="embedded://ipadic")
    args = parser.parse_args()
    if args.side == "pyserini":
        pyserini_side(args.file)
    else:
        compare(json.loads(args.file.read_text(encoding="utf-8")), args.dictionary)


if __name__ == "__main__":
    main()
