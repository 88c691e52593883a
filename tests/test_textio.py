"""Text contracts: normalisation and restoration, fences, edit and body extraction."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from applyedit.errors import DecodeError, InputError
from applyedit.textio import decode_text, extract_body, extract_edit, fence_for, normalise, restore


@pytest.mark.parametrize(
    "raw",
    [
        "a\nb\n",  # plain LF
        "a\nb",  # no final newline
        "a\r\nb\r\n",  # CRLF
        "a\r\nb",  # CRLF, no final newline
        "\ufeffa\nb\n",  # BOM
        "\ufeffa\r\nb",  # BOM + CRLF + no final newline
        "",  # empty
        "\tx\n\t\ty\n",  # tabs
        "é = '中文'\n",  # unicode
    ],
)
def test_normalise_then_restore_is_identity(raw: str) -> None:
    """The model sees LF-only BOM-free text; restoring gives back the original bytes exactly."""
    text, style = normalise(raw)
    assert "\r" not in text and not text.startswith("\ufeff")
    # The model always ends a non-empty file with a newline; restore must undo that when needed.
    model_output = text if text.endswith("\n") or not text else text + "\n"
    assert restore(model_output, style) == raw


def test_mixed_line_endings_keep_each_line_own() -> None:
    """Mixed endings: every unchanged line keeps its own ending; new and changed lines take the
    majority's; lines moved by an insertion keep theirs."""
    raw = "a\r\nb\r\nc\nd\r\ne\n"
    text, style = normalise(raw)
    assert style.newline == "\r\n" and style.endings == ("\r\n", "\r\n", "\n", "\r\n", "\n")
    assert restore(text, style, text) == raw
    assert restore(text.replace("c\n", "C\n"), style, text) == "a\r\nb\r\nC\r\nd\r\ne\n"
    assert restore("new\n" + text, style, text) == "new\r\n" + raw
    assert restore(text.replace("b\n", ""), style, text) == "a\r\nc\nd\r\ne\n"
    text, style = normalise("a\nb\r\nc")  # no final newline: the last line has none to keep
    assert restore(text + "\n", style, text) == "a\nb\r\nc"


def test_binary_and_bad_utf8_are_clear_errors() -> None:
    """NUL bytes and invalid UTF-8 are refused with a message naming the problem."""
    with pytest.raises(InputError, match="binary"):
        decode_text(b"ab\x00cd", "f.bin")
    with pytest.raises(InputError, match="not valid utf-8.*--encoding"):
        decode_text(b"caf\xe9\n", "f.py")


@pytest.mark.parametrize(
    "texts, fence",
    [
        (("x = 1\n",), "```"),  # no backticks: the standard fence
        (("s = '``'\n",), "```"),  # a run of two still needs only three
        (("```python\ncode\n```\n",), "````"),  # a Markdown file with fences gets a longer one
        (("a\n", "use ````` here"), "``````"),  # the edit's runs count too
    ],
)
def test_fence_is_longer_than_any_backtick_run(texts: tuple[str, ...], fence: str) -> None:
    """The fence is one backtick longer than the longest run in the file and the edit (min 3)."""
    assert fence_for(*texts) == fence


def test_snippet_from_chat_reply_takes_the_block() -> None:
    """An update snippet pasted with its chat fence and prose around it becomes the block's body."""
    reply = "Here is the change:\n\n```python\n# ... existing code ...\ndef f():\n    return 2\n```\n\nDone.\n"
    assert extract_edit(reply) == "# ... existing code ...\ndef f():\n    return 2\n"


def test_instruction_with_a_code_block_keeps_its_prose() -> None:
    """An instruction holding a code block (no lazy markers) is kept whole: the prose is the edit."""
    edit = "Write this module into the empty file:\n\n```python\nx = 1\n```\n"
    assert extract_edit(edit) == edit


def test_bare_fenced_edit_is_unwrapped() -> None:
    """An edit that is nothing but one fenced block loses its fence."""
    assert extract_edit("```python\ndef f():\n    return 2\n```\n") == "def f():\n    return 2\n"


def test_edit_without_fence_is_kept_and_crlf_normalised() -> None:
    """A plain edit is kept as is (LF-only, one final newline)."""
    assert extract_edit("Rename x to y.\r\n\r\n") == "Rename x to y.\n"


