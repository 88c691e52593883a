"""Writing files without ever damaging them: the one writer of files (temp file, fsync, rename).

Owns every write that replaces a file or a folder: `write_atomic` for bytes, `replacing` for what is
built in place (the model store's assembled, converted and fast-load files and folders, which stay whole
or absent). Owns the writes to paths the user names (FILE with `--in-place`, `--output`, `FILE.orig`, `--report-json`,
`--reject-file`; the default `FILE.rej` is refusal.py's exclusive create):
the refusals made before any work (a read-only file or directory, a hard-linked target, a symlink
where none may be followed, two roles on one file), the atomic write (a recognisably named temp file
in the same directory, fsync, rename, fsync of the directory; mode, owner and group of the replaced
file kept), holding off Ctrl-C/SIGTERM/SIGHUP while a write commits, the refusal at the end (the file
changed on disk since it was read), `--backup`, and removing the temp files a killed run left.

Symlinks: the file being edited is its symlink's target (read, written and named in the diff as
such); every other path applyedit writes is a name of its own and is never written through a link.
Knows nothing of models or diffs.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from applyedit.errors import InputError

TEMP_TAG = ".applyedit-"  # temp files are named .NAME.applyedit-PID-XXXXXXXX.tmp
_TEMP = re.compile(r"^\..+\.applyedit-(\d+)-[A-Za-z0-9_]+\.tmp$")
_DEFERRED = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


class WriteInterrupted(KeyboardInterrupt):
    """Ctrl-C arrived while files were being committed: the writes finished first (`written`)."""

    def __init__(self, written: list[Path]) -> None:
        super().__init__()
        self.written = written


def edited_file(file: Path) -> Path:
    """The file an edit of `file` reads and writes: `file` with every symlink resolved."""
    return Path(os.path.realpath(file))


def same_file(a: Path, b: Path) -> bool:
    """True when `a` and `b` name one file (symlinks followed, hard links caught)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_writable(target: Path, *, what: str = "", follow: bool = True) -> Path:
    """Refuse before any work when `target` cannot (or should not) be replaced; returns the path to write.

    `follow`: the file being edited is written through its symlinks (the returned path is the link's
    target); any other output (`follow=False`) that is a symlink, dangling or not, is refused. An
    existing target must be a regular file with one hard link: the atomic rename would give it a new
    inode, so another name of it would silently keep the old text. Mode bits are read, not only
    access(2): root may write anything, but a file its owner made read-only is not applyedit's to replace.
    """
    name = what or str(target)
    if follow:
        target = edited_file(target)
    elif target.is_symlink():
        raise InputError(
            f"{name} is a symlink (to {os.readlink(target)}); applyedit does not write through it: "
            "give the file's own path; nothing was run"
        )
    directory = target.parent if str(target.parent) else Path(".")
    if target.exists():
        st = target.stat()
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{name} is a directory; nothing was run")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{name} is not a regular file; nothing was run")
        if not (st.st_mode & 0o222 and os.access(target, os.W_OK)):
            raise InputError(f"{name} is read-only; nothing was run")
        if st.st_nlink > 1:
            raise InputError(
                f"{name} has {st.st_nlink} hard links; replacing it would leave the other names "
                "with the old text, so applyedit refuses (write the new text to another path and copy it "
                "over); nothing was run"
            )
    if not directory.is_dir():
        raise InputError(f"{directory}: no such directory; nothing was run")
    if not (directory.stat().st_mode & 0o222 and os.access(directory, os.W_OK)):
        raise InputError(f"cannot write in {directory}: the directory is read-only; nothing was run")
    return target


def plan_outputs(outputs: Sequence[tuple[str, Path]], inputs: Sequence[tuple[str, Path]]) -> None:
    """The write plan of a command's outputs (`--json`, `--chart`, ...), checked before anything runs:
    each is writable and no symlink (`check_writable(follow=False)`), and none is one of `inputs` or
    another output (an input that does not exist yet is no conflict). Raises InputError."""
    for n, (flag, path) in enumerate(outputs):
        check_writable(path, what=f"{flag} {path}", follow=False)
        for role, other in [*inputs, *outputs[:n]]:
            if os.path.lexists(other) and same_file(path, other):
                raise InputError(f"{flag} {path} is {role}; it would be overwritten, so nothing was run")


def backup_path(target: Path) -> Path:
    return target.with_name(target.name + ".orig")


def check_backup(target: Path) -> Path:
    """`--backup`'s FILE.orig beside the file replaced: a planted symlink there is refused, never followed."""
    path = backup_path(target)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        kind = "a symlink" if path.is_symlink() else "not a regular file"
        raise InputError(
            f"{path} is {kind}; --backup writes a file of its own there, so applyedit refuses "
            "(move it away); nothing was run"
        )
    return path


_depth = 0  # nesting of `_committing` sections


@contextlib.contextmanager
def _committing(written: list[Path]) -> Iterator[None]:
    """Hold off SIGINT, SIGTERM and SIGHUP while files are committed; then deliver them.

    Their handlers only take note meanwhile (handlers, not a signal mask: a mask is per thread, and
    torch's threads would take the signal). A Ctrl-C that landed becomes `WriteInterrupted` naming
    what was written; SIGTERM and SIGHUP are sent again and take their usual effect after the
    writes. Only the main thread may set handlers; elsewhere this does nothing."""
    global _depth
    if _depth or threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    old = {sig: signal.signal(sig, lambda number, frame: caught.append(number)) for sig in _DEFERRED}
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        _let_signals_in()
        for sig, handler in old.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        for number in set(caught) - {signal.SIGINT}:
            os.kill(os.getpid(), number)
        if signal.SIGINT in caught:
            raise WriteInterrupted(list(written))


