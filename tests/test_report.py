"""The region report (applyedit/report/__init__.py): JSON data, the rich table, and the whole chain after a real run."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from applyedit import api, textio
from applyedit.report import stats
from applyedit.decoded import DecodeResult, Step
from applyedit.report.regions import Region, find_regions
from applyedit.report.stats import LEGEND, attribute
from applyedit.report import legend, profile_line, render_table, report_data
from applyedit.report.spans import token_lines, tokens_before_line
from fakes import TWO_FUNCTIONS, scripted_engine

REGIONS = [
    Region("unchanged", 1, 2, 1, 2, "def add"),
    Region("edited", 3, 3, 3, 3, "def add"),
    Region("deleted", 4, 3, 4, 4, "def sub"),
    Region("unchanged", 4, 4, 5, 5, "def sub"),
]
LINES = [0, 0, 1, 2, 2, 3, 4]  # the last token is the closing fence
STEPS = [
    Step(0, 4, (1, 2, 3, 4), 2, (1, 2, 9), 0.0, 0.1),
    Step(1, 4, (5, 6, 7), 0, (9,), 0.1, 0.2),
    Step(2, 2, (), 0, (9,), 0.3, 0.05),
    Step(3, 8, (1, 2), 1, (1, 9), 0.35, 0.3),
]
STAT_KEYS = {
    "lines",
    "tokens",
    "drafted",
    "accepted",
    "passes",
    "k_sum",
    "time_s",
    "acceptance",
    "tokens_per_pass",
    "mean_k",
}


def summary_of(steps: list[Step]) -> stats.Summary:
    tokens = [t for s in steps for t in s.emitted]
    result = DecodeResult(tokens, steps, "stop", prompt_tokens=50, prefill_s=0.5, decode_s=0.7)
    return stats.summarise(result, model="m", device="cpu", dtype="float32", proposer="copy")


def data() -> dict[str, Any]:
    per_region, end, totals = attribute(REGIONS, STEPS, LINES, 6)
    return report_data(REGIONS, per_region, end, totals, summary_of(STEPS))


def test_report_data_schema_and_sums() -> None:
    """Every region row and the totals carry all stats; regions + end add up to the totals; it is JSON."""
    d = data()
    assert set(d) == {"run", "regions", "end", "totals", "profile", "legend"}
    assert [(r["kind"], r["label"], r["start_line"], r["end_line"]) for r in d["regions"]] == [
        ("unchanged", "def add", 1, 2),
        ("edited", "def add", 3, 3),
        ("deleted", "def sub", 4, 3),
        ("unchanged", "def sub", 4, 4),
    ]
    for row in [*d["regions"], d["end"], d["totals"]]:
        assert STAT_KEYS <= set(row)
    for key in ("tokens", "drafted", "accepted", "passes", "k_sum", "time_ns", "lines"):
        assert sum(r[key] for r in d["regions"]) + d["end"][key] == d["totals"][key], key
    t = d["totals"]
    assert (t["tokens"], t["passes"], t["plain_passes"], t["drafted"], t["accepted"]) == (7, 4, 7, 9, 3)
    assert t["speedup_in_passes"] == 7 / 4 == t["tokens_per_pass"]
    assert t["wall_s"] == pytest.approx(1.2) and t["tokens_per_s"] == pytest.approx(7 / 1.2)
    assert t["time_to_first_token_s"] == pytest.approx(0.6)  # prefill + the first pass
    assert t["time_to_last_token_s"] == pytest.approx(1.15)  # prefill + the end of the last pass
    assert d["end"]["tokens"] == 1 and d["run"]["stop_reason"] == "stop"
    assert json.loads(json.dumps(d)) == d


def test_legend_quotes_the_definitions() -> None:
    """The legend is the `- name: definition` lines of stats' docstring and stats.LEGEND, verbatim."""
    quoted = legend()
    for name, text in quoted.items():
        assert f"- {name}: {text}" in (stats.__doc__ or "") + LEGEND
    assert {"acceptance", "tokens per pass", "speedup in passes", "mean K", "region of a pass"} <= set(quoted)


def test_report_data_refuses_stats_of_another_run() -> None:
    """Totals that do not match the summary are a bug: asserted."""
    per_region, end, totals = attribute(REGIONS, STEPS, LINES, 6)
    with pytest.raises(AssertionError):
        report_data(REGIONS, per_region, end, totals, summary_of(STEPS[:2]))


def render(table: Any) -> str:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(table)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_render_table() -> None:
    """The table renders one row per region, the end row and the totals, with a legend caption."""
    text = render(render_table(data()))
    for expected in ("def add", "edited", "−1", "end of output", "total", "acceptance:", "50%"):
        assert expected in text
    assert "speedup in passes 1.8×" in text


