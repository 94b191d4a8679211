"""The docstrings and signatures of ``_core.pyi`` are the ones ``help()`` shows at runtime.

The extension's docstrings and signatures come from the Rust ``///`` comments and
``#[pyo3(signature)]`` attributes; the stub repeats them for editors and type checkers.
Each documented item of the stub must carry, word for word, the runtime ``__doc__``, and
each function the runtime's parameters: their names, kinds and defaults (a stub default
``...`` stands for any).
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

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


def functions(nodes: list[ast.stmt], prefix: str = "") -> dict[str, ast.FunctionDef]:
    """Every function of the stub defined once (overloads left out), by dotted name;
    a class's ``__new__`` under the class's name."""
    found: dict[str, ast.FunctionDef] = {}
    seen: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            found |= functions(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, ast.FunctionDef):
            name = prefix + node.name
            if name.endswith(".__new__"):
                name = name.removesuffix(".__new__")
            if name in seen:
                found.pop(name, None)
            elif not any(
                isinstance(d, ast.Name | ast.Attribute) and "property" in ast.unparse(d)
                for d in node.decorator_list
            ):
                found[name] = node
            seen.add(name)
    return found


_ANY = object()


def stub_parameters(node: ast.FunctionDef) -> list[tuple[str, str, object]]:
    """``(name, kind, default)`` of the stub's parameters, ``self``/``cls`` left out;
    ``_ANY`` for a default written ``...``, ``inspect.Parameter.empty`` for none."""
    a = node.args

    def default(value: ast.expr | None) -> object:
        if value is None:
            return inspect.Parameter.empty
        if isinstance(value, ast.Constant) and value.value is Ellipsis:
            return _ANY
        return ast.literal_eval(value)

    positional = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    params = [
        (p.arg, "POSITIONAL_ONLY" if p in a.posonlyargs else "POSITIONAL_OR_KEYWORD", default(d))
        for p, d in zip(positional, defaults, strict=True)
    ]
    if a.vararg:
        params.append((a.vararg.arg, "VAR_POSITIONAL", inspect.Parameter.empty))
    keywords = zip(a.kwonlyargs, a.kw_defaults, strict=True)
    params += [(p.arg, "KEYWORD_ONLY", default(d)) for p, d in keywords]
    if a.kwarg:
        params.append((a.kwarg.arg, "VAR_KEYWORD", inspect.Parameter.empty))
    return [p for p in params if p[0] not in ("self", "cls")]


def runtime_parameters(obj: Any) -> list[tuple[str, str, object]] | None:
    """``(name, kind, default)`` of the runtime signature; ``None`` if it has none."""
    try:
        signature = inspect.signature(obj)
    except (ValueError, TypeError):
        return None
    return [
        (p.name, p.kind.name, p.default)
        for p in signature.parameters.values()
        if p.name not in ("self", "cls", "$self", "$cls")
    ]


SIGNED = {
    name: node
    for name, node in functions(ast.parse(STUB.read_text(encoding="utf-8")).body).items()
    if not name.rsplit(".", 1)[-1].startswith("__")
}


def test_the_stub_signatures_are_read() -> None:
    assert {"Index.search", "Index.batch_search", "Bm25", "Rm3", "rrf"} <= set(SIGNED)
    assert len(SIGNED) > 60


@pytest.mark.parametrize("name", sorted(SIGNED))
def test_stub_signature_is_the_runtime_signature(name: str) -> None:
    obj: Any = core
    for part in name.split("."):
        obj = getattr(obj, part)
    runtime = runtime_parameters(obj)
    if runtime is None:
        pytest.skip(f"{name} has no runtime signature to compare (no __text_signature__)")
    stub = stub_parameters(SIGNED[name])
    assert [(n, k) for n, k, _ in stub] == [(n, k) for n, k, _ in runtime]
    for (param, _, want), (_, _, got) in zip(stub, runtime, strict=True):
        if want is _ANY:
            assert got is not inspect.Parameter.empty, f"{param} has no runtime default"
        else:
            assert want == got, f"{param}: the stub says {want!r}, the runtime {got!r}"
