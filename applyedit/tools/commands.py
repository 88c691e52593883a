"""The developer tools' commands: `applyedit bench` (speed against baselines, bench.py, and the warm
server mode, benchwarm.py) and `applyedit eval` (exact matches on fixture cases, evaluate.py). They
parse and check their options, run the tool, and print its tables (rendering is tables.py's).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from applyedit.cliparts import (
    EXIT_CHECK,
    AnchorOpt,
    AnswerOpt,
    BackendOpt,
    DebugOpt,
    DeviceOpt,
    DraftBackendOpt,
    DraftKOpt,
    DraftModelOpt,
    DtypeOpt,
    FallbackOpt,
    JsonOpt,
    KOpt,
    KPolicyOpt,
    ModelOpt,
    ProposerOpt,
    console,
    defaults,
    guarded,
    stdout,
)
from applyedit.errors import InputError, UsageError
from applyedit.options import DEFAULT_K, RunOptions


def bench_warm(path: Path, edit: Path | None, warm: Path, repeats: int, json_path: Path | None, cache_mb: int,
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


@guarded
def bench_command(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="A source FILE (with --edit), or a folder of cases.")] = Path("fixtures"),
    edit: Annotated[Path | None, typer.Option("--edit", "-e", help="File holding the edit, for a FILE.")] = None,
    filter_: Annotated[str | None, typer.Option("--filter", help="Only cases whose name contains this.")] = None,
    all_cases: Annotated[bool, typer.Option(
        "--all", help="Every case of the folder, not only the bench suite.")] = False,
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
                                                           f"(repeatable; default {DEFAULT_K}).")] = None,
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
    resume: Annotated[bool, typer.Option(
        help="Skip the runs already saved in --json by an interrupted bench.")] = False,
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
    from applyedit.models.engine import Engine
    from applyedit.tools import bench, benchmethods

    chosen = defaults(ctx, model=model, backend=backend)
    model, backend = chosen["model"], chosen["backend"]
    if warm is not None:
        return bench_warm(path, edit, warm, repeats, json_path, cache_mb, model, device, dtype, backend)
    if show is not None:
        from applyedit.tools.chart import load_report

        return print_bench(load_report(show), markdown, chart, saved=True)
    if repeats < 1:
        raise UsageError("--repeats must be 1 or more")
    if resume and json_path is None:
        raise UsageError("--resume needs --json PATH")
    baselines = [] if no_baselines else (baseline or ["greedy", "lookup"])
    methods = benchmethods.parse_methods(baselines, k_policy or ["adaptive"], k or [DEFAULT_K], break_it,
                                         draft_model, draft_backend)
    items = bench.targets(path, edit, filter_, all_cases)
    engine = Engine.open(model, device, dtype, backend=backend)
    report = bench.run(engine, items, methods, repeats, json_path, resume,
                       log=lambda msg: console.print(msg, markup=False),
                       open_engine=lambda other: Engine.open(model, device, None, backend=other))
    print_bench(report, markdown, chart)
    if not report["outputs_agree"]:
        same = ", ".join(f"{m} {n}/{len(report['cases'])}" for m, n in report["same_output_cases"].items())
        if report["strict"]:
            console.print(f"applyedit bench: the methods' outputs differ (cases with the same output: {same})",
                          markup=False)
            raise typer.Exit(EXIT_CHECK)
        console.print(f"applyedit bench: agreement with {report['methods'][0]} on {report['backend']} "
                      f"({report['dtype']}), cases with the same output: {same}", markup=False)


def print_bench(report: dict[str, Any], markdown: bool, chart: Path | None, saved: bool = False) -> None:
    """A bench's tables (on stdout, or on stderr when the Markdown takes stdout), then what is unfinished
    in a `saved` one, its Markdown and its chart."""
    from applyedit.tools.tables import bench_markdown, render_bench

    tables = console if markdown else stdout  # stdout holds the tables, or the Markdown alone
    for table in render_bench(report):
        tables.print(table)
    if saved and report["unfinished"]:
        console.print(f"applyedit bench: not finished yet (--resume runs them): {', '.join(report['unfinished'])}",
                      markup=False)
    if markdown:
        sys.stdout.write(bench_markdown(report))
    if chart is not None:
        from applyedit.tools.chart import render

        console.print(f"applyedit bench: chart written to {render(report, chart)}", markup=False)


@guarded
def eval_command(
    ctx: typer.Context,
    directory: Annotated[Path, typer.Argument(
        help="Folder of cases: <case>/before.<ext>, edit.txt, after.<ext>.")] = Path("fixtures"),
    filter_: Annotated[str | None, typer.Option("--filter", help="Only cases whose name contains this.")] = None,
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
    anchor: AnchorOpt = "merge",
    answer: AnswerOpt = "merge",
    fallback: FallbackOpt = "merge",
    json_path: JsonOpt = None,
    resume: Annotated[bool, typer.Option(help="Skip the cases an interrupted eval saved in --json.")] = False,
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
        if r.answer == "merge":
            status += " (answered by the merge" + ("; no model ran)" if r.passes == 0 and not r.error else ")")
        console.print(f"eval: {case.name}: {status} ({r.tokens} tokens, {r.passes} passes, {r.wall_s:.1f} s)",
                      markup=False)

    chosen = defaults(ctx, model=model, backend=backend, k=k)
    model, backend, k = chosen["model"], chosen["backend"], chosen["k"]
    if not directory.is_dir():
        raise InputError(f"{directory} is not a directory of cases")
    options = RunOptions(model=model, device=device, dtype=dtype, backend=backend, proposer=proposer, k=k,
                         k_policy=k_policy, draft_model=draft_model, draft_backend=draft_backend, draft_k=draft_k,
                         anchor=anchor, fallback=fallback, answer=answer)
    report = evaluate.evaluate(directory, filter_, on_case=on_case, on_start=on_start, options=options,
                               json_path=json_path, resume=resume)
    from applyedit.tools.tables import render_eval

    stdout.print(render_eval(report))
    if not report["ok"]:
        raise typer.Exit(EXIT_CHECK)
