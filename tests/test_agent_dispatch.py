"""Tool schemas for each agent API, the dispatcher, and the improvements behind flags:
best-passage excerpts, excerpts on every page, find_in_document, Index.term_stats."""

from __future__ import annotations

import itertools
import json
import math
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from rserini.agent import (
    SearchSession,
    TimeBudget,
    ToolOptions,
    anthropic_tools,
    dispatch,
    mcp_tools,
    openai_tools,
)
from rserini.agent.tools.passages import PassageScorer, best_excerpt, word_runs

DOCS = [
    {"id": "d1", "contents": "Solar panels convert sunlight.\nWind turbines spin.\nHydro dams."},
    {
        "id": "long",
        "contents": "\n".join(
            ["Introduction to many unrelated topics."] * 30
            + ["The reactor core uses thorium fuel pellets.", "Thorium is fertile, not fissile."]
            + ["Closing remarks about budgets."] * 30
        ),
    },
    {"id": "d3", "contents": "Thorium appears once here among other words."},
]


@pytest.fixture(scope="module")
def index() -> rserini.Index:
    return rserini.Index.build(DOCS, progress=False)


def new_session(index, tmp_path, **options):
    return SearchSession(
        index, budget=TimeBudget(0), spill_dir=tmp_path, options=ToolOptions(**options)
    )


# --- schemas -----------------------------------------------------------------------------


def test_one_definition_gives_every_api_its_shape():
    names = ["search", "read_search_results", "read_document"]
    oa = openai_tools()
    assert [t["function"]["name"] for t in oa] == names
    assert oa[0]["type"] == "function"
    assert oa[0]["function"]["parameters"] == {
        "type": "object",
        "properties": {
            "reason": {
                "type": "string",
                "description": oa[0]["function"]["parameters"]["properties"]["reason"][
                    "description"
                ],
            },
            "query": {
                "type": "string",
                "description": "Raw query string. Use concise lexical clues instead of long "
                "natural-language rewrites.",
            },
        },
        "required": ["reason", "query"],
    }
    an = anthropic_tools()
    assert [t["name"] for t in an] == names
    assert an[1]["input_schema"]["required"] == ["reason", "search_id"]
    assert list(an[1]["input_schema"]["properties"]) == ["reason", "search_id", "offset", "limit"]
    mc = mcp_tools(ToolOptions(find_in_document=True))
    assert [t["name"] for t in mc] == [*names, "find_in_document"]
    assert mc[2]["inputSchema"]["properties"]["offset"]["type"] == "number"
    # Plain, JSON-serializable dicts, and copies: editing one does not change the others.
    json.dumps([oa, an, mc])
    oa[0]["function"]["parameters"]["required"].append("x")
    assert openai_tools()[0]["function"]["parameters"]["required"] == ["reason", "query"]


# --- dispatch ----------------------------------------------------------------------------


def test_openai_tool_call_gives_a_tool_message(index, tmp_path):
    session = new_session(index, tmp_path)
    call = {
        "id": "call_a",
        "type": "function",
        "function": {"name": "search", "arguments": '{"reason": "r", "query": "thorium"}'},
    }
    message, result = dispatch(session, call)
    assert message == {"role": "tool", "tool_call_id": "call_a", "content": result.text}
    assert not result.is_error
    assert session.events[-1]["toolCallId"] == "call_a"
    bad = {"id": "call_b", "type": "function", "function": {"name": "search", "arguments": "{oops"}}
    message, result = dispatch(session, bad)
    assert result.is_error
    assert message["content"].startswith('Validation failed for tool "search":\n')
    assert message["content"].endswith("Received arguments:\n{}")


def test_anthropic_tool_use_gives_a_tool_result_with_the_error_flag(index, tmp_path):
    session = new_session(index, tmp_path)
    block = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "read_document",
        "input": {"reason": "r", "docid": "zz"},
    }
    message, result = dispatch(session, block)
    assert message == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [{"type": "text", "text": result.text}],
        "is_error": True,
    }
    assert result.text.startswith("read_document failed: docid 'zz' was not found.")


def test_responses_function_call_and_sdk_objects(index, tmp_path):
    session = new_session(index, tmp_path)
    item = SimpleNamespace(
        model_dump=lambda: {
            "type": "function_call",
            "call_id": "fc_1",
            "name": "search",
            "arguments": json.dumps({"reason": "r", "query": "wind"}),
        }
    )
    message, result = dispatch(session, item)
    assert message == {"type": "function_call_output", "call_id": "fc_1", "output": result.text}
    assert "docid=d1" in result.text
    with pytest.raises(ValueError, match="not a tool call"):
        dispatch(session, {"role": "assistant"})


