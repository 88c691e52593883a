"""str_replace edits as the editor tools of chat models send them, read into `parts.FilePart`s: a JSON
object with `old_str`/`new_str` (or `old_string`/`new_string`), optionally `replace_all`, `path` (or
`file_path`) and `command` "str_replace"; an object with an `edits` list of those (one path for all);
a list of any of these, applied in order; a tool call around one (`input` or `arguments`, an object or
a JSON string). The JSON may stand in a code fence.

Each replacement becomes one `Change` carrying its exact strings (tried as text first, then as lines
by the ladder). Knows nothing of matching or of the file.
"""

from __future__ import annotations

import json
import re
from typing import Any

from applyedit.errors import InputError
from applyedit.formats.parts import Change, FilePart

__all__ = ["looks_like", "read"]

_OLD, _NEW, _PATHS = ("old_str", "old_string"), ("new_str", "new_string"), ("path", "file_path")
_FENCED = re.compile(r"^\s*(`{3,}|~{3,})[\w+#.-]*\s*\n(.*?)\n\s*\1\s*$", re.S)


def _items(value: Any) -> list[dict[str, Any]] | None:
    """The replacements a JSON value holds, each with its path; None where it is not a str_replace edit."""
    if isinstance(value, list):
        found = [_items(x) for x in value]
        return None if not found or any(x is None for x in found) else [y for x in found if x for y in x]
    if not isinstance(value, dict):
        return None
    for wrapper in ("input", "arguments", "parameters"):
        inner = value.get(wrapper)
        if isinstance(inner, str):
            try:
                inner = json.loads(inner)
            except ValueError:
                return None
        if isinstance(inner, dict | list):
            return _items(inner)
    path = next((value[k] for k in _PATHS if isinstance(value.get(k), str)), None)
    if isinstance(value.get("edits"), list):
        listed = _items(value["edits"])
        return None if listed is None else [{**x, "path": x.get("path") or path} for x in listed]
    if not any(k in value for k in _OLD) or value.get("command", "str_replace") != "str_replace":
        return None
    return [{**value, "path": path}]


def _parsed(text: str) -> Any:
    fenced = _FENCED.match(text)
    try:
        return json.loads(fenced.group(2) if fenced else text)
    except ValueError:
        return None


def looks_like(text: str) -> bool:
    """Whether the text is a JSON str_replace edit (or a list of them)."""
    stripped = text.strip()
    return stripped[:1] in "{[`~" and bool(stripped) and _items(_parsed(stripped)) is not None


def _lines(text: str) -> tuple[str, ...]:
    return tuple(text[:-1].split("\n") if text.endswith("\n") else text.split("\n")) if text else ()


def read(text: str) -> list[FilePart]:
    """One part per replacement."""
    items = _items(_parsed(text.strip()))
    if not items:
        raise InputError("the edit is not a str_replace edit (a JSON object with old_str and new_str)")
    parts = []
    for n, item in enumerate(items, 1):
        old = next((item[k] for k in _OLD if k in item), None)
        new = next((item[k] for k in _NEW if k in item), None)
        if not isinstance(old, str) or not isinstance(new, str):
            raise InputError(f"str_replace edit {n} needs old_str and new_str as strings; nothing was written")
        if not old:
            raise InputError(f"str_replace edit {n} has an empty old_str: it names no text to replace")
        old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        change = Change(
            _lines(old), _lines(new), f"edit {n}", everywhere=item.get("replace_all") is True, text=(old, new)
        )
        parts.append(FilePart(item["path"], (change,)))
    return parts
