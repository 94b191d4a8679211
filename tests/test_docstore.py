"""The document store: doc() and contents() give back what was indexed, on every path."""

from __future__ import annotations

import gzip
import json
import math
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rserini
from rserini import Index

PAIRS = [
    ("p1", "Routers forward packets between networks."),
    ("p2", ""),
    ("ünï 文档", "Ça va? 🙂 naïve café, ß and İ"),
    ("p/4", 'line\nbreak\ttab \x00 nul and \\ backslash "quotes"'),
]
PYSERINI = [
    {
        "id": "s1",
        "contents": "alpha beta packets",
        "url": "http://example.com/?q=1&r=2",
        "tags": ["a", "b"],
        "meta": {"n": 1, "f": 0.5, "ok": True, "none": None, "neg": -7},
    },
    {"id": "s2", "contents": "ünïcode 文档 🙂", "nested": {"deep": [{"x": [1, 2, {"y": "z"}]}]}},
    {"id": "s3", "contents": "", "empty": {}, "list": []},
    {"id": 44, "contents": "numeric id"},
]
BEIR = [
    {"_id": "b1", "title": "Title here", "text": "body packets", "metadata": {"year": 2020}},
    {"_id": "b2", "title": "", "text": "only text"},
    {"_id": "b3", "title": "only title"},
    {"_id": "b4", "title": None, "text": "null title", "extra": "x"},
]


def docid(doc: tuple[str, str] | dict) -> str:
    if isinstance(doc, tuple):
        return doc[0]
    return str(next(doc[k] for k in ("id", "_id", "docid") if k in doc))


def expected_doc(doc: tuple[str, str] | dict) -> dict:
    return {"id": doc[0], "contents": doc[1]} if isinstance(doc, tuple) else doc


def expected_contents(doc: tuple[str, str] | dict) -> str:
    if isinstance(doc, tuple):
        return doc[1]
    if "contents" in doc:
        return doc["contents"] or ""
    return f"{doc.get('title') or ''} {doc.get('text') or ''}"


def assert_round_trip(index: Index, docs: list) -> None:
    for doc in docs:
        assert index.doc(docid(doc)) == expected_doc(doc), docid(doc)
        assert index.contents(docid(doc)) == expected_contents(doc), docid(doc)


def variants(tmp_path: Path, docs: list) -> dict[str, Index]:
    """The same documents stored through every path: memory, disk, commits, merges."""
    out = {"memory": Index.build(docs, progress=False)}
    out["memory"].save(tmp_path / "saved")
    out["mmap"] = Index.load(tmp_path / "saved", mmap=True)
    out["read"] = Index.load(tmp_path / "saved", mmap=False)
    half = len(docs) // 2
    incremental = Index.build(docs[:half], progress=False)
    incremental.save(tmp_path / "incremental")
    incremental = Index.load(tmp_path / "incremental")
    for doc in docs[half:]:
        incremental.add([doc])
        incremental.commit()
    out["commits"] = incremental
    out["commits-reloaded"] = Index.load(tmp_path / "incremental", mmap=False)
    # Deleting the fillers (over 30 % of the segment) rewrites it at commit; then optimize.
    merged = Index.build(docs + [(f"filler{i}", "filler words") for i in range(10)], progress=False)
    merged.save(tmp_path / "merged")
    merged.delete([f"filler{i}" for i in range(10)])
    merged.commit()
    merged.optimize()
    assert merged.stats()["num_segments"] == 1
    out["merged"] = merged
    out["merged-reloaded"] = Index.load(tmp_path / "merged")
    return out


@pytest.mark.parametrize("name", ["pairs", "pyserini", "beir", "mixed"])
def test_documents_round_trip_on_every_path(tmp_path: Path, name: str) -> None:
    """doc() gives the original dict or {"id", "contents"}; contents() the indexed text."""
    docs = {"pairs": PAIRS, "pyserini": PYSERINI, "beir": BEIR}.get(name, PAIRS + PYSERINI + BEIR)
    for how, index in variants(tmp_path, docs).items():
        assert len(index) == len(docs), how
        assert_round_trip(index, docs)


