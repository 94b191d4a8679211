"""Analysis speed of the ``lucene-<code>`` analyzers against Pyserini's and bm25s's, per language.

Each engine runs in its own process over the same input: the real sentences of
``tests/data/languages/corpus.json.gz`` for the language, repeated ``--repeat`` times, after
one pass to warm up. Modes:

- ``rserini``: ``Analyzer("lucene-<code>").analyze(text)``, one text at a time, one thread;
- ``rserini-batch``: ``Analyzer.analyze_batch(texts)`` on every core;
- ``pyserini``: ``Analyzer(get_lucene_analyzer(language=code)).analyze(text)`` (the JVM
  through pyjnius, as a Pyserini user calls it), one text at a time;
- ``bm25s``: ``bm25s.tokenize(texts, stopwords=..., stemmer=Stemmer.Stemmer(...))``, one
  thread, for the languages PyStemmer has (bm25s's own regex tokenizer and lowercasing:
  not Lucene's tokens, so compare texts per second; each engine's token count is its own).

Needs Pyserini (``python -m rserini.parity --install``) and the ``bench`` extra (bm25s,
PyStemmer); an engine that is missing is reported as such.

Usage: ``python benches/language_speed.py [--repeat 200] [--languages de,fi,...]``
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "languages" / "corpus.json.gz"
ENGINES = ("rserini", "rserini-batch", "pyserini", "bm25s")
# PyStemmer's algorithm and bm25s's stopword list for each code (None: bm25s has none).
SNOWBALL = {
    "ar": "arabic",
    "da": "danish",
    "de": "german",
    "es": "spanish",
    "fi": "finnish",
    "fr": "french",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "it": "italian",
    "nl": "dutch",
    "no": "norwegian",
    "pt": "portuguese",
    "ru": "russian",
    "tr": "turkish",
}
BM25S_STOPWORDS = {
    "da": "STOPWORDS_DANISH",
    "de": "STOPWORDS_GERMAN",
    "es": "STOPWORDS_SPANISH",
    "fr": "STOPWORDS_FRENCH",
    "it": "STOPWORDS_ITALIAN",
    "nl": "STOPWORDS_DUTCH",
    "no": "STOPWORDS_NORWEGIAN",
    "pt": "STOPWORDS_PORTUGUESE",
    "ru": "STOPWORDS_RUSSIAN",
    "tr": "STOPWORDS_TURKISH",
}


def sentences(code: str, repeat: int) -> list[str]:
    corpus = json.loads(gzip.decompress(CORPUS.read_bytes()))
    return list(corpus[code]["sentences"]) * repeat


def analyzer_for(engine: str, code: str) -> Callable[[list[str]], list[list[str]]]:
    """A function from a list of texts to their token lists, for ``engine``."""
    if engine in ("rserini", "rserini-batch"):
        from rserini import Analyzer

        analyzer = Analyzer(f"lucene-{code}")
        if engine == "rserini-batch":
            return analyzer.analyze_batch
        return lambda texts: [analyzer.analyze(t) for t in texts]
    if engine == "pyserini":
        from rserini.parity._java import boot

        boot("1g")
        from pyserini.analysis import Analyzer as PyseriniAnalyzer
        from pyserini.analysis import get_lucene_analyzer

        analyzer = PyseriniAnalyzer(get_lucene_analyzer(language=code))
        return lambda texts: [analyzer.analyze(t) for t in texts]
    import bm25s
    import bm25s.stopwords
    import Stemmer

    stemmer = Stemmer.Stemmer(SNOWBALL[code])
    name = BM25S_STOPWORDS.get(code)
    stopwords = list(getattr(bm25s.stopwords, name)) if name else []
    return lambda texts: bm25s.tokenize(
        texts, stopwords=stopwords, stemmer=stemmer, return_ids=False, show_progress=False
    )


def child(engine: str, code: str, repeat: int) -> None:
    """Times ``engine`` on ``code`` and prints ``{"texts":…, "tokens":…, "seconds":…}``."""
    texts = sentences(code, repeat)
    analyze = analyzer_for(engine, code)
    analyze(texts[: len(texts) // repeat])  # warm-up: one pass
    start = time.perf_counter()
    tokens = analyze(texts)
    seconds = time.perf_counter() - start
    count = sum(len(t) for t in tokens)
    print(json.dumps({"texts": len(texts), "tokens": count, "seconds": seconds}))


def measure(engine: str, code: str, repeat: int) -> dict[str, float] | str:
    """One engine in its own process: its timing, or why it did not run."""
    if engine == "bm25s" and code not in SNOWBALL:
        return "no stemmer"
    paths = [str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    args = [sys.executable, __file__, "--child", engine, code, "--repeat", str(repeat)]
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        errors = re.findall(r"(\w+(?:Error|Exception))\b", done.stderr)
        return f"fails ({errors[-1]})" if errors else "fails"
    return json.loads(done.stdout.strip().splitlines()[-1])


def cell(result: dict[str, float] | str) -> str:
    if isinstance(result, str):
        return result
    texts = result["texts"] / result["seconds"] / 1000
    tokens = result["tokens"] / result["seconds"] / 1000
    return f"{texts:,.1f}k / {tokens:,.0f}k"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=200, help="passes over the sentences")
    parser.add_argument("--languages", help="comma-separated codes (default: all)")
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "CODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.repeat)
        return
    corpus = json.loads(gzip.decompress(CORPUS.read_bytes()))
    codes = args.languages.split(",") if args.languages else sorted(corpus)
    print(f"texts per second / tokens per second ({args.repeat} passes, {os.cpu_count()} cores)")
    print("| code | sentences | " + " | ".join(ENGINES) + " |")
    print("|---|---:|" + "---:|" * len(ENGINES))
    for code in codes:
        row = [cell(measure(engine, code, args.repeat)) for engine in ENGINES]
        n = len(corpus[code]["sentences"]) * args.repeat
        print(f"| `{code}` | {n:,} | " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
