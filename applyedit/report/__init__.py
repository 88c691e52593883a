"""A run's report as data and as rich tables: its regions, the brief report, the profile line.

Owns the report's shape (`Report`, JSON-serialisable: the regions' part from `report_data`, the
run's record added once by `run_report`), the default brief report
(`brief_lines`), the profile line, the region table (`render_table`) and how drafters are named
(`drafted_by`); with the CLI, the progress display and the tools' tables (tools/tables.py), the only
module that imports rich. Knows nothing of how the statistics were computed: the metric definitions
it shows are quoted from `stats`'s docstring and `stats.LEGEND`, never restated.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from rich import box
from rich.console import Group
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from applyedit.report import stats
from applyedit.report.regions import Region
from applyedit.report.stats import Profile, RegionStats, Summary

__all__ = [
    "AnswerRecord",
    "RegionReport",
    "Report",
    "brief_lines",
    "drafted_by",
    "legend",
    "profile_line",
    "render_table",
    "report_data",
    "run_report",
]

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


class RegionReport(TypedDict):
    """The regions of the new file with their statistics (`report_data`)."""

    run: dict[str, Any]  # the summary's model, device, dtype, backend and why, proposer, prompt tokens, stop reason
    regions: list[dict[str, Any]]  # one row per region: kind, label, lines, then its RegionStats
    end: dict[str, Any]  # the "end" pseudo-region: output after the file's last line (the closing fence)
    totals: dict[str, Any]  # the whole run's row, with its timings
    profile: dict[str, Any]  # where the time went (stats.Profile), with the startup when known
    legend: dict[str, str]  # every metric shown, with its definition


class AnswerRecord(TypedDict):
    """Who answered: "model" or "merge", whether the model ran, and the notes for the user."""

    by: str
    model_ran: bool
    notes: list[str]


class Report(RegionReport):
    """A run's whole report (`--report-json`'s "report", the server's): the regions' part, then the
    output lines the anchor forced, who answered and the prompt cache's share (`run_report`)."""

    anchored_lines: list[tuple[int, int]]  # 1-based inclusive ranges (stats.anchored_lines)
    answer: AnswerRecord
    prompt_cache: dict[str, int]  # promptcache.reuse_report


def legend() -> dict[str, str]:
    """Every metric the report shows, with its definition quoted from `stats` (docstring and `LEGEND`)."""
    return _items(stats.__doc__ or "") | _items(stats.LEGEND)


def report_data(
    regions: Sequence[Region],
    region_stats: Sequence[RegionStats],
    end: RegionStats,
    totals: RegionStats,
    summary: Summary,
    profile: Profile | None = None,
    startup_s: float | None = None,
) -> RegionReport:
    """The regions' report as plain data (json.dumps-able): regions, the "end" pseudo-region, totals,
    where the time went (profile, with the startup when known), legend."""
    assert (totals.tokens, totals.passes, totals.drafted, totals.accepted) == (
        summary.tokens,
        summary.passes,
        summary.drafted,
        summary.accepted,
    ), "stats from another run"
    rows = [
        {
            "kind": r.kind,
            "label": r.label,
            "start_line": r.start_line,
            "end_line": r.end_line,
            "orig_start": r.orig_start,
            "orig_end": r.orig_end,
            **s.to_dict(),
        }
        for r, s in zip(regions, region_stats, strict=True)
    ]
    return {
        "run": {
            "model": summary.model,
            "device": summary.device,
            "dtype": summary.dtype,
            "backend": summary.backend,
            "backend_reason": summary.backend_reason,
            "proposer": summary.proposer,
            "prompt_tokens": summary.prompt_tokens,
            "stop_reason": summary.stop_reason,
        },
        "regions": rows,
        "end": {"kind": "end", "label": "end of output", **end.to_dict()},
        "totals": _totals(totals, summary),
        "profile": {**(profile.to_dict() if profile else {}), "startup_s": startup_s},
        "legend": legend(),
    }


def run_report(
    regions: RegionReport,
    *,
    anchored_lines: list[tuple[int, int]],
    answer: AnswerRecord,
    prompt_cache: dict[str, int],
) -> Report:
    """The whole report, built once: the regions' part (`report_data`), then the run's record."""
    return {**regions, "anchored_lines": anchored_lines, "answer": answer, "prompt_cache": prompt_cache}


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
    """The region's definition; 'top level' where report/regions.py fell back to naming its lines."""
    label = str(row["label"])
    return "top level" if label.startswith(("lines ", "original lines ")) else label


def _shown(row: dict[str, Any]) -> bool:
    """A row worth a line: it wrote, drafted or cost something, or it lost original lines."""
    return row["kind"] == "deleted" or bool(row["tokens"] or row["passes"] or row["drafted"])


def brief_lines(data: Mapping[str, Any], summary: Summary, text: str | None = None) -> list[str]:
    """The default report: one summary line, then one line per edited or deleted region (its name,
    its lines and how many of its drafted tokens were accepted). Plain text, each line short. With
    the new file's `text`, an edit outside any definition is named by its first line."""
    lines = text.split("\n") if text is not None else []
    s = summary
    if s.stop_reason == "merge":  # outcome.answer_by_merge: the merge answered, no decode ran
        model = "the model scored the readings" if "model" in s.backend_reason else "no model ran"
        head = f"applyedit: answered by the snippet's merge in {s.wall_s:.2f} s ({s.backend_reason}); {model}"
        return [head, *_region_lines(data, lines, "from the merge")]
    head = (
        f"applyedit: {s.tokens} tokens, {s.wall_s:.1f} s (prompt {s.prefill_s:.1f} s), "
        f"{s.tokens_per_pass:.1f} tok/pass, " + (f"{s.acceptance:.0%} accepted" if s.drafted else "no drafts")
    )
    if s.backend_reason:  # which backend ran and why: "; llama.cpp: the CPU default"
        head += f"; {'llama.cpp' if s.backend == 'llamacpp' else s.backend}: {s.backend_reason}"
    if s.temperature:
        head += f"; sampled at temperature {s.temperature:g}, top-p {s.top_p:g}, seed {s.seed}"
    return [head, *_region_lines(data, lines)]


def _region_lines(data: Mapping[str, Any], lines: list[str], source: str | None = None) -> list[str]:
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


COLUMNS = (
    "region",
    "kind",
    "lines",
    "tokens",
    "drafted",
    "accepted",
    "accept",
    "by",
    "passes",
    "tok/pass",
    "mean K",
    "time s",
)
# Narrow terminals drop columns from the end of this list first; the others always stay.
OPTIONAL = ("by", "mean K", "accepted", "drafted", "time s", "passes", "tok/pass")
REGION_MIN = 26  # columns kept for region names (longer ones wrap), however narrow the terminal


def _cells(label: str, kind: str, lines: str, row: dict[str, Any]) -> dict[str, str]:
    drafted, passes = row["drafted"], row["passes"]
    return dict(
        zip(
            COLUMNS,
            [
                label,
                kind,
                lines,
                str(row["tokens"]),
                str(drafted),
                str(row["accepted"]),
                f"{row['acceptance']:.0%}" if drafted else "–",
                drafted_by(row.get("drafted_by") or {}),
                str(passes),
                f"{row['tokens_per_pass']:.1f}" if passes else "–",
                f"{row['mean_k']:.1f}" if passes else "–",
                f"{row['time_s']:.2f}" if passes else "–",
            ],
            strict=True,
        )
    )


def _table(rows: list[tuple[dict[str, str], str]], total: dict[str, str], columns: list[str], region_min: int) -> Table:
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


def render_table(data: Mapping[str, Any], width: int | None = None) -> Group:
    """One row per region that wrote, drafted or lost something, then "end" (when it wrote a token)
    and the totals; unchanged rows dim green, edited rows yellow; below it the totals in words, where
    the time went and the legend, one definition per line. With `width` (the terminal's), the least
    needed columns (OPTIONAL, in order) go until the table fits with region names whole, or
    wrapped at no fewer than REGION_MIN columns."""
    rows = [
        (_cells(_name(row), row["kind"], _lines(row), row), STYLES[row["kind"]])
        for row in data["regions"]
        if _shown(row)
    ]
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


PROFILE_PARTS = (
    ("prefill", "prefill_s"),
    ("forward", "forward_s"),
    ("drafting", "drafting_s"),
    ("cache", "cache_s"),
    ("loop", "loop_s"),
    ("outside", "outside_s"),
)


def profile_line(profile: dict[str, Any]) -> str:
    """'startup 8.2 s; prefill 3.10 s; decode: forward 20.40 s (95.1%), drafting ...' ('' without data)."""
    if "forward_s" not in profile:
        return ""
    decode = sum(profile[key] for _, key in PROFILE_PARTS[1:]) or 1.0
    parts = [f"{name} {profile[key]:.2f} s ({profile[key] / decode:.1%})" for name, key in PROFILE_PARTS[1:]]
    startup = profile.get("startup_s")
    return (
        (f"startup {startup:.1f} s; " if startup is not None else "")
        + f"prefill {profile['prefill_s']:.2f} s; decode: "
        + ", ".join(parts)
    )
