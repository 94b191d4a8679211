"""The Rust crates' floor plans (the core, `rust/core/src`, and the Python
binding, `rust/py/src`): no module depends on itself through others, and no
source file is too long to read.

Dependencies are read from the code of each crate's `**/*.rs` (comments,
literals and `#[cfg(test)]` modules left out): every `crate::…`, `super::…`,
`self::…` or child-module path, in `use` declarations and inline. A path is
followed through re-exports to the module that defines the item, so a
folder's `mod.rs` hides no cycle; a `pub use` of a module's own descendant
(a folder's public face) is not a dependency. Cycles are looked for between
files, and between the crate's top-level modules (a folder counted as one).
"""

from __future__ import annotations

import ast
import functools
import io
import math
import operator
import re
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CORE = Path(__file__).resolve().parents[1] / "rust" / "core" / "src"
BINDING = CORE.parents[1] / "py" / "src"

# Lines of code a core source file may hold: non-blank, non-comment lines
# outside `#[cfg(test)]` modules (files declared `#[cfg(test)] mod x;` are
# test modules, and not counted).
MAX_CODE_LINES = 500
# A binding file's: its signatures and docstrings make it longer for the same logic.
BINDING_MAX_CODE_LINES = 600

# Files allowed past the limit, by path under rust/core/src, with the reason.
LONG_FILES_ALLOWED = {
    "analysis/standard.rs": "Unicode word-break property tables (UAX #29), not logic",
}

# Each crate: its source folder, its limit, its allowed exceptions, and how many
# dependencies the reader must at least find in it (or it proves nothing).
CRATES = {
    "core": (CORE, MAX_CODE_LINES, LONG_FILES_ALLOWED, 50),
    "binding": (BINDING, BINDING_MAX_CODE_LINES, {}, 30),
}

Module = tuple[str, ...]


def _blank(s: str) -> str:
    """Nothing but `s`'s line breaks."""
    return "\n" * s.count("\n")


def _mask(s: str) -> str:
    """An `x` for each non-blank line of `s`, and its line breaks."""
    return "\n".join("x" if line.strip() else "" for line in s.split("\n"))


