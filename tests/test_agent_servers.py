"""The http-json and JSON-lines RPC servers: the contract's request/response pairs byte for
byte, every parameter error, malformed input, and servers that survive it."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from rserini.agent.servers.backend import IndexBackend, highlight
from rserini.agent.servers.http_server import HttpApi
from rserini.agent.servers.java_json import java_double, java_json
from rserini.agent.servers.rpc_server import RpcHandler

DOCS = [
    {
        "id": "d1",
        "title": "Graphene Sheets",
        "contents": "Intro line.\nGraphene conducts heat well.\nLast line\n",
    },
    {"id": "d2", "contents": "heat and graphene and more graphene"},
    {"id": "d3", "contents": "nothing here at all"},
    {"id": "lines", "contents": "\n".join(f"row {n} graphene" for n in range(1, 8))},
]
TIMING = '"timing_ms":{"command":0.0,"server_uptime":0.0,"init":0.0}'


def score3(score: float) -> str:
    """Reference: Java's half-up rounding to 3 decimals, printed as Double.toString."""
    three = (Decimal(score) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP) / 1000
    return repr(float(three))


@pytest.fixture(scope="module")
def index():
    return rserini.Index.build(DOCS, progress=False)


@pytest.fixture(scope="module")
def rpc(index):
    return RpcHandler(IndexBackend(index), clock=lambda: 0.0)


@pytest.fixture(scope="module")
def saved_index(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("corpus") / "docs.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    path = tmp_path_factory.mktemp("index") / "idx"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "rserini",
            "index",
            "--input",
            str(corpus),
            "--index",
            str(path),
            "-q",
        ],
        check=True,
        timeout=60,
    )
    return path


def call(rpc, line):
    return rpc.handle_line(line.encode() if isinstance(line, str) else line)


def error(id_, command, message):
    return java_json(
        {"id": id_, "type": "response", "command": command, "success": False, "error": message}
    )


# --- RPC: successful commands, byte for byte ---------------------------------------------


def test_rpc_ping(rpc):
    assert call(rpc, '{"id":1,"type":"ping"}') == (
        '{"id":1,"type":"response","command":"ping","success":true,"data":{"ok":true,'
        + TIMING
        + "}}"
    )
    # A trailing \r is dropped; a blank line is skipped.
    assert call(rpc, '{"id":1,"type":"ping"}\r\n') == call(rpc, '{"id":1,"type":"ping"}')
    assert call(rpc, "   \t") is None
    assert call(rpc, b"") is None


def test_rpc_search(rpc, index):
    pairs = index.search_pairs("graphene heat", k=1000, k1=0.9, b=0.4)
    results = ",".join(f'{{"docid":"{d}","score":{score3(s)}}}' for d, s in pairs[:5])
    assert call(rpc, '{"id":7,"type":"search","query":"graphene heat"}') == (
        '{"id":7,"type":"response","command":"search","success":true,"data":{"mode":"search",'
        '"query":"graphene heat","query_mode":"plain","k":5,"rerank_clues":[],'
        f'"results":[{results}],{TIMING}}}}}'
    )
    # What pi-search sends: k=1000, plain, no clues; k past the corpus gives every hit.
    line = call(
        rpc,
        '{"id":2,"type":"search","query":"graphene","query_mode":"plain","k":1000,'
        '"rerank_clues":[]}',
    )
    data = json.loads(line)["data"]
    assert [r["docid"] for r in data["results"]] == [
        d for d, _ in index.search_pairs("graphene", k=1000)
    ]
    # k is truncated toward zero as Java's intValue; huge doubles saturate.
    assert (
        json.loads(call(rpc, '{"id":3,"type":"search","query":"graphene","k":1.9}'))["data"]["k"]
        == 1
    )
    big = json.loads(call(rpc, '{"id":4,"type":"search","query":"graphene","k":1e300}'))
    assert big["data"]["k"] == 2**31 - 1 and len(big["data"]["results"]) == 3


