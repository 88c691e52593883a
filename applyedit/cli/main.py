"""The command line: `applyedit FILE --edit EDIT` (the `apply` command) and the app around it.

Owns the typer app, routing `applyedit FILE ...` to `apply`, the apply command (its options become
one `RunOptions`; the result goes where `io.Delivery` says: a diff on stdout, the whole file, or a
write), `--version`, and turning typer's usage errors into one line and exit 1. The other commands
live beside it: `model` in modelcmd.py, `serve` and `--server` in servecmd.py, `bench` and `eval` in
toolcmd.py; the shared options, consoles and the one error-to-exit mapping in parts.py. Stdout
carries only the diff (or the tables of commands that print no diff); heavy imports (torch,
transformers, the server, the tools) stay inside commands so `--help` and input errors are instant.
Knows nothing of tensors or decoding internals.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from applyedit.cli.io import Delivery, keep_rejected, read_edit, read_stdin
from applyedit.cli.modelcmd import model_app
from applyedit.cli.parts import (
    ANSWER_OPTIONS,
    BUDGET_OPTIONS,
    CHECK_OPTIONS,
    DRAFT_OPTIONS,
    EXIT_HELP,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    MODEL_OPTIONS,
    SAMPLING_OPTIONS,
    DebugOpt,
    console,
    defaults,
    fail,
    with_options,
)
from applyedit.cli.parts import EXIT_CODES as EXIT_CODES  # the table, for tests and the README
from applyedit.cli.progress import RunProgress
from applyedit.cli.servecmd import ServerOpt, TokenOpt, remote_apply, serve_command
from applyedit.cli.toolcmd import BENCH_HELP, bench_command, eval_command
from applyedit.errors import ApplyEditError, OutputCheckError, RunTimeout
from applyedit.options import RunOptions

SUBCOMMANDS = {"apply", "model", "bench", "eval", "serve"}
TOP_LEVEL = ("--help", "-h", "--version")  # the top level's own options: never a FILE

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    help=(
        "Apply an edit (an instruction or a lazy update snippet) to a source file with a local code\n"
        "LLM and print a unified diff. Lossless copy-drafted speculative decoding makes it fast.\n"
        "A unified diff, SEARCH/REPLACE blocks, an apply_patch patch or str_replace JSON is applied\n"
        "exactly, with no model (--edit-format).\n\n"
        "Examples:\n\n"
        "  applyedit app.py --edit edit.txt | git apply\n\n"
        "  applyedit app.py --edit-text 'Rename foo to bar' --in-place\n\n"
        "  applyedit model prepare\n\n" + EXIT_HELP
    ),
)
app.add_typer(model_app, name="model")


def _version(value: bool) -> None:
    if value:
        from applyedit import __version__

        print(f"applyedit {__version__}")
        raise typer.Exit()


VersionOpt = Annotated[
    bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
]


@app.callback()
def _root(version: VersionOpt = False) -> None:
    pass


app.command("serve")(serve_command)


# The apply command's own options (its run options are options.py's, declared once; cli/parts.py adds them).
FileArg = Annotated[Path, typer.Argument(help="The source file to edit; '-' reads it from stdin.", show_default=False)]
EditOpt = Annotated[Path | None, typer.Option("--edit", "-e", help="File holding the edit; '-' reads stdin.")]
EditTextOpt = Annotated[str | None, typer.Option("--edit-text", help="The edit given inline.")]
InPlaceOpt = Annotated[
    bool, typer.Option("--in-place", "-i", help="Rewrite FILE atomically instead of printing a diff.")
]
OutputOpt = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write the new file here instead of printing a diff.")
]
PrintFileOpt = Annotated[
    bool, typer.Option("--print-file", help="Print the whole new file on stdout instead of a diff (for editors).")
]
FilenameOpt = Annotated[
    str | None,
    typer.Option(help="With FILE '-': the name the source goes by (its language, the prompt, the diff's path)."),
]
LanguageOpt = Annotated[str | None, typer.Option(help="Language when the extension does not say.")]
EncodingOpt = Annotated[str, typer.Option(help="The file's text encoding.")]
BackupOpt = Annotated[
    bool, typer.Option("--backup", help="With --in-place or --output: keep the file being replaced as FILE.orig.")
]
ReportJsonOpt = Annotated[Path | None, typer.Option(help="Write the run's statistics as JSON here.")]
RejectFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--reject-file",
        help="Where a refused output is kept (default: FILE.rej beside FILE, or FILE.rej.1, .2, ... when that exists).",
    ),
]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="The full region table and run details.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress or summary on stderr.")]
APPLY_HELP = """Apply EDIT to FILE and print a unified diff (stdout carries only the diff).

Examples:

  applyedit app.py --edit edit.txt | git apply --allow-empty

  pbpaste | applyedit app.py --edit - --in-place --backup

  applyedit app.py --edit-text "Change MAX_RETRIES to 5" --proposer none

  cat app.py | applyedit - --filename app.py --edit edit.txt --print-file

EDIT is told by its shape (--edit-format overrides): a lazy update snippet, an instruction in words, or
one of the formats applied exactly with no model: a unified diff, SEARCH/REPLACE blocks, an apply_patch
patch (*** Begin Patch), str_replace JSON (old_str/new_str).

