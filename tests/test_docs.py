"""The docs against the repository: CI runs the README's own commands (and docs/vllm.md's), the README
stays a first page, every path and section the docs name exists, and the module map in
docs/architecture.md names every module of `applyedit/` and no other."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def section_commands(text: str, heading: str) -> list[str]:
    """The lines of the ```sh blocks under the `## heading` section (up to the next `## `), each without
    its trailing `# comment`."""
    section = text.split(f"\n## {heading}", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [line.split("  #", 1)[0].rstrip() for block in blocks for line in block.splitlines() if line.strip()]


def readme_blocks(text: str) -> list[list[str]]:
    """The README's ```sh blocks, each as its non-blank lines."""
    return [[line for line in b.splitlines() if line.strip()] for b in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_ci_runs_the_readme_setup_and_test_commands_as_written() -> None:
    """The README's development block is two lines, the setup (test extra, torch's copies) and the test
    command, and `.ci/run` runs both exactly as written there."""
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    development = [block for block in readme_blocks(readme) if any("[model,test," in line for line in block)]
    assert len(development) == 1, development
    setup, test = development[0]
    assert "pip install" in setup and "model prepare --backend torch" in setup, setup
    assert "pytest" in test and "mypy" in test, test
    for line in (setup, test):
        assert line in ci, f".ci/run does not run the README's command {line!r}"


def test_ci_runs_the_vllm_tier_as_its_page_installs_and_tests_it() -> None:
    vllm = (ROOT / "docs" / "vllm.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    commands = section_commands(vllm, "Install") + section_commands(vllm, "Tests")
    assert len(commands) == 5, commands
    for line in commands:
        assert line in ci, f".ci/run does not run docs/vllm.md's command {line!r}"


def test_the_readme_is_a_first_page() -> None:
    """Issue 62: at most 150 lines; the first 40 say what it does and hold the install for use, the
    development setup, the test command and a first run on a fixture; every other page is one link away."""
    readme = (ROOT / "README.md").read_text()
    lines = readme.splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines"
    first = "\n".join(lines[:40])
    use = next(block for block in readme_blocks(readme) if any("'.[model,llamacpp]'" in line for line in block))
    setup, test = next(block for block in readme_blocks(readme) if any("[model,test," in line for line in block))
    for line in (*use, setup, test):
        assert line in first, f"not in the README's first 40 lines: {line!r}"
    assert "applyedit model prepare" in "\n".join(use)
    run = re.search(r"^\$ cd (fixtures/\w+) && applyedit (\S+) --edit (\S+)", first, re.M)
    assert run, "no first run in the README's first 40 lines"
    assert (ROOT / run[1] / run[2]).is_file() and (ROOT / run[1] / run[3]).is_file()
    for page in ("usage", "serve", "vllm", "scale-out", "benchmarks", "architecture"):
        assert f"](docs/{page}.md" in readme, f"the README does not link docs/{page}.md"


def test_every_link_to_a_section_names_a_heading() -> None:
    """A `](docs/PAGE.md#anchor)` link in the docs names a heading of that page (GitHub's anchors)."""

    def anchor(heading: str) -> str:
        return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")

    broken = []
    for doc in DOCS:
        for page, name in re.findall(r"\]\((docs/[\w./-]+\.md)#([\w-]+)\)", doc.read_text()):
            headings = re.findall(r"^#+ (.+)$", (ROOT / page).read_text(), re.M)
            if name not in {anchor(h) for h in headings}:
                broken.append(f"{doc.name}: {page}#{name}")
    assert not broken, broken


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
