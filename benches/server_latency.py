"""``rserini serve http`` from a client's side: kept-alive round trips and idle connections.

    python benches/server_latency.py [CORPUS] [--index DIR] [--queries N] [--idle 300,1000]
        [--source DIR] [--split] [--rpc]

CORPUS is a BEIR folder (default ``../shared/data/scifact``); its corpus is indexed once
into a temporary folder unless ``--index`` names a saved index of it. The server runs in
its own process (``python -m rserini serve http --port 0 -q``, the rserini of
``--source``, by default this tree's ``python/``), and this process is its only client:

- **keep-alive**: one ``http.client`` connection, kept alive, sends pi-search's two
  requests per query: ``POST /search`` ``{"query", "limit": 1000}`` and
  ``POST /read_document`` ``{"docid": <top hit>, "offset": 1, "limit": 200}``; the table
  gives the median and p90 round trip over the queries (after 10 warm-up queries) and the
  mean response size;
- **idle connections**: for each N of ``--idle``, N connections are opened and left silent
  (the server is started with ``--max-connections`` above the largest N), then the
  server's thread count is read from ``/proc/<pid>/task`` and the keep-alive round trips
  are measured again from one more client.

With ``--rpc`` the server is ``rserini serve rpc`` and the client sends pi-serini's
commands on one connection: ``search`` (``k`` = 1000) and ``read_document``.

With ``--split``, the server's side of ``/search`` is timed instead, in a process of its
own running the ``--source`` rserini: the ranking alone (``search_pairs``, k = 1001), the
response built (``HttpApi.search``: ranking, rounding, 50 previews read from the store)
and its JSON text (``js_json``), median milliseconds over the queries.

Timings are wall-clock on a shared machine: compare rows of one run, like with like.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))

import rserini  # noqa: E402
from rserini.formats import beir_files  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def start_server(
    kind: str, index: Path, max_connections: int, source: Path
) -> tuple[subprocess.Popen[bytes], int]:
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "rserini", "serve", kind, "--index", str(index)),
            *("--port", "0", "--max-connections", str(max_connections)),
            *(["-q"] if kind == "http" else []),
        ],
        stdout=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(source)),
    )
    assert proc.stdout is not None
    return proc, json.loads(proc.stdout.readline())["port"]


def round_trips(port: int, queries: list[str], warmup: int = 10) -> dict[str, list[float]]:
    """Milliseconds per request on one kept-alive connection, and the response sizes."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times: dict[str, list[float]] = {"search": [], "read_document": [], "bytes": []}

    def post(path: str, body: dict[str, object]) -> tuple[float, bytes]:
        data = json.dumps(body).encode()
        start = time.perf_counter()
        conn.request("POST", path, body=data, headers={"content-type": "application/json"})
        reply = conn.getresponse().read()
        return (time.perf_counter() - start) * 1000, reply

    for i, query in enumerate(queries):
        ms, reply = post("/search", {"query": query, "limit": 1000})
        hits = json.loads(reply)["hits"]
        if not hits:
            continue
        read_ms, _ = post("/read_document", {"docid": hits[0]["docid"], "offset": 1, "limit": 200})
        if i >= warmup:
            times["search"].append(ms)
            times["read_document"].append(read_ms)
            times["bytes"].append(len(reply))
    conn.close()
    return times


