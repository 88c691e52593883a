"""The developer tools' commands: `applyedit bench` (speed against baselines, tools/bench.py, and the
warm server mode, tools/benchwarm.py) and `applyedit eval` (exact matches on fixture cases,
tools/evaluate.py). They parse and check their options, import the tool when it runs, and print its
tables (rendering is tools/tables.py's).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from applyedit import files
from applyedit.cli.parts import (
    ANSWER_OPTIONS,
    DRAFT_OPTIONS,
    EXIT_CHECK,
    MODEL_OPTIONS,
    DebugOpt,
    DraftBackendOpt,
    DraftModelOpt,
    JsonOpt,
    console,
    defaults,
    guarded,
    stdout,
    with_options,
)
from applyedit.errors import InputError, UsageError
from applyedit.options import DEFAULT_K, RunOptions


def bench_warm(
    path: Path,
    edit: Path | None,
    warm: Path,
    repeats: int,
    json_path: Path | None,
    cache_mb: int,
    model: dict[str, Any],
) -> None:
    """`bench FILE --edit A --warm B` (benchwarm.py), with the `model` options; the table goes to stderr."""
    from applyedit.tools import benchwarm

    if edit is None or not path.is_file():
        raise UsageError("--warm EDIT_B needs a FILE and --edit EDIT_A")
    args = [a for name in ("model", "device", "dtype", "backend") if model[name] for a in (f"--{name}", model[name])]
    report = benchwarm.run(
        path,
        edit,
        warm,
        repeats=repeats,
        model_args=args,
        cache_mb=cache_mb,
        json_path=json_path,
        log=lambda msg: console.print(msg, markup=False),
    )
    for line in benchwarm.render(report):
        console.print(line, markup=False)


def bench_reader(path: Path, edit: Path | None, repeats: int, json_path: Path | None, model: dict[str, Any]) -> None:
    """`bench FILE --edit E --reader` (benchreader.py); the lines go to stderr, the record to --json."""
    from applyedit.models.engine import Engine
    from applyedit.tools import benchreader

    if edit is None or path.is_dir():
        raise UsageError("--reader needs a FILE and --edit SNIPPET")
    if repeats < 1:
        raise UsageError("--repeats must be 1 or more")
    report = benchreader.run(
        path,
        edit,
        repeats,
        lambda: Engine.open(model["model"], model["device"], model["dtype"], backend=model["backend"]),
    )
    if json_path is not None:
        files.write_atomic(json_path, (json.dumps(report, indent=1) + "\n").encode(), follow=False)
    for line in benchreader.render(report):
        console.print(line, markup=False)


# The bench command's own options (those it shares with other commands are cli/parts.py's).
PathArg = Annotated[Path, typer.Argument(help="A source FILE (with --edit), or a folder of cases.")]
EditOpt = Annotated[Path | None, typer.Option("--edit", "-e", help="File holding the edit, for a FILE.")]
FilterOpt = Annotated[str | None, typer.Option("--filter", help="Only cases whose name contains this.")]
AllOpt = Annotated[bool, typer.Option("--all", help="Every case of the folder, not only the bench suite.")]
BaselineOpt = Annotated[
    list[str] | None,
    typer.Option(
        help="Repeatable: greedy (model.generate), lookup[:K,...] (its prompt lookup, K=10 by default), "
        "none (applyedit's loop without drafts), nomerge (adaptive K without drafts from the merged "
        "snippet), torch or llamacpp (applyedit on that other backend, in the same run), draft[:K,...] "
        "(the draft model only), hybrid[:K,...] (copy drafts while aligned, the draft model inside "
        "edits; K fixes its draft length). Default: greedy and lookup."
    ),
]
NoBaselinesOpt = Annotated[bool, typer.Option("--no-baselines", help="Run only applyedit's configurations.")]
KPoliciesOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--k-policy",
        help="Repeatable: adaptive[:K,...] (K is the cap) or fixed[:K,...], e.g. --k-policy adaptive "
        "--k-policy fixed:4,8,16,32. Default: adaptive.",
    ),
]
KsOpt = Annotated[
    list[int] | None,
    typer.Option("--k", help=f"K for a --k-policy given without its own list (repeatable; default {DEFAULT_K})."),
]
RepeatsOpt = Annotated[int, typer.Option(help="Interleaved repeats per method; medians are reported.")]
BreakItOpt = Annotated[
    Path | None,
    typer.Option(help="Also run adaptive K drafting only from this unrelated file: what a useless drafter costs."),
]
BenchJsonOpt = Annotated[Path | None, typer.Option("--json", help="Save every run here as it finishes.")]
BenchResumeOpt = Annotated[bool, typer.Option(help="Skip the runs already saved in --json by an interrupted bench.")]
ChartOpt = Annotated[
    Path | None,
    typer.Option(
        help="Also draw the results as a PNG here (tokens/s per case and method; the K sweep). Needs the chart extra."
    ),
]
ShowOpt = Annotated[
    Path | None, typer.Option(help="Run nothing: print the tables (and --chart) of a finished bench saved with --json.")
]
MarkdownOpt = Annotated[
    bool,
    typer.Option("--markdown", help="Also print the results as Markdown tables on stdout (a README's speed table)."),
]
WarmOpt = Annotated[
    Path | None,
    typer.Option(
        help="Warm mode: with FILE and --edit A, this is edit B; times cold CLI runs of A and B against a "
        "fresh `applyedit serve` (first A, then B, then A again) through the CLI."
    ),
]
CacheMbOpt = Annotated[int, typer.Option(help="With --warm: the server's prompt cache in MiB.")]
ReaderOpt = Annotated[
    bool,
    typer.Option(
        "--reader",
        help="With FILE and --edit (an update snippet): time its reading, a merge answer through the CLI, and "
        "the model's tie-break between its readings against one prefill (tools/benchreader.py).",
    ),
]


BENCH_HELP = """Compare plain greedy, transformers' prompt lookup and applyedit's K settings, one model, same prompt.

