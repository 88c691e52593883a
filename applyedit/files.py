"""Writing the user's files without ever damaging them.

Owns the atomic write (a temp file in the same directory, then a rename; mode kept; symlinks
written through), the refusals made before any work (a read-only file or directory) and at the end
(the file changed on disk since it was read), and `--backup`. Knows nothing of models or diffs.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from applyedit.errors import InputError


def write_atomic(target: Path, data: bytes, mode_from: Path | None = None) -> None:
    """Write `data` to `target` via a temp file in the same directory and a rename (mode kept)."""
    target = target.resolve() if target.is_symlink() else target  # write through a symlink
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=".applyedit")
    except OSError as e:
        raise InputError(f"cannot write in {directory}: {e.strerror}") from e
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        source = mode_from if mode_from is not None and mode_from.exists() else target
        if source.exists():
            os.chmod(tmp, source.stat().st_mode & 0o7777)
        os.replace(tmp, target)
    except OSError as e:
        raise InputError(f"cannot write {target}: {e.strerror}") from e
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def sha256_of(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""  # gone or unreadable: it changed


def check_writable(target: Path) -> None:
    """Refuse before any work when the file or its directory cannot (or should not) be written.

    Mode bits are read, not only access(2): root may write anything, but a file its owner made
    read-only is not applyedit's to replace."""
    target = target.resolve() if target.is_symlink() else target
    directory = target.parent if str(target.parent) else Path(".")
    if target.exists() and not (target.stat().st_mode & 0o222 and os.access(target, os.W_OK)):
        raise InputError(f"{target} is read-only; nothing was run")
    if not directory.is_dir():
        raise InputError(f"{directory}: no such directory")
    if not (directory.stat().st_mode & 0o222 and os.access(directory, os.W_OK)):
        raise InputError(f"cannot write in {directory}: the directory is read-only; nothing was run")


def replace(target: Path, data: bytes, *, mode_from: Path | None = None, backup: bool = False,
            unchanged_since: str | None = None) -> None:
    """Write `data` over `target` atomically. `unchanged_since`: the SHA-256 its bytes had when the run
    read them; if they changed meanwhile, nothing is written. `backup` keeps the old file as TARGET.orig."""
    if unchanged_since is not None and sha256_of(target) != unchanged_since:
        raise InputError(f"{target} changed on disk while applyedit ran; nothing was written (run it again)")
    if backup and target.exists():
        write_atomic(target.with_name(target.name + ".orig"), target.read_bytes(), mode_from=target)
    write_atomic(target, data, mode_from=mode_from)