def test_search_hits_read_back_their_documents(tmp_path: Path) -> None:
    """Every hit's docid reads back through doc()."""
    docs = PAIRS + PYSERINI + BEIR
    index = Index.build(docs, progress=False)
    index.save(tmp_path / "idx")
    loaded = Index.load(tmp_path / "idx")
    by_id = {docid(d): d for d in docs}
    hits = loaded.search("packets", k=20)
    assert {h.docid for h in hits} == {"p1", "s1", "b1"}
    for h in hits:
        assert loaded.doc(h.docid) == expected_doc(by_id[h.docid])


def write_lines(path: Path, lines: list[str]) -> None:
    text = "".join(line + "\n" for line in lines)
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("filename", ["corpus.jsonl", "corpus.jsonl.gz"])
def test_from_jsonl_keeps_each_lines_fields(tmp_path: Path, filename: str) -> None:
    """doc() of a JSONL document is the line's object, whatever its spelling."""
    lines = [json.dumps(d) for d in PYSERINI + BEIR]
    lines.append(json.dumps({"id": "u1", "contents": "ünï 🙂", "x": [1.25, None]}, indent=None))
    lines.append(json.dumps({"zeta": 1, "contents": "key order", "id": "u2", "alpha": 2}))
    lines.append('  {"id": "u3",   "contents": "spaces\\u00e9 \\ud83d\\ude42"}  ')
    write_lines(tmp_path / filename, lines)
    expected = [json.loads(line) for line in lines]
    index = Index.from_jsonl(tmp_path / filename, progress=False)
    index.save(tmp_path / "idx")
    for loaded in (index, Index.load(tmp_path / "idx"), Index.load(tmp_path / "idx", mmap=False)):
        assert len(loaded) == len(expected)
        assert_round_trip(loaded, expected)
    assert index.contents("u3") == "spacesé 🙂"


def test_without_a_store_doc_says_how_to_enable_it(tmp_path: Path) -> None:
    """store=False: doc() and contents() raise QueryError naming store=True; no store bytes."""
    stored = Index.build(PAIRS, progress=False)
    bare = Index.build(PAIRS, store=False, progress=False)
    assert stored.stats()["store_bytes"] > 0
    assert bare.stats()["store_bytes"] == 0
    bare.save(tmp_path / "bare")
    (tmp_path / "c.jsonl").write_text(json.dumps(PYSERINI[0]) + "\n")
    from_jsonl = Index.from_jsonl(tmp_path / "c.jsonl", store=False, progress=False)
    assert from_jsonl.stats()["store_bytes"] == 0
    reloaded = Index.load(tmp_path / "bare")
    reloaded.add([("late", "added after load")])
    reloaded.commit()
    assert reloaded.stats()["store_bytes"] == 0
    for index, some in [(bare, "p1"), (reloaded, "late"), (from_jsonl, "s1")]:
        for read in (index.doc, index.contents):
            with pytest.raises(rserini.QueryError, match="store=True"):
                read(some)
    # Search works the same with or without the store.
    assert [(h.docid, h.score) for h in bare.search("packets")] == [
        (h.docid, h.score) for h in stored.search("packets")
    ]


def test_unknown_docid_raises_unknown_docid_error() -> None:
    """doc() and contents() of a docid not in the index raise UnknownDocidError."""
    index = Index.build(PAIRS, progress=False)
    for read in (index.doc, index.contents):
        with pytest.raises(rserini.UnknownDocidError):
            read("nope")


def test_store_bytes_follow_the_live_documents(tmp_path: Path) -> None:
    """store_bytes counts the store of every segment and shrinks when merges drop documents."""
    docs = [(f"d{i}", f"text number {i} " * 20) for i in range(200)]
    index = Index.build(docs, progress=False)
    index.save(tmp_path / "idx")
    full = index.stats()["store_bytes"]
    index.delete([f"d{i}" for i in range(150)])
    index.commit()
    index.optimize()
    assert 0 < index.stats()["store_bytes"] < full
    assert Index.load(tmp_path / "idx").stats()["store_bytes"] == index.stats()["store_bytes"]