def test_rpc_rerank_clues(rpc, index):
    line = call(
        rpc,
        '{"id":1,"type":"search","query":"graphene","rerank_clues":[{"text":"more","category":'
        '"required","boost":2},{"text":"x"},"skipped",{"text":"row zzz","category":"odd"}]}',
    )
    data = json.loads(line)["data"]
    assert data["rerank_clues"] == [
        {"text": "more", "category": "required", "boost": 2.0},
        {"text": "x", "category": "any", "boost": 1.0},
        {"text": "row zzz", "category": "any", "boost": 1.0},
    ]
    assert '"boost":2.0' in line
    base = dict(index.search_pairs("graphene", k=5))
    got = {r["docid"]: r["score"] for r in data["results"]}
    assert got["d2"] == pytest.approx(float(score3(base["d2"] + 0.75 * 2)), abs=1e-9)
    # "row zzz": one token of two matches, half of the pro-rata weight.
    assert got["lines"] == pytest.approx(float(score3(base["lines"] + 0.35 * 0.5 * 0.5)))
    assert [r["score"] for r in data["results"]] == sorted(got.values(), reverse=True)


def test_rpc_render_search_results(rpc):
    line = call(
        rpc,
        '{"id":5,"type":"render_search_results","docids":["d1","gone"],'
        '"highlight_clues":[{"text":"the graphene heat","category":"any","boost":1}]}',
    )
    assert line == (
        '{"id":5,"type":"response","command":"render_search_results","success":true,"data":{'
        '"mode":"render_search_results","docids":["d1","gone"],"highlight_clues":[{"text":'
        '"the graphene heat","category":"any","boost":1.0}],"inline_highlights":true,'
        '"results":[{"docid":"d1","title":"[[graphene]] Sheets","matched_terms":["graphene",'
        '"heat"],"excerpt":"Intro line.\\n[[graphene]] conducts [[heat]] well.\\nLast line",'
        '"excerpt_truncated":true},{"docid":"gone","title":null,"matched_terms":[],'
        f'"excerpt":"[Document not found]","excerpt_truncated":false}}],{TIMING}}}}}'
    )
    # What pi-search sends: highlights off, 220 characters, the query as the one clue.
    plain = json.loads(
        call(
            rpc,
            '{"id":6,"type":"render_search_results","docids":["d2"],"snippet_max_chars":220,'
            '"inline_highlights":false,"highlight_clues":[{"text":"graphene","category":"any",'
            '"boost":1}]}',
        )
    )
    assert plain["data"]["results"] == [
        {
            "docid": "d2",
            "title": None,
            "matched_terms": ["graphene"],
            "excerpt": "heat and graphene and more graphene",
            "excerpt_truncated": False,
        }
    ]


def test_highlight_longest_first_ascii_case():
    # Java replaces term after term, so a shorter term is marked again inside a longer one.
    assert highlight("Graphene GRAPH graph", ["graph", "graphene"]) == (
        "[[[[graph]]ene]] [[graph]] [[graph]]"
    )
    assert highlight("\u212a kelvin", ["k"]) == "\u212a [[k]]elvin"  # no Unicode folding


def test_rpc_read_document(rpc):
    assert call(rpc, '{"id":9,"type":"read_document","docid":"lines","offset":3,"limit":2}') == (
        '{"id":9,"type":"response","command":"read_document","success":true,"data":{'
        '"mode":"read_document","docid":"lines","found":true,"offset":3,"limit":2,'
        '"total_lines":7,"returned_line_start":3,"returned_line_end":4,"truncated":true,'
        f'"next_offset":5,"text":"row 3 graphene\\nrow 4 graphene",{TIMING}}}}}'
    )
    past = json.loads(call(rpc, '{"id":1,"type":"read_document","docid":"d1","offset":99}'))
    assert past["data"] | {"timing_ms": None} == {
        "mode": "read_document",
        "docid": "d1",
        "found": True,
        "offset": 99,
        "limit": 200,
        "total_lines": 4,
        "returned_line_start": 0,
        "returned_line_end": 0,
        "truncated": False,
        "next_offset": None,
        "text": "",
        "timing_ms": None,
    }
    assert call(rpc, '{"id":"a","type":"read_document","docid":"nope"}') == (
        '{"id":"a","type":"response","command":"read_document","success":true,"data":{'
        '"mode":"read_document","docid":"nope","found":false,"error":"Document with docid '
        f"'nope' not found\",{TIMING}}}}}"
    )


