"""The output checks: what makes a decoded file refused (exit 3) rather than written.

Owns every check of the model's output against the original and the edit — emptied files and lazy
markers left behind (`check_output`), original lines an update snippet left alone but the output
dropped (`check_drops`), new syntax errors (`check_syntax`), an instruction's output that lost most of
the file (`check_deletion`), outputs that only look like success (`check_answer`) — and the merge as
the answer when one of them refuses (`merge_answer`). Each check either returns notes for the user
(when its `--allow-*` switch accepts the output) or raises `OutputCheckError`. Knows nothing of models
or decoding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from applyedit import interrupt, invariants, markers, merge, textio
from applyedit.errors import OutputCheckError
from applyedit.invariants import ASKS_TO_DELETE
from applyedit.options import INVARIANT_SWITCHES, RunOptions

LONG_SLACK = 10  # lines an output may run past the original plus the snippet before it is "far longer"
DELETION_SHARE = 0.5  # an instruction's output keeping fewer than this share of the non-blank lines is refused
DELETION_MIN_LINES = 3  # ... when it lost at least this many


def check_all(
    src: textio.SourceFile, body: str, edit: str, kind: str, merged: merge.MergeResult | None, opts: RunOptions
) -> list[str]:
    """Every check, in order; the notes of those the options' `allow_*` switches accepted."""
    check_output(src.text, body, opts.allow_markers, src.language, src.path)
    interrupt.check()  # each check may read the whole file again: a run past its deadline stops here
    drops = check_drops(src.text, body, merged, opts.allow_drops)
    # With an unambiguous merge, a note from the dropped-code check means drops were accepted
    # (--allow-drops): the output then differs from the merge by design, so no agreement is asked.
    agree = not (drops and merged is not None and merged.ok)
    notes = drops + check_syntax(src, body, opts.allow_syntax_errors)
    notes += check_deletion(src.text, body, edit, kind, opts.allow_deletion)
    notes += check_answer(src.text, body, kind, edit, merged, opts.allow_unchanged, opts.allow_mismatch, agree)
    interrupt.check()
    notes += check_invariants(src, body, edit, kind, opts)
    return notes


def merge_answer(src: textio.SourceFile, merged: merge.MergeResult | None) -> str | None:
    """The merged file as the answer when the merge is unambiguous and parses wherever the original
    did; None otherwise."""
    from applyedit import syntax

    if merged is None or not merged.ok or merged.merged is None:
        return None
    if syntax.new_errors(src.text, merged.merged, src.language, src.path):
        return None
    return merged.merged


_COMMENT_ONLY = re.compile(r"\s*(?:#|//|--|;|/\*|\*|<!--)")


def new_lines(original: str, edit: str, merged: merge.MergeResult | None) -> list[str]:
    """The lines an update snippet adds (not in the original; code, not comments or `...`): the merge's
    hunk lines when it is unambiguous, else every snippet line that is no lazy marker."""
    have = {" ".join(line.split()) for line in original.split("\n")}
    lines = (
        [x for h in merged.hunks for x in h.new_lines]
        if merged is not None and merged.ok
        else [x for x in edit.split("\n") if not markers.is_marker(x)]
    )
    return [
        x
        for x in lines
        if " ".join(x.split()) not in have and x.strip() and x.strip() != "..." and not _COMMENT_ONLY.match(x)
    ]


def check_answer(
    original: str,
    body: str,
    kind: str,
    edit: str,
    merged: merge.MergeResult | None,
    allow_unchanged: bool,
    allow_mismatch: bool,
    agree: bool = True,
) -> list[str]:
    """Refuse outputs that only look like success: the original unchanged although the edit changes
    something (an instruction, or a snippet with new lines), an update snippet's new lines missing,
    or an output far longer (`LONG_SLACK` lines) than the original plus the snippet; with `agree`, an
    output that differs from an unambiguous merge (`check_merge_agrees`)."""
    added = new_lines(original, edit, merged) if kind == "snippet" else []
    if body.rstrip("\n") == original.rstrip("\n"):
        # an unconfirmed merge that changes the file says the edit changes something too
        merge_changes = merged is not None and merged.merged is not None and merged.merged != original
        changes = kind == "instruction" or bool(added) or merge_changes
        if changes:
            what = "an instruction" if kind == "instruction" else "an update snippet that changes the file"
            return _refuse(
                f"the output equals the original although the edit is {what}", allow_unchanged, "--allow-unchanged"
            )
        return []
    if kind != "snippet":
        return []
    have = {" ".join(line.split()) for line in body.split("\n")}
    missing = [x for x in added if " ".join(x.split()) not in have]
    if missing:
        return _refuse(
            f"the output lacks {len(missing)} of the snippet's {len(added)} new lines (first: {missing[0].strip()!r})",
            allow_mismatch,
            "--allow-mismatch",
        )
    size, old, given = body.count("\n"), original.count("\n"), edit.count("\n")
    if size > old + given + LONG_SLACK:
        return _refuse(
            f"the output has {size} lines, far more than the original ({old}) plus the snippet ({given})",
            allow_mismatch,
            "--allow-mismatch",
        )
    if merged is not None and merged.ok and merged.merged is not None:
        return check_merge_agrees(body, merged.merged, allow_mismatch) if agree else []
    return []


