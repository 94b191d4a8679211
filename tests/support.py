"""Helpers shared by the tests: the test collections under ../shared/data and a tiny corpus."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import subprocess
import sys
import textwrap
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import rserini

REPO = Path(__file__).resolve().parent.parent
# The folder holding the rserini under test (the installed wheel's site-packages, or
# python/ of a source build): a child Python given it as PYTHONPATH imports the same one.
IMPORT_ROOT = str(Path(rserini.__file__).resolve().parent.parent)
DATA = Path(os.environ.get("RSERINI_DATA", REPO.parent / "shared" / "data")).resolve()

TINY = [
    ("d1", "Routers forward packets between networks and carry data."),
    ("d2", "Photosynthesis converts sunlight into chemical energy in plants."),
    ("d3", "The asteroid belt lies between Mars and Jupiter."),
    ("d4", "Switches direct frames within a local area network domain."),
]


def require_pyserini() -> tuple[Any, Path]:
    """The Java runtime and Anserini jar of the installed Pyserini, or a loud skip (a
    failure under CI, where the parity tests must run)."""
    from rserini.parity import PyseriniUnavailableError, check_available

    try:
        return check_available()
    except PyseriniUnavailableError as e:
        message = f"Pyserini is not available: {e}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def run_with_pyserini(script: str, env: dict[str, str] | None = None) -> str:
    """Runs ``script`` in a child Python that has started Pyserini's JVM (importing the
    rserini under test); returns its stdout. A loud skip without Pyserini."""
    require_pyserini()
    prelude = "from rserini.parity._java import boot\nboot('1g')\n"
    child = subprocess.run(
        [sys.executable, "-c", prelude + script],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {}), "PYTHONPATH": IMPORT_ROOT},
        timeout=600,
        check=False,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    return child.stdout


@contextlib.contextmanager
def http_server(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """The base URL of a local HTTP server (127.0.0.1, a free port) serving ``handler``,
    shut down on exit."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def collection(name: str) -> Path:
    """The folder of a test collection, or a loud skip (a failure under CI) if it is absent."""
    folder = DATA / name
    if not folder.is_dir():
        message = (
            f"test collection {name!r} not found at {folder}: set RSERINI_DATA to the folder "
            "that holds the collections, or put them at ../shared/data (docs/test-data.md)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return folder


@functools.cache
def many_range_corpus(num_docs: int = 100_000) -> list[tuple[str, str]]:
    """A whitespace corpus of ``num_docs`` short documents over a skewed vocabulary: more
    documents than exhaustive scoring takes in one range (32,768), with terms in most
    documents (scored densely) and rare ones (scored sparsely)."""
    docs = []
    state = 12345
    for i in range(num_docs):
        words = []
        for _ in range(3 + i % 9):
            state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
            # Squaring skews the draw towards small ids: w0 in most documents, w300 rare.
            words.append(f"w{((state >> 33) % 548) ** 2 // 1000}")
        docs.append((f"doc{i:06d}", " ".join(words)))
    return docs


def sealed_meta(meta: object) -> str:
    """``meta`` as the text of a meta.json that rserini accepts: indented JSON whose last
    member is ``"checksum": "crc32:<hex>"``, the CRC32 of the UTF-8 bytes before its key
    (docs/index-format.md). Anything but a non-empty object is written unsealed."""
    if not isinstance(meta, dict) or not meta:
        return json.dumps(meta, indent=2)
    body = json.dumps({k: v for k, v in meta.items() if k != "checksum"}, indent=2)
    prefix = body[: -len("\n}")] + ",\n  "
    return prefix + f'"checksum": "crc32:{zlib.crc32(prefix.encode()):08x}"\n}}\n'


# Runs a snippet and prints what it ended with: "ok" or the exception's class name.
_OUTCOME = """
import resource, sys
if sys.argv[1] != "-":
    limit = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
ARGS = sys.argv[2:]
import rserini
try:
    exec(compile(sys.stdin.read(), "<snippet>", "exec"))
except BaseException as e:
    print(type(e).__name__, flush=True)
else:
    print("ok", flush=True)
"""


def outcome(code: str, *args: object, timeout: float = 60, address_space: int | None = None) -> str:
    """Runs ``code`` (with ``ARGS`` the ``args`` as strings, ``rserini`` imported) in a fresh
    interpreter, under an address-space limit if given, and returns "ok", the class name of
    the exception it raised, or "signal N" if it died; a hang past ``timeout`` fails."""
    limit = "-" if address_space is None else str(address_space)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _OUTCOME, limit, *map(str, args)],
            input=textwrap.dedent(code),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"hung for {timeout} s:\n{textwrap.dedent(code)}") from None
    if proc.returncode < 0:
        return f"signal {-proc.returncode}"
    lines = proc.stdout.split()
    assert proc.returncode == 0 and lines, proc.stderr[-2000:]
    return lines[-1]


def cli(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The ``rserini`` command with ``args``, run as a user would (a subprocess)."""
    return subprocess.run(
        [sys.executable, "-m", "rserini", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def rserini_run(tmp_path: Path, corpus: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """``rserini run`` with ``flags`` over a saved index of ``corpus`` (``"tiny"``: TINY
    with one query, ``q1 network``; else a collection's corpus and queries), writing
    ``tmp_path / "run.trec"``; a minute or two at most."""
    index_dir = tmp_path / "index"
    if corpus == "tiny":
        rserini.Index.build(TINY, progress=False).save(index_dir)
        queries = tmp_path / "q.tsv"
        queries.write_text("q1\tnetwork\n", encoding="utf-8")
    else:
        folder = collection(corpus)
        rserini.Index.from_jsonl(folder / "corpus.jsonl", progress=False).save(index_dir)
        queries = folder / "queries.jsonl"
    return subprocess.run(
        [sys.executable, "-m", "rserini", "run", "--index", str(index_dir), "--queries",
         str(queries), "--output", str(tmp_path / "run.trec"), *flags],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip
