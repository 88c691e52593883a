"""Reports as data and as rich tables: a run's regions, and the eval and bench result tables.

Owns the region report's shape (`report_data`, JSON-serialisable), the default brief report
(`brief_lines`), the profile line, and every rich rendering of results (`render_table`,
`render_eval`, `render_bench`, and the bench as Markdown, `bench_markdown`); besides the CLI and the
progress display, the only module that imports rich. Knows nothing of how the statistics were
computed: the metric definitions it shows are quoted from `stats`'s docstring and `stats.LEGEND`,
never restated; the bench's numbers come as benchrecord.py's typed summaries.
"""

from __future__ import annotations

import io
import statistics
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Group
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from applyedit import stats
from applyedit.regions import Region
from applyedit.stats import Profile, RegionStats, Summary

if TYPE_CHECKING:
    from applyedit.tools.benchrecord import CaseSummary, MethodSummary

__all__ = ["bench_markdown", "brief_lines", "legend", "render_bench", "render_eval", "render_table", "report_data"]

STYLES = {"unchanged": "dim green", "edited": "yellow", "deleted": "red", "end": "dim"}
CAPTION_KEYS = ("acceptance", "tokens per pass", "mean K", "region of a pass")


def _items(doc: str) -> dict[str, str]:
    """`- name: definition` lines (indented lines continue the previous one) -> {name: definition}."""
    items: dict[str, str] = {}
    name = ""
    for line in doc.splitlines():
        if line.startswith("- ") and ": " in line:
            name, _, text = line[2:].partition(": ")
            items[name] = text.strip()
        elif name and line.startswith("  ") and line.strip():
            items[name] += " " + line.strip()
        else:
            name = ""
    return items


def legend() -> dict[str, str]:
    """Every metric the report shows, with its definition quoted from `stats` (docstring and `LEGEND`)."""
    return _items(stats.__doc__ or "") | _items(stats.LEGEND)


def report_data(
    regions: Sequence[Region], region_stats: Sequence[RegionStats], end: RegionStats, totals: RegionStats,
    summary: Summary, profile: Profile | None = None, startup_s: float | None = None,
) -> dict[str, Any]:
    """The report as plain data (json.dumps-able): regions, the "end" pseudo-region, totals, where
    the time went (profile, with the startup when known), legend."""
    assert (totals.tokens, totals.passes, totals.drafted, totals.accepted) == (
        summary.tokens, summary.passes, summary.drafted, summary.accepted), "stats from another run"
    rows = [
        {"kind": r.kind, "label": r.label, "start_line": r.start_line, "end_line": r.end_line,
         "orig_start": r.orig_start, "orig_end": r.orig_end, **s.to_dict()}
        for r, s in zip(regions, region_stats, strict=True)
    ]
    return {
        "run": {name: getattr(summary, name) for name in (
            "model", "device", "dtype", "backend", "backend_reason", "proposer", "prompt_tokens",
            "stop_reason")},
        "regions": rows,
        "end": {"kind": "end", "label": "end of output", **end.to_dict()},
        "totals": _totals(totals, summary),
        "profile": {**(profile.to_dict() if profile else {}), "startup_s": startup_s},
        "legend": legend(),
    }


def _totals(totals: RegionStats, summary: Summary) -> dict[str, Any]:
    """The whole run's row: the regions' sums, the passes plain greedy would take, and the timings."""
    first = summary.prefill_s + totals.first_emit_s if totals.first_emit_s is not None else None
    last = summary.prefill_s + totals.last_emit_s if totals.last_emit_s is not None else None
    return {
        **totals.to_dict(),
        "plain_passes": totals.tokens,
        "speedup_in_passes": totals.tokens / totals.passes if totals.passes else 0.0,
        "prefill_s": summary.prefill_s,
        "decode_s": summary.decode_s,
        "wall_s": summary.wall_s,
        "tokens_per_s": summary.tokens_per_s,
        "decode_tokens_per_s": summary.decode_tokens_per_s,
        "time_to_first_token_s": first,
        "time_to_last_token_s": last,
    }


