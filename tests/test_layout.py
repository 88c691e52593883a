"""The package's layers: every module of applyedit/ stands on one layer (LAYERS, lowest first), imports
go to the same layer or a lower one and never round in a cycle, and nothing below the server imports the
CLI, the server or the tools, in any form. Read from the source (the AST): nothing is imported.

Which imports count:
- A module-level import (at load time; inside a module-level `try` too) must go to the same layer or
  a lower one.
- A function-level ("lazy") import runs when the function does: it too must go to the same layer or a
  lower one.
- An import under `if TYPE_CHECKING:` never runs (annotations only), yet a name a module's types use is
  one it depends on: it too must go to the same layer or a lower one (so the plain data every layer
  names, a decode's `Step` and `DecodeResult`, stands low: decoded.py).
- No imports of any kind round in a cycle (where two modules need each other's types, one states the
  contract it needs as a Protocol: costmodel's `Timed`, the registry's `Choices`).
- Importing `applyedit.a.b` loads the package `applyedit.a` first: a package's `__init__` may import
  at load time only what stands no higher than the lowest of its own modules.
- `models/base.py`'s `BACKENDS` names its classes as "module:Class" strings (each `BackendEntry`'s),
  imported by name when a backend runs; those modules are the models package's (checked here too).
"""

from __future__ import annotations

import ast
import fnmatch
from pathlib import Path

PACKAGE = Path(__file__).parent.parent / "applyedit"

# layer -> its rooms (modules under applyedit., "" the package itself; "x.*" every module of package x),
# lowest first
LAYERS: dict[str, list[str]] = {
    # text in, text out: errors, files, the user's config, languages, markers, reading and diffing text,
    # tree-sitter, the prompts, the invariants every answer meets, a decode's plain records
    "base": [
        "errors",
        "files",
        "userconfig",
        "languages",
        "markers",
        "linediff",
        "textio",
        "diff",
        "syntax",
        "imports",
        "prompts",
        "invariants",
        "defcheck",
        "decoded",
        "interrupt",
        "formats",
        "formats.*",
        "outline",
    ],
    "merge": ["merge", "merge.*"],  # the update snippet read against the original
    # the model seam and what loads weights: backends, kernels, the model store, the cost curve, the
    # prompt cache (the torch and llama.cpp backends snapshot into it)
    "models": [
        "models",
        "models.base",
        "models.costmodel",
        "models.device",
        "models.tokens",
        "models.vocab",
        "models.ggufvocab",
        "models.prefill",
        "models.kernels",
        "models.modelstore",
        "models.hub",
        "models.torchmodel",
        "models.llamacpp",
        "models.promptcache",
    ],
    # the speculative loop, proposers, K policies, sampling, the anchor, the tie-break (not the registry: it
    # builds them for a run, from the run's job and options)
    "speculative": [
        "speculative",
        "speculative.loop",
        "speculative.proposers",
        "speculative.policy",
        "speculative.logits",
        "speculative.sampling",
        "speculative.draftmodel",
        "speculative.anchor",
        "speculative.runwatch",
        "speculative.tiebreak",
    ],
    "report": ["report", "report.*"],  # regions, spans, statistics, the report
    # what composes the models with the layers above them: vLLM runs speculative/'s copy proposer and K
    # policy as its drafter
    "engine": ["models.engine", "models.vllmdraft", "models.vllmengine"],
    # one run end to end: its settings (checked against the registry's and the backends' names), its plain
    # data (the job, the result), the registry that builds its drafting from the engine, the options and
    # the job, the checks, the decision, the outcome, and the public API
    "run": [
        "",
        "options",
        "result",
        "speculative.registry",
        "checks",
        "refusal",
        "decision",
        "outcome",
        "blockread",
        "api",
    ],
    "serve": ["serve", "serve.*"],  # `applyedit serve` and `--server`'s client
    "tools": ["tools", "tools.*"],  # the measuring tools
    "cli": ["cli", "cli.*", "__main__"],  # the command line
}
ORDER = list(LAYERS)
EDGES = ("cli", "serve", "tools")  # what the lower layers never import, in any form


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["applyedit", *parts])


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def layer_of(name: str) -> str:
    room = name.removeprefix("applyedit").removeprefix(".")
    found = [layer for layer, rooms in LAYERS.items() for r in rooms if r == room or fnmatch.fnmatchcase(room, r)]
    assert len(found) == 1, f"{name} stands on {len(found)} layers of LAYERS ({found}), not one"
    return found[0]


def rank(name: str) -> int:
    return ORDER.index(layer_of(name))