def _let_signals_in() -> None:
    """A Python-level call: the interpreter runs the handlers of signals that already arrived."""


def clean_stale_temps(directory: Path) -> list[Path]:
    """Remove the temp files of applyedit runs that died mid-write (SIGKILL, power loss) in `directory`:
    named `.NAME.applyedit-PID-XXXXXXXX.tmp`, of a process that no longer runs. Returns those removed."""
    removed: list[Path] = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        m = _TEMP.match(name)
        if not m or _running(int(m.group(1))):
            continue
        path = directory / name
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)
                removed.append(path)
        except OSError:
            pass
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process
    return True


def _fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a directory
    finally:
        os.close(fd)


def write_atomic(
    target: Path, data: bytes, mode_from: Path | None = None, *, follow: bool = True, written: list[Path] | None = None
) -> None:
    """Write `data` to `target` via a temp file in the same directory, fsync and a rename, then fsync the
    directory. The replaced file's mode, owner and group are kept (the owner when allowed: root, or
    the same user); a new file takes `mode_from`'s mode. `follow` writes through a symlink at
    `target`; without it the rename replaces the link itself. `written` gets `target` once committed."""
    written = [] if written is None else written
    if follow:
        target = edited_file(target)
    directory = target.parent if str(target.parent) else Path(".")
    clean_stale_temps(directory)
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{target.name}{TEMP_TAG}{os.getpid()}-", suffix=".tmp")
    except OSError as e:
        raise InputError(f"cannot write in {directory}: {e.strerror}") from e
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            _copy_metadata(f.fileno(), target, mode_from)
            os.fsync(f.fileno())
        with _committing(written):
            os.replace(tmp, target)
            _fsync_directory(directory)
            written.append(target)
    except OSError as e:
        raise InputError(f"cannot write {target}: {e.strerror}") from e
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


@contextlib.contextmanager
def replacing(target: Path, *, directory: bool = False) -> Iterator[Path]:
    """A temp sibling of `target` to build (an empty file, or an empty folder when `directory`); when
    the block ends without an error it is fsynced and renamed over `target` (a folder replaces the old
    one), then the parent folder is fsynced. On an error it is removed: `target` stays as it was."""
    parent = target.parent if str(target.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    prefix = f".{target.name}{TEMP_TAG}{os.getpid()}-"
    if directory:
        tmp = Path(tempfile.mkdtemp(dir=parent, prefix=prefix, suffix=".tmp"))
    else:
        fd, name = tempfile.mkstemp(dir=parent, prefix=prefix, suffix=".tmp")
        os.close(fd)
        tmp = Path(name)
    try:
        yield tmp
        for path in tmp.iterdir() if directory else [tmp]:
            if path.is_file():
                _fsync_file(path)
        if directory and target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
        _fsync_directory(parent)
    finally:
        if directory:
            shutil.rmtree(tmp, ignore_errors=True)
        elif os.path.lexists(tmp):
            os.unlink(tmp)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _copy_metadata(fd: int, target: Path, mode_from: Path | None) -> None:
    try:
        st = os.stat(target, follow_symlinks=False)
        replaced = stat.S_ISREG(st.st_mode)
    except OSError:
        replaced = False
    if replaced:
        for uid, gid in ((st.st_uid, st.st_gid), (-1, st.st_gid)):
            try:
                os.fchown(fd, uid, gid)
                break
            except OSError as e:
                if e.errno not in (errno.EPERM, errno.EACCES, errno.EINVAL):
                    raise
    elif mode_from is not None and mode_from.exists():
        st = mode_from.stat()
    else:
        return
    os.fchmod(fd, st.st_mode & 0o7777)  # after chown, which may clear set-id bits


def sha256_of(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""  # gone or unreadable: it changed


def replace(
    target: Path,
    data: bytes,
    *,
    mode_from: Path | None = None,
    backup: bool = False,
    unchanged_since: str | None = None,
    follow: bool = True,
    written: list[Path] | None = None,
) -> None:
    """Write `data` over `target` atomically. `unchanged_since`: the SHA-256 its bytes had when the run
    read them; if they changed meanwhile, nothing is written. `backup` keeps the old file as TARGET.orig
    (never written through a symlink). The check and both writes commit together: a Ctrl-C meanwhile
    waits for them (`WriteInterrupted`). `written` gets each path once it is committed."""
    written = [] if written is None else written
    if follow:
        target = edited_file(target)
    with _committing(written):
        if unchanged_since is not None and sha256_of(target) != unchanged_since:
            raise InputError(f"{target} changed on disk while applyedit ran; nothing was written (run it again)")
        if backup and target.exists():
            # Checked before the run (check_backup); a link planted since is replaced, never followed.
            write_atomic(backup_path(target), target.read_bytes(), mode_from=target, follow=False, written=written)
        write_atomic(target, data, mode_from=mode_from, follow=follow, written=written)