def _lines(row: dict[str, Any]) -> str:
    if row["kind"] == "deleted":
        return f"−{row['orig_end'] - row['orig_start'] + 1}"  # original lines lost
    if row["kind"] == "end":
        return ""
    return _span(row["start_line"], row["end_line"])


def _span(start: int, end: int) -> str:
    """'18' for one line, '18-20' for several."""
    return str(start) if end <= start else f"{start}-{end}"


def _name(row: dict[str, Any]) -> str:
    """The region's definition; 'top level' where regions.py fell back to naming its lines."""
    label = str(row["label"])
    return "top level" if label.startswith(("lines ", "original lines ")) else label


def _shown(row: dict[str, Any]) -> bool:
    """A row worth a line: it wrote, drafted or cost something, or it lost original lines."""
    return row["kind"] == "deleted" or bool(row["tokens"] or row["passes"] or row["drafted"])


def brief_lines(data: dict[str, Any], summary: Summary, text: str | None = None) -> list[str]:
    """The default report: one summary line, then one line per edited or deleted region (its name,
    its lines and how many of its drafted tokens were accepted). Plain text, each line short. With
    the new file's `text`, an edit outside any definition is named by its first line."""
    lines = text.split("\n") if text is not None else []
    s = summary
    if s.stop_reason == "merge":  # api.answer_by_merge: the merge answered, no model ran
        head = f"applyedit: answered by the snippet's merge in {s.wall_s:.2f} s (unambiguous, parses); no model ran"
        return [head, *_region_lines(data, lines, "from the merge")]
    head = (f"applyedit: {s.tokens} tokens, {s.wall_s:.1f} s (prompt {s.prefill_s:.1f} s), "
            f"{s.tokens_per_pass:.1f} tok/pass, " + (f"{s.acceptance:.0%} accepted" if s.drafted else "no drafts"))
    if s.backend_reason:  # which backend ran and why: "; llama.cpp: the CPU default"
        head += f"; {'llama.cpp' if s.backend == 'llamacpp' else s.backend}: {s.backend_reason}"
    if s.temperature:
        head += f"; sampled at temperature {s.temperature:g}, top-p {s.top_p:g}, seed {s.seed}"
    return [head, *_region_lines(data, lines)]


def _region_lines(data: dict[str, Any], lines: list[str], source: str | None = None) -> list[str]:
    """One line per edited or deleted region; `source` says where an edited one came from (else its drafts)."""
    out = []
    for row in data["regions"]:
        if row["kind"] == "edited":
            where = f"lines {_span(row['start_line'], row['end_line'])}"
            drafts = f"{row['acceptance']:.0%} of drafts accepted" if row["drafted"] else "nothing drafted"
            accepted = source or drafts
            name = _name(row)
            first = next((line.strip() for line in lines[row["start_line"] - 1 : row["end_line"]] if line.strip()), "")
            if name == "top level" and first:
                name += f" ({first[:28]}{'…' if len(first) > 28 else ''})"
            out.append(f"  edited   {where:<13} {name}: {accepted}")
        elif row["kind"] == "deleted":
            n = row["orig_end"] - row["orig_start"] + 1
            where = f"was {_span(row['orig_start'], row['orig_end'])}"
            out.append(f"  deleted  {where:<13} {_name(row)}: {n} original line{'s' if n != 1 else ''} gone")
    return out


DRAFTER_NAMES = {"copy": "copy", "draft-model": "model"}


def drafted_by(counts: dict[str, int]) -> str:
    """'copy', 'model', or 'copy 70% model 30%' (shares of the drafted tokens); '–' when none."""
    total = sum(counts.values())
    shown = {DRAFTER_NAMES.get(name, name): n for name, n in sorted(counts.items()) if n}
    if not total:
        return "–"
    if len(shown) == 1:
        return next(iter(shown))
    return " ".join(f"{name} {n / total:.0%}" for name, n in shown.items())


