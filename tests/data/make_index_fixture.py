"""Writes the committed fixture index of the current format version, and the results it
must keep giving. Run once per new format version:

    python tests/data/make_index_fixture.py

The fixture has two segments, a deleted document, JSON and plain-text documents in the
document store and Lucene's English analyzer, so every file kind is present. Since
format 2 it also has 260 short notes, so that a term's postings span full blocks and a
partial one (with block table rows) and the term table has several groups.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import rserini

HERE = Path(__file__).resolve().parent
QUERIES = [
    "network packets",
    "energy plants",
    "Mars Jupiter",
    "quick brown foxes",
    "zzz",
    "packets filler kappa",
]
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]


def notes() -> list[tuple[str, str]]:
    """Documents sharing "packets" (with varying tf and length) and a few other words."""
    return [
        (
            f"n{i:03d}",
            " ".join(
                ["packets"] * (1 + (i % 7 == 0) + 2 * (i % 31 == 0))
                + [WORDS[i % len(WORDS)], WORDS[i * 7 % len(WORDS)], f"w{i}"]
                + ["filler"] * (i % 5)
            ),
        )
        for i in range(260)
    ]


def main() -> None:
    folder = HERE / f"index_v{rserini.INDEX_FORMAT_VERSION}"
    shutil.rmtree(folder, ignore_errors=True)
    index = rserini.Index.build(
        [
            {"_id": "d1", "title": "Routers", "text": "forward packets between networks."},
            {"id": "d2", "contents": "Photosynthesis converts sunlight into energy in plants."},
            ("d3", "The asteroid belt lies between Mars and Jupiter."),
            ("d4", "Switches direct frames within a local area network."),
            *notes(),
        ],
        progress=False,
    )
    index.save(folder)
    index.add([("d5", "The quick brown fox jumps over the lazy dog's back."), ("d6", "")])
    index.delete("d4")
    index.commit()
    (folder / "write.lock").unlink()
    candidates = ["d1", "d2", "d3", "d4", "d5", "d6"] + [d for d, _ in notes()]
    expected = {
        "docids": sorted(d for d in candidates if d in index),
        "stats": {k: v for k, v in index.stats().items() if k != "analyzer"},
        "docs": {d: index.doc(d) for d in ["d1", "d2", "d3", "d5", "n000", "n259"]},
        "searches": {q: [[h.docid, h.score] for h in index.search(q, k=10)] for q in QUERIES},
    }
    (HERE / f"index_v{rserini.INDEX_FORMAT_VERSION}.expected.json").write_text(
        json.dumps(expected, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main()
