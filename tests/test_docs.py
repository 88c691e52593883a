"""The docs against the repository: CI runs the README's own commands, and every path the docs name
exists."""

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