# --- RPC: every error, and input that is not a command -----------------------------------


QUERY = "search requires a non-empty string query"
K = "search k must be a positive integer"
DOCIDS = "render_search_results docids must be a JSON array of strings"
DOCID = "read_document requires a non-empty string docid"
TYPE = "Command must include a non-empty string 'type'."
LUCENE = (
    "search query_mode 'lucene' is not supported: this server has no Lucene query parser; "
    "use 'plain'"
)


@pytest.mark.parametrize(
    ("params", "command", "message"),
    [
        ('"type":"search"', "search", QUERY),
        ('"type":"search","query":"  "', "search", QUERY),
        ('"type":"search","query":7', "search", QUERY),
        ('"type":"search","query":"a","k":0', "search", K),
        ('"type":"search","query":"a","k":-3', "search", K),
        ('"type":"search","query":"a","k":"5"', "search", K),
        ('"type":"search","query":"a","k":true', "search", K),
        ('"type":"search","query":"a","k":0.5', "search", K),
        # 2**32 keeps its low 32 bits, 0, as Jackson's intValue.
        ('"type":"search","query":"a","k":4294967296', "search", K),
        (
            '"type":"search","query":"a","query_mode":"fuzzy"',
            "search",
            "search query_mode must be 'plain' or 'lucene'",
        ),
        ('"type":"search","query":"a","query_mode":"lucene"', "search", LUCENE),
        ('"type":"search","query":"a","rerank_clues":{}', "search", "clues must be a JSON array"),
        (
            '"type":"search","query":"a","rerank_clues":[{"text":""}]',
            "search",
            "clue text must be a non-empty string",
        ),
        ('"type":"render_search_results"', "render_search_results", DOCIDS),
        (
            '"type":"render_search_results","docids":["d1",3]',
            "render_search_results",
            "render_search_results docids must contain only strings",
        ),
        (
            '"type":"render_search_results","docids":[],"snippet_max_chars":0',
            "render_search_results",
            "render_search_results snippet_max_chars must be a positive integer",
        ),
        (
            '"type":"render_search_results","docids":[],"inline_highlights":1',
            "render_search_results",
            "render_search_results inline_highlights must be a boolean",
        ),
        ('"type":"read_document"', "read_document", DOCID),
        ('"type":"read_document","docid":""', "read_document", DOCID),
        (
            '"type":"read_document","docid":"d1","offset":-1',
            "read_document",
            "read_document offset must be a positive integer",
        ),
        (
            '"type":"read_document","docid":"d1","limit":"all"',
            "read_document",
            "read_document limit must be a positive integer",
        ),
        ('"type":"fly"', "fly", "Unknown command type: fly"),
        ('"x":0', "unknown", TYPE),
        ('"type":" "', "unknown", TYPE),
        ('"type":5', "unknown", TYPE),
    ],
)
def test_rpc_parameter_errors(rpc, params, command, message):
    assert call(rpc, f'{{"id":1,{params}}}') == error(1, command, message)


def test_rpc_input_that_is_not_a_command(rpc):
    assert call(rpc, "[1, 2]") == error(None, "unknown", "Command must be a JSON object.")
    bad = json.loads(call(rpc, "{not json"))
    assert bad["id"] is None and bad["command"] == "unknown" and not bad["success"]
    assert bad["error"].startswith("Invalid JSON command: ")
    assert json.loads(call(rpc, '{"id":1,"type":"ping","x":NaN}'))["success"] is False
    # Not UTF-8: refused, with the id and command echoed so a multiplexing client can match.
    line = b'{"id":12,"type":"search","query":"caf\xe9"}'
    assert call(rpc, line) == error(
        12, "search", "Command line is not valid UTF-8 (byte 0xe9 at offset 37)."
    )
    assert call(rpc, b"\xff\xfe") == error(
        None, "unknown", "Invalid JSON command: Expecting value: line 1 column 1 (char 0)"
    )


