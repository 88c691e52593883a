"""The bench chart: a PNG of a bench report (what `applyedit bench --chart` and `--show` write).

Owns drawing two panels from `bench.run`'s report (or a saved `--json` file, `load_report`): end-to-end tokens/s per
case and method (medians, with whiskers from the fastest to the slowest repeat), and, when the bench
ran fixed K values, the K sweep (tokens/s against K per case, adaptive K as a dashed line at its
own speed). Knows nothing of models or timing: it draws numbers that bench.py measured.
matplotlib is an optional extra (`applyedit[chart]`), imported only here.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from applyedit import files
from applyedit.errors import UsageError
from applyedit.tools.benchrecord import CaseSummary, MethodSummary


def _copy_loop(row: MethodSummary, k_policy: str) -> bool:
    """A copy-drafting run of the loop under `k_policy` (not break-it's unrelated source)."""
    m = row.method
    return m.runner == "loop" and m.k_policy == k_policy and m.proposer == "copy" and not m.drafts_from


def _fixed_k(row: MethodSummary) -> int | None:
    """K of a fixed-K copy-drafting run of the loop, else None."""
    return row.method.k if _copy_loop(row, "fixed") else None


def render(report: dict[str, Any], path: Path) -> Path:
    """Draw `report` into the PNG at `path`; returns the path."""
    import matplotlib.pyplot as plt

    fig = draw(report)
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=110, bbox_inches="tight")  # legends sit outside the axes: keep them in
    plt.close(fig)
    path.parent.mkdir(parents=True, exist_ok=True)
    files.write_atomic(path, png.getvalue(), follow=False)  # never through a symlink planted there
    return path


def draw(report: dict[str, Any]) -> Any:
    """The figure of `report` (a matplotlib Figure): the bars, and the K sweep when there is one."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise UsageError("--chart needs matplotlib: pip install 'applyedit[chart]'") from e
    cases: dict[str, CaseSummary] = report["cases"]
    if not cases:
        raise UsageError("the bench report holds no cases to chart")
    methods = list(dict.fromkeys(m for c in cases.values() for m in c.methods))
    sweep = {
        n: sorted((k, row.tokens_per_s) for row in c.methods.values() if (k := _fixed_k(row)) is not None)
        for n, c in cases.items()
    }
    has_sweep = any(len(points) >= 2 for points in sweep.values())
    fig, axes = plt.subplots(1, 2 if has_sweep else 1, figsize=(15 if has_sweep else 10, 5.5), squeeze=False)
    _bars(axes[0][0], report, methods)
    if has_sweep:
        _sweep(axes[0][1], cases, sweep)
    fig.tight_layout()
    return fig


def _bars(bars: Any, report: dict[str, Any], methods: list[str]) -> None:
    """Tokens/s per case (x) and method (one bar each), whiskers from the slowest to the fastest repeat."""
    cases: dict[str, CaseSummary] = report["cases"]
    names = list(cases)
    width = 0.8 / len(methods)
    for i, method in enumerate(methods):
        xs, ys, low, high = [], [], [], []
        for j, name in enumerate(names):
            row = cases[name].methods.get(method)
            if row is None:
                continue
            xs.append(j + (i - (len(methods) - 1) / 2) * width)
            ys.append(row.tokens_per_s)
            low.append(row.tokens_per_s - row.num_tokens / row.wall_max_s)  # the slowest repeat
            high.append(row.num_tokens / row.wall_min_s - row.tokens_per_s)  # the fastest repeat
        bars.bar(xs, ys, width, yerr=[low, high], capsize=2, label=method)
    bars.set_xticks(range(len(names)), names, rotation=25, ha="right", fontsize=8)
    bars.set_ylabel("tokens/s, end to end (median)")
    bars.set_title(
        f"{report.get('model', '')} on {report.get('device', '')} via {runs_on(report)}\n"
        f"{report.get('repeats', 1)} repeat(s); whiskers: fastest and slowest repeat",
        fontsize=9,
    )
    # Below the plot, never over the bars: one column per method up to four.
    bars.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=min(4, len(methods)), frameon=False)


def _sweep(ax: Any, cases: dict[str, CaseSummary], sweep: dict[str, list[tuple[int, float]]]) -> None:
    """Tokens/s against fixed K, one line per case with two points or more; adaptive K dashed at its speed."""
    from matplotlib.lines import Line2D

    has_adaptive = False
    for name, points in sweep.items():
        if len(points) < 2:
            continue
        line = ax.plot([k for k, _ in points], [v for _, v in points], marker="o", label=name)[0]
        adaptive = [row.tokens_per_s for row in cases[name].methods.values() if _copy_loop(row, "adaptive")]
        if adaptive:
            ax.axhline(adaptive[0], color=line.get_color(), linestyle="--", linewidth=1)
            has_adaptive = True
    ax.set_xscale("log", base=2)
    ks = sorted({k for points in sweep.values() for k, _ in points})
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.minorticks_off()
    ax.set_xlabel("fixed K (dashed: adaptive K on the same case)")
    ax.set_ylabel("tokens/s, end to end (median)")
    ax.set_title("K sweep", fontsize=9)
    handles, _ = ax.get_legend_handles_labels()
    if has_adaptive:
        handles.append(
            Line2D([], [], color="gray", linestyle="--", linewidth=1, label="adaptive K (dashed, in its case's colour)")
        )
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, frameon=False)


def runs_on(report: dict[str, Any]) -> str:
    """The backends the report's methods ran on, with their dtypes: 'torch (float32) and llama.cpp (gguf)'."""
    own = report.get("backend", "torch")
    used = {own} | {
        row.method.backend or own for case in report.get("cases", {}).values() for row in case.methods.values()
    }
    names = {"torch": "torch", "llamacpp": "llama.cpp"}
    dtypes = {own: report.get("dtype", ""), "llamacpp": "gguf"}
    for backend, text in (report.get("other_engines") or {}).items():  # "torch (float32, 2 threads)"
        if "(" in text:
            dtypes[backend] = text.split("(", 1)[1].split(",")[0].rstrip(")")
    return " and ".join(
        f"{names.get(b, b)} ({dtypes.get(b) or 'default dtype'})" for b in sorted(used, key=lambda b: b != own)
    )


def load_report(json_path: Path) -> dict[str, Any]:
    """The report of a finished bench from its `--json` file (the summaries it saved at the end)."""
    import json

    try:
        saved = json.loads(json_path.read_text())
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read the bench record {json_path}: {e}") from e
    from applyedit.tools.benchrecord import BenchRecord, summarise_saved

    record = BenchRecord.from_json(saved)
    cases, unfinished = summarise_saved(record)
    if not cases:
        raise UsageError(f"{json_path} holds no finished case (run the bench to the end, or --resume it)")
    return {
        **record.config,
        "cases": cases,
        "outputs_agree": all(c.outputs_agree for c in cases.values()),
        "unfinished": unfinished,
    }
