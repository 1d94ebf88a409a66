"""The shape of the house, read from the source with ``ast``: the import graph of ptosim/ and
targets/ (installed as ptosim.targets) has no cycle, every layer imports only downward, and an
import inside a function is allowed only where it keeps a heavy optional dependency off the
import path (each with a comment saying so).

The graph counts every import statement, at module level or inside a function, so a cycle
cannot hide behind a function-local import.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# source folder -> the package name it installs as (pyproject: package-dir)
PACKAGES = (("ptosim", "ptosim"), ("targets", "ptosim.targets"))

# Function-local imports that are allowed: (importing module, top-level package imported).
# Each keeps a heavy optional dependency out of ``import ptosim`` (the extras of pyproject).
LOCAL_IMPORTS_ALLOWED = {
    ("ptosim.bench", "matplotlib"),  # extra "plot": only `ptosim bench --plot` draws
    ("ptosim.cli", "matplotlib"),  # the --plot option checks the extra before running
    ("ptosim.sweep", "dask"),  # extra "sweep": only a sweep on a cluster starts one
    ("ptosim.sweep", "pyarrow"),  # extra "sweep": only Parquet tables need it
    ("ptosim.cxx.sites", "elftools"),  # extra "cxx": DWARF call sites, when installed
}

# Layers from the bottom up: a module may import its own layer and the layers below, never a
# layer above. A module belongs to the first layer with a matching pattern (a pattern ending
# in ".*" matches the package and everything below it).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "foundations",
        (
            "ptosim.errors",
            "ptosim.enums",
            "ptosim.dtypes",
            "ptosim.hifloat8",
            "ptosim.nibbles",
            "ptosim.argcheck",
            "ptosim.cores",
            "ptosim.layout",
            "ptosim.memory",
            "ptosim.findings",
            "ptosim.recording",
            "ptosim.gcpause",
            "ptosim.plan",
            "ptosim.footprint",
            "ptosim.trace",
            "ptosim.config",
            "ptosim.config_files",
        ),
    ),  # fmt: skip
    ("target specs", ("ptosim.isa.spec",)),  # what a target declares; isa reads it
    ("data objects", ("ptosim.tensors",)),
    ("recording", ("ptosim.isa.base", "ptosim.program")),
    ("instructions", ("ptosim.isa", "ptosim.isa.*")),
    ("checks", ("ptosim.checks", "ptosim.checks.*")),
    ("engine", ("ptosim.engine", "ptosim.engine.*")),
    ("targets", ("ptosim.targets", "ptosim.targets.*")),
    ("outputs", ("ptosim.traffic", "ptosim.sources", "ptosim.summary", "ptosim.trace_io")),
    ("run", ("ptosim.untimed", "ptosim.session", "ptosim.run", "ptosim.device")),
    ("facade", ("ptosim.api",)),
    ("front ends", ("ptosim.cxx", "ptosim.cxx.*", "ptosim.kernelfile")),
    ("package", ("ptosim",)),
    (
        "tools",
        (
            "ptosim.sweep",
            "ptosim.bench_kernels",
            "ptosim.bench",
            "ptosim.bench_embedding",
            "ptosim.demo",
            "ptosim.sourcepatch",
            "ptosim.docgen",
            "ptosim.cli",
            "ptosim.__main__",
        ),
    ),  # fmt: skip
)
# Pairs inside one layer that must not import each other (a layer is not a free-for-all).
FORBIDDEN = (
    ("ptosim.engine", "ptosim.checks"),  # the engine schedules; the checker reads steps
    ("ptosim.checks", "ptosim.engine"),  # the checker reads facts that steps carry
    ("ptosim.targets", "ptosim.engine"),  # plans get the SIMT model through the context
)
# The engine never looks at opcodes: of the instruction layer it knows the base class only.
ENGINE_MAY_IMPORT_FROM_ISA = ("ptosim.isa.base",)


@dataclass(frozen=True)
class Import:
    importer: str
    target: str  # a module of the tree, or the top-level name of an outside package
    internal: bool
    local: bool  # inside a function
    line: int
    commented: bool  # a comment on its line or on the import/comment lines just above it


def modules(root: Path, packages=PACKAGES) -> dict[str, Path]:
    """Dotted module name -> source file, for every .py file under the package folders."""
    out: dict[str, Path] = {}
    for folder, package in packages:
        base = root / folder
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base).with_suffix("").parts
            if rel[-1] == "__init__":
                rel = rel[:-1]
            out[".".join((package, *rel))] = path
    return out


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    if not level:
        return module or ""
    parts = importer.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _why(line: str) -> bool:
    """The line carries a comment that says something (not only a ``noqa``)."""
    text = line.partition("#")[2].strip()
    return bool(text) and not text.startswith("noqa")


def _commented(lines: list[str], row: int) -> bool:
    """A comment on the import's line or on the import and comment lines right above it."""
    while row >= 0:
        line = lines[row].strip()
        if _why(line):
            return True
        if not line.startswith(("import ", "from ", "#")):
            return False
        row -= 1
    return False


