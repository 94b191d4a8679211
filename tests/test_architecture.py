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

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

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
