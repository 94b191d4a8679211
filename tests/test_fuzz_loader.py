"""Loader fuzzing: damaged index folders fail with IndexCorruptedError, never crash or mislead."""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import rserini
from rserini import Index
from support import sealed_meta

SEED = 20240917
CASES = 10_400
CHUNKS = 8
QUERIES = ["apple banana", "common", "getuserbyid user", "w3 w7 w7", "zzz"]
ALLOWED = (rserini.IndexCorruptedError, rserini.IndexVersionError, FileNotFoundError)
# Segment number, payload length, CRC32 of the payload, format version, magic.
FOOTER = struct.Struct("<QQII4s")
VERSION = rserini.INDEX_FORMAT_VERSION

BASES = ["single", "segments", "nostore", "blocks", "code", "empty"]


def make_bases(root: Path) -> None:
    """The pristine folders every case starts from."""
    fruits = ["apple", "banana", "cherry", "date", "elder"]
    docs = [(f"d{i}", " ".join([*fruits[i % 5 : i % 5 + 2], "common"])) for i in range(20)]
    single = [*docs, ("empty", ""), ("ünï 文档", "apple apple")]
    Index.build(single, analyzer="plain", progress=False).save(root / "single")
    Index.build(docs, analyzer="plain", progress=False).save(root / "segments")
    index = Index.load(root / "segments")
    index.delete(["d1", "d2"])
    index.add([(f"n{i}", f"common banana n{i}") for i in range(6)])
    index.commit()
    index.delete(["n0"])
    index.add([("m0", "apple cherry"), ("m1", "common")])
    index.commit()
    stats = index.stats()
    assert stats["num_segments"] >= 3 and stats["num_deleted"] > 0, stats
    Index.build(docs, analyzer="plain", store=False, progress=False).save(root / "nostore")
    words = [f"w{i}" for i in range(10)]
    rng = random.Random(5)
    blocks = [
        (f"b{i:03d}", " ".join(rng.choices(words, k=rng.randrange(1, 9)))) for i in range(300)
    ]
    Index.build(blocks, analyzer="whitespace", progress=False).save(root / "blocks")
    code = [("x.py", "def getUserById(user_id): return users[user_id]"), ("y.py", "HTTPServer")]
    Index.build(code, analyzer="code", progress=False).save(root / "code")
    Index.build([], analyzer="plain", progress=False).save(root / "empty")


def put(path: Path, data: bytes) -> None:
    """Replaces a file by a new one (rewriting in place makes ext4 flush on close)."""
    path.unlink(missing_ok=True)
    path.write_bytes(data)


def put_text(path: Path, text: str) -> None:
    put(path, text.encode())


