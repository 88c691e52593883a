"""The eval and bench results as rich tables and the bench as Markdown (`applyedit eval`, `applyedit bench`).

Owns every rendering of the tools' results: `render_eval` (one row per case), `render_bench` (a table
per case, then cases × methods) and `bench_markdown` (the README's tables: end to end, decode phase,
target passes, the lookup comparison, the bound and efficiency, agreement). Knows nothing of how the
numbers were measured: the bench's come as benchrecord.py's typed summaries, the eval's as
evaluate.py's report; a run's own region report is the report package's.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from applyedit.report import drafted_by
from applyedit.tools.benchrecord import CaseSummary, MethodSummary


def render_eval(report: dict[str, Any]) -> Table:
    def mark(value: bool | None) -> str:
        return "–" if value is None else ("yes" if value else "NO")

    table = Table(
        title=f"{report['root']}: {report['exact']}/{report['total']} exact "
        f"(floor {report['floor']}), {report['model']} on {report['device']} via {report['backend']} "
        f"({report['dtype']})"
    )
    for col in ("case", "exact", "ws match", "git apply", "syntax", "tokens", "tok/pass", "tok/s", "wall s", "note"):
        table.add_column(col, justify="left" if col in ("case", "note") else "right")
    for r in report["cases"]:
        note = "known failure" if r["known_failure"] else ""
        if r["error"]:
            note = (note + "; " if note else "") + r["error"][:60]
        table.add_row(
            r["name"],
            mark(r["exact"]),
            mark(r["whitespace_match"]),
            mark(r["git_apply_ok"]),
            mark(r["syntax_ok"]),
            str(r["tokens"]),
            f"{r['tokens_per_pass']:.1f}",
            f"{r['tokens_per_s']:.2f}",
            f"{r['wall_s']:.1f}",
            note,
        )
    table.caption = (
        f"speedup in passes {report['speedup_in_passes']:.1f}×; known failures "
        f"{report['known_failures']}; unexpected failures: "
        f"{', '.join(report['unexpected_failures']) or 'none'}"
    )
    return table


def render_bench(report: dict[str, Any]) -> list[Table]:
    """One table per case (medians of the repeats, spread of end-to-end time), then, for several
    cases, a cases × methods table of median end-to-end seconds with the fastest marked. The draft
    model's columns (drafted by, drafting s) appear only when a method drafted with one."""
    cases: dict[str, CaseSummary] = report["cases"]
    tables = [_bench_case(report, name, case) for name, case in cases.items()]
    if len(cases) > 1:
        methods = report["methods"]
        matrix = Table(title="end to end, median seconds (fastest in bold)", title_justify="left")
        matrix.add_column("case")
        for m in methods:
            matrix.add_column(m, justify="right")
        for name, case in cases.items():
            walls = {m: case.methods[m].wall_s for m in methods if m in case.methods}
            best = min(walls, key=walls.__getitem__) if walls else None
            matrix.add_row(
                name,
                *(Text(f"{walls[m]:.1f}", style="bold" if m == best else "") if m in walls else "–" for m in methods),
            )
        tables.append(matrix)
    return tables


def _bench_case(report: dict[str, Any], name: str, case: CaseSummary) -> Table:
    table = Table(
        title=f"{name}: prompt {case.prompt_tokens} tokens, prefill {case.prefill_s:.1f} s; "
        f"outputs agree: {'yes' if case.outputs_agree else 'NO'}",
        title_justify="left",
    )
    drafting = any(set(row.drafted_by) - {"copy"} for row in case.methods.values())
    columns = [
        "method",
        "tokens",
        "passes",
        "tok/pass",
        *(["drafted by"] if drafting else []),
        "end to end s (spread)",
        "first token s",
        "decode s",
        *(["drafting s"] if drafting else []),
        "tok/s",
        "× greedy",
        "decode × greedy",
        "same output",
    ]
    for col in columns:
        table.add_column(col, justify="left" if col == "method" else "right", no_wrap=col == "method")
    for method, row in case.methods.items():
        cells = {
            "method": method,
            "tokens": str(row.num_tokens),
            "passes": f"{row.passes:g}",
            "tok/pass": f"{row.tokens_per_pass:.1f}",
            "drafted by": drafted_by(row.drafted_by),
            "end to end s (spread)": f"{row.wall_s:.1f} ({row.wall_min_s:.1f}–{row.wall_max_s:.1f})",
            "first token s": f"{row.ttft_s:.1f}",
            "decode s": f"{row.decode_s:.1f}",
            "drafting s": f"{row.drafting_s:.1f}",
            "tok/s": f"{row.tokens_per_s:.2f}",
            "× greedy": _ratio(row.speedup_vs_greedy),
            "decode × greedy": _ratio(row.decode_speedup_vs_greedy),
            "same output": _same(row),
        }
        table.add_row(*(cells[col] for col in columns))
    table.caption = f"{_bench_setup(report)}; × greedy: against plain greedy on the method's own backend"
    table.caption_justify = "left"
    return table


