"""Lazy markers: the comment lines of an update snippet that stand for code left out
(`// ... existing code ...`, `# ...`), and whether a snippet's markers are written in the comment
forms of the file's language; and the lines that belong to the code right below them (`attached`:
decorators, annotations, attributes, comments), which the snippet readers keep with that code.

The one definition of a marker, used by the merge, the prompt's choice of template, the edit's
extraction and the output checks. Pure text; knows nothing of merging or models.
"""

from __future__ import annotations

import re

from applyedit.languages import COMMENT_FORMS

__all__ = ["attached", "foreign_markers", "is_marker"]

_COMMENT = re.compile(  # a comment-only line; the group that matched holds the comment's text
    r"\s*(?:(?:#|//|--|;)+(.*?)|/\*+(.*?)\*+/|\{\s*/\*+(.*?)\*+/\s*\}|<!--(.*?)-->)\s*"
)
_NOUN = (
    r"(?:code|file|methods?|functions?|imports?|lines?|class(?:es)?|module|implementation|content"
    r"|body|fields?|properties|logic|tests?|definitions?|statements?|config(?:uration)?|styles?"
    r"|rules?|elements?|markup|html|setup|cases?|handlers?|routes?|components?|declarations?)"
)
_PHRASE = (
    rf"(?:(?:the )?(?:existing|previous|remaining|other|unchanged|same|original) {_NOUN}"
    r"|(?:the )?rest(?: of(?: the)? \w+)?|unchanged|keep(?:ing)? existing(?: \w+)?|no changes?"
    r"|omitted|elided)"
)
_SAYS_SO = (  # what a phrase may add: that the code stays as it was, or where
    r"here|below|above|as before|as is|etc|for brevity|remains?(?: the same| unchanged| as is)?"
    r"|stays?(?: the same| unchanged| as is)?|(?:is |are )?(?:unchanged|untouched|omitted|elided|not shown)"
)
_MARKER_TEXT = re.compile(rf"{_PHRASE}(?: (?:{_PHRASE}|{_SAYS_SO}))*")
_ELLIPSIS_FIRST = re.compile(r"[\[(]?(?:\.{3,}|…)")  # `...`, `…`, `[...]`, `(...)` opening the comment
_FEW = 6  # words after an opening ellipsis: a label for what was left out (`// ... getters and setters ...`)


def is_marker(line: str) -> bool:
    """True for a comment-only line saying code was left out (`// ... existing code ...`, `# ...`).

    By principle, not by a list of words: a comment whose text opens with an ellipsis (`...`, `…`,
    `[...]`) and says at most a few words (`// ... existing includes ...`, `# ... imports ...`,
    `// … helpers …`, `// ... snip ...`), or an elision phrase without dots (`existing code`, `rest of
    the file`, `Existing code remains unchanged`). Comment forms: #, //, --, ;, /* */, {/* */}, <!-- -->.
    A bare Python `...`, a sentence, and code that only contains the words (`x = "... existing code ..."`)
    are not markers.
    """
    m = _COMMENT.fullmatch(line)
    if m is None:
        return False
    body = next(g for g in m.groups() if g is not None).lower()
    dots = "..." in body or "…" in body
    text = " ".join(re.sub(r"[^\w\s]", " ", re.sub(r"\.{2,}|…", " ", body)).split())
    if not text:
        return dots  # `# ...`, `/* … */`
    if _ELLIPSIS_FIRST.match(body.strip()) and len(text.split()) <= _FEW:
        return True
    if len(text.split()) > 8:
        return False  # a sentence, not a marker
    if dots:
        return re.search(rf"\b{_PHRASE}\b", text) is not None
    return _MARKER_TEXT.fullmatch(text) is not None


_OPENER = re.compile(r"\s*(#|//|--|;|/\*|\{\s*/\*|<!--)")


def foreign_markers(snippet: str, language: str) -> list[str]:
    """The comment forms of `snippet`'s lazy markers when none of them is one `language` writes
    (`// ...` markers in a Python edit: a snippet meant for another file); [] otherwise."""
    allowed = COMMENT_FORMS.get(language)  # the languages table's; a language without: not checked
    found = {
        m.group(1).replace(" ", "") for line in snippet.split("\n") if is_marker(line) and (m := _OPENER.match(line))
    }
    return sorted(found) if allowed and found and not found & allowed else []


_ATTRIBUTE = re.compile(r"@[A-Za-z_]|#!?\[")  # @decorator, @Annotation, #[attribute], #![attribute]
_COMMENT_LINE = re.compile(r"(//|/\*|\*/|\*(\s|$)|#(\s|$))")  # //, ///, /** */, * (a block's line), # text


def attached(line: str) -> str | None:
    """What kind of line `line` is when it belongs to the code right below it: "attribute" (a Python
    or TypeScript decorator, a Java annotation, a Rust attribute) or "comment" (a doc comment or any
    comment line: `//`, `///`, `/** ... */` and its ` * ` lines, `# text`); None for any other line,
    a blank one, a C preprocessor line or a shebang. Any language: it reads the line alone."""
    text = line.strip()
    if _ATTRIBUTE.match(text):
        return "attribute"
    if _COMMENT_LINE.match(text):
        return "comment"
    return None
