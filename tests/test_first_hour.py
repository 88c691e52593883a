"""A newcomer's first hour (issue 20), the parts a test can see without a model: --version and -h,
tables on stdout, the default report and the verbose table at 80 columns, eval's per-case progress
and its error before any table, git found on PATH, and `bench --show` / `--chart` on the committed
K-sweep record."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from applyedit.cli import main as cli
from applyedit.tools import evaluate
from applyedit.diff import unified_diff
from applyedit.report import brief_lines, render_table
from clihelp import PY, Run, model, run, work  # noqa: F401  (fixtures)

ROOT = Path(__file__).parent.parent
KSWEEP = ROOT / "docs" / "bench" / "issue4-ksweep-cpu-fp32.json"
SUITE = ROOT / "docs" / "bench" / "issue6-suite-cpu-fp32.json"


def test_version_and_short_help(run: Callable[..., Run]) -> None:
    from applyedit import __version__

    r = run("--version")
    assert r.code == 0 and r.out.decode().strip() == f"applyedit {__version__}"
    for args in (("-h",), ("apply", "-h"), ("model", "-h"), ("f.py", "-h")):
        r = run(*args)
        assert r.code == 0 and b"--help" in r.out and b"-h" in r.out, args


# --- the report -----------------------------------------------------------------------------------

CLASSES = "class Store:\n" + "".join(f"    def get{i}(self):\n        return {i}\n\n" for i in range(6))


def rendered(table: Any, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(table)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_default_report_is_a_summary_and_the_edited_regions(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    (work / "s.py").write_text(CLASSES)
    model(CLASSES.replace("return 3", "return 30").replace("        return 5\n", "        return 50\n") + "```\n")
    r = run("s.py", "--edit-text", "Make get3 return 30 and get5 return 50.")
    assert r.code == 0, r.err
    lines = r.err.strip().splitlines()
    assert lines[0].startswith("applyedit: ") and "tokens" in lines[0] and "accepted" in lines[0]
    edited = [line for line in lines[1:] if line.lstrip().startswith("edited")]
    assert len(edited) == 2 and "class Store › def get3" in edited[0] and "class Store › def get5" in edited[1], r.err
    assert "lines 12 " in edited[0] and "lines 18 " in edited[1]  # one line: "12", not "12-12"
    assert all(re.search(r": (\d+% of drafts accepted|nothing drafted)$", line) for line in edited)
    assert all(len(line) <= 80 for line in lines[1:]), r.err
    assert "unchanged" not in r.err and "end of output" not in r.err  # only what changed


def test_a_top_level_edit_is_named_by_its_first_line(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    (work / "c.py").write_text("A = 1\nB = 2\n\n\ndef f():\n    return A\n")
    model("A = 1\nB = 20\n\n\ndef f():\n    return A\n```\n")
    r = run("c.py", "--edit-text", "Set B to 20.")
    assert r.code == 0 and "edited   lines 2 " in r.err and "top level (B = 20): " in r.err, r.err


def test_verbose_table_keeps_region_names_at_80_columns(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    (work / "s.py").write_text(CLASSES)
    model(CLASSES.replace("return 3", "return 30") + "```\n")
    from applyedit import api

    result = api.apply(work / "s.py", "Make get3 return 30.", engine=api.Engine.open(), cwd=work)
    text80 = rendered(render_table(result.report, 80), 80)
    assert "class Store › def get3" in text80  # the name whole, not folded or cut
    assert all(len(line) <= 80 for line in text80.splitlines())
    rows = [line for line in text80.splitlines() if "def get" in line or "top level" in line]
    assert rows and not any("0.00" in line for line in rows)  # a region without passes shows "–", not 0.00 s
    # The closing fence after the file ("```\n": 2 tokens) is the end row; an end of 0 tokens has none.
    assert result.report["end"]["tokens"] == 2 and "end of output" in text80
    empty_end = {**result.report["end"], "tokens": 0, "drafted": 0, "accepted": 0, "drafted_by": {}, "accepted_by": {}}
    assert "end of output" not in rendered(render_table({**result.report, "end": empty_end}, 80), 80)
    legend = [line for line in text80.splitlines() if line.startswith(("acceptance:", "tokens per pass:"))]
    assert len(legend) == 2  # one definition per line, none split between two others
    text160 = rendered(render_table(result.report, 160), 160)
    assert "mean K" in text160 and "by" in text160  # the wide terminal gets every column
    assert brief_lines(result.report, result.summary)[1].lstrip().startswith("edited")


# --- eval -----------------------------------------------------------------------------------------


def one_case(folder: Path) -> Path:
    case = folder / "cases" / "c1"
    case.mkdir(parents=True)
    (case / "before.py").write_text(PY)
    (case / "after.py").write_text(PY.replace("return 1", "return 10"))
    (case / "edit.txt").write_text("Make a() return 10.\n")
    return folder / "cases"


def test_eval_says_which_case_runs_and_prints_its_table_on_stdout(
    work: Path, run: Callable[..., Run], model: Callable[..., Any]
) -> None:
    cases = one_case(work)
    model(PY.replace("return 1", "return 10") + "```\n")
    r = run("eval", str(cases))
    assert r.code == 0, r.err
    assert "eval: case 1/1 c1" in r.err
    assert b"c1" in r.out and b"1/1 exact" in r.out


def test_eval_without_a_matching_case_errs_before_any_table(work: Path, run: Callable[..., Run]) -> None:
    cases = one_case(work)
    r = run("eval", str(cases), "--filter", "nothing-like-it")
    assert r.code == 1 and r.out == b""
    r.one_line("no cases in")
    assert len(r.err.strip().splitlines()) == 1  # no empty table before it


def test_git_apply_check_uses_the_git_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A git installed outside /usr/bin and /bin (here: a wrapper first on PATH) is the one that runs."""
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path / "elsewhere"
    bin_dir.mkdir()
    marker = tmp_path / "called"
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\ntouch {marker}\nexec {real} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    case = evaluate.discover(ROOT / "fixtures", "py_change_constant")[0]
    before = case.before.read_text()
    assert evaluate.git_apply_check(case, unified_diff(before, before.replace("= 3", "= 4", 1), case.before.name))
    assert marker.exists()