def rpc_round_trips(port: int, queries: list[str], warmup: int = 10) -> dict[str, list[float]]:
    """The same over one JSON-lines RPC connection: ``search`` (k = 1000) and
    ``read_document``, as pi-serini's client asks (without the previews' render call)."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=60)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    stream = conn.makefile("rb")
    times: dict[str, list[float]] = {"search": [], "read_document": [], "bytes": []}

    def call(command: dict[str, object]) -> tuple[float, bytes]:
        start = time.perf_counter()
        conn.sendall(json.dumps(command).encode() + b"\n")
        reply = stream.readline()
        return (time.perf_counter() - start) * 1000, reply

    for i, query in enumerate(queries):
        ms, reply = call({"id": i, "type": "search", "query": query, "k": 1000})
        hits = json.loads(reply)["data"]["results"]
        if not hits:
            continue
        read_ms, _ = call({"id": i, "type": "read_document", "docid": hits[0]["docid"]})
        if i >= warmup:
            times["search"].append(ms)
            times["read_document"].append(read_ms)
            times["bytes"].append(len(reply))
    conn.close()
    return times


def summary(label: str, times: dict[str, list[float]]) -> str:
    cells = [label]
    for name in ("search", "read_document"):
        values = times[name]
        cells.append(f"{statistics.median(values):.2f} / {percentile(values, 0.9):.2f}")
    cells.append(f"{statistics.mean(times['bytes']) / 1024:.0f} KiB")
    return "| " + " | ".join(cells) + " |"


_SPLIT = """
import json, statistics, sys, time
import rserini
from rserini.agent.servers.backend import IndexBackend
from rserini.agent.servers.http_server import HttpApi
from rserini.agent.tools.jsformat import js_json
api = HttpApi(IndexBackend(rserini.Index.load(sys.argv[1])))
parts = {"ranking": [], "response built": [], "JSON text": []}
for i, query in enumerate(json.loads(sys.argv[2])):
    t0 = time.perf_counter()
    api.backend.search(query, 1001)
    t1 = time.perf_counter()
    response = api.search({"query": query, "limit": 1000})
    t2 = time.perf_counter()
    js_json(response).encode()
    t3 = time.perf_counter()
    if i >= 10:
        for name, ms in zip(parts, (t1 - t0, t2 - t1, t3 - t2)):
            parts[name].append(ms * 1000)
print(" | ".join(f"{name} {statistics.median(v):.2f} ms" for name, v in parts.items()))
"""


def split(index: Path, queries: list[str], source: Path) -> None:
    """The server's side of ``/search``, in a process running ``source``'s rserini."""
    subprocess.run(
        [sys.executable, "-c", _SPLIT, str(index), json.dumps(queries)],
        env=dict(os.environ, PYTHONPATH=str(source)),
        check=True,
    )


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("corpus", nargs="?", type=Path, default=REPO.parent / "shared/data/scifact")
    p.add_argument("--index", type=Path, default=None, help="a saved index of CORPUS")
    p.add_argument("--queries", type=int, default=110, help="queries timed (default 110)")
    p.add_argument("--idle", default="300,1000", help="idle connection counts (default 300,1000)")
    p.add_argument(
        "--source",
        type=Path,
        default=Path(rserini.__file__).parent.parent,
        help="the folder holding the rserini package the server runs (default: this "
        "tree's python/; another checkout's for a before/after)",
    )
    p.add_argument("--split", action="store_true", help="time the server's side of /search")
    p.add_argument("--rpc", action="store_true", help="serve rpc (search k=1000) instead")
    args = p.parse_args()
    idle_counts = [int(n) for n in args.idle.split(",") if n]
    queries = [text for _, text in rserini.read_queries(args.corpus / "queries.jsonl")]
    queries = queries[: args.queries]
    with tempfile.TemporaryDirectory() as tmp:
        index = args.index
        if index is None:
            found = beir_files(args.corpus)
            if found is None:
                raise SystemExit(f"no corpus.jsonl[.gz] in {args.corpus}")
            index = Path(tmp) / "index"
            rserini.Index.from_jsonl(found[0], progress=False).save(index)
        if args.split:
            split(index, queries, args.source)
            return 0
        kind = "rpc" if args.rpc else "http"
        proc, port = start_server(kind, index, max(idle_counts, default=0) + 64, args.source)
        timed = rpc_round_trips if args.rpc else round_trips
        try:
            print(f"rserini {rserini.__version__}, {len(queries)} queries ({args.corpus.name})")
            print(f"serve {kind}: round trips in ms (median / p90)")
            print("| connections | search, 1000 hits | read_document | size |")
            print("|---|---|---|---|")
            print(summary("one, kept alive", timed(port, queries)), flush=True)
            print(f"server threads, no idle connection: {threads(proc.pid)}")
            for count in idle_counts:
                idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
                time.sleep(1.0)
                print(f"server threads with {count} idle connections: {threads(proc.pid)}")
                print(summary(f"+ {count} idle", timed(port, queries)), flush=True)
                for conn in idle:
                    conn.close()
                time.sleep(0.5)
        finally:
            proc.terminate()
            proc.wait(20)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
