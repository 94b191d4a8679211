"""The improvement flags for output cuts (off by default): continuation hints that skip
nothing, cut outputs paged through ``read_document`` as ``spill:<n>``, and previewed
hits that were shown. Expected values are read back from the visible text and the
spill file, not from the session's own arithmetic."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import rserini
from rserini.agent import SearchSession, ToolOptions

LONG = [{"id": "long", "contents": "\n".join(f"row {n} " + "x" * 300 for n in range(1, 401))}]
MANY = [
    {"id": f"h{i}", "title": f"title {i}", "contents": f"graphene {'heat ' * (i % 7)} " * 30}
    for i in range(400)
]
FLAGS = {"continue_after_cut": True, "spill_paging": True, "previewed_shown_only": True}


@pytest.fixture(scope="module")
def index():
    return rserini.Index.build(LONG + MANY, progress=False)


def session(index, tmp_path, **flags):
    options = ToolOptions(preview_depth=None, record_timings=False, **flags)
    return SearchSession(index, options=options, spill_dir=tmp_path)


def hint_offset(text: str, tool: str) -> int:
    return json.loads(re.findall(rf"{tool}\((\{{.*?\}})\)", text)[-1])["offset"]


def visible_rows(text: str) -> list[int]:
    return [int(m) for m in re.findall(r"^row (\d+) ", text, flags=re.M)]


def test_read_hint_resumes_after_the_last_line_shown(index, tmp_path):
    with session(index, tmp_path) as faithful:
        pi = faithful.read_document("r", "long")
    assert "[Output truncated" in pi.text and hint_offset(pi.text, "read_document") == 201
    with session(index, tmp_path / "improved", continue_after_cut=True) as improved:
        cut = improved.read_document("r", "long")
        rows = visible_rows(cut.text)
        assert rows == list(range(1, rows[-1] + 1)) and rows[-1] < 200
        resume = hint_offset(cut.text, "read_document")
        assert resume == rows[-1] + 1
        rest = improved.read_document("r", "long", offset=resume)
        assert visible_rows(rest.text)[0] == resume  # nothing skipped
    # Everything else is pi-search's text: the same cut, only the offset differs.
    expected = pi.text.replace('"offset":201', f'"offset":{resume}')
    assert cut.text == expected.replace(str(tmp_path), str(tmp_path / "improved"))


def test_cut_output_pages_through_read_document(index, tmp_path):
    with session(index, tmp_path, spill_paging=True) as s:
        cut = s.read_document("r", "long")
        docid = re.search(r"saved as document: (spill:\d+); read it with", cut.text).group(1)
        full = Path(cut.details["fullOutputPath"]).read_text(encoding="utf-8").split("\n")
        page = s.read_document("r", docid, offset=3, limit=5)
        assert page.text.startswith(f"[docid={docid} lines 3-7 of {len(full)}]\n\n")
        assert page.text.split("\n")[2:7] == full[2:7]
    with session(index, tmp_path) as faithful:  # off: a path, and no such document
        cut = faithful.read_document("r", "long")
        assert "Full output saved to: " + cut.details["fullOutputPath"] + "]" in cut.text
        assert faithful.read_document("r", "spill:1").is_error


def test_cut_page_of_hits_previewed_and_resumed(index, tmp_path):
    with session(index, tmp_path) as faithful:
        faithful.search("r", "graphene heat")
        pi = faithful.read_search_results("r", "s1", offset=1, limit=400)
    assert len(pi.details["previewedDocids"]) == 400  # pi counts the whole page
    with session(index, tmp_path, **FLAGS) as s:
        s.search("r", "graphene heat")
        cut = s.read_search_results("r", "s1", offset=1, limit=400)
        shown = re.findall(r"^\d+\. docid=(\S+)", cut.text.split("[Output truncated")[0], re.M)
        assert 0 < len(shown) < 400 and cut.details["previewedDocids"] == shown
        resume = hint_offset(cut.text, "read_search_results")
        hits = json.loads(Path(cut.details["fullOutputPath"]).read_text())["results"]
        visible = cut.text.split("[Output truncated")[0]

        def whole(hit):  # the hit's header line and every line of its block are shown
            start = visible.find(f"\n{hit['rank']}. docid={hit['docid']} ")
            if start < 0:
                return False
            block = f"\n   Title: {hit['title']}\n   Excerpt: {hit['snippet']}"
            block += "\n   Excerpt preview truncated." if hit["snippetTruncated"] else ""
            return visible[visible.index("\n", start + 1) :].startswith(block + "\n")

        at = hits[resume - 1]
        assert all(whole(hit) for hit in hits[: resume - 1]) and not whole(at)
        again = s.read_search_results("r", "s1", offset=resume, limit=5)
        assert f"{resume}. docid={at['docid']}" in again.text


def test_serve_flags_set_the_options():
    import argparse

    from rserini.cli.serve import add_tool_arguments, tool_options

    parser = argparse.ArgumentParser()
    add_tool_arguments(parser)
    base = ["--index", "x"]
    assert tool_options(parser.parse_args(base)) == ToolOptions()
    flags = ["--continue-after-cut", "--spill-paging", "--previewed-shown-only"]
    assert tool_options(parser.parse_args(base + flags)) == ToolOptions(**FLAGS)
    improved = tool_options(parser.parse_args([*base, "--improved"]))
    assert all(getattr(improved, name) for name in FLAGS)
