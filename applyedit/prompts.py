"""Finding and rendering the prompt templates in `prompts/` (plain text, `string.Template`).

Owns which template pair an edit gets (update snippet or instruction), strict rendering (missing or
unknown placeholders are errors that name them) and the pre-filled start of the assistant's reply.
Knows nothing of tokenizers or chat templates: it returns three strings.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
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


def edit_kind(edit: str) -> str:
    """An edit with at least one lazy-marker line is an update snippet; anything else an instruction."""
    return "snippet" if any(is_marker(line) for line in edit.split("\n")) else "instruction"


def build(path: str, language: str, source: str, edit: str, fence: str, kind: str | None = None) -> Prompt:
    kind = kind or edit_kind(edit)
    lang = language if language != "text" else ""
    system = render(f"{kind}.system")
    user = render(f"{kind}.user", path=path, language=lang, fence=fence, source=source, edit=edit)
    return Prompt(system=system, user=user, assistant_prefix=f"{fence}{lang}\n", kind=kind)
