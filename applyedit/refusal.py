"""What a refused run keeps: the rejected output in a reject file, a summary of it, and what to try next.

An output check (exit 3) refuses to write the model's output over the user's file; minutes of decoding
should not vanish with it. This module owns where that output goes and what the user is told:

- the reject file: `--reject-file PATH` when given (written as given, like `--output`; never the
  source file itself), else `FILE.rej` beside the file. An existing file is never overwritten by the
  default name: the first free one of `FILE.rej`, `FILE.rej.1`, `FILE.rej.2`, ... is taken, created
  exclusively, so an unrelated file (or an earlier run's reject) stays as it was.
- the summary: lines added and removed against the file, and the command that shows the diff.
- the next steps: the flag that accepts this output (named in the refusal's own message), a smaller
  edit, another model.

Knows nothing of models or decoding: it gets the file's text and the rejected text.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

from applyedit.errors import InputError

__all__ = ["check_reject_path", "default_path", "diff_summary", "next_steps", "save"]

MAX_NUMBERED = 1000


def check_reject_path(reject: Path, source: Path) -> None:
    """Refuse, before the run, a --reject-file that is the source file, a directory, or in no folder."""
    if reject.is_dir():
        raise InputError(f"--reject-file {reject} is a directory; give a file path")
    if not reject.parent.is_dir():
        raise InputError(f"--reject-file {reject}: no such folder {reject.parent}")
    try:
        same = reject.exists() and source.exists() and os.path.samefile(reject, source)
    except OSError:
        same = False
    if same:
        raise InputError(f"--reject-file {reject} is the file being edited; give another path")


def default_path(source: Path) -> Path:
    """`FILE.rej`, or the first of `FILE.rej.1`, `FILE.rej.2`, ... that does not exist."""
    first = source.with_name(source.name + ".rej")
    if not first.exists():
        return first
    for n in range(1, MAX_NUMBERED):
        candidate = source.with_name(f"{source.name}.rej.{n}")
        if not candidate.exists():
            return candidate
    raise OSError(f"{MAX_NUMBERED} reject files beside {source} already; remove some")


def save(text: str, source: Path, reject: Path | None, encoding: str = "utf-8") -> Path:
    """Write the rejected output; returns where. The default name never replaces an existing file
    (exclusive create, trying the next number if another process took the name meanwhile)."""
    data = text.encode(encoding, errors="surrogateescape")
    if reject is not None:  # replaced like --output: atomically, never through a symlink planted there
        from applyedit import files

        files.write_atomic(reject, data, follow=False)
        return reject
    for _ in range(MAX_NUMBERED):
        path = default_path(source)
        try:
            with open(path, "xb") as f:
                f.write(data)
            return path
        except FileExistsError:
            continue
    raise OSError(f"could not find a free reject file name beside {source}")


def diff_summary(before: str, after: str) -> tuple[int, int]:
    """(lines added, lines removed) from `before` to `after`."""
    added = removed = 0
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def next_steps(message: str) -> str:
    """What to try after this refusal: the accepting flag its message names, then the other ways."""
    flag = re.search(r"\((--allow-[a-z-]+) to accept it\)", message)
    steps = [f"accept it as it is with {flag.group(1)}"] if flag else []
    steps += [
        "give a smaller edit (an update snippet with only the changed lines and lazy markers around them)",
        "or try another model (--model, e.g. a larger GGUF)",
    ]
    return "to go on: " + "; ".join(steps)