def test_java_json_numbers_and_strings():
    assert [java_double(x) for x in (25.0, 1.0, 12.345, 0.001, 1e-4, 1.2345e7, -0.0)] == [
        "25.0", "1.0", "12.345", "0.001", "1.0E-4", "1.2345E7", "-0.0",
    ]  # fmt: skip
    assert java_json({"s": 'a"\\\n\x01é/', "n": [1, 2.5, None, False]}) == (
        '{"s":"a\\"\\\\\\n\\u0001é/","n":[1,2.5,null,false]}'
    )


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0.0, -0.0, 1e-3, 9.99e-4, 1e7, 9999999.5, 25.0])
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None)
@given(_JSON_VALUES)
def test_java_json_fast_path_equals_the_reference_writer(value):
    """The C encoder's path writes what the reference writer (every value by hand) writes:
    E notation, control characters and lone surrogates included."""
    from rserini.agent.servers.java_json import _java_json

    assert java_json(value) == _java_json(value)


# --- http-json ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def api(index):
    return HttpApi(IndexBackend(index), record_timings=False)


def post(api, path, body):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return api.answer("POST", path, raw)


def test_http_search_page(api, index):
    pairs = index.search_pairs("graphene heat", k=10)
    status, body = post(api, "/search", {"query": "graphene heat", "limit": 1000})
    assert status == 200
    assert [h["docid"] for h in body["hits"]] == [d for d, _ in pairs]
    assert [repr(h["score"]) for h in body["hits"]] == [score3(s) for _, s in pairs]
    assert body["hasMore"] is False and "nextOffset" not in body and "totalHits" not in body
    d1 = next(h for h in body["hits"] if h["docid"] == "d1")
    assert d1 == {
        "docid": "d1",
        "score": d1["score"],
        "title": "Graphene Sheets",
        "snippet": "Intro line.\nGraphene conducts heat well.\nLast line",
        "snippetTruncated": True,
    }
    status, page = post(api, "/search", {"query": "graphene heat", "limit": 1, "offset": 2})
    assert status == 200 and page["hasMore"] is True and page["nextOffset"] == 3
    assert [h["docid"] for h in page["hits"]] == [pairs[1][0]]
    # Floats are floored; huge limits are fine; past the end is an empty page.
    assert post(api, "/search", {"query": "graphene", "limit": 1e300})[1]["hasMore"] is False
    assert post(api, "/search", {"query": "graphene", "limit": 2.9})[1]["nextOffset"] == 3
    assert post(api, "/search", {"query": "graphene", "limit": 5, "offset": 1e12})[1] == {
        "hits": [],
        "hasMore": False,
    }


def test_http_search_previews_stop_at_rank_50(tmp_path):
    many = rserini.Index.build(
        [{"id": f"x{i}", "contents": f"common {i}"} for i in range(60)], progress=False
    )
    api = HttpApi(IndexBackend(many), record_timings=False)
    hits = post(api, "/search", {"query": "common", "limit": 1000})[1]["hits"]
    assert all("snippet" in h for h in hits[:50]) and not any("snippet" in h for h in hits[50:])
    everywhere = HttpApi(IndexBackend(many), preview_depth=None, record_timings=False)
    assert all(
        "snippet" in h
        for h in post(everywhere, "/search", {"query": "common", "limit": 99})[1]["hits"]
    )


