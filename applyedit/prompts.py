"""Finding and rendering the prompt templates in `prompts/` (plain text, `string.Template`).

Owns which template pair an edit gets (update snippet or instruction), strict rendering (missing or
unknown placeholders are errors that name them), the pre-filled start of the assistant's reply, and
the reverse: a pattern that finds the file and the edit in a rendered user message (`user_pattern`,
for readers that see only the prompt's text, like the vLLM drafter). Knows nothing of tokenizers or
chat templates: it returns strings and patterns.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from applyedit.markers import is_marker


@dataclass(frozen=True, slots=True)
class Prompt:
    system: str
    user: str
    assistant_prefix: str  # the reply starts with the opening fence line; the model writes the body
    kind: str  # "snippet" | "instruction"


def prompts_dir() -> Path:
    """The packaged copy (wheel) first, else the source checkout's top-level `prompts/`."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "prompts", here.parent / "prompts"):
        if (candidate / "snippet.user.txt").is_file():
            return candidate
    raise FileNotFoundError("applyedit's prompts/ directory is missing from this installation")


def render(name: str, **values: str) -> str:
    """Render `prompts/<name>.txt`, refusing placeholders that are missing or not used."""
    template = string.Template((prompts_dir() / f"{name}.txt").read_text(encoding="utf-8"))
    wanted = set(template.get_identifiers())
    missing, unused = wanted - values.keys(), values.keys() - wanted
    if missing or unused:
        raise KeyError(f"template {name}: missing {sorted(missing)}, unused {sorted(unused)}")
    return template.substitute(values)


# What each placeholder of a user template matches in a rendered message. The fence is longer than any
# backtick run in the file or the edit, so a lazy match for `source` and `edit` ends at the template's
# own closing fence.
_FILLS = {
    "path": rb"[^\n]*",
    "language": rb"[^\n`]*",
    "fence": rb"(?P<fence>`{3,})",
    "source": rb"(?P<source>.*?)",
    "edit": rb"(?P<edit>.*?)",
}
_GROUPS = ("fence", "source", "edit")  # a second occurrence must match the first's text


@cache
def user_pattern(kind: str) -> re.Pattern[bytes]:
    """The pattern a user message rendered from `prompts/<kind>.user.txt` matches (UTF-8), with groups
    `fence`, `source` and `edit`: read from the template itself, so a changed template changes it."""
    template = string.Template((prompts_dir() / f"{kind}.user.txt").read_text(encoding="utf-8"))
    text, parts, pos, seen = template.template, [], 0, set()
    for m in template.pattern.finditer(text):
        parts.append(re.escape(text[pos : m.start()].encode("utf-8")))
        pos = m.end()
        name = m.group("named") or m.group("braced")
        if m.group("escaped") is not None:
            parts.append(re.escape(b"$"))
        elif name not in _FILLS:
            raise KeyError(f"template {kind}.user: unknown placeholder {m.group()!r}")
        elif name in _GROUPS and name in seen:
            parts.append(b"(?P=" + name.encode() + b")")
        else:
            parts.append(_FILLS[name])
            seen.add(name)
    parts.append(re.escape(text[pos:].encode("utf-8")))
    return re.compile(b"".join(parts), re.DOTALL)


def edit_kind(edit: str) -> str:
    """An edit with at least one lazy-marker line is an update snippet; anything else an instruction."""
    return "snippet" if any(is_marker(line) for line in edit.split("\n")) else "instruction"


def build(path: str, language: str, source: str, edit: str, fence: str, kind: str | None = None) -> Prompt:
    kind = kind or edit_kind(edit)
    lang = language if language != "text" else ""
    system = render(f"{kind}.system")
    user = render(f"{kind}.user", path=path, language=lang, fence=fence, source=source, edit=edit)
    return Prompt(system=system, user=user, assistant_prefix=f"{fence}{lang}\n", kind=kind)