# --- bench --show and --chart ---------------------------------------------------------------------


def test_show_of_the_finished_k_sweep_record(capfd: pytest.CaptureFixture[str]) -> None:
    """The committed K sweep (5 cases, every run saved; one summary saved) shows all five cases and
    calls none of them unfinished."""
    with pytest.raises(SystemExit) as info:
        cli.main(["bench", "--show", str(KSWEEP)])
    assert info.value.code == 0
    out, err = capfd.readouterr()
    assert "not finished" not in err
    for name in json.loads(KSWEEP.read_text())["raw"]:
        assert f"{name}: prompt" in out, name


def test_chart_of_the_k_sweep_has_every_case_and_a_legend_outside_the_bars() -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from applyedit.tools.chart import draw, load_report

    fig = draw(load_report(KSWEEP))
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    bars, sweep = fig.axes
    assert len(sweep.get_lines()) >= 2 * 5  # a line and its adaptive dashed line per case
    labels = [t.get_text() for t in sweep.get_legend().get_texts()]
    assert len([x for x in labels if not x.startswith("adaptive")]) == 5 and any("adaptive K" in x for x in labels)
    renderer = fig.canvas.get_renderer()
    for ax in (bars, sweep):
        legend, plot = ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
        assert not legend.overlaps(plot), "the legend covers the plot"


def test_chart_title_names_every_backend_its_bars_ran_on() -> None:
    pytest.importorskip("matplotlib")
    from applyedit.tools.chart import draw, load_report

    title = draw(load_report(SUITE)).axes[0].get_title()
    assert "llama.cpp (gguf)" in title and "torch (float32)" in title
    assert "torch" in draw(load_report(KSWEEP)).axes[0].get_title()
    assert "llama.cpp" not in draw(load_report(KSWEEP)).axes[0].get_title()