_RAW_STRING = re.compile(r'(?<![\w])b?r(#*)"')
_CHAR = re.compile(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'\n])'")
# Where a comment or literal may start.
_SPECIAL = re.compile(r"//|/\*|\"|'|(?<![\w])b?r#*\"")


def strip(text: str) -> str:
    """`text` with comments blanked and literals masked ('x' for each
    non-space character), so that neither holds a path or a brace. Line
    breaks are kept: line numbers and counts stay right, and a line of a
    multi-line string still counts as code."""
    out: list[str] = []
    i, n = 0, len(text)
    while (special := _SPECIAL.search(text, i)) is not None:
        out.append(text[i : special.start()])
        i = special.start()
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(_blank(text[i:j]))
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                step = 2 if text.startswith(("/*", "*/"), j) else 1
                depth += {"/*": 1, "*/": -1}.get(text[j : j + 2], 0)
                j += step
            out.append(_blank(text[i:j]))
        elif raw := _RAW_STRING.match(text, i):
            end = text.find('"' + raw.group(1), raw.end())
            j = n if end < 0 else end + 1 + len(raw.group(1))
            out.append(_mask(text[i:j]))
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(_mask(text[i:j]))
        elif char := _CHAR.match(text, i):
            j = char.end()
            out.append(_mask(char.group(0)))
        else:
            j = i + 1
            out.append(text[i])
        i = j
    out.append(text[i:])
    return "".join(out)


_TEST_MOD = re.compile(
    r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]\s*(?:#\s*\[[^\]]*\]\s*)*"
    r"(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+(\w+)\s*([;{])"
)


def without_test_modules(code: str) -> tuple[str, set[str]]:
    """Stripped `code` with its inline `#[cfg(test)]` modules blanked, and
    the names of the test modules it declares in files of their own."""
    test_files: set[str] = set()
    out, i = [], 0
    for m in _TEST_MOD.finditer(code):
        if m.start() < i:
            continue  # inside a test module already blanked
        end = m.end()
        if m.group(2) == ";":
            test_files.add(m.group(1))
        else:
            depth = 1
            while depth and end < len(code):
                depth += {"{": 1, "}": -1}.get(code[end], 0)
                end += 1
        out += [code[i : m.start()], _blank(code[m.start() : end])]
        i = end
    return "".join([*out, code[i:]]), test_files


def code_lines(code: str) -> int:
    """Non-blank lines of stripped code."""
    return sum(1 for line in code.splitlines() if line.strip())


@dataclass
class SourceFile:
    path: Path
    code: str  # stripped, test modules blanked
    root: Path = CORE  # the crate's source folder

    @property
    def rel(self) -> str:
        return self.path.relative_to(self.root).as_posix()


@functools.cache
def read_crate(root: Path = CORE) -> dict[Module, SourceFile]:
    """The crate's source files by module path, test modules left out."""
    assert (root / "lib.rs").is_file(), f"no crate at {root}"
    files: dict[Module, SourceFile] = {}
    test_modules: set[Module] = set()
    for path in sorted(root.rglob("*.rs")):
        code, tests = without_test_modules(strip(path.read_text(encoding="utf-8")))
        parts = path.relative_to(root).with_suffix("").parts
        module = parts[:-1] if parts[-1] in ("lib", "mod") else parts
        files[module] = SourceFile(path, code, root)
        test_modules |= {(*module, t) for t in tests}
    return {m: f for m, f in files.items() if not any(m[: len(t)] == t for t in test_modules)}


_USE = re.compile(r"(?<![\w:])use\s+([^;]+);")
_PUB = re.compile(r"pub(?:\s*\([^)]*\))?\s*$")


def _uses(code: str) -> Iterator[tuple[re.Match[str], bool]]:
    """The `use` declarations of `code`, and whether each is a `pub use`."""
    for use in _USE.finditer(code):
        yield use, _PUB.search(code, max(0, use.start() - 30), use.start()) is not None


def use_paths(tree: str, prefix: tuple[str, ...] = ()) -> Iterator[tuple[list[str], str]]:
    """The paths a use-tree (`a::{b, c::{self, d as e}}`) names, each with
    the name it is imported under."""
    depth, start, items = 0, 0, []
    for i, ch in enumerate(tree):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(tree[start:i])
            start = i + 1
    items.append(tree[start:])
    for item in filter(None, (" ".join(it.split()) for it in items)):
        if "{" in item:
            head, _, rest = item.partition("{")
            inner = (*prefix, *(p.strip() for p in head.split("::") if p.strip()))
            yield from use_paths(rest.rsplit("}", 1)[0], inner)
            continue
        item, _, alias = item.partition(" as ")
        path = [*prefix, *(p.strip() for p in item.split("::") if p.strip())]
        if path and path[-1] == "self":
            path.pop()
        if path:
            yield path, alias.strip() or path[-1]


class Crate:
    def __init__(self, files: dict[Module, SourceFile]) -> None:
        self.files = files
        # Per module, what it re-exports: name → the path it points to.
        self.reexports: dict[Module, dict[str, list[str]]] = {
            m: {
                name: path
                for use, public in _uses(f.code)
                if public
                for path, name in use_paths(use.group(1))
            }
            for m, f in files.items()
        }

    def children(self, m: Module) -> set[str]:
        return {k[len(m)] for k in self.files if len(k) == len(m) + 1 and k[: len(m)] == m}

    def resolve(
        self, m: Module, path: list[str], seen: frozenset[tuple[Module, str]] = frozenset()
    ) -> Module | None:
        """The module that `path`, written in module `m`, leads to (through
        re-exports); `None` for a path outside the crate."""
        first, rest = path[0], path[1:]
        if first == "crate":
            cur: Module = ()
        elif first == "self":
            cur = m
        elif first == "super":
            cur = m[:-1]
            while rest and rest[0] == "super":
                cur, rest = cur[:-1], rest[1:]
        elif first in self.children(m):
            cur = (*m, first)
        else:
            return None
        for seg in rest:
            target = self.reexports.get(cur, {}).get(seg)
            if (*cur, seg) in self.files:
                cur = (*cur, seg)
            elif target and (cur, seg) not in seen:
                found = self.resolve(cur, target, seen | {(cur, seg)})
                if found is None:
                    break
                cur = found
            else:
                break
        return cur


@dataclass(frozen=True)
class Edge:
    source: Module
    target: Module
    where: str  # file:line and the path as written


def dependencies(crate: Crate) -> list[Edge]:
    """Every module dependency in the crate's code, with where it is."""
    edges: list[Edge] = []
    for m, f in crate.files.items():
        starts = ["crate", "super", "self", *sorted(crate.children(m))]
        inline = re.compile(r"(?<![\w:])((?:" + "|".join(starts) + r")(?:\s*::\s*\w+)+)")

        def add(path: list[str], line: int, reexport: bool, m: Module = m) -> None:
            target = crate.resolve(m, path)
            if target is None or target in (m, ()):
                return
            if reexport and target[: len(m)] == m:
                return  # a folder's public face, not a dependency
            edges.append(Edge(m, target, f"{crate.files[m].rel}:{line} {'::'.join(path)}"))

        for use, public in _uses(f.code):
            for path, _ in use_paths(use.group(1)):
                add(path, f.code.count("\n", 0, use.start()) + 1, public)
        rest = _USE.sub(lambda u: _blank(u.group(0)), f.code)
        for ref in inline.finditer(rest):
            line = rest.count("\n", 0, ref.start()) + 1
            add([p.strip() for p in ref.group(1).split("::")], line, False)
    return edges


def name(m: Module) -> str:
    return "::".join(m) or "crate"


def cycles(edges: list[Edge], level: Callable[[Module], Module]) -> dict[frozenset[Module], str]:
    """Each strongly connected component of the graph (modules mapped by
    `level`), described by its modules and its shortest cycle through the
    first of them, edge by edge with where each dependency is written."""
    graph: dict[Module, dict[Module, Edge]] = {}
    for e in edges:
        a, b = level(e.source), level(e.target)
        if a != b:
            graph.setdefault(a, {}).setdefault(b, e)
            graph.setdefault(b, {})
    index: dict[Module, int] = {}
    low: dict[Module, int] = {}
    stack: list[Module] = []
    components: list[list[Module]] = []

    def connect(v: Module) -> None:  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = stack[stack.index(v) :]
            del stack[stack.index(v) :]
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    found = {}
    for component in components:
        start = component[0]
        parent: dict[Module, tuple[Module, Edge]] = {}
        queue, cycle = [start], []
        while queue and not cycle:
            v = queue.pop(0)
            for w, e in sorted(graph[v].items()):
                if w == start:
                    cycle = [e]
                    while v != start:
                        v, back = parent[v]
                        cycle.insert(0, back)
                    break
                if w in component and w not in parent:
                    parent[w] = (v, e)
                    queue.append(w)
        steps = "".join(
            f"\n    {name(level(e.source))} -> {name(level(e.target))}: {e.where}" for e in cycle
        )
        found[frozenset(component)] = f"{{{', '.join(map(name, component))}}}{steps}"
    return found


@pytest.mark.parametrize("crate", CRATES)
def test_no_module_depends_on_itself(crate: str) -> None:
    root, _, _, least = CRATES[crate]
    edges = dependencies(Crate(read_crate(root)))
    # The reader must see the crate's dependencies, or it proves nothing.
    assert len(edges) > least, "the dependency reader found almost nothing"
    between_files = cycles(edges, lambda m: m)
    problems = [f"between files: {c}" for c in between_files.values()]
    problems += [
        f"between top-level modules: {c}"
        for modules, c in cycles(edges, lambda m: m[:1]).items()
        if modules not in between_files
    ]
    if problems:
        where = root.relative_to(CORE.parents[2]).as_posix()
        pytest.fail(f"import cycles in {where}:\n" + "\n".join(problems), pytrace=False)


@pytest.mark.parametrize("crate", CRATES)
def test_no_rust_file_is_too_long(crate: str) -> None:
    root, limit, allowed, _ = CRATES[crate]
    files = read_crate(root)
    too_long = {
        f.rel: n
        for f in files.values()
        if (n := code_lines(f.code)) > limit and f.rel not in allowed
    }
    if too_long:
        pytest.fail(
            f"{crate} files over {limit} lines of code (split them by concept):\n"
            + "\n".join(
                f"    {rel}: {n}" for rel, n in sorted(too_long.items(), key=lambda x: -x[1])
            ),
            pytrace=False,
        )
    unknown = sorted(set(allowed) - {f.rel for f in files.values()})
    assert not unknown, f"exceptions naming no file: {unknown}"


def test_the_reader_sees_paths_comments_and_test_modules() -> None:
    """The parts of the reader the checks rely on, on a small sample."""
    code = strip(
        "use crate::a::{b::{self, C}, d as e}; // crate::x::Y\n"
        "/* crate::z */ let s = \"crate::q::R\"; let c = '{';\n"
        "#[cfg(test)]\nmod tests {\n    use crate::t::U;\n}\n"
        "#[cfg(test)]\nmod more;\nfn f() { super::g::h(); }\n"
    )
    code, tests = without_test_modules(code)
    assert tests == {"more"}
    assert "crate::x" not in code and "crate::z" not in code and "crate::q" not in code
    assert "crate::t" not in code
    assert code_lines(code) == 3
    assert list(use_paths("crate::a::{b::{self, C}, d as e}")) == [
        (["crate", "a", "b"], "b"),
        (["crate", "a", "b", "C"], "C"),
        (["crate", "a", "d"], "e"),
    ]
    crate = Crate(
        {
            ("p",): SourceFile(CORE / "p/mod.rs", "pub use q::Thing;\n"),
            ("p", "q"): SourceFile(CORE / "p/q.rs", "use crate::r::Other;\n"),
            ("r",): SourceFile(CORE / "r.rs", "fn f() -> crate::p::Thing { todo!() }\n"),
        }
    )
    assert crate.resolve(("r",), ["crate", "p", "Thing"]) == ("p", "q")
    edges = dependencies(crate)
    assert {(e.source, e.target) for e in edges} == {(("p", "q"), ("r",)), (("r",), ("p", "q"))}
    assert list(cycles(edges, lambda m: m)) == [frozenset({("p", "q"), ("r",)})]


def test_the_architecture_tour_names_files_that_exist():
    """ARCHITECTURE.md names each step's file; a move that forgets the tour fails here."""
    repo = CORE.parents[2]
    tour = (repo / "ARCHITECTURE.md").read_text(encoding="utf-8")
    roots = [CORE, repo / "rust" / "py" / "src", repo / "python" / "rserini", repo]
    named = set(re.findall(r"`([\w./-]+(?:\.rs|\.py|\.md|/))`", tour))
    assert len(named) > 40, named
    missing = sorted(n for n in named if not any((root / n).exists() for root in roots))
    assert not missing, f"ARCHITECTURE.md names files that do not exist: {missing}"


# --- The Python package: python/rserini ---------------------------------------------
#
# The same fence around the pure-Python package: no module depends on itself through
# others, no file is too long, and no default of the core is restated in Python.
# Imports are read from the syntax tree, wherever they stand (inside functions and
# `if TYPE_CHECKING:` blocks too: a lazy import still ties two modules); a name
# imported from a package is followed through the package's re-exports to the module
# that defines it, so an `__init__.py` that gathers its parts hides no cycle and makes
# none. The extension (`rserini._core`) is a leaf.

PYTHON = CORE.parents[2] / "python"

# Lines of code a Python source file may hold: lines with a token other than a comment,
# outside docstrings.
MAX_PY_CODE_LINES = 600

# Files allowed past the limit, by path under python/rserini, with the reason.
PY_LONG_FILES_ALLOWED: dict[str, str] = {}

# Restatements of the core's constants allowed, by path under python/rserini and the
# constant's name, with the reason.
PY_RESTATED_ALLOWED: dict[tuple[str, str], str] = {}


@dataclass
class PyModule:
    rel: str  # the path under python/rserini
    tree: ast.Module
    is_package: bool


@functools.cache
def read_package(root: Path = PYTHON) -> dict[Module, PyModule]:
    """The package's modules by dotted path (as a tuple), with their syntax trees."""
    assert (root / "rserini" / "__init__.py").is_file(), f"no package under {root}"
    modules = {}
    for path in sorted((root / "rserini").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        package = parts[-1] == "__init__"
        modules[parts[:-1] if package else parts] = PyModule(
            path.relative_to(root / "rserini").as_posix(),
            ast.parse(path.read_text(encoding="utf-8")),
            package,
        )
    return modules


def _absolute(m: Module, is_package: bool, node: ast.ImportFrom) -> Module:
    """The module an `import from` names, relative imports resolved from `m`."""
    if node.level == 0:
        return tuple((node.module or "").split("."))
    base = m if is_package else m[:-1]
    base = base[: len(base) - (node.level - 1)]
    return base + (tuple(node.module.split(".")) if node.module else ())


def python_dependencies(modules: dict[Module, PyModule]) -> list[Edge]:
    """Every import of one of the package's modules by another, with where it is."""

    def defining(m: Module, name: str, seen: frozenset[tuple[Module, str]]) -> Module:
        """The module whose `name` `from m import name` gets: a submodule, the module a
        package re-exports it from, or `m`."""
        if (*m, name) in modules:
            return (*m, name)
        if m not in modules or (m, name) in seen:
            return m
        for node in modules[m].tree.body:
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        source = _absolute(m, modules[m].is_package, node)
                        return defining(source, alias.name, seen | {(m, name)})
        return m

    edges: list[Edge] = []
    for m, f in modules.items():
        for node in ast.walk(f.tree):
            if isinstance(node, ast.Import):
                targets = [tuple(alias.name.split(".")) for alias in node.names]
                written = ", ".join(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(m, modules[m].is_package, node)
                targets = [defining(source, alias.name, frozenset()) for alias in node.names]
                written = ".".join(source)
            else:
                continue
            for target in targets:
                if target in modules and target != m:
                    edges.append(Edge(m, target, f"{f.rel}:{node.lineno} {written}"))
    return edges


def py_code_lines(source: str) -> int:
    """Lines holding a token other than a comment, outside docstrings (string
    statements)."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            docstrings.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    skip = {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
    }
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstrings)


def test_no_python_module_depends_on_itself() -> None:
    edges = python_dependencies(read_package())
    assert len(edges) > 100, "the import reader found almost nothing"
    between_files = cycles(edges, lambda m: m)
    problems = [f"between modules: {c}" for c in between_files.values()]
    # A `__main__` module is a program that nothing imports (`python -m rserini.parity`
    # runs the command line): it belongs to no package's floor.
    programs = [e for e in edges if e.source[-1] != "__main__"]
    problems += [
        f"between packages: {c}"
        for modules, c in cycles(programs, lambda m: m[:2]).items()
        if modules not in between_files
    ]
    if problems:
        pytest.fail(
            "import cycles in python/rserini:\n" + "\n".join(problems).replace("::", "."),
            pytrace=False,
        )


def test_no_python_file_is_too_long() -> None:
    package = PYTHON / "rserini"
    sources = [(f.rel, package / f.rel) for f in read_package().values()]
    sources.append(("_core.pyi", package / "_core.pyi"))
    counts = {rel: py_code_lines(path.read_text(encoding="utf-8")) for rel, path in sources}
    too_long = {
        rel: n
        for rel, n in sorted(counts.items(), key=lambda x: -x[1])
        if n > MAX_PY_CODE_LINES and rel not in PY_LONG_FILES_ALLOWED
    }
    if too_long:
        pytest.fail(
            f"python/rserini files over {MAX_PY_CODE_LINES} lines of code (split them by "
            "concept):\n"
            + "\n".join(
                f"    {rel}: {n}" for rel, n in sorted(too_long.items(), key=lambda x: -x[1])
            ),
            pytrace=False,
        )
    unknown = sorted(set(PY_LONG_FILES_ALLOWED) - {rel for rel, _ in sources})
    assert not unknown, f"exceptions naming no file: {unknown}"


_ARITHMETIC: dict[type[ast.operator], Callable[[Any, Any], object]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
}


def _literal(node: ast.expr | None) -> object:
    """The value of a literal, or of arithmetic on literals (`64 << 20`); `None` (and
    so no restatement) for anything else."""
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError):
        pass
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _literal(node.left), _literal(node.right)
        if isinstance(left, int | float) and isinstance(right, int | float):
            try:
                return _ARITHMETIC[type(node.op)](left, right)
            except (TypeError, ZeroDivisionError):
                return None
    return None


def _same(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=0.0)
    return a == b


def core_constants() -> tuple[dict[str, object], dict[str, tuple[str, ...]]]:
    """The extension's exported defaults (`DEFAULT_<NAME>`, by `<name>`) and its lists
    of names (tuples or lists of strings, such as `BM25_VARIANTS`)."""
    core = pytest.importorskip("rserini._core", reason="the extension is not built")
    defaults: dict[str, object] = {}
    lists: dict[str, tuple[str, ...]] = {}
    for name, value in vars(core).items():
        if name.startswith("DEFAULT_") and isinstance(value, int | float | str):
            defaults[name.removeprefix("DEFAULT_").lower()] = value
        elif (
            name.isupper()
            and isinstance(value, tuple | list)
            and len(value) > 1
            and all(isinstance(v, str) for v in value)
        ):
            lists[name] = tuple(value)
    return defaults, lists


def restated_defaults(
    tree: ast.Module, defaults: dict[str, object], lists: dict[str, tuple[str, ...]]
) -> Iterator[tuple[int, str, str]]:
    """Where `tree` writes a literal that the core exports, the constant and the literal:
    the default of an option or keyword named as a `DEFAULT_<NAME>` with that constant's
    value, or a list of names equal to one of the core's."""

    def default_of(name: str, value: ast.expr | None, line: int) -> Iterator[tuple[int, str, str]]:
        key = name.lstrip("-").replace("-", "_").lower()
        if key in defaults and _same(_literal(value), defaults[key]):
            yield line, f"DEFAULT_{key.upper()}", f"{name} = {defaults[key]!r}"

    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            pairs = [
                *zip(
                    positional[len(positional) - len(args.defaults) :], args.defaults, strict=True
                ),
                *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d),
            ]
            for arg, value in pairs:
                yield from default_of(arg.arg, value, value.lineno)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            yield from default_of(node.target.id, node.value, node.lineno)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            keywords = {k.arg: k.value for k in node.keywords if k.arg}
            options = [a.value for a in node.args if isinstance(a, ast.Constant)]
            names = [o for o in options if isinstance(o, str) and o.startswith("--")]
            dest = _literal(keywords.get("dest"))
            for name in [*names, *([dest] if isinstance(dest, str) else [])]:
                yield from default_of(name, keywords.get("default"), node.lineno)
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            value = _literal(node)
            if isinstance(value, tuple | list | set) and all(isinstance(v, str) for v in value):
                for name, names in lists.items():
                    if len(value) == len(names) and set(value) == set(names):
                        yield node.lineno, name, repr(sorted(value))


def test_no_core_default_is_restated_in_python() -> None:
    defaults, lists = core_constants()
    assert "k1" in defaults and "BM25_VARIANTS" in lists, "the constants reader found nothing"
    found = {
        (f.rel, constant): f"    {f.rel}:{line} {literal}: read {constant}"
        for f in read_package().values()
        for line, constant, literal in restated_defaults(f.tree, defaults, lists)
    }
    problems = sorted(v for k, v in found.items() if k not in PY_RESTATED_ALLOWED)
    if problems:
        pytest.fail(
            "defaults of the core restated in python/rserini (import the constant):\n"
            + "\n".join(problems),
            pytrace=False,
        )
    stale = sorted(set(PY_RESTATED_ALLOWED) - set(found))
    assert not stale, f"exceptions naming no restatement: {stale}"


def test_the_python_readers_see_what_the_checks_rely_on() -> None:
    """The import, line and literal readers on small samples."""
    modules = {
        ("rserini",): PyModule("__init__.py", ast.parse("from rserini.a import f\n"), True),
        ("rserini", "a"): PyModule("a.py", ast.parse("def f():\n    from .b import g\n"), False),
        ("rserini", "b"): PyModule(
            "b.py",
            ast.parse("import typing\nif typing.TYPE_CHECKING:\n    from rserini import f\n"),
            False,
        ),
    }
    edges = {(e.source, e.target) for e in python_dependencies(modules)}
    # `from rserini import f` is an arrow to the module defining f, not to the package.
    assert edges == {
        (("rserini",), ("rserini", "a")),
        (("rserini", "a"), ("rserini", "b")),
        (("rserini", "b"), ("rserini", "a")),
    }
    assert py_code_lines('"""Doc."""\n\n# note\nx = 1  # one\ns = """a\nb"""\n') == 3
    defaults = {"k1": 0.9, "memory_mb": 256}
    lists = {"ALGORITHMS": ("auto", "bmw")}
    sample = ast.parse(
        "def f(k1=0.9, *, b=0.4, memory_mb=256.0): ...\n"
        "p.add_argument('--memory-mb', type=float, default=256)\n"
        "p.add_argument('--k1', default=DEFAULT_K1)\n"
        "p.add_argument('--max-line-bytes', default=64 << 20)\n"
        "ALGORITHMS = ('bmw', 'auto')\n"
        "class C:\n    k1: float = 1.2\n"
    )
    found = sorted(line for line, _, _ in restated_defaults(sample, defaults, lists))
    assert found == [1, 1, 2, 5]
    assert _literal(ast.parse("64 << 20", mode="eval").body) == 64 << 20
