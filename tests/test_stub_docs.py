"""The docstrings of ``_core.pyi`` are the ones ``help()`` shows at runtime.

The extension's docstrings come from the Rust ``///`` comments; the stub repeats them
for editors and type checkers. Each documented item of the stub must carry, word for
word, the runtime ``__doc__``.
"""

from __future__ import annotations

import ast
import inspect

import pytest

import rserini._core as core
from support import REPO

STUB = REPO / "python" / "rserini" / "_core.pyi"


def documented(nodes: list[ast.stmt], prefix: str = "") -> list[tuple[str, str]]:
    """``(dotted name, docstring)`` of every documented class, function and property."""
    found = []
    for node in nodes:
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            doc = ast.get_docstring(node)
            if doc is not None:
                found.append((prefix + node.name, doc))
            if isinstance(node, ast.ClassDef):
                found += documented(node.body, f"{prefix}{node.name}.")
    return found


ITEMS = documented(ast.parse(STUB.read_text(encoding="utf-8")).body)


def test_the_stub_documents_the_search_methods() -> None:
    names = {name for name, _ in ITEMS}
    assert {"Index.search", "Index.batch_search", "Index.explain"} <= names


@pytest.mark.parametrize(("name", "doc"), ITEMS, ids=[name for name, _ in ITEMS])
def test_stub_docstring_is_the_runtime_docstring(name: str, doc: str) -> None:
    obj: object = core
    for part in name.split("."):
        obj = getattr(obj, part)
    assert inspect.getdoc(obj) == doc