class Imports(ast.NodeVisitor):
    """Every import of an applyedit module in one file: (target, line, kind), kind "load", "lazy" or
    "typing" (under `if TYPE_CHECKING:`)."""

    def __init__(self, name: str) -> None:
        self.name, self.found, self.kind = name, [], "load"

    def within(self, node: ast.AST, kind: str) -> None:
        outer, self.kind = self.kind, kind if self.kind == "load" or kind == "typing" else self.kind
        self.generic_visit(node)
        self.kind = outer

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.within(node, "lazy")

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.within(node, "lazy")

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" not in ast.unparse(node.test):
            self.generic_visit(node)
            return
        outer = self.kind
        for child in node.body:
            self.kind = "typing"
            self.visit(child)
        self.kind = outer
        for child in node.orelse:
            self.visit(child)

    def add(self, target: str, node: ast.stmt) -> None:
        if target.split(".")[0] == "applyedit":
            self.found.append((target, node.lineno, self.kind))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            here = self.name.split(".")
            if not is_package(self.name):
                here.pop()
            base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            self.add(sub if sub in MODULES else base, node)


def imports(name: str) -> list[tuple[str, int, str]]:
    visitor = Imports(name)
    visitor.visit(ast.parse(MODULES[name].read_text(), str(MODULES[name])))
    for target, line, _ in visitor.found:
        assert target in MODULES, f"{name}:{line} imports {target}, which is no module of applyedit/"
    return visitor.found


GRAPH = {name: imports(name) for name in MODULES}


def test_every_module_stands_on_one_layer() -> None:
    for name in MODULES:
        layer_of(name)


def test_imports_never_go_up() -> None:
    """Load-time, lazy and type-only imports go to the same layer or a lower one."""
    how = {"load": "", "lazy": " lazily", "typing": " for type checking"}
    up = [
        f"{name}:{line} ({layer_of(name)}) imports {target} ({layer_of(target)}){how[kind]}"
        for name, found in GRAPH.items()
        for target, line, kind in found
        if rank(target) > rank(name)
    ]
    assert not up, "\n".join(up)


def first_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """A cycle of `graph` (module -> the modules it imports), as the path that closes it; None if none."""
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> list[str] | None:
        state[name] = "open"
        for target in graph[name]:
            if state.get(target) == "open":
                return path[path.index(target) :] + [target]
            if target not in state and (found := visit(target, [*path, target])):
                return found
        state[name] = "done"
        return None

    for name in sorted(graph):
        if name not in state and (found := visit(name, [name])):
            return found
    return None


def test_imports_have_no_cycle() -> None:
    """No cycle of imports of any kind: load-time, lazy and type-only (a cycle of lazy or type-only imports
    loads, but two modules that each need the other are one module, or a contract missing between them)."""
    graph = {name: sorted({t for t, _, _ in found if t != name}) for name, found in GRAPH.items()}
    cycle = first_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_check_finds_a_cycle_of_any_kind() -> None:
    """The check itself, on the real graph with one import added back: `models.costmodel` naming
    `TargetModel` for type checking (as it did before `Timed`) closes a cycle with `models.base`."""
    graph = {name: sorted({t for t, _, _ in found if t != name}) for name, found in GRAPH.items()}
    assert "applyedit.models.costmodel" in graph["applyedit.models.base"]
    graph["applyedit.models.costmodel"] = [*graph["applyedit.models.costmodel"], "applyedit.models.base"]
    assert first_cycle(graph) in (
        ["applyedit.models.base", "applyedit.models.costmodel", "applyedit.models.base"],
        ["applyedit.models.costmodel", "applyedit.models.base", "applyedit.models.costmodel"],
    )


def test_a_package_loads_nothing_higher_than_its_modules() -> None:
    """Importing any module of a package runs the package's `__init__` first."""
    for package in (name for name in MODULES if is_package(name)):
        members = [name for name in MODULES if name.startswith(package + ".")]
        if not members:
            continue
        floor = min(rank(name) for name in members)
        high = [t for t, _, kind in GRAPH[package] if kind == "load" and rank(t) > floor]
        assert not high, f"{package}/__init__.py loads {high}, above its lowest module's layer ({ORDER[floor]})"


