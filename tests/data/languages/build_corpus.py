"""Rebuilds ``corpus.json.gz``: real sentences and common words per language.

Sentences are the translated messages of two Debian packages' gettext catalogues,
``glib20.mo`` (libglib2.0-data) and ``gtk20-properties.mo`` (libgtk2.0-common), both
LGPL-2.1-or-later, read from ``/usr/share/locale``. Words are the most frequent ones of
the ``wordfreq`` 3.1.1 wheel's lists (CC BY-SA 4.0), for the languages it covers; pass
the folder of the unpacked wheel (``pip download wordfreq==3.1.1 --no-deps``).

Usage: ``python build_corpus.py WORDFREQ_DIR``
"""

from __future__ import annotations

import gettext
import gzip
import json
import re
import sys
from pathlib import Path

import msgpack

LOCALES = {
    "ar": "ar",
    "bn": "bn",
    "da": "da",
    "de": "de",
    "es": "es",
    "fi": "fi",
    "fr": "fr",
    "hi": "hi",
    "hu": "hu",
    "id": "id",
    "it": "it",
    "ja": "ja",
    "ko": "ko",
    "nl": "nl",
    "no": "nb",
    "pt": "pt",
    "ru": "ru",
    "te": "te",
    "th": "th",
    "tr": "tr",
    "zh": "zh_CN",
}
CATALOGUES = ("glib20", "gtk20-properties")
SENTENCES = 400
WORDS = 2000


def messages(locale: str) -> list[str]:
    """The translations of every catalogue, one entry per distinct message."""
    found: set[str] = set()
    for domain in CATALOGUES:
        path = Path("/usr/share/locale") / locale / "LC_MESSAGES" / f"{domain}.mo"
        with path.open("rb") as f:
            catalog = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
        for key, text in catalog.items():
            if key and isinstance(text, str) and len(text) >= 12:
                found.add(re.sub(r"\s+", " ", text).strip())
    return sorted(found)


def sample(items: list[str], n: int) -> list[str]:
    """``n`` items spread evenly over ``items``."""
    if len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def words(wordfreq: Path, code: str) -> list[str]:
    """The most frequent words of ``code`` in wordfreq's lists (none if it has none)."""
    name = {"no": "nb"}.get(code, code)
    for size in ("small", "large"):
        path = wordfreq / "wordfreq" / "data" / f"{size}_{name}.msgpack.gz"
        if path.is_file():
            buckets = msgpack.unpackb(gzip.decompress(path.read_bytes()), raw=False)[1:]
            return [w for bucket in buckets for w in bucket][:WORDS]
    return []


def main() -> None:
    wordfreq = Path(sys.argv[1])
    corpus = {
        code: {"sentences": sample(messages(locale), SENTENCES), "words": words(wordfreq, code)}
        for code, locale in LOCALES.items()
    }
    out = Path(__file__).with_name("corpus.json.gz")
    data = json.dumps(corpus, ensure_ascii=False, sort_keys=True).encode()
    out.write_bytes(gzip.compress(data, mtime=0))
    for code, part in corpus.items():
        print(code, len(part["sentences"]), len(part["words"]))


if __name__ == "__main__":
    main()
