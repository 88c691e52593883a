"""The command line: `applyedit FILE --edit EDIT` (the `apply` command) and `applyedit model`.

Owns the typer app, routing `applyedit FILE ...` to `apply`, the apply command (its options become
one `RunOptions`; the result goes where `cliio.Delivery` says: a diff on stdout, the whole file, or a
write), the model commands (show, prepare, calibrate), `--version`, and turning typer's usage errors
into one line and exit 1. The other commands live with what they run: `serve` and `--server` in
servecmd.py, `bench` and `eval` in tools/commands.py; the shared options, consoles and the one
error-to-exit mapping in cliparts.py. Stdout carries only the diff (or the tables of commands that
print no diff); heavy imports (torch, transformers) stay inside commands so `--help` and input errors
are instant. Knows nothing of tensors or decoding internals.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from applyedit.cliio import Delivery, keep_rejected, read_edit, read_stdin
from applyedit.cliparts import EXIT_CODES as EXIT_CODES  # the table, for tests and the README
from applyedit.cliparts import (
    EXIT_HELP,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    AnchorOpt,
    BackendOpt,
    DebugOpt,
    DeviceOpt,
    DraftBackendOpt,
    DraftKOpt,
    DraftModelOpt,
    DtypeOpt,
    FallbackOpt,
    KOpt,
    KPolicyOpt,
    ModelOpt,
    ProposerOpt,
    console,
    defaults,
    fail,
    guarded,
    stdout,
)
from applyedit.errors import ApplyEditError, OutputCheckError, UsageError
from applyedit.options import DEFAULT_K, RunOptions
from applyedit.progress import RunProgress
from applyedit.servecmd import ServerOpt, TokenOpt, remote_apply, serve_command
from applyedit.tools.commands import bench_command, eval_command

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
        "LLM and print a unified diff. Lossless copy-drafted speculative decoding makes it fast.\n\n"
        "Examples:\n\n"
        "  applyedit app.py --edit edit.txt | git apply\n\n"
        "  applyedit app.py --edit-text 'Rename foo to bar' --in-place\n\n"
        "  applyedit model prepare\n\n" + EXIT_HELP
    ),
)
model_app = typer.Typer(add_completion=False, help="Show or prepare the local model.", invoke_without_command=True)
app.add_typer(model_app, name="model")


def _version(value: bool) -> None:
    if value:
        from applyedit import __version__

        print(f"applyedit {__version__}")
        raise typer.Exit()


VersionOpt = Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")]


@app.callback()
def _root(version: VersionOpt = False) -> None:
    pass


app.command("serve")(serve_command)


@app.command("apply", epilog=EXIT_HELP)
def apply_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The source file to edit; '-' reads it from stdin.", show_default=False)],
    edit: Annotated[Path | None, typer.Option("--edit", "-e", help="File holding the edit; '-' reads stdin.")] = None,
    edit_text: Annotated[str | None, typer.Option("--edit-text", help="The edit given inline.")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", "-i", help="Rewrite FILE atomically instead of printing a diff.")] = False,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the new file here instead of printing a diff.")] = None,
    print_file: Annotated[bool, typer.Option(
        "--print-file", help="Print the whole new file on stdout instead of a diff (for editors).")] = False,
    filename: Annotated[str | None, typer.Option(
        help="With FILE '-': the name the source goes by (its language, the prompt, the diff's path).")] = None,
    model: ModelOpt = None,
    device: DeviceOpt = None,
    dtype: DtypeOpt = None,
    backend: BackendOpt = None,
    proposer: ProposerOpt = "copy",
    draft_model: DraftModelOpt = None,
    draft_backend: DraftBackendOpt = None,
    draft_k: DraftKOpt = None,
    k: KOpt = DEFAULT_K,
    k_policy: KPolicyOpt = "adaptive",
    max_new_tokens: Annotated[int | None, typer.Option(help="Output token budget (default: from the file and edit sizes).")] = None,
    language: Annotated[str | None, typer.Option(help="Language when the extension does not say.")] = None,
    encoding: Annotated[str, typer.Option(help="The file's text encoding.")] = "utf-8",
    allow_markers: Annotated[bool, typer.Option(help="Accept output that still holds lazy markers.")] = False,
    allow_drops: Annotated[bool, typer.Option(
        help="Accept output that lost original lines an update snippet left alone.")] = False,
    allow_syntax_errors: Annotated[bool, typer.Option(
        help="Accept output that no longer parses (tree-sitter) although the original did.")] = False,
    allow_deletion: Annotated[bool, typer.Option(
        help="Accept an instruction's output that lost most of the file's lines.")] = False,
    allow_unchanged: Annotated[bool, typer.Option(
        help="Accept output equal to the original although the edit changes something.")] = False,
    allow_mismatch: Annotated[bool, typer.Option(
        help="Accept output that lacks lines the snippet adds, or is far longer than the original plus the snippet.")] = False,
    anchor: AnchorOpt = "merge",
    fallback: FallbackOpt = "merge",
    backup: Annotated[bool, typer.Option(
        "--backup", help="With --in-place or --output: keep the file being replaced as FILE.orig.")] = False,
    timeout: Annotated[float | None, typer.Option(
        help="Stop the run after this many seconds (checked between verify passes); nothing is written.")] = None,
    temperature: Annotated[float, typer.Option(
        help="0: greedy (the default; identical to plain greedy decoding). Above 0: sample, exactly as "
             "from the model alone.")] = 0.0,
    top_p: Annotated[float, typer.Option(
        "--top-p", help="With --temperature: sample only from the most probable tokens holding this much "
                        "of the probability (0 < P <= 1).")] = 1.0,
    seed: Annotated[int | None, typer.Option(
        help="With --temperature: the same seed and inputs give the same output (default: a fresh seed, "
             "named in the summary).")] = None,
    report_json: Annotated[Path | None, typer.Option(help="Write the run's statistics as JSON here.")] = None,
    reject_file: Annotated[Path | None, typer.Option(
        "--reject-file", help="Where a refused output is kept (default: FILE.rej beside FILE, or FILE.rej.1, "
                              ".2, ... when that exists).")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="The full region table and run details.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress or summary on stderr.")] = False,
    debug: DebugOpt = False,
    server: ServerOpt = None,
    token: TokenOpt = None,
    version: VersionOpt = False,
) -> None:
    """Apply EDIT to FILE and print a unified diff (stdout carries only the diff).

    Examples:

      applyedit app.py --edit edit.txt | git apply --allow-empty

      pbpaste | applyedit app.py --edit - --in-place --backup

      applyedit app.py --edit-text "Change MAX_RETRIES to 5" --proposer none

      cat app.py | applyedit - --filename app.py --edit edit.txt --print-file

    An output that fails a check is not written; it is kept in FILE.rej (or --reject-file) to look at.
    """
    from applyedit import api

    written: list[Path] = []
    try:
        chosen = defaults(ctx, model=model, backend=backend, k=k, verbose=verbose, quiet=quiet)
        out = Delivery(file, edit, in_place, output, print_file, backup, filename, report_json, reject_file, encoding,
                       chosen["verbose"], chosen["quiet"])
        out.check()
        options = RunOptions(
            model=chosen["model"], device=device, dtype=dtype, backend=chosen["backend"], proposer=proposer,
            k=chosen["k"], k_policy=k_policy, draft_model=draft_model, draft_backend=draft_backend, draft_k=draft_k,
            max_new_tokens=max_new_tokens, timeout=timeout, temperature=temperature, top_p=top_p, seed=seed,
            anchor=anchor, allow_markers=allow_markers, allow_drops=allow_drops,
            allow_syntax_errors=allow_syntax_errors, allow_deletion=allow_deletion, allow_unchanged=allow_unchanged,
            allow_mismatch=allow_mismatch, fallback=fallback)
        options.check()
        target = out.plan()
        edit_value = read_edit(edit, edit_text)
        source = read_stdin("the source on stdin (FILE '-')") if out.stdin_source else None
        run = remote_apply(server, token, out.quiet) or api.apply  # a running `applyedit serve`, else here
        with RunProgress(console, not out.quiet) as progress:
            result = run(out.shown, edit_value, options=options, source=source, language=language, encoding=encoding,
                         on_step=progress.step, progress=progress.model, on_phase=progress.phase)
        out.deliver(result, target, written)
    except OutputCheckError as e:
        failure = fail(e, debug)
        keep_rejected(e, file, reject_file, encoding)
        raise failure from None
    except (ApplyEditError, KeyboardInterrupt, Exception) as e:
        raise fail(e, debug, written) from None


@model_app.callback()
def model_show(ctx: typer.Context, model: ModelOpt = None) -> None:
    """Show which model is used, where its files are, and whether its cache is built.

    Examples:

      applyedit model

      applyedit model prepare
    """
    if ctx.invoked_subcommand is not None:
        return
    from applyedit import userconfig
    from applyedit.models import modelstore

    try:
        model = defaults(ctx, model=model)["model"]
        source = modelstore.resolve(model)
    except ApplyEditError as e:
        raise fail(e, False) from None
    table = Table(show_header=False, box=None)
    table.add_row("model", source.name)
    table.add_row("kind", source.kind)
    table.add_row("cache home", str(modelstore.home()))
    if source.path is not None:
        ready = source.kind in ("dir", "hub") or modelstore.is_ready(source.path)
        table.add_row("weights", f"{source.path} ({'ready' if ready else 'not prepared yet: run `applyedit model prepare`'})")
        if ready:
            fast = modelstore.cpu_weights_file(source.path)
            table.add_row("cpu copy", f"{fast} ({'present' if fast.is_file() else 'absent: written by the first CPU fp32 load'})")
    if source.kind == "default":
        try:
            slices = modelstore.slice_files()
            table.add_row("slices", f"{len(slices)} installed, e.g. {slices[0].parent}")
        except ApplyEditError as e:
            table.add_row("slices", str(e))
        table.add_row("gguf", f"{source.gguf} ({'present' if source.gguf and source.gguf.exists() else 'absent'})")
    table.add_row("draft model", escape(_draft_status()))  # its pip hint holds "[draft]", not markup
    config = userconfig.config_path()
    table.add_row("config", f"{config} ({'present' if config.is_file() else 'absent: optional'})")
    stdout.print(table)


def _draft_status() -> str:
    """The default draft model (--proposer draft|hybrid): installed, and prepared for which backend."""
    from applyedit.models import modelstore

    name = modelstore.DRAFT_MODEL
    try:
        modelstore.draft_slice_files()
    except ApplyEditError:
        return f"{name}: not installed (optional: {modelstore.DRAFT_PIP})"
    gguf, converted = modelstore.draft_gguf_path(), modelstore.draft_model_dir()
    ready = [f"{gguf} (llama.cpp)"] if gguf.is_file() else []
    ready += [f"{converted} (torch)"] if modelstore.is_ready(converted) else []
    if not ready:
        return f"{name}: installed, not prepared yet: run `applyedit model prepare --draft`"
    return f"{name}: ready in {', '.join(ready)}"


@model_app.command("prepare")
@guarded
def model_prepare(model: ModelOpt = None, draft: Annotated[bool, typer.Option(
        "--draft", help="Prepare the default draft model instead (--proposer draft|hybrid; the draft extra).")] = False,
                  from_hub: Annotated[tuple[str, str] | None, typer.Option(
                      "--from-hub", metavar="REPO FILE",
                      help="Fetch this GGUF from the model hub (HF_ENDPOINT names a mirror) and check its "
                           "SHA-256 (known for the official Qwen2.5-Coder GGUFs, or --sha256).")] = None,
                  sha256: Annotated[str | None, typer.Option(
                      "--sha256", help="With --from-hub: the file's expected SHA-256; another hash is refused.")] = None,
                  debug: DebugOpt = False) -> None:
    """Assemble, verify and convert the model once, so later runs start in seconds.

    Examples:

      applyedit model prepare

      applyedit model prepare --draft

      applyedit model prepare --from-hub Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF qwen2.5-coder-1.5b-instruct-q4_k_m.gguf

      APPLYEDIT_HOME=/data/applyedit applyedit model prepare
    """
    from applyedit.models import llamacpp, modelstore

    if from_hub is not None:
        _from_hub(from_hub, sha256, model, draft)
        return
    if sha256 is not None:
        raise UsageError("--sha256 checks a --from-hub download; give --from-hub REPO FILE")
    with RunProgress(console, True, log_preparing=True) as progress:
        if draft:
            # llama.cpp runs the GGUF itself; torch needs the converted copy.
            source = modelstore.resolve_draft(None)
            path = modelstore.assemble_draft_gguf(progress.model) if llamacpp.available() \
                else modelstore.prepare(source, progress.model)
            console.print(f"applyedit: draft model ready in {path}")
            return
        path = modelstore.prepare(modelstore.resolve(model), progress.model)
    console.print(f"applyedit: model ready in {path}")
    from applyedit.models.backend import TorchModel
    from applyedit.models.engine import Engine

    engine = Engine.open(model)
    fast = TorchModel.fast_load_file(path, engine.device, engine.dtype) if engine.backend == "torch" else None
    if fast is not None:
        if not fast.is_file():
            console.print("applyedit: writing the CPU fast-load copy (once; about 7 GB for the default model)")
        _ = engine.model  # loading writes the copy when it is missing
        console.print(f"applyedit: CPU fast-load copy in {fast}")


def _from_hub(spec: tuple[str, str], sha256: str | None, model: str | None, draft: bool) -> None:
    """`model prepare --from-hub REPO FILE`: fetch, verify, and say how the file is used."""
    from applyedit.models import hub, modelstore

    if model is not None or draft:
        raise UsageError("--from-hub fetches the model itself; drop --model and --draft")
    repo, name = spec
    console.print(f"applyedit: fetching {name} from {repo}", markup=False)
    path, checked = hub.fetch(repo, name, sha256)
    check = f"SHA-256 {checked[:16]}… verified" if checked else "no SHA-256 known: give --sha256 to check it"
    console.print(f"applyedit: {path} ({check})", markup=False)
    if checked == modelstore.DEFAULT_GGUF_SHA256:
        console.print(f"applyedit: it is the default model's file, now in {modelstore.default_gguf_path()}; "
                      "runs use it without --model", markup=False)
    else:
        console.print(f"applyedit: use it with --model {path} (or model = \"{path}\" in applyedit.toml)", markup=False)


@model_app.command("calibrate")
@guarded
def model_calibrate(model: ModelOpt = None, device: DeviceOpt = None, dtype: DtypeOpt = None,
                    backend: BackendOpt = None, draft: Annotated[bool, typer.Option(
                        "--draft", help="Calibrate the draft model instead (what one draft token costs).")] = False,
                    draft_model: DraftModelOpt = None, draft_backend: DraftBackendOpt = None,
                    debug: DebugOpt = False) -> None:
    """Measure again what one verify pass costs per draft length (the K policy's cost curve) and cache it.

    Run it on a quiet machine: a curve measured under load misleads the K policy until replaced.

    Examples:

      applyedit model calibrate

      applyedit model calibrate --backend llamacpp

      applyedit model calibrate --draft
    """
    from applyedit.models.engine import Engine

    if not draft and (draft_model or draft_backend):
        raise UsageError("--draft-model and --draft-backend go with --draft")
    engine = Engine.open(model, device, dtype, backend=backend)
    if draft:
        source, chosen = engine.draft_choice(draft_model, draft_backend)
        curve = engine.draft_cost(draft_model, draft_backend, fresh=True)
        title = f"draft model's pass cost, {source.name} via {chosen} on {engine.device} ({engine.threads} threads)"
    else:
        curve = engine.cost_curve(fresh=True)
        title = (f"verify-pass cost, {engine.source.name} via {engine.backend} on {engine.device} "
                 f"({engine.dtype_name}, {engine.threads} threads)")
    table = Table(title=title)
    for col in ("draft K", "pass ms", "ms per token (K + 1)"):
        table.add_column(col, justify="right")
    for k, seconds in sorted(curve.points.items()):
        table.add_row(str(k), f"{seconds * 1000:.1f}", f"{seconds * 1000 / (k + 1):.1f}")
    stdout.print(table)


app.command("bench")(bench_command)
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