def test_http_read_document(api):
    assert post(api, "/read_document", {"docid": "lines", "offset": 6, "limit": 5}) == (
        200,
        {
            "found": True,
            "docid": "lines",
            "text": "row 6 graphene\nrow 7 graphene",
            "offset": 6,
            "limit": 5,
            "totalUnits": 7,
            "returnedOffsetStart": 6,
            "returnedOffsetEnd": 7,
            "truncated": False,
        },
    )
    body = post(api, "/read_document", {"docid": "d1", "limit": 1})[1]
    assert body["nextOffset"] == 2 and body["title"] == "Graphene Sheets" and body["truncated"]
    # Past the end: no returnedOffset* (they must be >= 1), and a missing docid is a 200.
    past = post(api, "/read_document", {"docid": "d1", "offset": 50})[1]
    assert "returnedOffsetStart" not in past and past["text"] == ""
    assert post(api, "/read_document", {"docid": "zzz"}) == (200, {"found": False, "docid": "zzz"})


@pytest.mark.parametrize(
    ("path", "body", "status", "message"),
    [
        ("/search", b"{bad", 400, "the body is not JSON: "),
        ("/search", b'{"query":"caf\xe9","limit":1}', 400, "the body is not UTF-8: "),
        ("/search", [1], 400, "search body must be a JSON object"),
        ("/search", {"query": "a"}, 400, "search body needs 'limit'"),
        ("/search", {"query": "a", "limit": 1, "k": 3}, 400, "search body has unknown field 'k'"),
        ("/search", {"query": "", "limit": 1}, 400, "search 'query' must be a non-empty string"),
        ("/search", {"query": 5, "limit": 1}, 400, "search 'query' must be a non-empty string"),
        ("/search", {"query": "a", "limit": 0}, 400, "search 'limit' must be >= 1 (got 0)"),
        ("/read_document", {"docid": "d", "limit": 0.5}, 400, "read_document 'limit' must be >= "),
        ("/search", {"query": "a", "limit": "9"}, 400, "search 'limit' must be a finite number"),
        ("/search", {"query": "a", "limit": True}, 400, "search 'limit' must be a finite number"),
        ("/search", {"query": "a", "limit": 1, "offset": -2}, 400, "search 'offset' must be >= 1"),
        ("/search", b'{"query":"a","limit":Infinity}', 400, "the body is not JSON: "),
        ("/read_document", {"docid": ""}, 400, "read_document 'docid' must be a non-empty string"),
        ("/read_document", {"docid": "d", "offset": 0}, 400, "read_document 'offset' must be >="),
        ("/read_document", {"docid": "d", "page": 2}, 400, "read_document body has unknown field"),
        ("/other", {}, 404, "no endpoint /other"),
    ],
)  # fmt: skip
def test_http_malformed_requests(api, path, body, status, message):
    got_status, got = post(api, path, body)
    assert got_status == status
    assert list(got) == ["error"] and got["error"].startswith(message)


def test_http_methods(api):
    assert api.answer("GET", "/search", None) == (405, {"error": "/search takes POST, not GET"})
    assert api.answer("POST", "/search", None)[0] == 411


# --- the commands, as processes ----------------------------------------------------------


