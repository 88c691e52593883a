"""Edits in the formats assistants write besides lazy snippets, applied exactly with no model: unified
diffs (unidiff.py), SEARCH/REPLACE blocks (searchreplace.py), OpenAI's apply_patch (applypatch.py) and
str_replace JSON (strreplace.py).

Owns telling them apart by their shape (`detect`: conservative, so that a lazy snippet or an
instruction in words is never taken for one; `chosen` with a forced `--edit-format`), picking the
edit's part for the target file (parts.py) and the new file (`apply_edit`, by ladder.py's one matching
ladder). Text in, text out: LF-only text, no files, no model; refusals are errors.py's (an edit that
stands at no single place is an `AmbiguousEditError` with its places). A block's REPLACE holding lazy
markers is read by a snippet reader the caller passes in (`apply_edit`'s `reader`: api.py's, by merge/).
"""

from __future__ import annotations

from dataclasses import dataclass

from applyedit.errors import InputError
from applyedit.formats import applypatch, ladder, searchreplace, strreplace, unidiff
from applyedit.formats.parts import FilePart, for_target

__all__ = ["NAMES", "TITLES", "Applied", "apply_edit", "chosen", "detect", "read"]

# The formats, as --edit-format names them, in the order `detect` tries them.
NAMES = ("patch", "search-replace", "diff", "str-replace")
TITLES = {
    "diff": "unified diff",
    "search-replace": "SEARCH/REPLACE edit",
    "patch": "apply_patch edit",
    "str-replace": "str_replace edit",
}


def _lines(edit: str) -> list[str]:
    return edit.replace("\r\n", "\n").split("\n")


def _looks_like(edit: str, name: str) -> bool:
    lines = _lines(edit)
    if name == "patch":
        return applypatch.looks_like(lines)
    if name == "search-replace":
        return searchreplace.looks_like(lines)
    if name == "diff":
        return unidiff.looks_like(lines)
    return strreplace.looks_like(edit)


def detect(edit: str) -> str | None:
    """The format the edit is written in (one of `NAMES`), or None: an update snippet or an instruction."""
    return next((name for name in NAMES if _looks_like(edit, name)), None)


def chosen(edit: str, setting: str) -> str | None:
    """The format a run reads the edit in: `setting` "auto" detects it; "snippet" or "instruction":
    none; a format's name: that one, refused (InputError) where the edit is not written in it."""
    if setting == "auto":
        return detect(edit)
    if setting not in NAMES:
        return None
    if not _looks_like(edit, setting):
        raise InputError(f"--edit-format {setting}: the edit is not a {TITLES[setting]}")
    return setting


def read(edit: str, name: str) -> list[FilePart]:
    """The edit's parts, one per file it names (or one naming none)."""
    lines = _lines(edit)
    if name == "patch":
        return applypatch.read(lines)
    if name == "search-replace":
        return searchreplace.read(lines)
    if name == "diff":
        return unidiff.read(lines)
    return strreplace.read(edit)


@dataclass(frozen=True)
class Applied:
    """The new file (LF text) and what the user should know of how it was made."""

    text: str
    notes: tuple[str, ...]
    changes: int  # how many hunks, blocks, chunks or replacements were made


def apply_edit(original: str, edit: str, name: str, target: str, reader: ladder.Reader | None = None) -> Applied:
    """`original` (LF text) with the edit's part for `target` (the file's path as the diff shows it) made.

    The other files the edit names are named in a note; an edit for other files only, or whose part
    creates, deletes or moves the target, or that changes nothing in it, is refused (InputError); a
    change that stands at no single place too (AmbiguousEditError, with the places). `reader`: the
    snippet reader for a SEARCH/REPLACE block whose REPLACE holds lazy markers (ladder.Reader; the
    caller's, from a layer above); without one such a block is refused."""
    what = TITLES[name]
    mine, others = for_target(read(edit, name), target, what)
    changes = [c for part in mine for c in part.changes]
    if not changes:
        raise InputError(f"the {what} changes nothing in {target}; nothing was written")
    lines = original.split("\n")
    lines = lines[:-1] if lines[-1] == "" else lines
    done, notes = ladder.apply_changes(lines, changes, what, target, reader)
    if others:
        notes.append(f"the {what} also names {', '.join(others)}: only its part for {target} was applied")
    return Applied("\n".join(done) + "\n" if done else "", tuple(notes), len(changes))
