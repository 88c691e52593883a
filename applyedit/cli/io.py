"""What the apply command reads and writes besides the diff: the edit and a source on stdin, the
plan of every path a run will write (checked before anything runs), the report on stderr, and a
refused output's reject file (refusal.py names and writes it).

Writing files is files.py's; this module decides what to say about them.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from applyedit import files, textio
from applyedit.cli.parts import console, print_summary
from applyedit.errors import ApplyEditError, InputError


def read_stdin(what: str) -> bytes:
    """All of stdin as bytes (capped); a closed stdin is an input error, not a crash."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise InputError(f"{what}: stdin is closed")
    try:
        return textio.read_capped(stream, what)
    except ValueError as e:  # I/O on a closed file
        raise InputError(f"{what}: stdin is closed") from e


def read_edit(edit: Path | None, edit_text: str | None) -> str:
    if (edit is None) == (edit_text is None):
        raise InputError("give the edit with exactly one of --edit FILE, --edit - (stdin) or --edit-text TEXT")
    if edit_text is not None:
        return edit_text
    assert edit is not None
    what = "the edit on stdin (--edit -)" if str(edit) == "-" else f"edit file {edit}"
    raw = read_stdin(what) if str(edit) == "-" else textio.read_input(edit, what, streams=True)
    if b"\x00" in raw:
        raise InputError(f"{what} looks binary (it contains NUL bytes)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{what} is not valid UTF-8 (byte 0x{raw[e.start]:02x} at offset {e.start})") from e


def plan_writes(
    file: Path | None,
    edit: Path | None,
    in_place: bool,
    output: Path | None,
    backup: bool,
    report_json: Path | None,
    reject_file: Path | None = None,
) -> Path | None:
    """Check every path the run will write before anything runs; returns the file to replace, if any.
    No output may be an input or another output (`--report-json f.py` would destroy f.py, and
    `--reject-file edit.txt` the edit)."""
    if file is not None:
        textio.check_input(file, str(file))
    target = (
        files.check_writable(file, what=str(file))
        if in_place and file is not None
        else files.check_writable(output, follow=False)
        if output is not None
        else None
    )
    roles = {
        "FILE": file,
        "the edit file": edit if edit is not None and str(edit) != "-" else None,
        "--output": output,
        "the --backup file": files.check_backup(target) if backup and target else None,
    }
    outputs = (("--output", output), ("--report-json", report_json), ("--reject-file", reject_file))
    for flag, path in outputs:
        others = {**roles, "--report-json": report_json} if flag == "--reject-file" else roles
        for role, other in others.items():
            if (
                path is not None
                and other is not None
                and role != flag
                and files.same_file(path, other)
                and not (flag == "--output" and role == "FILE")
            ):
                raise InputError(f"{flag} {path} is {role}; it would be overwritten, so nothing was run")
    if report_json is not None:
        files.check_writable(report_json, what=f"--report-json {report_json}", follow=False)
    if reject_file is not None:
        files.check_writable(reject_file, what=f"--reject-file {reject_file}", follow=False)
    return target


def report(result: Any, verbose: bool) -> None:
    """Default: one summary line and one line per edited region. --verbose: the full region table
    (fitted to the terminal's width) and the run's details."""
    from applyedit.report import brief_lines, render_table

    if verbose:  # word-wrapped to the terminal (the console soft-wraps by default)
        console.print(render_table(result.report, console.width if console.is_terminal else None), soft_wrap=False)
        print_summary(result.summary, soft_wrap=False)
        return
    for line in brief_lines(result.report, result.summary, result.after):
        console.print(line, markup=False)


def keep_rejected(error: ApplyEditError, file: Path, reject_file: Path | None, encoding: str) -> None:
    """After a refusal (exit 3): save the rejected output, summarise it, say what to try next."""
    from applyedit import refusal

    rejected = error.rejected
    if not rejected:
        return
    if str(file) == "-" and reject_file is None:  # no file to put FILE.rej beside: nothing else is written
        console.print(
            "applyedit: the refused output was not kept (the source came from stdin); --reject-file PATH keeps it",
            markup=False,
        )
        console.print(f"applyedit: {refusal.next_steps(str(error))}", markup=False)
        return
    source = file
    try:
        path = refusal.save(rejected, source, reject_file, encoding)
    except OSError as e:
        console.print(f"applyedit: the refused output could not be kept: {e}", markup=False)
        return
    try:
        before = file.read_bytes().decode(encoding)
        added, removed = refusal.diff_summary(before, rejected)
        summary = f"+{added} -{removed} lines against {file}; `diff -u {file} {path}` shows them"
    except (OSError, UnicodeDecodeError):
        summary = "the whole new file"
    console.print(f"applyedit: the refused output is kept in {path} ({summary})", markup=False)
    console.print(f"applyedit: {refusal.next_steps(str(error))}", markup=False)