def test_markdown_edit_with_inner_fences_is_not_unwrapped() -> None:
    """For Markdown files, an edit with prose and an inner code block is the edit itself."""
    edit = "## Usage\n\n```sh\nmake\n```\n\nMore text.\n"
    assert extract_edit(edit, "markdown") == edit


@pytest.mark.parametrize("edit", ["", "   \n\n", "```\n\n```\n"])
def test_empty_edit_is_an_error(edit: str) -> None:
    """An empty or whitespace-only edit is refused."""
    with pytest.raises(InputError, match="empty"):
        extract_edit(edit)


@pytest.mark.parametrize(
    "output, body",
    [
        ("a\nb\n```\n", "a\nb\n"),  # closing fence line ends the body
        ("a\nb\n```", "a\nb\n"),  # closing fence at the very end (EOS right after)
        ("```\n", ""),  # empty file
        ("x = '```'\n```\n", "x = '```'\n"),  # a fence inside a line is not a closing line
        ("a\n````\nb\n```\n", "a\n````\nb\n"),  # a longer run is not the fence
    ],
)
def test_extract_body(output: str, body: str) -> None:
    """The body is everything before the first line that is exactly the fence."""
    assert extract_body(output, "```") == body


@pytest.mark.parametrize(
    ("output", "ended", "original", "body"),
    [
        ("a\n```\nb\n```", True, "", "a\n```\nb\n"),  # ```` opened, ``` closed, then end of turn
        ("a\n```\nb\n```\n\n", True, "", "a\n```\nb\n"),
        ("a\n```\nb\n~~~", True, "", None),  # another fence character
        ("a\n```\nb\n```", False, "", None),  # cut by the budget: a shorter fence may be the file's own
        ("a\n```\nb\n", True, "", None),  # the file's own fence, then more lines: not a close
        ("x\n```\n", True, "x\n```\ny\n```\n", None),  # could be the original's 1st of 2 ```: cut short
        ("x\n```\ny\n```\n", True, "x\n```\n", "x\n```\ny\n"),  # the original's one ```, then the close
    ],
)
def test_shorter_closing_fence_at_end_of_turn(output: str, ended: bool, original: str, body: str | None) -> None:
    if body is None:
        with pytest.raises(DecodeError, match="cut short"):
            extract_body(output, "````", ended, original)
    else:
        assert extract_body(output, "````", ended, original) == body


def test_unclosed_block_is_an_error() -> None:
    """Output without the closing fence (budget hit) is never taken as a file."""
    with pytest.raises(DecodeError, match="cut short"):
        extract_body("a\nb\n", "```")


def test_property_a_cut_output_is_never_taken_as_complete() -> None:
    """Any output cut before its closing fence line (by the budget or by an end of turn) is refused
    or, at most, gives back the whole body: never a shorter file passed off as complete. A minimum
    share of the cuts must be taken (reach the check on the body), not refused."""
    reached = {"all": 0, "taken": 0}

    @settings(derandomize=True, deadline=None, max_examples=300)
    @given(
        lines=st.lists(st.sampled_from(["x = 1", "", "```", "``", "````", "~~~", "  ```py", "é"]), max_size=8),
        data=st.data(),
    )
    def check(lines: list[str], data: st.DataObject) -> None:
        if data.draw(st.booleans()):  # half the files hold a fence line of their own: a longer fence opens
            lines.insert(data.draw(st.integers(0, len(lines))), "```")
        body = "".join(line + "\n" for line in lines)
        fence = fence_for(body)
        output = body + fence + "\n"
        # Many cuts land inside the closing fence, where a cut output is closest to complete; some
        # right after its first three characters (a model closing ```` with ```).
        end = len(body) + len(fence) - 1
        cut = data.draw(st.one_of(st.integers(0, end), st.integers(len(body), end), st.just(min(end, len(body) + 3))))
        ended = data.draw(st.booleans())
        reached["all"] += 1
        try:
            got = extract_body(output[:cut], fence, ended=ended, original=body)
        except DecodeError:
            return
        reached["taken"] += 1
        assert got == body

    check()
    assert reached["all"] >= 250 and reached["taken"] >= 0.1 * reached["all"], reached
