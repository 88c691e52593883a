"""One table of the languages applyedit knows: per language its file extensions, the tree-sitter
grammar that parses it (syntax.py), the comment forms its lazy markers are written in (markers.py),
and the other names people give it (`--language ts`).

A language missing here still works: it is named after the file's extension, and the checks that
need a grammar or comment forms stand aside. Knows nothing of how the table is used.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    name: str  # as the prompt and the code fence name it
    extensions: tuple[str, ...] = ()
    grammar: tuple[str, str] | None = None  # tree-sitter: (module, function returning the grammar); pinned in pyproject
    comments: frozenset[str] = frozenset()  # the comment forms of its lazy markers; empty: not checked
    aliases: tuple[str, ...] = ()


_C_LIKE = frozenset({"//", "/*"})
_JS = _C_LIKE | {"{/*"}
_HASH = frozenset({"#"})

TABLE: tuple[Language, ...] = (
    Language("python", (".py", ".pyi"), ("tree_sitter_python", "language"), _HASH, ("py",)),
    Language("javascript", (".js", ".mjs", ".cjs", ".jsx"), ("tree_sitter_javascript", "language"), _JS, ("js", "jsx")),
    Language("typescript", (".ts", ".tsx"), ("tree_sitter_typescript", "language_typescript"), _JS, ("ts",)),
    # TSX is TypeScript to the prompt; syntax.py picks this grammar for a .tsx path.
    Language("tsx", (), ("tree_sitter_typescript", "language_tsx")),
    Language("go", (".go",), ("tree_sitter_go", "language"), _C_LIKE, ("golang",)),
    Language("rust", (".rs",), ("tree_sitter_rust", "language"), _C_LIKE, ("rs",)),
    Language("java", (".java",), ("tree_sitter_java", "language"), _C_LIKE),
    Language("c", (".c", ".h"), ("tree_sitter_c", "language"), _C_LIKE),
    Language("cpp", (".cc", ".cpp", ".cxx", ".hpp", ".hh"), ("tree_sitter_cpp", "language"), _C_LIKE, ("c++",)),
    Language("csharp", (".cs",), ("tree_sitter_c_sharp", "language"), _C_LIKE, ("cs", "c#")),
    Language("ruby", (".rb",), ("tree_sitter_ruby", "language"), _HASH, ("rb",)),
    Language("php", (".php",), None, _C_LIKE | {"#"}),
    Language("kotlin", (".kt",), None, _C_LIKE),
    Language("swift", (".swift",), None, _C_LIKE),
    Language("scala", (".scala",), None, _C_LIKE),
    Language("bash", (".sh", ".bash"), ("tree_sitter_bash", "language"), _HASH, ("sh", "shell")),
    Language("lua", (".lua",), None, frozenset({"--"})),
    Language("sql", (".sql",), None, frozenset({"--", "/*"})),
    Language("markdown", (".md",), ("tree_sitter_markdown", "language"), aliases=("md",)),
    Language("html", (".html",), ("tree_sitter_html", "language"), frozenset({"<!--"})),
    Language("css", (".css",), ("tree_sitter_css", "language"), frozenset({"/*"})),
    Language("json", (".json",), ("tree_sitter_json", "language")),
    Language("yaml", (".yaml", ".yml"), ("tree_sitter_yaml", "language"), _HASH, ("yml",)),
    Language("toml", (".toml",), ("tree_sitter_toml", "language"), _HASH),
)

BY_NAME = {lang.name: lang for lang in TABLE}
BY_EXTENSION = {ext: lang.name for lang in TABLE for ext in lang.extensions}  # ".py" -> "python"
ALIASES = {alias: lang.name for lang in TABLE for alias in lang.aliases}  # "ts" -> "typescript"
GRAMMARS = {lang.name: lang.grammar for lang in TABLE if lang.grammar is not None}
COMMENT_FORMS = {lang.name: lang.comments for lang in TABLE if lang.comments}