@pytest.mark.parametrize("mmap", [True, False])
def test_five_megabyte_document_round_trips(tmp_path: Path, mmap: bool) -> None:
    """A 5 MB document (as a pair and as a dict) comes back byte for byte."""
    rng = random.Random(3)
    words = [
        "".join(rng.choices("abcdefghijklmnopqrstuvwxyzéü文", k=rng.randrange(2, 9)))
        for _ in range(5000)
    ]
    big = " ".join(rng.choices(words, k=900_000))[: 5 * 1024 * 1024]
    assert len(big.encode()) >= 5 * 1024 * 1024
    docs = [("big", big), {"id": "bigdict", "contents": big, "note": "x"}, ("small", "tiny")]
    index = Index.build(docs, progress=False)
    index.save(tmp_path / "idx")
    loaded = Index.load(tmp_path / "idx", mmap=mmap)
    loaded.verify()
    assert loaded.contents("big") == big
    assert loaded.doc("big") == {"id": "big", "contents": big}
    assert loaded.doc("bigdict") == docs[1]
    assert loaded.contents("small") == "tiny"
    assert {h.docid for h in loaded.search(words[0], k=5)} >= {"big", "bigdict"}


def test_many_documents_across_many_store_blocks(tmp_path: Path) -> None:
    """Thousands of documents of mixed sizes and shapes read back in any order."""
    rng = random.Random(8)
    docs: list = []
    for i in range(3000):
        text = " ".join(rng.choices(["w1", "w2", "wörd", "🙂", "x" * 50], k=rng.randrange(0, 80)))
        if i % 3 == 0:
            docs.append({"id": f"d{i}", "contents": text, "i": i, "flags": [i % 2 == 0]})
        else:
            docs.append((f"d{i}", text))
    index = Index.build(docs, progress=False)
    index.save(tmp_path / "idx")
    loaded = Index.load(tmp_path / "idx")
    assert loaded.stats()["store_bytes"] > 16 * 1024
    order = list(range(len(docs)))
    rng.shuffle(order)
    for i in order:
        assert loaded.doc(docid(docs[i])) == expected_doc(docs[i])
        assert loaded.contents(docid(docs[i])) == expected_contents(docs[i])


RESERVED = {"id", "_id", "docid", "contents", "title", "text"}
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=10,
)
extras = st.dictionaries(st.text(max_size=8).filter(lambda k: k not in RESERVED), json_values)


@settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    fields=st.lists(extras, min_size=1, max_size=5),
    texts=st.lists(st.text(max_size=30), min_size=5, max_size=5),
)
def test_arbitrary_json_fields_round_trip(fields: list[dict], texts: list[str]) -> None:
    """Any JSON-representable extra fields come back equal, in memory and from disk."""
    docs = [{**extra, "id": f"d{i}", "contents": texts[i]} for i, extra in enumerate(fields)]
    index = Index.build(docs, progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        index.save(Path(tmp) / "idx")
        for loaded in (index, Index.load(Path(tmp) / "idx")):
            assert_round_trip(loaded, docs)


@pytest.mark.parametrize(
    "value",
    [2**63, 2**64, -(2**63) - 1, 10**30],
    ids=["2**63", "2**64", "-2**63-1", "10**30"],
)
def test_integers_beyond_int64_round_trip_exactly(value: int) -> None:
    """An extra field holding a big integer comes back as that integer, not a float."""
    doc = {"id": "d", "contents": "text", "big": value, "nested": [{"big": value}]}
    got = Index.build([doc], progress=False).doc("d")
    assert got == doc
    assert type(got["big"]) is int


def test_float_fields_round_trip_exactly() -> None:
    """Floats in extra fields come back bit for bit."""
    rng = random.Random(12)
    values = [0.1, 1 / 3, 5e-324, 1.7976931348623157e308]
    values += [rng.uniform(-1e6, 1e6) for _ in range(300)]
    values += [math.ldexp(rng.random(), rng.randrange(-1000, 1000)) for _ in range(300)]
    docs = [{"id": f"d{i}", "contents": "x", "v": v} for i, v in enumerate(values)]
    index = Index.build(docs, progress=False)
    got = [index.doc(f"d{i}")["v"] for i in range(len(values))]
    wrong = [(v, g) for v, g in zip(values, got, strict=True) if v != g]
    assert not wrong, f"{len(wrong)} of {len(values)} floats changed, e.g. {wrong[:3]}"


def test_nan_in_an_extra_field_does_not_break_indexing() -> None:
    """A dict with a NaN extra field (as pandas records have) indexes and reads back."""
    doc = {"id": "d", "contents": "some text", "score": float("nan")}
    index = Index.build([doc], progress=False)
    assert index.contents("d") == "some text"
    got = index.doc("d")
    assert got["contents"] == "some text" and math.isnan(got["score"])
