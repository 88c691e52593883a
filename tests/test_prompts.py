"""Prompt templates: strict rendering, edit kinds, and the pre-filled opening fence."""

from __future__ import annotations

import pytest

from applyedit import prompts


def test_render_refuses_missing_and_unused_placeholders() -> None:
    """A missing or an unknown placeholder is an error naming it."""
    with pytest.raises(KeyError, match="missing.*'source'"):
        prompts.render("instruction.user", path="f.py", language="python", fence="```", edit="x\n")
    with pytest.raises(KeyError, match="unused.*'bogus'"):
        prompts.render(
            "instruction.user", path="f.py", language="python", fence="```", edit="x\n", source="y\n", bogus="z"
        )


@pytest.mark.parametrize(
    "edit, kind",
    [
        ("# ... existing code ...\ndef f():\n    return 2\n", "snippet"),  # a lazy marker
        ("// ... rest of file ...\nfunc f() {}\n", "snippet"),  # another comment form
        ("Rename f to g everywhere.\n", "instruction"),  # prose
        ("def f():\n    ...\n", "instruction"),  # a bare Python `...` is not a marker
    ],
)
def test_edit_kind(edit: str, kind: str) -> None:
    """Edits with lazy-marker lines are update snippets; everything else is an instruction."""
    assert prompts.edit_kind(edit) == kind


def test_build_puts_the_file_in_a_fence_and_prefills_the_reply() -> None:
    """The file sits in the chosen fence, and the reply starts with the opening fence line."""
    p = prompts.build("src/f.py", "python", "x = 1\n", "Change x to 2.\n", "````")
    assert "````python\nx = 1\n````" in p.user
    assert "src/f.py" in p.user and "Change x to 2." in p.user
    assert p.assistant_prefix == "````python\n"
    assert p.kind == "instruction"