def _serve(saved_index, *args):
    return subprocess.Popen(
        [sys.executable, "-m", "rserini", "serve", *args, "--index", str(saved_index)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _stop(proc):
    proc.terminate()
    try:
        proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()


def test_serve_rpc_stdio_survives_garbage(saved_index):
    lines = [
        b'{"id":1,"type":"ping"}',
        b"garbage",
        b"",
        b'{"id":2,"type":"search","query":"caf\xe9"}',
        b"[]",
        b'{"id":3,"type":"read_document","docid":"d1","limit":1}',
        b'{"id":4,"type":"search","query":"graphene","k":1000,"query_mode":"lucene"}',
        b'{"id":5,"type":"ping"}',
    ]
    out = subprocess.run(
        [sys.executable, "-m", "rserini", "serve", "rpc", "--stdio", "--index", str(saved_index)],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    replies = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert [(r["id"], r["success"]) for r in replies] == [
        (1, True), (None, False), (2, False), (None, False), (3, True), (4, False), (5, True),
    ]  # fmt: skip
    assert replies[4]["data"]["text"] == "Intro line."


def test_serve_rpc_tcp(saved_index):
    proc = _serve(saved_index, "rpc", "--port", "0", "--k1", "25", "--b", "1")
    try:
        ready = json.loads(proc.stdout.readline())
        assert list(ready) == ["type", "transport", "host", "port", "bm25", "threads", "timing_ms"]
        assert ready["type"] == "server_ready" and ready["transport"] == "tcp"
        assert ready["host"] == "127.0.0.1" and ready["bm25"] == {"k1": 25.0, "b": 1.0}
        # pi-serini's client: one connection per request; then several on one connection.
        for request in (b'{"id":1,"type":"ping"}\n', b"\xff oops\n"):
            with socket.create_connection(("127.0.0.1", ready["port"]), timeout=10) as conn:
                conn.sendall(request)
                reply = json.loads(conn.makefile("rb").readline())
                assert reply["type"] == "response"
        with socket.create_connection(("127.0.0.1", ready["port"]), timeout=10) as conn:
            conn.sendall(b'{"id":7,"type":"search","query":"graphene"}\n{"id":8,"type":"ping"}\n')
            stream = conn.makefile("rb")
            first, second = json.loads(stream.readline()), json.loads(stream.readline())
        assert first["id"] == 7 and first["data"]["results"][0]["docid"]
        assert second == {**second, "id": 8, "success": True}
        assert proc.poll() is None
    finally:
        _stop(proc)


def test_serve_http(saved_index):
    proc = _serve(saved_index, "http", "--port", "0", "--quiet")
    try:
        ready = json.loads(proc.stdout.readline())
        assert ready == {**ready, "type": "server_ready", "transport": "http", "host": "127.0.0.1"}
        conn = http.client.HTTPConnection("127.0.0.1", ready["port"], timeout=10)

        def request(method, path, body=None, headers=None):
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, json.loads(response.read())

        # pi-search's exact request bodies.
        status, body = request(
            "POST", "/search", b'{"query":"graphene heat","limit":1000}',
            {"content-type": "application/json"},
        )  # fmt: skip
        assert status == 200 and body["hits"][0]["docid"] and "timingMs" in body
        status, body = request("POST", "/read_document", b'{"docid":"d1","offset":1,"limit":200}')
        assert status == 200 and body["totalUnits"] == 4
        assert request("POST", "/search", b"{oops")[0] == 400
        assert request("GET", "/search")[0] == 405
        assert request("POST", "/nowhere", b"{}")[0] == 404
        # A body that is too large is refused without being read, and the connection closed.
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", ready["port"], timeout=10)
        status, body = request("POST", "/search", b"x", {"Content-Length": str(10**9)})
        assert status == 413
        conn.close()
        # A request the standard library refuses itself gets the same JSON error shape.
        with socket.create_connection(("127.0.0.1", ready["port"]), timeout=10) as raw:
            raw.sendall(b"NOT A REQUEST\r\n\r\n")
            reply = raw.makefile("rb").read()
        # (No status line: the standard library answers such a line as HTTP/0.9.)
        assert list(json.loads(reply.rpartition(b"\r\n")[2])) == ["error"]
        conn = http.client.HTTPConnection("127.0.0.1", ready["port"], timeout=10)
        assert request("POST", "/read_document", b'{"docid":"zzz"}') == (
            200,
            {"found": False, "docid": "zzz"},
        )
        conn.close()
        assert proc.poll() is None
    finally:
        _stop(proc)


def test_servers_refuse_an_index_without_documents(tmp_path):
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(json.dumps({"id": "a", "contents": "text"}) + "\n")
    path = tmp_path / "nostore"
    subprocess.run(
        [sys.executable, "-m", "rserini", "index", "--input", str(corpus), "--index", str(path),
         "--no-store", "-q"],
        check=True,
        timeout=60,
    )  # fmt: skip
    for server in (["http", "--port", "0"], ["rpc", "--stdio"]):
        out = subprocess.run(
            [sys.executable, "-m", "rserini", "serve", *server, "--index", str(path)],
            capture_output=True, text=True, timeout=60, input="",
        )  # fmt: skip
        assert out.returncode == 1 and "--no-store" in out.stderr and out.stdout == ""


# --- what pi-search would show from our http-json backend --------------------------------


@pytest.mark.parametrize("query", ["graphene heat", "the row 3", "Intro"])
def test_http_hits_render_as_the_session_renders(index, tmp_path, query):
    """pi-search caches the http hits and renders them; the pages equal SearchSession's."""
    from rserini.agent import SearchSession, TimeBudget
    from rserini.agent.tools.cache import CachedSearch
    from rserini.agent.tools.pages import format_search_page, search_page

    api = HttpApi(IndexBackend(index), record_timings=False)
    hits = post(api, "/search", {"query": query, "limit": 1000})[1]["hits"]
    entry = CachedSearch(
        "s1",
        query,
        [h["docid"] for h in hits],
        [h["score"] for h in hits],
        previews={
            i: {k: v for k, v in h.items() if k not in ("docid", "score")}
            for i, h in enumerate(hits)
            if "snippetTruncated" in h
        },
    )
    with SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path) as session:
        assert session.search("r", query).text == format_search_page(
            search_page(entry, 1, 5, entry.previews.get)
        )
        assert session.read_search_results("r", "s1", 2, 3).text == format_search_page(
            search_page(entry, 2, 3, entry.previews.get)
        )


@pytest.mark.parametrize("query", ["graphene heat", "the row 3"])
def test_rpc_hits_render_as_the_session_renders(index, rpc, tmp_path, query):
    """pi-search's Anserini adapter: search k=1000, render the top 50 without highlights
    with the query as the one clue, merge by docid; the pages equal SearchSession's."""
    from rserini.agent import SearchSession, TimeBudget
    from rserini.agent.tools.cache import CachedSearch
    from rserini.agent.tools.pages import format_search_page, search_page

    found = json.loads(
        call(rpc, java_json({"id": 1, "type": "search", "query": query, "k": 1000,
                             "query_mode": "plain", "rerank_clues": []}))
    )["data"]["results"]  # fmt: skip
    rendered = json.loads(
        call(rpc, java_json({"id": 2, "type": "render_search_results",
                             "docids": [r["docid"] for r in found[:50]], "snippet_max_chars": 220,
                             "inline_highlights": False,
                             "highlight_clues": [{"text": query, "category": "any", "boost": 1}]}))
    )["data"]["results"]  # fmt: skip
    previews = {}
    for i, row in enumerate(rendered):
        fields = {"title": row["title"]}
        if row["excerpt"]:
            fields["snippet"] = row["excerpt"]
        previews[i] = fields | {"snippetTruncated": row["excerpt_truncated"]}
    entry = CachedSearch(
        "s1", query, [r["docid"] for r in found], [r["score"] for r in found], previews=previews
    )
    with SearchSession(index, budget=TimeBudget(0), spill_dir=tmp_path) as session:
        assert session.search("r", query).text == format_search_page(
            search_page(entry, 1, 5, entry.previews.get)
        )


def test_rpc_stream_skips_an_overlong_line(rpc):
    import io

    from rserini.agent.servers.rpc_server import MAX_LINE_BYTES, answer_stream

    reader = io.BytesIO(b"x" * (MAX_LINE_BYTES + 10) + b'\n{"id":1,"type":"ping"}\n\n')
    writer = io.BytesIO()
    answer_stream(rpc, reader, writer)
    first, second = writer.getvalue().decode().splitlines()
    assert first == error(None, "unknown", f"Command line longer than {MAX_LINE_BYTES} bytes.")
    assert json.loads(second)["id"] == 1 and json.loads(second)["success"] is True