def _function_nodes(tree: ast.AST) -> set[int]:
    """The nodes inside a function body (each node visited once, nested functions too)."""
    inside: set[int] = set()
    todo = [(tree, False)]
    while todo:
        node, in_function = todo.pop()
        if in_function:
            inside.add(id(node))
        below = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        todo.extend((child, below) for child in ast.iter_child_nodes(node))
    return inside


def imports(mods: dict[str, Path]) -> list[Import]:
    """Every import statement of every module, resolved to a module of ``mods`` (the nearest
    enclosing one: ``from .a import name`` is ``.a``) or to an outside top-level package."""
    out: list[Import] = []
    for name, path in mods.items():
        text = path.read_text()
        lines = text.splitlines()
        tree = ast.parse(text, str(path))
        local = _function_nodes(tree)
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, is_package, node.level, node.module)
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names
                ]
            else:
                continue
            commented = _commented(lines, node.lineno - 1)
            for target in targets:
                found = target
                while found and found not in mods:
                    found = found.rpartition(".")[0]
                internal = bool(found) and target.split(".")[0] == "ptosim"
                if internal and found == name:
                    continue  # `from . import x` inside x's own package __init__
                out.append(
                    Import(
                        name,
                        found if internal else target.split(".")[0],
                        internal,
                        id(node) in local,
                        node.lineno,
                        commented,
                    )
                )
    return out


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (or a self loop), each
    sorted; Tarjan's algorithm, iterative (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1 or node in edges.get(node, ()):
                    found.append(sorted(comp))
    return found


def graph(found: list[Import]) -> dict[str, set[str]]:
    """Importer -> imported modules. Importing ``a.b.c`` from outside package ``a.b`` first
    runs ``a.b``'s ``__init__``: that implicit edge counts too (a package whose ``__init__``
    imports its modules is then part of every cycle through them)."""
    edges: dict[str, set[str]] = {}
    for imp in found:
        edges.setdefault(imp.importer, set())
        if not imp.internal:
            continue
        edges[imp.importer].add(imp.target)
        parts = imp.target.split(".")
        for n in range(1, len(parts)):
            package = ".".join(parts[:n])
            if not _in(imp.importer, package):
                edges[imp.importer].add(package)
    return edges


def layer_of(module: str) -> int:
    for rank, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            if module == pattern or (pattern.endswith(".*") and module.startswith(pattern[:-1])):
                return rank
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


# -- the project -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def project() -> tuple[dict[str, Path], list[Import]]:
    """The modules and their imports, read once when a test here runs (not at collection, which
    every xdist worker does)."""
    mods = modules(ROOT)
    return mods, imports(mods)