def test_nothing_below_the_server_imports_the_cli_the_server_or_the_tools() -> None:
    """Not at load time, not lazily, not for type checking: speculative/, merge/, report/, models/ and the
    run below them know nothing of cli/, serve/, tools/."""
    edges = [f"applyedit.{package}" for package in EDGES]
    below = [name for name in MODULES if rank(name) < ORDER.index("serve")]
    assert {layer_of(f"applyedit.{p}") for p in ("speculative", "merge", "report", "models")} <= {
        layer_of(n) for n in below
    }
    wrong = [
        f"{name}:{line} imports {target}"
        for name in below
        for target, line, _ in GRAPH[name]
        if any(target == edge or target.startswith(edge + ".") for edge in edges)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_backends_table_names_modules_of_the_models_package() -> None:
    """`BACKENDS`'s "module:Class" strings are imports the AST does not see: each names a module of
    models/ (so a backend never loads the CLI, the server or the tools)."""
    tree = ast.parse((PACKAGE / "models" / "base.py").read_text())
    table = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "BACKENDS"
    )
    assert isinstance(table, ast.Dict) and table.values
    for value in table.values:
        assert isinstance(value, ast.Call) and ast.unparse(value.func) == "BackendEntry", ast.unparse(value)
        named = value.args[0] if value.args else next(k.value for k in value.keywords if k.arg == "cls")
        assert isinstance(named, ast.Constant) and isinstance(named.value, str), ast.unparse(value)
        module = named.value.split(":")[0]
        assert module in MODULES and module.startswith("applyedit.models."), module


def test_the_layer_test_sees_imports() -> None:
    """The walk itself: each kind of import is found and classified (this test can fail)."""
    kinds = {kind for found in GRAPH.values() for _, _, kind in found}
    assert kinds == {"load", "lazy", "typing"}
    # api imports the loop at load time; the registry builds the copy proposer lazily; registry.py
    # names MergeResult for type checking only
    assert ("applyedit.speculative.loop", "load") in {(t, k) for t, _, k in GRAPH["applyedit.api"]}
    assert ("applyedit.speculative.proposers", "lazy") in {
        (t, k) for t, _, k in GRAPH["applyedit.speculative.registry"]
    }
    assert ("applyedit.merge", "typing") in {(t, k) for t, _, k in GRAPH["applyedit.speculative.registry"]}


def test_the_decode_layer_reaches_models_only_through_the_seam() -> None:
    """speculative/'s modules (the registry aside: it builds drafting for a run, on the run layer) import
    from models/ only the seam (`models/base.py`) and the cost curve, in any form: never a backend."""
    allowed = {"applyedit.models", "applyedit.models.base", "applyedit.models.costmodel"}
    decode = [name for name in GRAPH if layer_of(name) == "speculative"]
    assert "applyedit.speculative.loop" in decode and "applyedit.speculative.draftmodel" in decode
    found = [
        f"{name}:{line} imports {target}"
        for name in decode
        for target, line, _ in GRAPH[name]
        if target.startswith("applyedit.models") and target not in allowed
    ]
    assert not found, "\n".join(found)


# The size budget: growth splits a module or a function before it piles up.
MOST_LINES = 600  # lines of one module
MOST_FUNCTION_LINES = 80  # lines of one function or method, its docstring included


def oversized(source: str) -> list[str]:
    """What `source` holds past the size budget: its line count past `MOST_LINES`, and each function or
    method past `MOST_FUNCTION_LINES` (its name and length)."""
    found = []
    lines = source.count("\n")
    if lines > MOST_LINES:
        found.append(f"{lines} lines")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
            length = node.end_lineno - node.lineno + 1
            if length > MOST_FUNCTION_LINES:
                found.append(f"{node.name}: {length} lines")
    return found


def test_every_module_and_function_stays_within_the_size_budget() -> None:
    over = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if (found := oversized(path.read_text(encoding="utf-8")))
    }
    assert over == {}, f"past the size budget ({MOST_LINES} lines a module, {MOST_FUNCTION_LINES} a function): {over}"


def test_the_size_budget_catches_a_long_module_and_a_long_function() -> None:
    long_function = "def f():\n" + "    x = 1\n" * MOST_FUNCTION_LINES + "    return x\n"
    assert oversized(long_function) == [f"f: {MOST_FUNCTION_LINES + 2} lines"]
    long_method = "class C:\n    def m(self):\n" + "        x = 1\n" * MOST_FUNCTION_LINES + "        return x\n"
    assert oversized(long_method) == [f"m: {MOST_FUNCTION_LINES + 2} lines"]
    assert oversized("x = 1\n" * (MOST_LINES + 1)) == [f"{MOST_LINES + 1} lines"]
    assert oversized("x = 1\n" * MOST_LINES + "def g():\n" + "    x = 1\n" * (MOST_FUNCTION_LINES - 1)) == [
        f"{MOST_LINES + MOST_FUNCTION_LINES} lines"
    ]