def bench_markdown(report: dict[str, Any]) -> str:
    """The bench as Markdown tables for a README: end to end and decode phase, median seconds per
    case and method with the ratio to plain greedy on the method's own backend, and a last row
    holding each ratio's median over the cases; then target passes (tokens per pass), each loop
    method against the better prompt-lookup setting, and the agreement of the outputs."""
    methods: list[str] = report["methods"]
    cases: dict[str, CaseSummary] = report["cases"]
    out = _seconds_table(
        "End to end (prefill counted)", methods, cases, lambda r: r.wall_s, lambda r: r.speedup_vs_greedy
    ) + [""]
    out += _seconds_table(
        "Decode phase (after the first token)",
        methods,
        cases,
        lambda r: r.decode_s,
        lambda r: r.decode_speedup_vs_greedy,
    )
    out += [""]
    out += [
        "Target passes (tokens per pass):",
        "",
        "| case | " + " | ".join(methods) + " |",
        "|---" * (len(methods) + 1) + "|",
    ]
    for name, case in cases.items():
        out.append(
            f"| {name} | "
            + " | ".join(
                f"{case.methods[m].passes:g} ({case.methods[m].tokens_per_pass:.1f})" if m in case.methods else "–"
                for m in methods
            )
            + " |"
        )
    out += _against_lookup(methods, cases)
    out += _efficiency(methods, cases)
    out.append("")
    out.append(
        "Same output as "
        + f"{methods[0]}: "
        + ", ".join(
            f"{m} {sum(bool(row.same_output) for row in _rows_of(cases, m))}/{len(_rows_of(cases, m))} cases"
            for m in methods[1:]
        )
        + "."
    )
    return "\n".join([_bench_setup(report) + ".", "", *out]) + "\n"


def _rows_of(cases: dict[str, CaseSummary], name: str) -> list[MethodSummary]:
    """The method's summary in every case that ran it."""
    return [case.methods[name] for case in cases.values() if name in case.methods]


def _seconds_table(
    title: str,
    methods: list[str],
    cases: dict[str, CaseSummary],
    seconds: Callable[[MethodSummary], float],
    ratio: Callable[[MethodSummary], float | None],
) -> list[str]:
    """Median seconds per case and method with the ratio to plain greedy, then each ratio's median."""
    lines = [
        f"{title}, median seconds (× plain greedy on the method's own backend):",
        "",
        "| case (tokens) | " + " | ".join(methods) + " |",
        "|---" * (len(methods) + 1) + "|",
    ]
    for name, case in cases.items():
        first = next(iter(case.methods.values()))
        cells = []
        for m in methods:
            row = case.methods.get(m)
            r = row and ratio(row)
            cells.append(
                "–" if row is None else f"{seconds(row):.1f}" + (f" ({_ratio(r)})" if r and not row.is_greedy else "")
            )
        lines.append(f"| {name} ({first.num_tokens}) | " + " | ".join(cells) + " |")
    medians = [_median([r for row in _rows_of(cases, m) if (r := ratio(row))]) for m in methods]
    shown = [
        "–" if all(row.is_greedy for row in _rows_of(cases, m)) else _ratio(v)
        for m, v in zip(methods, medians, strict=True)
    ]
    lines.append("| median ratio | " + " | ".join(shown) + " |")
    return lines


def _against_lookup(methods: list[str], cases: dict[str, CaseSummary]) -> list[str]:
    """One line per loop method: its end-to-end speed against the better prompt-lookup run, per case."""
    rows = {m: [case.methods[m] for case in cases.values() if m in case.methods] for m in methods}
    lookups = [m for m in methods if rows[m] and rows[m][0].method.lookup]
    if not lookups:
        return []
    out = [""]
    for m in methods:
        if not rows[m] or rows[m][0].method.runner != "loop":
            continue
        ratios = [
            min(case.methods[lk].wall_s for lk in lookups if lk in case.methods) / case.methods[m].wall_s
            for case in cases.values()
            if m in case.methods and any(lk in case.methods for lk in lookups)
        ]
        out.append(
            f"{m} against the better of {', '.join(lookups)}, end to end: median "
            f"{_ratio(_median(ratios))} (per case {', '.join(_ratio(r) for r in ratios)})."
        )
    return out


def _efficiency(methods: list[str], cases: dict[str, CaseSummary]) -> list[str]:
    """Per case, each loop method's bound (the perfect drafter on the calibrated cost curve) and its
    efficiency (bound / actual) in the decode phase and end to end."""
    loops = [
        m for m in methods if any(m in c.methods and c.methods[m].bound_wall_s is not None for c in cases.values())
    ]
    if not loops:
        return []
    out = [
        "",
        "The bound (the output itself as the draft, up to K, priced on the calibrated cost curve) and "
        "efficiency = bound / actual, decode phase and end to end:",
        "",
        "| case | " + " | ".join(loops) + " |",
        "|---" * (len(loops) + 1) + "|",
    ]
    for name, case in cases.items():
        cells = []
        for m in loops:
            row = case.methods.get(m)
            if row is None or row.bound_decode_s is None or row.bound_wall_s is None:
                cells.append("–")
                continue
            cells.append(
                f"decode {row.bound_decode_s:.1f} s ({_share(row.efficiency_decode)}), "
                f"end to end {row.bound_wall_s:.1f} s ({_share(row.efficiency_wall)})"
            )
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def _bench_setup(report: dict[str, Any]) -> str:
    """'<model> on <device> via <backend> (<dtype>, <n> threads); medians of <r> interleaved repeats'."""
    return (
        f"{report['model']} on {report['device']} via {report['backend']} ({report['dtype']}, "
        f"{report['threads']} threads); medians of {report['repeats']} interleaved repeats"
    )


def _same(row: MethodSummary) -> str:
    """'yes', or where the output left the reference's (the first method's) tokens; '–' when not recorded."""
    if row.same_output is None:
        return "–"
    return "yes" if row.same_output else f"no, from token {row.tokens_before_divergence}"


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}×"