def test_the_tree_is_read(project):
    MODS, IMPORTS = project
    """The walk finds both folders and their imports (an empty graph would pass anything)."""
    assert {"ptosim", "ptosim.program", "ptosim.targets", "ptosim.targets.a2a3"} <= set(MODS)
    assert len(IMPORTS) > 500
    assert any(i.importer == "ptosim.device" and i.target == "ptosim.run" for i in IMPORTS)


def test_no_import_cycle(project):
    MODS, IMPORTS = project
    found = cycles(graph(IMPORTS))
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_function_local_imports_only_for_heavy_optional_dependencies(project):
    MODS, IMPORTS = project
    bad = [
        f"{i.importer}:{i.line} imports {i.target}"
        for i in IMPORTS
        if i.local and (i.internal or (i.importer, i.target) not in LOCAL_IMPORTS_ALLOWED)
    ]
    assert not bad, "function-local imports (import at module level): " + "; ".join(bad)
    silent = [f"{i.importer}:{i.line}" for i in IMPORTS if i.local and not i.commented]
    assert not silent, "a function-local import needs a comment saying why: " + str(silent)


def test_layers_import_downward(project):
    MODS, IMPORTS = project
    bad = []
    for i in IMPORTS:
        if not i.internal:
            continue
        if layer_of(i.target) > layer_of(i.importer):
            bad.append(f"{i.importer}:{i.line} imports {i.target} (a layer above)")
        for low, high in FORBIDDEN:
            if _in(i.importer, low) and _in(i.target, high):
                bad.append(f"{i.importer}:{i.line} imports {i.target}")
        if (
            _in(i.importer, "ptosim.engine")
            and _in(i.target, "ptosim.isa")
            and i.target not in ENGINE_MAY_IMPORT_FROM_ISA
        ):
            bad.append(f"{i.importer}:{i.line} imports the instruction module {i.target}")
    assert not bad, "\n".join(dict.fromkeys(bad))


def test_every_module_has_a_layer(project):
    MODS, IMPORTS = project
    for name in MODS:
        layer_of(name)


# -- the graph code itself -------------------------------------------------------------------
def _tree(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    for rel, text in files.items():
        path = tmp_path / "ptosim" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return modules(tmp_path, (("ptosim", "ptosim"),))


def test_graph_code_finds_a_cycle_hidden_in_a_function(tmp_path):
    mods = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from .b import x\n",
            "b.py": "def f():\n    from . import a\n    import numpy\n",
            "c.py": "from . import a\n",
            "sub/__init__.py": "from .. import c\n",
        },
    )
    found = imports(mods)
    assert cycles(graph(found)) == [["ptosim.a", "ptosim.b"]]
    local = {(i.importer, i.target, i.internal) for i in found if i.local}
    assert local == {("ptosim.b", "ptosim.a", True), ("ptosim.b", "numpy", False)}
    assert not any(i.commented for i in found if i.local)


def test_graph_code_counts_the_package_init_an_import_runs(tmp_path):
    """``top`` imports ``sub.b``, which first runs ``sub/__init__``, which imports ``sub.a``,
    which imports ``top``: a cycle at import time, although no statement imports ``sub`` and
    ``sub.b`` imports nothing."""
    mods = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "top.py": "from .sub import b\n",
            "sub/__init__.py": "from . import a\n",
            "sub/a.py": "from .. import top\n",
            "sub/b.py": "",
        },
    )
    assert cycles(graph(imports(mods))) == [["ptosim.sub", "ptosim.sub.a", "ptosim.top"]]


@pytest.mark.parametrize(
    "edges, expected",
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"a"}}, [["a"]]),
        ({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, [["a", "b"], ["c", "d"]]),
    ],
)
def test_cycles_finds_every_strongly_connected_component(edges, expected):
    assert sorted(cycles(edges)) == expected


def test_layer_rules_reject_an_upward_import():
    assert layer_of("ptosim.program") < layer_of("ptosim.session")
    assert layer_of("ptosim.isa.vector.unary") == layer_of("ptosim.isa.data")
    with pytest.raises(AssertionError, match="no layer"):
        layer_of("ptosim.nowhere")