def test_json_constants_are_not_arguments(index, tmp_path):
    session = new_session(index, tmp_path)
    call = {
        "id": "c",
        "function": {
            "name": "read_document",
            "arguments": '{"reason":"r","docid":"d1","limit":NaN}',
        },
    }
    _, result = dispatch(session, call)
    assert result.is_error  # not JSON: read as {}, so the required properties are missing
    assert "must have required property 'reason'" in result.text


# --- passages ----------------------------------------------------------------------------


def test_word_runs_collapse_whitespace_and_cut_long_words():
    assert word_runs("a  b\n\nc", 10) == ["a b c"]
    assert word_runs("aaaa bbbb cccc", 9) == ["aaaa bbbb", "cccc"]
    assert word_runs("x" * 12 + " y", 5) == ["xxxxx", "xxxxx", "xx y"]
    assert word_runs("   ", 5) == []


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \n"), max_size=200), st.integers(2, 30))
def test_word_runs_keep_every_word_in_order(text, n):
    runs = word_runs(text, n)
    assert all(len(r) <= n for r in runs)
    assert "".join("".join(runs).split()) == "".join(text.split())


def reference_windows(index, query, units, window, k1=1.2, b=0.75):
    """Every window's BM25 score, computed the plain way."""
    n = len(index)
    stats = {t: (q, df) for t, q, df in index.term_stats(query)}
    analyzed = [index.analyzer.analyze(u) for u in units]
    windows = [
        [t for terms in analyzed[s : s + window] for t in terms]
        for s in range(len(units) - window + 1)
    ]
    mean = max(sum(map(len, windows)) / len(windows), 1.0)
    scores = []
    for terms in windows:
        score = 0.0
        for term, (qtf, df) in stats.items():
            tf = terms.count(term)
            if tf:
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                score += qtf * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(terms) / mean))
        scores.append(score)
    return scores


def test_best_windows_are_the_bm25_maxima(index):
    scorer = PassageScorer(index, "thorium fuel thorium")
    lines = DOCS[1]["contents"].split("\n")
    for window in (1, 2, 5):
        scores = reference_windows(index, "thorium fuel thorium", lines, window)
        best = scorer.best(lines, window, k=3)
        top = max(scores)
        assert best[0].start == scores.index(top)
        assert best[0].score == pytest.approx(top)
        for p in best:
            assert p.score == pytest.approx(scores[p.start])
        for p, q in itertools.combinations(best, 2):
            assert p.end <= q.start or p.start >= q.end
            assert p.score >= q.score
    one = scorer.best(lines, 1, k=3)
    assert [(p.start, p.end) for p in one] == [(30, 31), (31, 32)]  # only two lines match
    assert PassageScorer(index, "zebra").best(lines, 2) == []


def test_passage_excerpt_is_the_best_run(index):
    scorer = PassageScorer(index, "thorium fuel")
    excerpt, cut = best_excerpt(scorer, DOCS[1]["contents"], 220)
    assert "thorium fuel pellets" in excerpt
    assert excerpt.startswith("...") and excerpt.endswith("...") and cut
    assert len(excerpt) <= 226
    head, cut = best_excerpt(PassageScorer(index, "zebra"), "one two", 220)
    assert (head, cut) == ("one two", False)


def test_passage_excerpts_and_excerpts_on_every_page(index, tmp_path):
    window = new_session(index, tmp_path / "a").search("r", "thorium fuel").text
    passage = (
        new_session(index, tmp_path / "b", excerpt_mode="passage").search("r", "thorium fuel").text
    )
    # The earliest-match window starts 55 characters before "thorium", mid-word.
    assert "Excerpt: ...uction to many unrelated topics.\nThe reactor core" in window
    assert "The reactor core uses thorium fuel pellets." in passage.split("docid=long")[1]
    shallow = new_session(index, tmp_path / "c", preview_depth=0).search("r", "thorium").text
    assert "No snippet available" in shallow
    deep = new_session(index, tmp_path / "d", preview_depth=None).search("r", "thorium").text
    assert "No snippet available" not in deep


# --- find_in_document --------------------------------------------------------------------