@dataclass(frozen=True)
class Delivery:
    """Where the apply command's result goes: a diff on stdout (the default), the whole file on stdout,
    FILE itself or another file, the statistics as JSON, and what stderr says."""

    file: Path  # FILE as given ('-': stdin)
    edit: Path | None
    in_place: bool = False
    output: Path | None = None
    print_file: bool = False
    backup: bool = False
    filename: str | None = None
    report_json: Path | None = None
    reject_file: Path | None = None
    encoding: str = "utf-8"
    verbose: bool = False
    quiet: bool = False

    @property
    def stdin_source(self) -> bool:
        return str(self.file) == "-"

    @property
    def shown(self) -> Path:
        """The path the run names the source by."""
        return Path(self.filename or "stdin") if self.stdin_source else self.file

    def check(self) -> None:
        """Refuse combinations of flags that cannot work, before anything is read."""
        if self.reject_file is not None:
            from applyedit import refusal

            refusal.check_reject_path(self.reject_file, self.file)
        writes = self.in_place or self.output is not None
        if self.in_place and self.output is not None:
            raise InputError("use either --in-place or --output, not both")
        if self.print_file and writes:
            raise InputError("--print-file prints the new file on stdout; it goes with neither --in-place nor --output")
        if self.backup and not writes:
            raise InputError("--backup keeps the file that --in-place or --output replaces; give one of them")
        if self.stdin_source and self.in_place:
            raise InputError("--in-place rewrites FILE, and '-' (stdin) is no file: use --output or --print-file")
        if self.stdin_source and self.edit is not None and str(self.edit) == "-":
            raise InputError("the source ('-') and the edit (--edit -) cannot both come from stdin")
        if self.filename is not None and not self.stdin_source:
            raise InputError("--filename names a source read from stdin (FILE '-')")

    def plan(self) -> Path | None:
        """The file the run will replace, if any (every path it writes is checked: `plan_writes`)."""
        return plan_writes(
            None if self.stdin_source else self.file,
            self.edit,
            self.in_place,
            self.output,
            self.backup,
            self.report_json,
            self.reject_file,
        )

    def report_refusal(self, error: ApplyEditError) -> None:
        """With --report-json, a snippet refused for its readings: the message, how many readings it has
        (`--reading N` takes one) and the places where they differ; or a diff or block refused for its
        places (formats/: where it stands several times, or the closest place where it stands nowhere)."""
        if (error.readings or error.places) and self.report_json is not None:
            refused = {
                "refused": str(error),
                "exit_code": error.exit_code,
                "readings": error.readings,
                "places": list(error.places),
            }
            files.write_atomic(self.report_json, json.dumps(refused, indent=2).encode(), follow=False)

    def deliver(self, result: Any, target: Path | None, written: list[Path]) -> None:
        """Warnings and the report on stderr, the JSON statistics, then the diff, the file or the write."""
        for note in result.notes:
            console.print(f"applyedit: warning: {note}", markup=False)
        if self.report_json is not None:
            files.write_atomic(
                self.report_json,
                json.dumps(
                    {
                        "path": result.path,
                        "changed": result.changed,
                        "kind": result.kind,
                        "answer": result.answer,
                        "summary": result.summary.to_dict(),
                        "report": result.report,
                        "tokens": result.tokens,
                    },
                    indent=2,
                ).encode(),
                follow=False,
                written=written,
            )
        if not self.quiet:
            report(result, self.verbose)
        if self.print_file:
            sys.stdout.buffer.write(result.after.encode(self.encoding))
            sys.stdout.flush()
        if not result.changed:
            console.print(
                "applyedit: no change: the output equals the original" + ("" if self.print_file else "; empty diff")
            )
            return
        if self.print_file:
            return
        if target is not None:
            same = self.in_place or (not self.stdin_source and files.same_file(target, self.file))
            mode_from = None if self.stdin_source else self.file
            files.replace(
                target,
                result.after.encode(self.encoding),
                mode_from=mode_from,
                backup=self.backup,
                unchanged_since=result.source_sha256 if same else None,
                follow=self.in_place,
                written=written,
            )
            if not self.quiet:
                console.print(f"applyedit: wrote {target}")
            return
        sys.stdout.buffer.write(result.diff.encode("utf-8"))
        sys.stdout.flush()