def test_render_table_without_steps() -> None:
    """A run with no regions and no passes still renders (no division by zero)."""
    per_region, end, totals = attribute([], [], [], 0)
    empty = report_data([], per_region, end, totals, summary_of([]))
    assert "total" in render(render_table(empty))
    assert json.dumps(empty)


ORIGINAL = TWO_FUNCTIONS


def test_report_after_a_scripted_run(tokenizer: tuple[Path, Any], tmp_path: Path) -> None:
    """The full chain after api.apply (real tokenizer, loop and proposer; scripted target) adds up."""
    tok = tokenizer[1]
    body = ORIGINAL.replace("return total", "return total * 2").replace('    print("debug")\n', "")
    engine = scripted_engine(tokenizer, body + "```\n")
    src = tmp_path / "calc.py"
    src.write_text(ORIGINAL)
    result = api.apply(src, "Double add's result and drop the debug print.", engine=engine, cwd=tmp_path)

    assert textio.extract_body(result.output, "```") == body
    regions = find_regions(ORIGINAL, body, "python")
    lines = token_lines(tok, result.decode.tokens)
    per_region, end, totals = attribute(
        regions, result.decode.steps, lines, tokens_before_line(lines, body.count("\n"))
    )
    d = report_data(regions, per_region, end, totals, result.summary)

    assert [(r["kind"], r["label"]) for r in d["regions"]] == [
        ("unchanged", "def add"),
        ("edited", "def add"),
        ("unchanged", "def sub"),
        ("deleted", "def sub"),
        ("unchanged", "def sub"),
    ]
    edited = d["regions"][1]
    assert edited["tokens"] == len(tok("    return total * 2\n", add_special_tokens=False)["input_ids"])
    assert edited["accepted"] < edited["drafted"]  # the copy draft was rejected where the edit begins
    assert d["regions"][0]["acceptance"] > 0.5 and d["end"]["tokens"] >= 1  # the closing fence
    assert d["totals"]["tokens"] == len(result.decode.tokens) and d["totals"]["passes"] == len(result.decode.steps)
    assert json.dumps(d) and "def add" in render(render_table(d))

    p = result.report["profile"]  # where the time went, from the same run
    assert set(p) == {"prefill_s", "forward_s", "drafting_s", "cache_s", "loop_s", "outside_s", "startup_s"}
    assert p["startup_s"] is None  # the engine was loaded before the call: no startup to report
    parts = sum(v for k, v in p.items() if k != "startup_s")
    assert parts == pytest.approx(result.summary.wall_s, rel=1e-6)
    text = render(render_table(result.report))
    assert "decode: forward" in text and "startup" not in text


def test_profile_line_shows_shares_of_decode_and_the_startup() -> None:
    line = profile_line(
        {
            "prefill_s": 2.0,
            "forward_s": 9.0,
            "drafting_s": 0.5,
            "cache_s": 0.25,
            "loop_s": 0.15,
            "outside_s": 0.1,
            "startup_s": 7.25,
        }
    )
    assert line == (
        "startup 7.2 s; prefill 2.00 s; decode: forward 9.00 s (90.0%), drafting 0.50 s (5.0%), "
        "cache 0.25 s (2.5%), loop 0.15 s (1.5%), outside 0.10 s (1.0%)"
    )
    assert profile_line({}) == ""


def test_benchmarks_doc_quotes_every_metric_definition() -> None:
    """docs/benchmarks.md (the README links it) quotes the legend and the bench's timing rules word for
    word, so they cannot drift."""
    from applyedit.tools import bench
    from applyedit.report import _items

    doc = (Path(__file__).parent.parent / "docs" / "benchmarks.md").read_text()
    quoted = {**legend(), **_items(bench.__doc__ or "")}
    assert len(quoted) >= 15
    missing = [name for name, text in quoted.items() if f"- {name}: {text}\n" not in doc]
    assert not missing, f"docs/benchmarks.md lacks the definitions of {missing}"


def test_a_run_that_loads_the_model_reports_its_startup(
    tokenizer: tuple[Path, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When apply loads the weights itself (the CLI's case), the report carries process start → first forward."""
    from applyedit.models.torchmodel import TorchModel
    from applyedit.report.stats import process_age_s

    engine = scripted_engine(tokenizer, ORIGINAL + "```\n")
    scripted, engine._model = engine._model, None
    monkeypatch.setattr(TorchModel, "load", classmethod(lambda cls, *args: scripted))
    src = tmp_path / "calc.py"
    src.write_text(ORIGINAL)
    before = process_age_s()
    result = api.apply(src, "Change nothing.", engine=engine, cwd=tmp_path, allow_unchanged=True)
    startup = result.report["profile"]["startup_s"]
    after = process_age_s()
    assert before is not None and after is not None
    assert before - 0.02 <= startup <= after + 0.02  # /proc's clock ticks are 10 ms
    assert "startup" in render(render_table(result.report))