def test_find_in_document_jumps_to_the_best_lines(index, tmp_path):
    session = new_session(index, tmp_path, find_in_document=True)
    result = session.find_in_document("locate fuel", "long", "thorium fuel", limit=1)
    assert not result.is_error
    lines = result.text.split("\n")
    assert lines[0] == '[docid=long: 1 passage matching "thorium fuel", best first, among 62 lines]'
    assert lines[2].startswith("lines 28-32 (score ") or lines[2].startswith("lines 29-33 (score ")
    assert "31: The reactor core uses thorium fuel pellets." in lines
    assert lines[-1].startswith('Continue with read_document({"docid":"long","offset":')
    d = result.details
    assert d["passages"][0]["lineStart"] == d["nextOffset"]
    assert d["totalLines"] == 62
    none = session.find_in_document("r", "d1", "thorium")
    assert none.text == (
        '[docid=d1: no lines match "thorium" among 3 lines]\n\n'
        "Use read_document(docid) to read the document from the start."
    )
    missing = session.find_in_document("r", "nope", "x")
    assert missing.text.startswith("find_in_document failed: docid 'nope' was not found.")
    assert session.find_in_document("r", "d1", " ").text == (
        "Invalid find_in_document arguments: query must be a non-empty string."
    )


def test_improved_options_make_events_byte_stable(index, tmp_path):
    def run(folder):
        session = SearchSession(
            index, budget=TimeBudget(0), spill_dir=folder, options=ToolOptions.improved()
        )
        session.search("r", "thorium")
        session.read_search_results("r", "s1", offset=1)
        session.read_document("r", "long", limit=5)
        session.find_in_document("r", "long", "thorium")
        return json.dumps(session.events)

    assert run(tmp_path) == run(tmp_path)


# --- fuzz: bad model input never raises --------------------------------------------------

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False)
    | st.text(max_size=30)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
KEYS = st.sampled_from(["reason", "query", "search_id", "docid", "offset", "limit", "extra"])


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(
        ["search", "read_search_results", "read_document", "find_in_document", "x"]
    ),
    arguments=st.dictionaries(KEYS, JSON_VALUES, max_size=6) | JSON_VALUES,
)
def test_any_call_returns_a_result_and_one_event(index, tmp_path_factory, name, arguments):
    session = SearchSession(
        index,
        budget=TimeBudget(0),
        spill_dir=tmp_path_factory.mktemp("fuzz"),
        options=ToolOptions.improved(),
    )
    session.search("r", "thorium")
    result = session.call(name, arguments)
    assert isinstance(result.text, str) and result.text
    assert len(session.events) == 2
    json.dumps(session.events[-1])
    if result.is_error:
        assert result.details == {}


def test_responses_tools_are_flat_and_strict_keeps_defaults(index, tmp_path):
    from rserini.agent.tools.schemas import SEARCH, openai_responses_tools, strict_parameters

    loose = openai_responses_tools()
    chat = openai_tools()
    assert [set(t) for t in loose] == [{"type", "name", "description", "parameters", "strict"}] * 3
    for flat, nested in zip(loose, chat, strict=True):
        assert flat["strict"] is False and flat["type"] == "function"
        assert {k: flat[k] for k in ("name", "description", "parameters")} == nested["function"]
    strict = openai_responses_tools(strict=True)
    browse = strict[1]["parameters"]
    assert strict[1]["strict"] is True
    assert browse["required"] == ["reason", "search_id", "offset", "limit"]
    assert browse["additionalProperties"] is False
    assert browse["properties"]["offset"]["type"] == ["number", "null"]
    assert browse["properties"]["search_id"]["type"] == "string"
    # The spec itself is untouched.
    assert strict_parameters(SEARCH)["required"] == ["reason", "query"]
    assert SEARCH.parameters["required"] == ["reason", "query"]
    with new_session(index, tmp_path) as session:
        session.search("r", "thorium")
        call = {
            "type": "function_call",
            "call_id": "c1",
            "name": "read_document",
            "arguments": json.dumps(
                {"reason": "r", "docid": "long", "offset": None, "limit": None}
            ),
        }
        # Strict calls carry nulls: dropped, the defaults (offset 1, limit 200) apply.
        _, result = dispatch(session, call, drop_nulls=True)
        assert result.text.startswith("[docid=long lines 1-62 of 62]")
        # Without drop_nulls pi's coercion reads null as 0, so limit becomes 1.
        _, faithful = dispatch(session, call)
        assert faithful.text.startswith("[docid=long lines 1-1 of 62]")
        # A null required argument is kept (and coerced as pi does).
        none_docid = {**call, "arguments": json.dumps({"reason": "r", "docid": None})}
        _, missing = dispatch(session, none_docid, drop_nulls=True)
        assert missing.is_error