An output that fails a check is not written; it is kept in FILE.rej (or --reject-file) to look at."""


@app.command("apply", help=APPLY_HELP, epilog=EXIT_HELP)
@with_options(
    filename=(*MODEL_OPTIONS, *DRAFT_OPTIONS, *BUDGET_OPTIONS),
    encoding=(*CHECK_OPTIONS, *ANSWER_OPTIONS),
    backup=SAMPLING_OPTIONS,
)
def apply_command(
    ctx: typer.Context,
    file: FileArg,
    edit: EditOpt = None,
    edit_text: EditTextOpt = None,
    in_place: InPlaceOpt = False,
    output: OutputOpt = None,
    print_file: PrintFileOpt = False,
    filename: FilenameOpt = None,
    language: LanguageOpt = None,
    encoding: EncodingOpt = "utf-8",
    backup: BackupOpt = False,
    report_json: ReportJsonOpt = None,
    reject_file: RejectFileOpt = None,
    verbose: VerboseOpt = False,
    quiet: QuietOpt = False,
    debug: DebugOpt = False,
    server: ServerOpt = None,
    token: TokenOpt = None,
    version: VersionOpt = False,
    **options: Any,
) -> None:
    started = time.monotonic()  # `--timeout` counts from here: reading the inputs and loading included
    out = Delivery(
        file, edit, in_place, output, print_file, backup, filename, report_json, reject_file, encoding, verbose, quiet
    )
    _apply(ctx, out, options, (edit, edit_text), language, debug, (server, token), started)


def _apply(
    ctx: typer.Context,
    out: Delivery,
    flags: dict[str, Any],
    edit: tuple[Path | None, str | None],
    language: str | None,
    debug: bool,
    server: tuple[str | None, str | None],
    started: float,
) -> None:
    """The apply command, once its flags are gathered: the user's defaults, the run's options (made
    once, and checked as they are made), the run (here or on a server), then the delivery; every error
    mapped to its exit code (a refused output kept)."""
    from applyedit import api

    written: list[Path] = []
    try:
        chosen = defaults(ctx, **flags, verbose=out.verbose, quiet=out.quiet)
        out = dataclasses.replace(out, verbose=chosen.pop("verbose"), quiet=chosen.pop("quiet"))
        out.check()
        options = RunOptions(**chosen)
        target = out.plan()
        edit_value = read_edit(*edit)
        source = read_stdin("the source on stdin (FILE '-')") if out.stdin_source else None
        run = remote_apply(*server, out.quiet) or api.apply  # a running `applyedit serve`, else here
        deadline = None if options.timeout is None else started + options.timeout
        with RunProgress(console, not out.quiet) as progress:
            result = run(
                out.shown,
                edit_value,
                options=options,
                source=source,
                language=language,
                encoding=out.encoding,
                on_step=progress.step,
                progress=progress.model,
                on_phase=progress.phase,
                deadline=deadline,
            )
        if deadline is not None and time.monotonic() > deadline:  # the answer came past it: nothing is written
            raise RunTimeout(f"stopped by --timeout {options.timeout:g} s as the answer came; nothing was written")
        out.deliver(result, target, written)
    except OutputCheckError as e:
        failure = fail(e, debug)
        keep_rejected(e, out.file, out.reject_file, out.encoding)
        raise failure from None
    except ApplyEditError as e:
        out.report_refusal(e)
        raise fail(e, debug, written) from None
    except (KeyboardInterrupt, Exception) as e:
        raise fail(e, debug, written) from None


app.command("bench", help=BENCH_HELP)(bench_command)
app.command("eval")(eval_command)


def route(args: list[str]) -> list[str]:
    """`applyedit FILE ...` means `applyedit apply FILE ...`. Only the first argument can name a
    subcommand (an option's value never does: `--edit-text model f.py`); `model` and `eval` take no
    edit, so given one (`applyedit model --edit e.txt`) they are FILE. Edit a file named `apply` or
    `bench` as `./bench`."""
    first = args[0] if args else None
    edits = any(a in ("--edit", "-e", "--edit-text") or a.startswith(("--edit=", "--edit-text=")) for a in args[1:])
    if first is None or first in TOP_LEVEL or (first in SUBCOMMANDS and not (first in ("model", "eval") and edits)):
        return args
    return ["apply", *args]


def main(argv: list[str] | None = None) -> None:
    """Entry point: routes the arguments (`route`); Click's usage errors become one line and exit 1."""
    from typer._click.exceptions import NoArgsIsHelpError  # typer 0.29 carries its own click
    from typer.exceptions import Abort, TyperException

    args = route(list(sys.argv[1:] if argv is None else argv))
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if "--from-hub" not in args:  # only `model prepare --from-hub` reaches a model hub
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        code = app(args=args, prog_name="applyedit", standalone_mode=False)
    except NoArgsIsHelpError as e:
        e.show()
        code = EXIT_USAGE
    except TyperException as e:
        ctx = getattr(e, "ctx", None)
        where = f" (see {ctx.command_path} --help)" if ctx is not None else ""
        console.print(f"applyedit: error: {' '.join(e.format_message().split())}{where}", markup=False)
        code = EXIT_USAGE
    except Abort:
        console.print("applyedit: interrupted; nothing was written")
        code = EXIT_INTERRUPTED
    sys.exit(code if isinstance(code, int) else 0)