def read_folder(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def restore(folder: Path, files: dict[str, bytes]) -> None:
    for name in os.listdir(folder):
        if name not in files:
            os.remove(folder / name)
    for name, data in files.items():
        path = folder / name
        if not path.exists() or path.read_bytes() != data:
            put(path, data)


def entries(meta: dict) -> list[dict]:
    """Every file entry of meta.json (data files and deletion files)."""
    out = []
    for segment in meta["segments"]:
        out.extend(segment["files"])
        if segment["deletions"]:
            out.append(segment["deletions"])
    return out


def segment_of(name: str) -> int:
    """The number of the segment a file belongs to: 1 for seg000001.postings."""
    return int(name.split(".")[0].removeprefix("seg"))


def payload_crc(data: bytes) -> int:
    return zlib.crc32(data[: len(data) - FOOTER.size])


def leaves(value: object, path: tuple = ()) -> list[tuple]:
    """Paths to every value inside a JSON document (containers included)."""
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(leaves(v, (*path, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(leaves(v, (*path, i)))
    return out


def get_at(doc: object, path: tuple) -> object:
    for key in path:
        doc = doc[key]
    return doc


def set_at(doc: object, path: tuple, value: object) -> object:
    if not path:
        return value
    get_at(doc, path[:-1])[path[-1]] = value
    return doc


def new_value(rng: random.Random, old: object, names: list[str]) -> object:
    """A replacement for a JSON value: near misses, wrong types, other names."""
    common = [None, True, [], {}, "", 0, -1]
    if isinstance(old, bool):
        return rng.choice([not old, 0, 1, "true", *common])
    if isinstance(old, int | float):
        choices = [old + 1, old - 1, old * 2, 2**32, 2**32 + old, 2**63, 2**64, -(2**63), 1.5]
        return rng.choice([*choices, str(old), *common])
    if isinstance(old, str):
        enum_values = [
            "standard",
            "word",
            "whitespace",
            "none",
            "porter",
            "snowball-english",
            "lucene-english",
            "rserini-index",
        ]
        choices = [old + "x", old[:-1], old.upper(), "seg999999", "../meta.json", "write.lock"]
        return rng.choice([*choices, *enum_values, *names, *common])
    if isinstance(old, list):
        variants: list[object] = [[], old[:-1], old[1:], old + old[-1:], old[::-1], [*old, 7]]
        return rng.choice([*variants, None, {}])
    if isinstance(old, dict):
        keys = list(old)
        variants = [{k: v for k, v in old.items() if k != key} for key in keys]
        variants += [{**old, "unexpected": 1}, None, []]
        return rng.choice(variants)
    return rng.choice([0, "", {}, {"name": names[0] if names else "x", "bytes": 1, "crc32": 1}])


def edit_meta(rng: random.Random, meta: dict, text: str) -> tuple[str, str]:
    """A damaged or altered meta.json and a description."""
    names = [e["name"] for e in entries(meta)] + [s["name"] for s in meta["segments"]]
    choice = rng.randrange(10)
    if choice == 0:
        cut = rng.randrange(len(text))
        how = rng.choice(["truncate", "insert", "delete", "replace"])
        if how == "truncate":
            return text[:cut], f"meta.json truncated to {cut} chars"
        if how == "insert":
            ch = rng.choice(list('{}[],:"0a\\ \x00'))
            return text[:cut] + ch + text[cut:], f"meta.json: {ch!r} inserted at {cut}"
        if how == "delete":
            return text[:cut] + text[cut + 1 :], f"meta.json: char {cut} deleted"
        whole = rng.choice(["", "{}", "[]", "null", '{"format": "rserini-index"}'])
        return whole, f"meta.json replaced by {whole!r}"
    if choice <= 2 and meta["segments"]:
        return structural(rng, meta)
    edited = copy.deepcopy(meta)
    path = rng.choice(leaves(edited))
    value = new_value(rng, get_at(edited, path), names)
    edited = set_at(edited, path, value)
    return sealed_meta(edited), f"meta.json: {'/'.join(map(str, path))} = {value!r}"


def structural(rng: random.Random, meta: dict) -> tuple[str, str]:
    """Edits of meta.json that keep its counts consistent."""
    edited = copy.deepcopy(meta)
    segments = edited["segments"]
    s = rng.randrange(len(segments))
    live = [seg["num_docs"] - seg["num_deleted"] for seg in segments]
    how = rng.randrange(7)
    if how == 0:
        segments.reverse()
        what = "segments reversed"
    elif how == 1:
        segments.insert(s, copy.deepcopy(segments[s]))
        edited["num_docs"] += live[s]
        what = f"segment {s} listed twice, num_docs adjusted"
    elif how == 2:
        del segments[s]
        edited["num_docs"] -= live[s]
        what = f"segment {s} dropped, num_docs adjusted"
    elif how == 3:
        edited["num_docs"] += segments[s]["num_deleted"]
        segments[s]["deletions"] = None
        segments[s]["num_deleted"] = 0
        what = f"segment {s} deletions dropped, counts adjusted"
    elif how == 4:
        t = rng.randrange(len(segments))
        segments[s]["deletions"], segments[t]["deletions"] = (
            segments[t]["deletions"],
            segments[s]["deletions"],
        )
        segments[s]["num_deleted"], segments[t]["num_deleted"] = (
            segments[t]["num_deleted"],
            segments[s]["num_deleted"],
        )
        what = f"deletions of segments {s} and {t} swapped"
    elif how == 5:
        analyzer = rng.choice(
            [
                {"tokenizer": "standard", "code_subtokens": True},
                {"tokenizer": "whitespace", "code_subtokens": True},
                {"tokenizer": "word", "code_subtokens": True},
                {"stopwords": {"custom": ["apple", "W3"]}},
                {"stemmer": "snowball-english", "lowercase": False},
                {"tokenizer": "standard", "stopwords": "lucene-english", "stemmer": "porter"},
            ]
        )
        edited["analyzer"].update(analyzer)
        what = f"analyzer updated with {analyzer}"
    else:
        files = segments[s]["files"]
        gone = files.pop(rng.randrange(len(files)))
        what = f"entry {gone['name']} removed from segment {s}"
    return sealed_meta(edited), f"meta.json: {what}"


def mutate(
    folder: Path, rng: random.Random, pristine: dict[str, dict[str, bytes]]
) -> tuple[str, bool]:
    """Damages the folder; returns a description and whether every checksum still holds."""
    meta_path = folder / "meta.json"
    text = meta_path.read_text()
    meta = json.loads(text)
    data_entries = entries(meta)
    op = rng.choices(
        ["binary", "meta", "transplant", "segment-swap", "resealed", "lock", "junk"],
        weights=[50, 22, 7, 4, 13, 2, 2],
    )[0]
    if not data_entries and op != "junk":
        op = rng.choice(["meta", "lock"])
    if op == "meta":
        new_text, what = edit_meta(rng, meta, text)
        put_text(meta_path, new_text)
        return what, True
    if op == "lock":
        if rng.random() < 0.5:
            os.remove(folder / "write.lock")
            return "write.lock deleted", True
        put(folder / "write.lock", rng.randbytes(rng.randrange(1, 50)))
        return "write.lock overwritten", True
    if op == "junk":
        name = rng.choice(["seg999999.postings", ".meta.json.tmp", "seg000001.9.del", "x.bin"])
        if (folder / name).exists():
            name = "junk.bin"
        put(folder / name, rng.randbytes(rng.randrange(0, 100)))
        return f"unlisted file {name} added", True
    if op == "transplant":
        entry = rng.choice(data_entries)
        base = rng.choice([b for b in BASES if b != "empty"])
        sources = sorted(n for n in pristine[base] if n not in ("meta.json", "write.lock"))
        same_kind = [n for n in sources if n.split(".")[-1] == entry["name"].split(".")[-1]]
        source = rng.choice(same_kind if same_kind and rng.random() < 0.6 else sources)
        data = pristine[base][source]
        put(folder / entry["name"], data)
        entry["bytes"], entry["crc32"] = len(data), payload_crc(data)
        put_text(meta_path, sealed_meta(meta))
        return f"{base}/{source} copied over {entry['name']}, meta.json updated", True
    if op == "resealed":
        # Damage inside the payload, with a footer and meta.json entry recomputed to match.
        entry = rng.choice(data_entries)
        path = folder / entry["name"]
        payload = bytearray(path.read_bytes()[: -FOOTER.size])
        how = rng.choice(["flip", "overwrite", "random", "truncate", "extend"])
        if how == "flip" and payload:
            for _ in range(rng.randrange(1, 4)):
                bit = rng.randrange(len(payload) * 8)
                payload[bit // 8] ^= 1 << (bit % 8)
        elif how == "overwrite" and payload:
            at = rng.randrange(len(payload))
            chunk = rng.choice([b"\x00" * 4, b"\xff" * 4, rng.randbytes(rng.randrange(1, 9))])
            payload[at : at + len(chunk)] = chunk
        elif how == "random":
            payload = bytearray(rng.randbytes(len(payload)))
        elif how == "truncate" and payload:
            del payload[rng.randrange(len(payload)) :]
        else:
            payload += rng.randbytes(rng.randrange(1, 40))
        crc = zlib.crc32(payload)
        footer = FOOTER.pack(segment_of(path.name), len(payload), crc, VERSION, b"RSRN")
        put(path, bytes(payload) + footer)
        entry["bytes"], entry["crc32"] = len(payload) + FOOTER.size, crc
        put_text(meta_path, sealed_meta(meta))
        return f"{entry['name']} payload {how} and resealed: {bytes(payload).hex()[:80]}...", True
    if op == "segment-swap":
        segs = meta["segments"]
        a, b = rng.sample(range(len(segs)), 2) if len(segs) > 1 else (0, 0)
        pairs = [
            (x, y)
            for x in segs[a]["files"]
            for y in segs[b]["files"]
            if x["name"].split(".")[-1] == y["name"].split(".")[-1]
        ]
        x, y = rng.choice(pairs)
        dx, dy = (folder / x["name"]).read_bytes(), (folder / y["name"]).read_bytes()
        put(folder / x["name"], dy)
        put(folder / y["name"], dx)
        for key in ("bytes", "crc32"):
            x[key], y[key] = y[key], x[key]
        put_text(meta_path, sealed_meta(meta))
        return f"{x['name']} and {y['name']} swapped, meta.json updated", True
    # Binary damage of one listed file.
    name = rng.choice([e["name"] for e in data_entries])
    path = folder / name
    data = bytearray(path.read_bytes())
    how = rng.choice(
        ["flip", "flip", "overwrite", "truncate", "extend", "random", "delete", "swap"]
    )
    if how == "delete":
        os.remove(path)
        return f"{name} deleted", False
    if how == "swap":
        other = rng.choice([e["name"] for e in data_entries])
        other_data = (folder / other).read_bytes()
        put(path, other_data)
        put(folder / other, bytes(data))
        return f"{name} and {other} swapped", bytes(data) == other_data
    original = bytes(data)
    if how == "flip":
        flips = [rng.randrange(len(data) * 8) for _ in range(rng.randrange(1, 9))]
        for bit in flips:
            data[bit // 8] ^= 1 << (bit % 8)
        what = f"bits {flips} of {name} flipped"
    elif how == "overwrite":
        at = rng.randrange(len(data))
        chunk = rng.randbytes(rng.randrange(1, 17))
        data[at : at + len(chunk)] = chunk
        what = f"{name} overwritten at {at} with {chunk.hex()}"
    elif how == "truncate":
        size = rng.randrange(len(data))
        del data[size:]
        what = f"{name} truncated to {size} bytes"
    elif how == "extend":
        extra = rng.randbytes(rng.randrange(1, 65))
        data += extra
        what = f"{name} extended by {extra.hex()}"
    else:
        data = bytearray(rng.randbytes(len(data)))
        what = f"{name} replaced by {len(data)} random bytes"
    put(path, bytes(data))
    return what, bytes(data) == original


def exercise(index: Index) -> list[tuple]:
    """Everything a reader does with a loaded index; raises what the index raises."""
    out: list[tuple] = [(len(index), index.stats()["num_docs"])]
    for query in QUERIES:
        for kwargs in ({}, {"model": "tfidf"}, {"variant": "bm25+", "length": "exact"}):
            hits = index.search(query, k=20, **kwargs)
            out.append(tuple((h.docid, h.score) for h in hits))
            phantoms = [h.docid for h in hits if h.docid not in index]
            assert not phantoms, (
                f"search({query!r}) returned documents not in the index: {phantoms}"
            )
            assert all(math.isfinite(h.score) for h in hits), f"search({query!r}, {kwargs}): {hits}"
            for h in hits[:3]:
                index.explain(query, h.docid, **kwargs)
                with contextlib.suppress(rserini.IndexCorruptedError, rserini.QueryError):
                    index.doc(h.docid)
    ids, scores = index.batch_search(QUERIES, k=10)
    out.append((tuple(map(tuple, index.docids(ids))), scores.tobytes()))
    out.append(("apple" in index, "d1" in index))
    return out


def run_case(
    case: int, folder_of: dict[str, Path], pristine: dict[str, dict[str, bytes]]
) -> tuple[str | None, str, bool]:
    """Applies case `case`'s mutation and loads it both ways: (problem, mutation, loaded)."""
    rng = random.Random(f"{SEED}:{case}")
    base = rng.choice(BASES)
    folder = folder_of[base]
    try:
        what, checksums_hold = mutate(folder, rng, pristine)
        what = f"{base}: {what}"
        print(f"mutation {what}", flush=True)
        outcomes = []
        for mmap in (True, False):
            try:
                index = Index.load(folder, mmap=mmap)
            except ALLOWED as e:
                path = getattr(e, "path", None) or getattr(e, "filename", None)
                if not path or not str(path).startswith(str(folder)):
                    return f"the error names no file: {e!r}", what, False
                outcomes.append(type(e).__name__)
                continue
            except BaseException as e:
                return f"load(mmap={mmap}) raised {type(e).__name__}: {e}", what, False
            if not checksums_hold:
                return f"load(mmap={mmap}) accepted a damaged file", what, True
            try:
                outcomes.append(exercise(index))
                index.verify()
            except BaseException as e:
                return f"loaded (mmap={mmap}), then {type(e).__name__}: {e}", what, True
        if outcomes[0] != outcomes[1]:
            return "mmap=True and mmap=False give different results", what, False
        return None, what, not isinstance(outcomes[0], str)
    finally:
        restore(folder, pristine[base])


def run_chunk(bases: Path, work: Path, start: int, stop: int) -> None:
    """Child process: runs cases [start, stop), printing each before running it."""
    pristine = {b: read_folder(bases / b) for b in BASES}
    folder_of = {}
    for b in BASES:
        folder_of[b] = work / b
        shutil.copytree(bases / b, folder_of[b], dirs_exist_ok=True)
    failures = []
    loaded = 0
    for case in range(start, stop):
        print(f"case {case}", flush=True)
        problem, what, ok = run_case(case, folder_of, pristine)
        loaded += ok
        if problem:
            failures.append([problem, f"case {case} ({what})"])
    print("RESULT " + json.dumps({"failures": failures, "loaded": loaded}), flush=True)


def report(failures: list[list[str]]) -> str:
    """Failures grouped by problem, with up to three reproducing cases each."""
    groups: dict[str, list[str]] = {}
    for problem, where in failures:
        key = re.sub(r"\[[^\]]*\]|'[^']*'|\"[^\"]*\"|/\S+|\d+", "_", problem)[:120]
        groups.setdefault(key, []).append(f"{problem}\n      {where}")
    lines = [f"{len(failures)} failures in {len(groups)} groups (seed {SEED}):"]
    for key, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"- {len(items)} x {key}")
        lines.extend(f"    {item}" for item in items[:3])
    return "\n".join(lines)


CHILD = (
    "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]);"
    "import test_fuzz_loader as f;"
    "f.run_chunk(Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))"
)


def test_loader_survives_ten_thousand_mutated_folders(tmp_path: Path) -> None:
    """Every mutated folder fails with an index error or, if checksums hold, loads and works."""
    bases = tmp_path / "bases"
    make_bases(bases)
    failures: list[list[str]] = []
    loaded = 0
    bounds = [CASES * i // CHUNKS for i in range(CHUNKS + 1)]
    for start, stop in itertools.pairwise(bounds):
        while start < stop:
            work = tmp_path / f"work{start}"
            here = str(Path(__file__).parent)
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, here, str(bases), str(work), str(start), str(stop)],
                capture_output=True,
                text=True,
                timeout=600,
            )
            lines = proc.stdout.splitlines()
            result = [line for line in lines if line.startswith("RESULT ")]
            if result and proc.returncode == 0:
                summary = json.loads(result[0][7:])
                failures.extend(summary["failures"])
                loaded += summary["loaded"]
                break
            started = [int(line.split()[1]) for line in lines if line.startswith("case ")]
            crashed = started[-1] if started else start
            last = lines[-1] if lines and lines[-1].startswith("mutation ") else ""
            failures.append(
                [
                    f"the process died (exit {proc.returncode}): {proc.stderr[-2000:]}",
                    f"case {crashed} ({last[9:]})",
                ]
            )
            start = crashed + 1
    assert not failures, report(failures)
    # Both outcomes were exercised: most cases fail to load, some load and search.
    assert 500 < loaded < CASES // 2, loaded


def test_every_file_has_the_documented_footer_and_meta_checksums(tmp_path: Path) -> None:
    """Each listed file ends with (segment, length, CRC32, version, RSRN) matching meta.json."""
    make_bases(tmp_path)
    for base in BASES:
        folder = tmp_path / base
        meta = json.loads((folder / "meta.json").read_text())
        assert meta["format"] == "rserini-index"
        assert meta["format_version"] == rserini.INDEX_FORMAT_VERSION
        for entry in entries(meta):
            data = (folder / entry["name"]).read_bytes()
            segment, length, crc, version, magic = FOOTER.unpack(data[-FOOTER.size :])
            assert magic == b"RSRN" and version == rserini.INDEX_FORMAT_VERSION
            assert segment == segment_of(entry["name"])
            assert length == len(data) - FOOTER.size == entry["bytes"] - FOOTER.size
            assert crc == entry["crc32"] == payload_crc(data)
        kinds = {e["name"].split(".", 1)[1] for e in entries(meta)}
        if base == "segments":
            assert any(k.endswith(".del") for k in kinds)
        elif base != "empty":
            expected = {"docids", "lengths", "norms", "docrank", "terms", "terminfo"}
            expected |= {"blocks", "postings"} | ({"store"} if base != "nostore" else set())
            assert kinds == expected


def damaged(tmp_path: Path, base: str) -> Path:
    make_bases(tmp_path / "bases")
    shutil.copytree(tmp_path / "bases" / base, tmp_path / "idx")
    return tmp_path / "idx"


@pytest.mark.parametrize("mmap", [True, False])
def test_bit_flip_in_postings_names_the_file(tmp_path: Path, mmap: bool) -> None:
    """A flipped bit is reported as IndexCorruptedError with the file's path."""
    folder = damaged(tmp_path, "single")
    path = folder / "seg000001.postings"
    data = bytearray(path.read_bytes())
    data[0] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(rserini.IndexCorruptedError) as info:
        Index.load(folder, mmap=mmap)
    assert Path(info.value.path) == path


def test_future_format_version_in_a_footer_is_a_version_error(tmp_path: Path) -> None:
    """A file footer of another format version raises IndexVersionError."""
    folder = damaged(tmp_path, "single")
    path = folder / "seg000001.lengths"
    data = path.read_bytes()
    segment, length, crc, _, magic = FOOTER.unpack(data[-FOOTER.size :])
    path.write_bytes(data[: -FOOTER.size] + FOOTER.pack(segment, length, crc, 99, magic))
    with pytest.raises(rserini.IndexVersionError):
        Index.load(folder)


@pytest.mark.parametrize(
    "analyzer",
    [
        {"tokenizer": "standard", "code_subtokens": True},
        {"tokenizer": "whitespace", "code_subtokens": True},
    ],
)
def test_meta_with_an_impossible_analyzer_is_corruption(tmp_path: Path, analyzer: dict) -> None:
    """An analyzer in meta.json that cannot be built is damage to meta.json, not a user error."""
    folder = damaged(tmp_path, "code")
    meta = json.loads((folder / "meta.json").read_text())
    meta["analyzer"].update(analyzer)
    (folder / "meta.json").write_text(sealed_meta(meta))
    with pytest.raises(rserini.IndexCorruptedError) as info:
        Index.load(folder)
    assert Path(info.value.path) == folder / "meta.json"


def test_deletions_entry_naming_the_folder_itself_is_corruption(tmp_path: Path) -> None:
    """meta.json naming a deletions file "" (the folder) is damage: IndexCorruptedError."""
    folder = damaged(tmp_path, "segments")
    meta = json.loads((folder / "meta.json").read_text())
    segment = next(s for s in meta["segments"] if s["deletions"])
    segment["deletions"]["name"] = ""
    (folder / "meta.json").write_text(sealed_meta(meta))
    for mmap in (True, False):
        with pytest.raises(rserini.IndexCorruptedError):
            Index.load(folder, mmap=mmap)


def transplant(tmp_path: Path, base: str, source: str, target: str) -> Path:
    """A copy of `base` whose file `target` is `source` (base/name), meta.json updated to match."""
    folder = damaged(tmp_path, base)
    data = (tmp_path / "bases" / source).read_bytes()
    (folder / target).write_bytes(data)
    meta = json.loads((folder / "meta.json").read_text())
    entry = next(e for e in entries(meta) if e["name"] == target)
    entry["bytes"], entry["crc32"] = len(data), payload_crc(data)
    (folder / "meta.json").write_text(sealed_meta(meta))
    return folder


def test_postings_from_another_index_never_yield_phantom_hits(tmp_path: Path) -> None:
    """Checksum-valid but foreign postings: hits are live documents, whatever ran before."""
    folder = transplant(tmp_path, "code", "nostore/seg000001.postings", "seg000001.postings")
    index = Index.load(folder)
    queries = ["def", "user", "return", "http"]
    first = {q: [(h.docid, h.score) for h in index.search(q)] for q in queries}
    # A search of a larger index on the same thread grows its scratch space.
    Index.build([(f"b{i}", "x") for i in range(100)], progress=False).search("x")
    for q in queries:
        hits = index.search(q)
        assert all(h.docid in index for h in hits), (q, hits)
        assert [(h.docid, h.score) for h in hits] == first[q]


@pytest.mark.parametrize("mmap", [True, False])
def test_docids_file_as_postings_never_gives_nan_scores(tmp_path: Path, mmap: bool) -> None:
    """A docid table loaded as postings (checksums valid) must not produce NaN TF-IDF scores."""
    folder = transplant(tmp_path, "code", "single/seg000001.docids", "seg000001.postings")
    index = Index.load(folder, mmap=mmap)
    for query in QUERIES:
        for kwargs in ({}, {"model": "tfidf"}, {"variant": "bm25+", "length": "exact"}):
            hits = index.search(query, **kwargs)
            assert all(math.isfinite(h.score) for h in hits), (query, kwargs, hits)


def reseal(folder: Path, name: str, payload: bytes) -> None:
    """Writes `payload` as file `name` with a valid footer and a matching meta.json entry."""
    crc = zlib.crc32(payload)
    footer = FOOTER.pack(segment_of(name), len(payload), crc, VERSION, b"RSRN")
    (folder / name).write_bytes(payload + footer)
    meta = json.loads((folder / "meta.json").read_text())
    entry = next(e for e in entries(meta) if e["name"] == name)
    entry["bytes"], entry["crc32"] = len(payload) + FOOTER.size, crc
    (folder / "meta.json").write_text(sealed_meta(meta))


@pytest.mark.parametrize(
    "payload",
    [
        # 8-bit offsets, then the text.
        bytes([8, 0, 3, 2]) + b"ab",  # offsets out of order; the last one fits
        bytes([8, 0, 2, 4]) + b"\xff\xfe\xfd\xfc",  # not UTF-8
    ],
    ids=["unordered-offsets", "not-utf8"],
)
def test_inconsistent_docid_table_is_corruption(tmp_path: Path, payload: bytes) -> None:
    """A checksum-valid docids file whose offsets or bytes make no docids is IndexCorruptedError."""
    folder = damaged(tmp_path, "code")  # two documents
    reseal(folder, "seg000001.docids", payload)
    for mmap in (True, False):
        try:
            index = Index.load(folder, mmap=mmap)
        except rserini.IndexCorruptedError as e:
            assert Path(e.path).name == "seg000001.docids"
            continue
        hits = index.search("getuserbyid user httpserver")
        pytest.fail(f"loaded (mmap={mmap}); search gives hits without docids: {hits}")


@pytest.mark.parametrize(
    "base, name", [("single", "seg000001.terms"), ("segments", "seg000002.terms")]
)
def test_damaged_term_dictionary_with_valid_checksums_never_panics(
    tmp_path: Path, base: str, name: str
) -> None:
    """Byte 16 of the term dictionary inverted, file resealed: an error or answers, no panic."""
    folder = damaged(tmp_path, base)
    payload = bytearray((folder / name).read_bytes()[: -FOOTER.size])
    payload[16] ^= 0xFF
    reseal(folder, name, bytes(payload))
    for mmap in (True, False):
        try:
            index = Index.load(folder, mmap=mmap)
        except rserini.IndexCorruptedError as e:
            assert Path(e.path).name == name
            continue
        for query in QUERIES:
            index.search(query)
        index.batch_search(QUERIES)


def test_ranks_disagreeing_with_docids_keep_the_tie_order_total(tmp_path: Path) -> None:
    """A checksum-valid docrank file reversing its segment's docid order: ties still sort."""
    folder = tmp_path / "idx"
    index = Index.build([(f"a{i:02d}", "same words") for i in range(60)], progress=False)
    index.save(folder)
    index.add([(f"b{i:02d}", "same words") for i in range(60)])
    index.commit()
    n = 60
    width = (n - 1).bit_length()
    packed = sum((n - 1 - i) << (i * width) for i in range(n))
    reseal(
        folder,
        "seg000001.docrank",
        bytes([width]) + packed.to_bytes((n * width + 7) // 8, "little"),
    )
    for mmap in (True, False):
        loaded = Index.load(folder, mmap=mmap)
        hits = loaded.search("same words", k=120)
        assert len(hits) == 120 and len({h.score for h in hits}) == 1
        assert [h.docid for h in hits] == sorted(h.docid for h in hits)
