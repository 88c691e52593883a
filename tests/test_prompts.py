"""Prompt templates: strict rendering, edit kinds, and the pre-filled opening fence."""

from __future__ import annotations

from typing import Any

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


@pytest.mark.parametrize(
    "edit",
    ["# ... existing code ...\ny = 3\n# ... existing code ...\n", "rename y to z; Instruction: keep ``x``"],
)
def test_user_pattern_finds_the_file_and_the_edit(edit: str) -> None:
    """The reverse of rendering: the pattern read from the template finds exactly the file and the
    edit in a rendered message, backtick runs shorter than the fence inside them included."""
    source = "x = 1\ns = '``'\ny = 2\n"
    prompt = prompts.build("pkg/m.py", "python", source, edit, "````")
    found = prompts.user_pattern(prompt.kind).search(prompt.user.encode())
    assert found is not None and found.span() == (0, len(prompt.user.encode()))
    assert found.group("fence") == b"````"
    assert found.group("source").decode() == source
    assert found.group("edit").decode() == edit


def test_user_pattern_follows_a_changed_template(reworded_template: Any) -> None:
    """A changed template changes the pattern: nothing about the template is written twice."""
    reworded_template(
        "instruction.user",
        "Please edit $path.\n$fence$language\n$source$fence\nWhat to do ($$): $edit\nAnswer in $fence$language.\n",
    )
    prompt = prompts.build("m.py", "python", "a = 1\n", "set a to 2", "```")
    found = prompts.user_pattern("instruction").search(prompt.user.encode())
    assert found is not None
    assert (found.group("source"), found.group("edit")) == (b"a = 1\n", b"set a to 2")