def check_merge_agrees(body: str, merged: str, allow: bool) -> list[str]:
    """Refuse an output that differs from the snippet's unambiguous merge. The merger says `ok` only
    when every hunk has one place (never confidently wrong on the corpus, tests/test_corpus.py), so an
    output elsewhere is the model straying from the snippet: a line added, kept or moved that the
    snippet does not show. With `--fallback merge` the merge answers and says so."""
    ours, theirs = body.rstrip("\n").split("\n"), merged.rstrip("\n").split("\n")
    if ours == theirs:
        return []
    line = next(
        (n for n, (a, b) in enumerate(zip(ours, theirs, strict=False), 1) if a != b), min(len(ours), len(theirs)) + 1
    )
    shown = ours[line - 1].strip() if line <= len(ours) else "the end of the file"
    return _refuse(
        f"the output differs from the snippet's unambiguous merge from line {line} "
        f"(the output has {shown!r}; {len(ours)} lines against the merge's {len(theirs)})",
        allow,
        "--allow-mismatch",
    )


def check_invariants(src: textio.SourceFile, body: str, edit: str, kind: str, opts: RunOptions) -> list[str]:
    """Refuse an answer that breaks an invariant (invariants.py): unjustified deletions, a lost
    definition, Python that no longer compiles, a changed file head; each under its own switch."""
    notes: list[str] = []
    if opts.allow_unchanged and body.rstrip("\n") == src.text.rstrip("\n"):
        return notes  # the original returned as it is, accepted: nothing else to hold it to
    for broken in invariants.violations(src.text, body, edit, kind, src.language, str(src.path)):
        switch = INVARIANT_SWITCHES[broken.name]  # the option table names each invariant's switch
        notes += _refuse(broken.message, getattr(opts, switch.name), switch.flag)
    return notes


def check_syntax(src: textio.SourceFile, body: str, allow: bool) -> list[str]:
    """Refuse an output that no longer parses (tree-sitter) when the original did."""
    from applyedit import syntax

    errors = syntax.new_errors(src.text, body, src.language, src.path)
    if not errors:
        return []
    message = (
        f"the output no longer parses as {src.language} (syntax errors at line{'s' if len(errors) > 1 else ''} "
        f"{_ranges(errors)}) while the original did"
    )
    return _refuse(message, allow, "--allow-syntax-errors")


def _ranges(numbers: Sequence[int]) -> str:
    """[3, 4, 5, 9] -> "3-5, 9"."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in spans)


def check_drops(original: str, body: str, merged: merge.MergeResult | None, allow: bool) -> list[str]:
    """Refuse an output that lost original lines an update snippet left alone (the commonest failure
    of apply models: code behind a lazy marker silently vanishes). Returns notes for the user."""
    if merged is None:
        return []
    if not merged.ok:
        return [f"the dropped-code check could not run: the snippet has no unambiguous reading ({merged.reason})"]
    lost = merge.dropped_lines(original, body, merged)
    if not lost:
        return []
    message = (
        f"the output dropped {len(lost)} original line{'s' if len(lost) > 1 else ''} that the snippet left "
        f"alone (original lines {_ranges(lost)})"
    )
    return _refuse(message, allow, "--allow-drops")


def _refuse(message: str, allow: bool, flag: str) -> list[str]:
    """A failed output check: a note for the user when `flag` allows it, else the refusal (exit 3)."""
    if allow:
        return [f"{message}; accepted ({flag})"]
    raise OutputCheckError(f"{message}; nothing was written ({flag} to accept it)")


def check_output(
    original: str, body: str, allow_markers: bool, language: str | None = None, path: Path | None = None
) -> None:
    """Refuse outputs that would damage the file: emptied, or lazy markers the original did not have
    (a marker is a comment: `# ...` inside a string, a docstring say, is text, when `language` has a grammar)."""
    if original.strip() and not body.strip():
        raise OutputCheckError("the model returned an empty file for a non-empty original; nothing was written")
    if allow_markers:
        return
    known = {line.strip() for line in original.split("\n")}
    found = [n for n, line in enumerate(body.split("\n"), 1) if markers.is_marker(line) and line.strip() not in known]
    if found and language:
        from applyedit import syntax

        text = syntax.in_string(body, found, language, path)
        found = [n for n in found if n not in text]
    if found:
        line = body.split("\n")[found[0] - 1]
        raise OutputCheckError(
            f"the output still holds a lazy marker at line {found[0]} ({line.strip()!r}); nothing was written "
            "(--allow-markers to accept it)"
        )


def check_deletion(original: str, body: str, edit: str, kind: str, allow: bool) -> list[str]:
    """Refuse an instruction edit whose output lost most of the file (a model talked into returning one
    line) unless the instruction asks to delete something. Snippets have the dropped-code check."""
    if kind != "instruction" or ASKS_TO_DELETE.search(edit):
        return []
    before = sum(1 for line in original.split("\n") if line.strip())
    after = sum(1 for line in body.split("\n") if line.strip())
    if before - after < DELETION_MIN_LINES or after >= before * DELETION_SHARE:
        return []
    message = (
        f"the output kept {after} of the original's {before} non-blank lines, and the instruction does not "
        "ask to delete anything"
    )
    return _refuse(message, allow, "--allow-deletion")