Examples:

  applyedit bench fixtures --repeats 3 --json bench.json

  applyedit bench fixtures --no-baselines --k-policy adaptive --k-policy fixed:4,8,16,32

  applyedit bench app.py --edit edit.txt --baseline greedy --dtype bf16

  applyedit bench fixtures --baseline greedy --break-it applyedit/speculative/loop.py

  applyedit bench fixtures --backend llamacpp --baseline greedy --baseline torch --repeats 3

  applyedit bench fixtures --baseline hybrid --baseline draft   # against copy-only (adaptive)

  applyedit bench --show bench.json --chart bench.png

  applyedit bench --show bench.json --markdown > speed.md
"""


@guarded
@with_options(break_it=MODEL_OPTIONS)
def bench_command(
    ctx: typer.Context,
    path: PathArg = Path("fixtures"),
    edit: EditOpt = None,
    filter_: FilterOpt = None,
    all_cases: AllOpt = False,
    baseline: BaselineOpt = None,
    no_baselines: NoBaselinesOpt = False,
    k_policy: KPoliciesOpt = None,
    k: KsOpt = None,
    repeats: RepeatsOpt = 1,
    break_it: BreakItOpt = None,
    draft_model: DraftModelOpt = None,
    draft_backend: DraftBackendOpt = None,
    json_path: BenchJsonOpt = None,
    resume: BenchResumeOpt = False,
    chart: ChartOpt = None,
    show: ShowOpt = None,
    markdown: MarkdownOpt = False,
    debug: DebugOpt = False,
    warm: WarmOpt = None,
    cache_mb: CacheMbOpt = 1024,
    reader: ReaderOpt = False,
    **options: Any,
) -> None:
    from applyedit.tools import bench, benchmethods

    plan_bench_outputs(path, edit, warm, show, json_path, chart)
    chosen = RunOptions(**defaults(ctx, **options))  # the model options, checked as they are made
    model = {name: getattr(chosen, name) for name in options}
    if warm is not None:
        return bench_warm(path, edit, warm, repeats, json_path, cache_mb, model)
    if reader:
        return bench_reader(path, edit, repeats, json_path, model)
    if show is not None:
        from applyedit.tools.chart import load_report

        return print_bench(load_report(show), markdown, chart, saved=True)
    if repeats < 1:
        raise UsageError("--repeats must be 1 or more")
    if resume and json_path is None:
        raise UsageError("--resume needs --json PATH")
    baselines = [] if no_baselines else (baseline or ["greedy", "lookup"])
    methods = benchmethods.parse_methods(
        baselines, k_policy or [RunOptions.k_policy], k or [RunOptions.k], break_it, draft_model, draft_backend
    )
    report = _run_bench(bench.targets(path, edit, filter_, all_cases), methods, repeats, json_path, resume, model)
    print_bench(report, markdown, chart)
    _check_agreement(report)


def plan_bench_outputs(
    path: Path, edit: Path | None, warm: Path | None, show: Path | None, json_path: Path | None, chart: Path | None
) -> None:
    """The bench's outputs (`--json`, `--chart`) through the write plan before anything runs: no
    symlink, no input (FILE, a case's file, --edit, --warm, --show) and not each other."""
    outputs = [(flag, p) for flag, p in (("--json", json_path), ("--chart", chart)) if p is not None]
    if not outputs:
        return
    sources = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
    inputs = [("an input", p) for p in sources] + [
        (flag, p) for flag, p in (("--edit", edit), ("--warm", warm), ("--show", show)) if p is not None
    ]
    files.plan_outputs(outputs, inputs)


def _run_bench(
    items: list[Any], methods: list[Any], repeats: int, json_path: Path | None, resume: bool, model: dict[str, Any]
) -> dict[str, Any]:
    """bench.run on the engine the `model` options open (and, for methods on another backend, theirs)."""
    from applyedit.models.engine import Engine
    from applyedit.tools import bench

    engine = Engine.open(model["model"], model["device"], model["dtype"], backend=model["backend"])
    return bench.run(
        engine,
        items,
        methods,
        repeats,
        json_path,
        resume,
        log=lambda msg: console.print(msg, markup=False),
        open_engine=lambda other: Engine.open(model["model"], model["device"], None, backend=other),
    )


def _check_agreement(report: dict[str, Any]) -> None:
    """Outputs that differ between methods: exit 3 on the reference path (`strict`), else a note."""
    if report["outputs_agree"]:
        return
    same = ", ".join(f"{m} {n}/{len(report['cases'])}" for m, n in report["same_output_cases"].items())
    if report["strict"]:
        console.print(
            f"applyedit bench: the methods' outputs differ (cases with the same output: {same})", markup=False
        )
        raise typer.Exit(EXIT_CHECK)
    console.print(
        f"applyedit bench: agreement with {report['methods'][0]} on {report['backend']} "
        f"({report['dtype']}), cases with the same output: {same}",
        markup=False,
    )


def print_bench(report: dict[str, Any], markdown: bool, chart: Path | None, saved: bool = False) -> None:
    """A bench's tables (on stdout, or on stderr when the Markdown takes stdout), then what is unfinished
    in a `saved` one, its Markdown and its chart."""
    from applyedit.tools.tables import bench_markdown, render_bench

    tables = console if markdown else stdout  # stdout holds the tables, or the Markdown alone
    for table in render_bench(report):
        tables.print(table)
    if saved and report["unfinished"]:
        console.print(
            f"applyedit bench: not finished yet (--resume runs them): {', '.join(report['unfinished'])}", markup=False
        )
    if markdown:
        sys.stdout.write(bench_markdown(report))
    if chart is not None:
        from applyedit.tools.chart import render

        console.print(f"applyedit bench: chart written to {render(report, chart)}", markup=False)


@guarded
@with_options(filter_=(*MODEL_OPTIONS, *DRAFT_OPTIONS, *ANSWER_OPTIONS))
def eval_command(
    ctx: typer.Context,
    directory: Annotated[
        Path, typer.Argument(help="Folder of cases: <case>/before.<ext>, edit.txt, after.<ext>.")
    ] = Path("fixtures"),
    filter_: FilterOpt = None,
    json_path: JsonOpt = None,
    resume: Annotated[bool, typer.Option(help="Skip the cases an interrupted eval saved in --json.")] = False,
    debug: DebugOpt = False,
    **options: Any,
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
        console.print(
            f"eval: {case.name}: {status} ({r.tokens} tokens, {r.passes} passes, {r.wall_s:.1f} s)", markup=False
        )

    chosen = RunOptions(**defaults(ctx, **options))
    if not directory.is_dir():
        raise InputError(f"{directory} is not a directory of cases")
    report = evaluate.evaluate(
        directory,
        filter_,
        on_case=on_case,
        on_start=on_start,
        options=chosen,
        json_path=json_path,
        resume=resume,
    )
    from applyedit.tools.tables import render_eval

    stdout.print(render_eval(report))
    if not report["ok"]:
        raise typer.Exit(EXIT_CHECK)