COLUMNS = ("region", "kind", "lines", "tokens", "drafted", "accepted", "accept", "by", "passes", "tok/pass",
           "mean K", "time s")
# Narrow terminals drop columns from the end of this list first; the others always stay.
OPTIONAL = ("by", "mean K", "accepted", "drafted", "time s", "passes", "tok/pass")
REGION_MIN = 26  # columns kept for region names (longer ones wrap), however narrow the terminal


def _cells(label: str, kind: str, lines: str, row: dict[str, Any]) -> dict[str, str]:
    drafted, passes = row["drafted"], row["passes"]
    return dict(zip(COLUMNS, [
        label, kind, lines, str(row["tokens"]), str(drafted), str(row["accepted"]),
        f"{row['acceptance']:.0%}" if drafted else "–", drafted_by(row.get("drafted_by") or {}), str(passes),
        f"{row['tokens_per_pass']:.1f}" if passes else "–", f"{row['mean_k']:.1f}" if passes else "–",
        f"{row['time_s']:.2f}" if passes else "–",
    ], strict=True))


def _table(rows: list[tuple[dict[str, str], str]], total: dict[str, str], columns: list[str],
           region_min: int) -> Table:
    table = Table(title="regions", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for name in columns:
        if name == "region":  # the only column that wraps, and never narrower than region_min
            table.add_column(name, overflow="fold", min_width=region_min)
        else:  # by: drafted by
            table.add_column(name, justify="left" if name in ("kind", "lines", "by") else "right", no_wrap=True)
    for cells, style in rows:
        table.add_row(*(cells[c] for c in columns), style=style)
    table.add_section()
    table.add_row(*(total[c] for c in columns), style="bold")
    return table


def render_table(data: dict[str, Any], width: int | None = None) -> Group:
    """One row per region that wrote, drafted or lost something, then "end" (when it wrote a token)
    and the totals; unchanged rows dim green, edited rows yellow; below it the totals in words, where
    the time went and the legend, one definition per line. With `width` (the terminal's), the least
    needed columns (OPTIONAL, in order) go until the table fits with region names whole, or
    wrapped at no fewer than REGION_MIN columns."""
    rows = [(_cells(_name(row), row["kind"], _lines(row), row), STYLES[row["kind"]])
            for row in data["regions"] if _shown(row)]
    end = data["end"]
    if end["tokens"]:
        rows.append((_cells(end["label"], "end", "", end), STYLES["end"]))
    totals = data["totals"]
    total = _cells("total", "", str(totals["lines"]), totals)
    longest = max(len(cells["region"]) for cells, _ in rows) if rows else len("region")
    columns = list(COLUMNS)
    table = _table(rows, total, columns, min(REGION_MIN, longest))
    if width is not None:
        from rich.console import Console

        measure = Console(width=10_000, file=io.StringIO())
        for name in (None, *OPTIONAL):
            if name is not None:
                columns.remove(name)
            table = _table(rows, total, columns, min(REGION_MIN, longest))
            narrowest = Measurement.get(measure, measure.options, table).minimum
            if narrowest <= width:
                break
    legend_ = data["legend"]
    caption = Text(
        f"{totals['tokens']} tokens in {totals['passes']} passes (plain decoding: {totals['plain_passes']}), "
        f"speedup in passes {totals['speedup_in_passes']:.1f}×, {totals['tokens_per_s']:.1f} tokens/s.\n"
    )
    caption.append(profile_line(data.get("profile") or {}) + "\n")
    caption.append("\n".join(f"{key}: {legend_[key]}" for key in CAPTION_KEYS if key in legend_), style="dim")
    return Group(table, caption)


PROFILE_PARTS = (("prefill", "prefill_s"), ("forward", "forward_s"), ("drafting", "drafting_s"),
                 ("cache", "cache_s"), ("loop", "loop_s"), ("outside", "outside_s"))


def profile_line(profile: dict[str, Any]) -> str:
    """'startup 8.2 s; prefill 3.10 s; decode: forward 20.40 s (95.1%), drafting ...' ('' without data)."""
    if "forward_s" not in profile:
        return ""
    decode = sum(profile[key] for _, key in PROFILE_PARTS[1:]) or 1.0
    parts = [f"{name} {profile[key]:.2f} s ({profile[key] / decode:.1%})" for name, key in PROFILE_PARTS[1:]]
    startup = profile.get("startup_s")
    return ((f"startup {startup:.1f} s; " if startup is not None else "")
            + f"prefill {profile['prefill_s']:.2f} s; decode: " + ", ".join(parts))


def render_eval(report: dict[str, Any]) -> Table:
    def mark(value: bool | None) -> str:
        return "–" if value is None else ("yes" if value else "NO")

    table = Table(title=f"{report['root']}: {report['exact']}/{report['total']} exact "
                        f"(floor {report['floor']}), {report['model']} on {report['device']} via {report['backend']} "
                        f"({report['dtype']})")
    for col in ("case", "exact", "ws match", "git apply", "syntax", "tokens", "tok/pass", "tok/s", "wall s", "note"):
        table.add_column(col, justify="left" if col in ("case", "note") else "right")
    for r in report["cases"]:
        note = "known failure" if r["known_failure"] else ""
        if r["error"]:
            note = (note + "; " if note else "") + r["error"][:60]
        table.add_row(r["name"], mark(r["exact"]), mark(r["whitespace_match"]), mark(r["git_apply_ok"]),
                      mark(r["syntax_ok"]), str(r["tokens"]), f"{r['tokens_per_pass']:.1f}",
                      f"{r['tokens_per_s']:.2f}", f"{r['wall_s']:.1f}", note)
    table.caption = (f"speedup in passes {report['speedup_in_passes']:.1f}×; known failures "
                     f"{report['known_failures']}; unexpected failures: "
                     f"{', '.join(report['unexpected_failures']) or 'none'}")
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
            matrix.add_row(name, *(Text(f"{walls[m]:.1f}", style="bold" if m == best else "") if m in walls else "–"
                                   for m in methods))
        tables.append(matrix)
    return tables


def _bench_case(report: dict[str, Any], name: str, case: CaseSummary) -> Table:
    table = Table(title=f"{name}: prompt {case.prompt_tokens} tokens, prefill {case.prefill_s:.1f} s; "
                        f"outputs agree: {'yes' if case.outputs_agree else 'NO'}", title_justify="left")
    drafting = any(set(row.drafted_by) - {"copy"} for row in case.methods.values())
    columns = ["method", "tokens", "passes", "tok/pass", *(["drafted by"] if drafting else []),
               "end to end s (spread)", "first token s", "decode s", *(["drafting s"] if drafting else []),
               "tok/s", "× greedy", "decode × greedy", "same output"]
    for col in columns:
        table.add_column(col, justify="left" if col == "method" else "right", no_wrap=col == "method")
    for method, row in case.methods.items():
        cells = {"method": method, "tokens": str(row.num_tokens), "passes": f"{row.passes:g}",
                 "tok/pass": f"{row.tokens_per_pass:.1f}", "drafted by": drafted_by(row.drafted_by),
                 "end to end s (spread)": f"{row.wall_s:.1f} ({row.wall_min_s:.1f}–{row.wall_max_s:.1f})",
                 "first token s": f"{row.ttft_s:.1f}", "decode s": f"{row.decode_s:.1f}",
                 "drafting s": f"{row.drafting_s:.1f}", "tok/s": f"{row.tokens_per_s:.2f}",
                 "× greedy": _ratio(row.speedup_vs_greedy),
                 "decode × greedy": _ratio(row.decode_speedup_vs_greedy), "same output": _same(row)}
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

    def rows_of(name: str) -> list[MethodSummary]:
        return [case.methods[name] for case in cases.values() if name in case.methods]

    def table(title: str, seconds: Callable[[MethodSummary], float],
              ratio: Callable[[MethodSummary], float | None]) -> list[str]:
        lines = [f"{title}, median seconds (× plain greedy on the method's own backend):", "",
                 "| case (tokens) | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
        for name, case in cases.items():
            first = next(iter(case.methods.values()))
            cells = []
            for m in methods:
                row = case.methods.get(m)
                r = row and ratio(row)
                cells.append("–" if row is None else f"{seconds(row):.1f}"
                             + (f" ({_ratio(r)})" if r and not row.is_greedy else ""))
            lines.append(f"| {name} ({first.num_tokens}) | " + " | ".join(cells) + " |")
        medians = [_median([r for row in rows_of(m) if (r := ratio(row))]) for m in methods]
        shown = ["–" if all(row.is_greedy for row in rows_of(m)) else _ratio(v)
                 for m, v in zip(methods, medians, strict=True)]
        lines.append("| median ratio | " + " | ".join(shown) + " |")
        return lines

    out = table("End to end (prefill counted)", lambda r: r.wall_s, lambda r: r.speedup_vs_greedy) + [""]
    out += table("Decode phase (after the first token)", lambda r: r.decode_s, lambda r: r.decode_speedup_vs_greedy)
    out += [""]
    out += ["Target passes (tokens per pass):", "", "| case | " + " | ".join(methods) + " |",
            "|---" * (len(methods) + 1) + "|"]
    for name, case in cases.items():
        out.append(f"| {name} | " + " | ".join(
            f"{case.methods[m].passes:g} ({case.methods[m].tokens_per_pass:.1f})"
            if m in case.methods else "–" for m in methods) + " |")
    out += _against_lookup(methods, cases)
    out += _efficiency(methods, cases)
    out.append("")
    out.append("Same output as " + f"{methods[0]}: " + ", ".join(
        f"{m} {sum(bool(row.same_output) for row in rows_of(m))}/{len(rows_of(m))} cases" for m in methods[1:]) + ".")
    return "\n".join([_bench_setup(report) + ".", "", *out]) + "\n"


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
        ratios = [min(case.methods[lk].wall_s for lk in lookups if lk in case.methods) / case.methods[m].wall_s
                  for case in cases.values() if m in case.methods and any(lk in case.methods for lk in lookups)]
        out.append(f"{m} against the better of {', '.join(lookups)}, end to end: median "
                   f"{_ratio(_median(ratios))} (per case {', '.join(_ratio(r) for r in ratios)}).")
    return out


def _efficiency(methods: list[str], cases: dict[str, CaseSummary]) -> list[str]:
    """Per case, each loop method's bound (the perfect drafter on the calibrated cost curve) and its
    efficiency (bound / actual) in the decode phase and end to end."""
    loops = [m for m in methods
             if any(m in c.methods and c.methods[m].bound_wall_s is not None for c in cases.values())]
    if not loops:
        return []
    out = ["", "The bound (the output itself as the draft, up to K, priced on the calibrated cost curve) and "
               "efficiency = bound / actual, decode phase and end to end:", "",
           "| case | " + " | ".join(loops) + " |", "|---" * (len(loops) + 1) + "|"]
    for name, case in cases.items():
        cells = []
        for m in loops:
            row = case.methods.get(m)
            if row is None or row.bound_decode_s is None or row.bound_wall_s is None:
                cells.append("–")
                continue
            cells.append(f"decode {row.bound_decode_s:.1f} s ({_share(row.efficiency_decode)}), "
                         f"end to end {row.bound_wall_s:.1f} s ({_share(row.efficiency_wall)})")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def _bench_setup(report: dict[str, Any]) -> str:
    """'<model> on <device> via <backend> (<dtype>, <n> threads); medians of <r> interleaved repeats'."""
    return (f"{report['model']} on {report['device']} via {report['backend']} ({report['dtype']}, "
            f"{report['threads']} threads); medians of {report['repeats']} interleaved repeats")


def _same(row: MethodSummary) -> str:
    """'yes', or where the output left the reference's (the first method's) tokens; '–' when not recorded."""
    if row.same_output is None:
        return "–"
    return "yes" if row.same_output else f"no, from token {row.tokens_before_divergence}"


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}×"
