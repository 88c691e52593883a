"""The docs against the repository: CI runs the README's own commands, every path the docs name exists,
and the module map in docs/architecture.md names every module of `applyedit/` and no other."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def section_commands(text: str, heading: str) -> list[str]:
    """The lines of the ```sh blocks under the `## heading` section (up to the next `## `)."""
    section = text.split(f"\n## {heading}", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_ci_runs_the_readme_setup_and_test_commands_as_written() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    setup, test = section_commands(readme, "Setup"), section_commands(readme, "Test")
    assert setup and test
    for line in setup + test:
        assert line in ci, f".ci/run does not run the README's command {line!r}"


def test_every_path_the_docs_name_exists() -> None:
    pattern = re.compile(r"(?<![\w./-])((?:applyedit|docs|fixtures|corpus|tests|prompts)/[\w./-]*)")
    missing = [
        f"{doc.name}: {path}"
        for doc in DOCS
        for path in sorted({m.rstrip(".") for m in pattern.findall(doc.read_text())})
        if not (ROOT / path).exists()
    ]
    assert not missing, missing


def mapped_modules(text: str) -> set[str]:
    """Module paths from the tree in the layers section: `name.py` lines, under `applyedit/` or a
    sub-package line (`models/`), by indentation."""
    tree = text.split("## The layers", 1)[1].split("```", 2)[1]
    found, package, package_indent = set(), "", -1
    for line in tree.splitlines():
        indent = len(line) - len(line.lstrip())
        name = line.split()[0] if line.strip() else ""
        if name.endswith("/") and indent > 0:
            package, package_indent = name, indent
        elif name.endswith(".py"):
            found.add(f"{package if indent > package_indent >= 0 else ''}{name}")
            if indent <= package_indent:
                package, package_indent = "", -1
    return found


def test_the_architecture_map_names_every_module() -> None:
    mapped = mapped_modules((ROOT / "docs" / "architecture.md").read_text())
    actual = {
        str(p.relative_to(ROOT / "applyedit"))
        for p in (ROOT / "applyedit").rglob("*.py")
        if p.name not in ("__init__.py", "__main__.py")
    }
    assert mapped - actual == set(), "docs/architecture.md names modules that do not exist"
    assert actual - mapped == set(), "modules missing from docs/architecture.md's map"
