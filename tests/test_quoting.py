"""A refusal that quotes a line of the user's input quotes a short piece of it (errors.quoted): a snippet
line of 1 MiB made a 1 MiB message, on stderr and in a server's 400."""

from __future__ import annotations

from pathlib import Path

import pytest

from applyedit import api
from applyedit.errors import QUOTE_CHARS, AmbiguousEditError, quoted

LONG = "x = '" + "a" * (1 << 20) + "'"  # one line of 1 MiB and 6 characters
SOURCE = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(10))


def test_a_short_line_is_quoted_whole_and_a_long_one_cut() -> None:
    assert quoted("    return x + 1\n") == repr("return x + 1")
    exact = "y" * QUOTE_CHARS
    assert quoted(exact) == repr(exact)  # no ellipsis for what fits
    cut = quoted("  " + LONG, 12)
    assert cut == f"{LONG[:QUOTE_CHARS]!r}… (line 12, {len(LONG):,} characters)"
    assert quoted(LONG) == f"{LONG[:QUOTE_CHARS]!r}… ({len(LONG):,} characters)"


@pytest.mark.parametrize(
    "source, edit",
    [
        # a new line with no context: the context reader quotes the segment's first line
        (SOURCE, f"# ... existing code ...\n{LONG}\n"),
        # a context line at two places: the segment's first line, and the readings' first lines there
        (
            SOURCE + LONG + "\n\n\n" + SOURCE.replace("def f", "def g") + LONG + "\n",
            f"# ... existing code ...\n{LONG}\nz = 1\n# ... existing code ...\n",
        ),
    ],
)
def test_a_refusal_quotes_a_long_line_short(tmp_path: Path, source: str, edit: str) -> None:
    (tmp_path / "a.py").write_text(source)
    with pytest.raises(AmbiguousEditError) as refused:
        api.apply(tmp_path / "a.py", edit, cwd=tmp_path)
    message = str(refused.value)
    assert len(message) < 1000 and "a" * (QUOTE_CHARS + 1) not in message, len(message)
    assert f"… ({len(LONG):,} characters)" in message
