"""`applyedit bench`: method parsing, case selection, interleaved repeats, resume, agreement, generate().

The loop's methods run on a scripted target behind the real model seam (real tokenizer, proposer,
policies and prompt); `model.generate` runs on a tiny random Qwen2 built in-process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
from fakes import VOCAB, prompt_for, reference, scripted_engine, tiny_model

from applyedit import api
from applyedit.errors import InputError
from applyedit.models.prefill import PREFILL_CHUNK
from applyedit.models.torchmodel import TorchModel
from applyedit.tools import baselines, bench, benchmethods
from applyedit.tools.benchrecord import BenchRecord, CaseRecord, CaseSummary, Run, summarise_saved, summarise_target

FIXTURES = Path(__file__).parent.parent / "fixtures"
CASE = FIXTURES / "py_change_constant_instr"


@pytest.mark.parametrize(
    ("baselines", "policies", "ks", "names"),
    [
        (["greedy", "lookup"], ["adaptive"], [64], ["greedy", "lookup K=10", "adaptive K≤64"]),
        (
            [],
            ["adaptive", "fixed:4,8,16,32"],
            [64],
            ["adaptive K≤64", "fixed K=4", "fixed K=8", "fixed K=16", "fixed K=32"],
        ),
        (
            ["lookup:10,32", "none"],
            ["fixed"],
            [8, 16],
            ["lookup K=10", "lookup K=32", "loop, no drafts", "fixed K=8", "fixed K=16"],
        ),
        ([], ["adaptive:16,64"], [4], ["adaptive K≤16", "adaptive K≤64"]),
        (["nomerge"], ["adaptive"], [64], ["adaptive, no merged prediction", "adaptive K≤64"]),
        (
            ["greedy", "llamacpp-lookup", "torch-lookup:10,32"],
            ["adaptive"],
            [64],
            [
                "greedy",
                "llama-cpp-python lookup K=10",
                "transformers lookup K=10",
                "transformers lookup K=32",
                "adaptive K≤64",
            ],
        ),
    ],
)
def test_parse_methods(baselines: list[str], policies: list[str], ks: list[int], names: list[str]) -> None:
    methods = benchmethods.parse_methods(baselines, policies, ks)
    assert [m.name for m in methods] == names
    fixed = [m for m in methods if m.k_policy == "fixed" and m.proposer == "copy"]
    assert all(m.runner == "loop" and m.name == f"fixed K={m.k}" for m in fixed)


@pytest.mark.parametrize(
    ("baselines", "policies", "error"),
    [
        (["beam"], ["adaptive"], "unknown baseline"),
        ([], ["fixed:4,x"], "whole numbers"),
        ([], ["fixed:-4"], "0 or more"),
        ([], ["greedy"], "unknown --k-policy"),
        ([], ["fixed:8", "fixed:8"], "each named once"),
        ([], [], "at least one"),
    ],
)
def test_parse_methods_rejects(baselines: list[str], policies: list[str], error: str) -> None:
    with pytest.raises(InputError, match=error):
        benchmethods.parse_methods(baselines, policies, [64])


def test_targets_take_the_bench_suite_or_everything(tmp_path: Path) -> None:
    suite = bench.targets(FIXTURES, None, None, everything=False)
    marked = [t.parent.name for t in sorted(FIXTURES.glob("*/case.toml")) if "\nbench = true" in t.read_text()]
    assert [t.name for t in suite] == marked and len(suite) >= 6
    assert all(t.cwd == FIXTURES / t.name for t in suite)
    assert len(bench.targets(FIXTURES, None, None, everything=True)) > len(suite)
    assert [t.name for t in bench.targets(FIXTURES, None, "py_change", everything=False)] == [CASE.name]
    single = bench.targets(CASE / "before.py", CASE / "edit.txt", None, everything=False)
    assert single[0].edit == (CASE / "edit.txt").read_text() and single[0].cwd is None
    with pytest.raises(InputError, match="needs --edit"):
        bench.targets(CASE / "before.py", None, None, everything=False)
    with pytest.raises(InputError, match="--edit goes with a FILE"):
        bench.targets(FIXTURES, CASE / "edit.txt", None, everything=False)
    with pytest.raises(InputError, match="no bench-suite"):
        bench.targets(tmp_path, None, None, everything=False)


def scripted(tokenizer: tuple[Path, Any]) -> api.Engine:
    return scripted_engine(tokenizer, (CASE / "after.py").read_text() + "\n```\n")


def test_interleaved_repeats_resume_and_agreement(tokenizer: tuple[Path, Any], tmp_path: Path) -> None:
    """Repeat r of every method runs before repeat r+1; --resume re-runs only what is missing; a
    tampered output breaks the agreement check."""
    methods = benchmethods.parse_methods(["none"], ["adaptive", "fixed:4"], [64])
    items = bench.targets(FIXTURES, None, "py_change_constant", everything=False)
    out = tmp_path / "bench.json"
    log: list[str] = []
    report = bench.run(scripted(tokenizer), items, methods, 2, out, log=log.append)
    order = [line.split(": ")[2].rsplit(" #", 1) for line in log if " #" in line]
    assert order == [[m.name, str(r)] for r in (1, 2) for m in methods]
    case = report["cases"][CASE.name]
    assert report["outputs_agree"] and case.outputs_agree
    rows = case.methods
    tokens = rows["loop, no drafts"].num_tokens
    assert rows["loop, no drafts"].passes == tokens  # one pass per token without drafts
    assert tokens / 5 <= rows["fixed K=4"].passes < tokens  # at most K + 1 tokens per pass
    assert rows["adaptive K≤64"].passes < rows["fixed K=4"].passes
    for row in rows.values():
        assert row.repeats == 2 and row.wall_min_s <= row.wall_s <= row.wall_max_s
        assert 0 <= row.ttft_s <= row.wall_s and row.decode_s == pytest.approx(
            row.wall_s - row.ttft_s, abs=row.wall_max_s - row.wall_min_s + 1e-9
        )
        assert row.speedup_vs_greedy is None  # greedy was not run

    saved = json.loads(out.read_text())
    runs = saved["raw"][CASE.name]["runs"]
    runs["fixed K=4"] = [r for r in runs["fixed K=4"] if r["repeat"] == 0]
    runs["adaptive K≤64"][1]["text"] = runs["adaptive K≤64"][1]["text"].replace("MAX_RETRIES", "MAX_TRIES")
    runs["adaptive K≤64"][1]["tokens"][5] += 1
    out.write_text(json.dumps(saved))
    log.clear()
    again = bench.run(scripted(tokenizer), items, methods, 2, out, resume=True, log=log.append)
    assert [line.split(": ")[2].rsplit(" #", 1) for line in log if " #" in line] == [["fixed K=4", "2"]]
    assert not again["outputs_agree"] and again["strict"]  # torch fp32: a difference fails the bench
    assert again["same_output_cases"] == {"loop, no drafts": 1, "adaptive K≤64": 0, "fixed K=4": 1}
    tampered = again["cases"][CASE.name].methods["adaptive K≤64"]
    assert tampered.tokens_before_divergence == 5 and tampered.same_output is False
    log.clear()
    bench.run(scripted(tokenizer), items, methods, 2, out, resume=True, log=log.append)
    assert log == [f"bench: {CASE.name}: every run saved already"]  # no prefill, no runs

    with pytest.raises(InputError, match="other methods"):
        bench.run(scripted(tokenizer), items, methods[:1], 2, out, resume=True, log=log.append)


def test_generate_baselines_count_passes_and_agree() -> None:
    """Plain greedy and prompt lookup through model.generate: same tokens as the reference, one pass
    per token for greedy, fewer for lookup on a prompt it can copy from, first token before the end."""
    seed = 3
    ref = list(reference(seed))
    prompt = prompt_for(seed) + ref[:20]  # the continuation repeats in the prompt: lookup can copy it
    engine = api.Engine.__new__(api.Engine)
    engine.device = "cpu"
    engine._model = TorchModel(model=tiny_model(seed), eos_ids=frozenset({VOCAB - 1}))
    job = api.Job(engine, None, "x", "", "instruction", "```", prompt, 12)  # type: ignore[arg-type]
    counter, hook = baselines.count_forwards(engine.model.model)
    greedy = baselines.generate(engine, job, 0, counter)
    lookup = baselines.generate(engine, job, 10, counter)
    hook.remove()
    expected = (
        tiny_model(seed)
        .generate(
            torch.tensor([prompt]),
            attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
            do_sample=False,
            max_new_tokens=12,
            eos_token_id=VOCAB - 1,
            pad_token_id=VOCAB - 1,
        )[0, len(prompt) :]
        .tolist()
    )
    while expected and expected[-1] == VOCAB - 1:
        expected.pop()
    assert greedy.tokens == lookup.tokens == expected and len(expected) >= 4
    assert greedy.passes == len(greedy.tokens)  # one pass per token, the prefill's included
    assert lookup.passes < greedy.passes
    for row in (greedy, lookup):
        assert 0 < row.ttft_s <= row.wall_s


TINY = {
    "num_hidden_layers": 1,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 512,
}


def test_break_it_and_replay_of_the_pass_pattern(tokenizer: tuple[Path, Any], tmp_path: Path) -> None:
    """Break-it mode drafts from an unrelated file: same output, far fewer tokens per pass. The saved
    pass pattern replays on a random model of the saved architecture (shrunk here) pass for pass."""
    from applyedit.tools import replay

    unrelated = tmp_path / "unrelated.txt"
    unrelated.write_text((FIXTURES / "rs_add_match_arm_snippet" / "before.rs").read_text())
    methods = benchmethods.parse_methods(["none"], ["adaptive"], [64], break_it=unrelated)
    assert methods[-1].name == "break-it: drafts from unrelated.txt"
    out = tmp_path / "bench.json"
    items = bench.targets(FIXTURES, None, "py_change_constant", everything=False)
    report = bench.run(scripted(tokenizer), items, methods, 1, out, log=lambda _: None)
    rows = report["cases"][CASE.name].methods
    assert report["outputs_agree"]
    assert rows["break-it: drafts from unrelated.txt"].tokens_per_pass < rows["adaptive K≤64"].tokens_per_pass / 3

    saved = json.loads(out.read_text())
    assert saved["model_config"]["model_type"] == "qwen2"
    model = replay.build_model(saved["model_config"], "cpu", "fp32", overrides=TINY)
    seen: list[int] = []
    model.model.register_forward_pre_hook(lambda *_: seen.append(model.cached_len))
    result = replay.replay(saved, model, log=lambda _: None)[CASE.name]
    record = saved["raw"][CASE.name]
    tokens = len(record["runs"]["adaptive K≤64"][0]["tokens"])
    for method in ("loop, no drafts", "adaptive K≤64", "break-it: drafts from unrelated.txt"):
        assert result[method]["passes"] == rows[method].passes > 0
    assert result["plain greedy (replayed)"]["passes"] == tokens - 1
    assert result["adaptive K≤64"]["speedup_vs_greedy"] > 0
    # the last replay (break-it) ends with the cache holding the prompt and every kept token
    assert model.cached_len >= record["prompt_tokens"] - 1 + tokens - 1
    chunks = -(-(record["prompt_tokens"] - 1) // PREFILL_CHUNK)  # the prompt's prefill forwards, in each of 4 runs
    assert len(seen) == sum(r["passes"] for r in result.values()) + 4 * chunks

    # --only and --greedy-repeats: a subset of methods, plain greedy timed fewer times
    seen.clear()
    subset = replay.replay(saved, model, repeats=2, log=lambda _: None, only=["adaptive"], greedy_repeats=1)[CASE.name]
    assert set(subset) == {"plain greedy (replayed)", "adaptive K≤64"}
    assert (subset["plain greedy (replayed)"]["repeats"], subset["adaptive K≤64"]["repeats"]) == (1, 2)
    assert len(seen) == subset["plain greedy (replayed)"]["passes"] + 2 * subset["adaptive K≤64"]["passes"] + 3 * chunks

    # the command line: several bench files (one model), one result per case, written as JSON
    tiny = {k: v for k, v in {**saved["model_config"], **TINY}.items() if k != "layer_types"}
    files = []
    for n, name in enumerate((CASE.name, "copy of the case")):
        path = tmp_path / f"part{n}.json"
        path.write_text(json.dumps({"raw": {name: record}, "model_config": tiny}))
        files.append(str(path))
    out_json = tmp_path / "replay.json"
    assert (
        replay.main(
            [
                *files,
                "--device",
                "cpu",
                "--dtype",
                "fp32",
                "--repeats",
                "1",
                "--only",
                "adaptive",
                "--json",
                str(out_json),
            ]
        )
        == 0
    )
    written = json.loads(out_json.read_text())
    assert set(written["cases"]) == {CASE.name, "copy of the case"} and written["device_name"] == "cpu"
    assert written["cases"]["copy of the case"]["adaptive K≤64"]["passes"] == rows["adaptive K≤64"].passes
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"raw": {}, "model_config": {**tiny, "hidden_size": 32}}))
    assert replay.main([files[0], str(other), "--device", "cpu"]) == 1  # two models: refused


def test_show_and_chart_from_a_saved_bench(
    tokenizer: tuple[Path, Any], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """`bench --show JSON --chart PNG` re-renders a finished bench without running it: the tables on
    stdout and a PNG with the K-sweep panel beside the bars (wider than the bars alone)."""
    import struct

    from applyedit.cli import main as cli

    methods = benchmethods.parse_methods([], ["adaptive", "fixed:4,8"], [64])
    items = bench.targets(FIXTURES, None, "py_change_constant", everything=False)
    out = tmp_path / "bench.json"
    bench.run(scripted(tokenizer), items, methods, 1, out, log=lambda _: None)

    def png_size(path: Path) -> tuple[int, int]:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        return struct.unpack(">II", data[16:24])

    with pytest.raises(SystemExit) as info:
        cli.main(["bench", "--show", str(out), "--chart", str(tmp_path / "sweep.png")])
    assert info.value.code == 0
    assert "fixed K=8" in capfd.readouterr().out  # tables on stdout: no diff there
    no_sweep = json.loads(out.read_text())
    for case in no_sweep["cases"].values():
        case["methods"] = {k: v for k, v in case["methods"].items() if not k.startswith("fixed")}
    (tmp_path / "bars.json").write_text(json.dumps(no_sweep))
    with pytest.raises(SystemExit):
        cli.main(["bench", "--show", str(tmp_path / "bars.json"), "--chart", str(tmp_path / "bars.png")])
    assert png_size(tmp_path / "sweep.png")[0] > png_size(tmp_path / "bars.png")[0] > 800

    unfinished = tmp_path / "unfinished.json"
    unfinished.write_text(json.dumps({"config": {}, "raw": {}}))
    with pytest.raises(SystemExit) as info:
        cli.main(["bench", "--show", str(unfinished)])
    assert info.value.code == 1 and "holds no finished case" in capfd.readouterr().err


def test_bench_measures_an_output_that_changes_language(
    tokenizer: tuple[Path, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bench measures speed, not quality: translating a .py into JavaScript (which no longer parses
    as Python, so `apply` would refuse it) is timed, and its outputs agree."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text("def mean(values):\n    return sum(values) / len(values)\n")
    (tmp_path / "edit.txt").write_text("Translate this module to JavaScript.\n")
    js = "function mean(values) {\n  return values.reduce((a, b) => a + b, 0) / values.length;\n}\n```\n"
    items = bench.targets(Path("m.py"), Path("edit.txt"), None, everything=False)
    methods = benchmethods.parse_methods(["none"], ["adaptive"], [64])
    report = bench.run(scripted_engine(tokenizer, js), items, methods, 1, log=lambda _: None)
    case = next(iter(report["cases"].values()))
    assert report["outputs_agree"] and set(case.methods) == {"loop, no drafts", "adaptive K≤64"}
    assert case.methods["loop, no drafts"].num_tokens == case.methods["adaptive K≤64"].num_tokens > 10


def test_nomerge_drafts_without_the_predicted_output(tokenizer: tuple[Path, Any], tmp_path: Path) -> None:
    """copy-original (bench's nomerge) drafts from the original and the snippet only: same output, and
    more passes than copy, whose merged snippet predicts the new lines too."""
    original = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(12))
    new_lines = "def f5(x):\n    y = x * 5 + 17\n    return abs(y) - 3\n\n\n"
    body = original.replace("def f5(x):\n    return x + 5\n\n\n", new_lines)
    snippet = "# ... existing code ...\n" + new_lines + "# ... existing code ...\n"
    src = tmp_path / "m.py"
    src.write_text(original)
    passes = {}
    for proposer in ("copy", "copy-original"):
        result = api.apply(
            src,
            snippet,
            engine=scripted_engine(tokenizer, body + "```\n"),
            proposer=proposer,
            cwd=tmp_path,
            k_policy="fixed",
            k=16,
            anchor="none",
            answer="model",
        )
        assert result.after == body
        passes[proposer] = result.summary.passes
    assert passes["copy"] < passes["copy-original"]


def test_a_method_on_another_backend_runs_on_that_engine_in_the_same_run(
    tokenizer: tuple[Path, Any], tmp_path: Path
) -> None:
    """`--baseline llamacpp` on a torch bench: that method's passes happen on the other engine, its
    prefill is measured there, and a bench mixing backends reports agreement instead of failing."""
    methods = benchmethods.parse_methods(["none", "llamacpp"], ["adaptive"], [64])
    assert [m.backend for m in methods] == ["", "llamacpp", ""]
    items = bench.targets(FIXTURES, None, "py_change_constant", everything=False)
    own, other = scripted(tokenizer), scripted(tokenizer)
    other.backend = "llamacpp"
    opened: list[str] = []

    def open_engine(backend: str) -> api.Engine:
        opened.append(backend)
        return other

    out = tmp_path / "bench.json"
    before = own.model.num_forwards, other.model.num_forwards
    report = bench.run(own, items, methods, 1, out, log=lambda _: None, open_engine=open_engine)
    assert opened == ["llamacpp"]
    rows = report["cases"][CASE.name].methods
    on_other = rows["adaptive on llamacpp"].passes
    # The other engine did the bench's prefill and that method's run (the scripted model prefills
    # again in every run: one forward, then the passes); the bench engine did the rest.
    assert other.model.num_forwards - before[1] == 1 + (1 + on_other)
    own_runs = (1 + rows["loop, no drafts"].passes) + (1 + rows["adaptive K≤64"].passes)
    assert own.model.num_forwards - before[0] == 1 + own_runs
    assert rows["adaptive on llamacpp"].passes == rows["adaptive K≤64"].passes  # same script, same loop
    assert report["outputs_agree"] and not report["strict"]
    assert report["other_engines"] == {"llamacpp": f"llamacpp (gguf, {other.threads} threads)"}
    saved = json.loads(out.read_text())["raw"][CASE.name]
    assert set(saved["prefill_s_by_backend"]) == {"torch", "llamacpp"}

    with pytest.raises(InputError, match="already runs on torch"):
        bench.run(
            own,
            items,
            benchmethods.parse_methods(["torch"], ["adaptive"], [64]),
            1,
            log=lambda _: None,
            open_engine=open_engine,
        )
    with pytest.raises(InputError, match="need an engine"):
        bench.run(own, items, methods, 1, log=lambda _: None)
    with pytest.raises(InputError, match="on --backend llamacpp, --baseline greedy is that loop"):
        bench.run(
            other, items, benchmethods.parse_methods(["llamacpp-greedy"], ["adaptive"], [64]), 1, log=lambda _: None
        )


def test_ratios_are_against_the_greedy_of_the_methods_own_backend() -> None:
    methods = benchmethods.parse_methods(["greedy", "llamacpp-greedy", "llamacpp"], ["adaptive"], [64])
    walls = {"greedy": 100.0, "llama.cpp greedy": 40.0, "adaptive on llamacpp": 10.0, "adaptive K≤64": 20.0}
    text = "```\nx = 1\n```\n"
    record = CaseRecord(
        "f.py", 5, 9, prefill_s=[1.0], runs={name: [Run([1, 2], w, 0.0, 2, text=text)] for name, w in walls.items()}
    )
    rows = summarise_target(record, methods, "```", backend="torch").methods
    assert rows["adaptive K≤64"].speedup_vs_greedy == pytest.approx(5.0)  # torch greedy 100 / 20
    assert rows["adaptive on llamacpp"].speedup_vs_greedy == pytest.approx(4.0)  # llama.cpp greedy 40 / 10
    assert rows["llama.cpp greedy"].speedup_vs_greedy == pytest.approx(1.0)


def test_markdown_tables_hold_the_medians_ratios_and_the_lookup_comparison() -> None:
    """`bench --markdown`: per case seconds with the ratio to greedy, a median-ratio row over the
    cases, passes, the loop against the better lookup setting, and the agreement count."""
    from applyedit.tools.tables import bench_markdown

    methods = benchmethods.parse_methods(["greedy", "lookup:10,32"], ["adaptive"], [64])
    text = "```\nx = 1\n```\n"

    def case(walls: dict[str, float], passes: int) -> CaseSummary:
        record = CaseRecord(
            "f.py",
            5,
            9,
            prefill_s=[1.0],
            runs={
                name: [Run([1, 2, 3, 4], w, 2.0, passes if name.startswith("adaptive") else 4, text=text)]
                for name, w in walls.items()
            },
        )
        return summarise_target(record, methods, "```")

    report = {
        "model": "m",
        "device": "cpu",
        "backend": "torch",
        "dtype": "float32",
        "threads": 2,
        "repeats": 1,
        "methods": [m.name for m in methods],
        "cases": {
            "a": case({"greedy": 102.0, "lookup K=10": 42.0, "lookup K=32": 52.0, "adaptive K≤64": 12.0}, 2),
            "b": case({"greedy": 62.0, "lookup K=10": 32.0, "lookup K=32": 22.0, "adaptive K≤64": 22.0}, 1),
        },
    }
    md = bench_markdown(report).splitlines()
    assert "| a (4) | 102.0 | 42.0 (2.43×) | 52.0 (1.96×) | 12.0 (8.50×) |" in md
    assert "| median ratio | – | 2.18× | 2.39× | 5.66× |" in md  # medians of (8.50, 2.82) etc.
    decode = md[md.index("| a (4) | 102.0 | 42.0 (2.43×) | 52.0 (1.96×) | 12.0 (8.50×) |") + 1 :]
    assert "| a (4) | 100.0 | 40.0 (2.50×) | 50.0 (2.00×) | 10.0 (10.00×) |" in decode  # minus 2 s to first token
    assert "| a | 4 (1.0) | 4 (1.0) | 4 (1.0) | 2 (2.0) |" in md
    assert (
        "adaptive K≤64 against the better of lookup K=10, lookup K=32, end to end: median 2.25× "
        "(per case 3.50×, 1.00×)."
    ) in md
    assert md[-1] == "Same output as greedy: lookup K=10 2/2 cases, lookup K=32 2/2 cases, adaptive K≤64 2/2 cases."


def test_filtered_calls_add_up_in_one_record(
    tokenizer: tuple[Path, Any], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Cases benched by separate --resume calls (one --filter at a time, as a long bench runs across
    sessions) all keep their summaries in the record, so --show and --markdown see them together; a
    case with runs saved but no summary is named as unfinished."""
    from applyedit.cli import main as cli

    methods = benchmethods.parse_methods(["none"], ["adaptive"], [64])
    out = tmp_path / "bench.json"
    engine = scripted(tokenizer)
    bench.run(
        engine,
        bench.targets(FIXTURES, None, "py_change_constant", everything=False),
        methods,
        1,
        out,
        log=lambda _: None,
    )
    bench.run(
        engine,
        bench.targets(FIXTURES, None, "js_replace", everything=False),
        methods,
        1,
        out,
        resume=True,
        log=lambda _: None,
    )
    saved = json.loads(out.read_text())
    assert set(saved["cases"]) == {CASE.name, "js_replace_function_snippet"}
    saved["raw"]["unfinished_case"] = {"runs": {}}
    out.write_text(json.dumps(saved))
    with pytest.raises(SystemExit) as info:
        cli.main(["bench", "--show", str(out), "--markdown"])
    assert info.value.code == 0
    captured = capfd.readouterr()
    assert "not finished yet (--resume runs them): unfinished_case" in captured.err
    assert f"| {CASE.name} (" in captured.out and "| js_replace_function_snippet (" in captured.out


def test_committed_bench_records_load_and_render() -> None:
    """Records saved by earlier versions (fewer fields: no agreement, no drafter columns) load into the
    typed records, re-render and write back the same JSON keys they were read from."""
    from applyedit.tools.tables import bench_markdown, render_bench
    from applyedit.tools.chart import load_report

    docs = Path(__file__).parent.parent / "docs" / "bench"
    for name in ("issue4-rewrite-median3-cpu-fp32.json", "issue8-hybrid-inventory-onednn-cpu-fp32.json"):
        data = json.loads((docs / name).read_text())
        record = BenchRecord.from_json(data)
        assert record.cases and record.raw and record.model_config
        again = record.to_json()
        assert set(again) == set(data)
        for case, raw in data["raw"].items():
            for method, runs in raw["runs"].items():
                assert [set(r) for r in again["raw"][case]["runs"][method]] == [set(r) for r in runs]
        for case, summary in data["cases"].items():  # the new fields are added, none lost
            for method, row in summary["methods"].items():
                assert set(row) <= set(again["cases"][case]["methods"][method])
                assert set(row["method"]) <= set(again["cases"][case]["methods"][method]["method"])
        report = load_report(docs / name)
        assert render_bench(report) and bench_markdown(report).startswith(data["config"]["model"])


def test_the_perfect_drafter_prices_the_bound_and_efficiency() -> None:
    """The bound: the output itself drafted up to the K cap, every draft kept, priced on the recorded
    cost curve after the prefill; efficiency = bound / actual (the decode phase's bound: every pass of it,
    as the run's decode holds all but its first pass, which yields one or two tokens)."""
    from applyedit.models.costmodel import CostCurve

    curve = CostCurve({0: 1.0, 4: 2.0, 8: 3.0})
    assert curve.perfect(11, 4) == [2.0, 2.0, 1.0]  # 5 + 5 tokens, then the last one alone (k=0)
    assert curve.perfect(10, 4) == [2.0, 2.0] and curve.perfect(7, 64) == [2.5]  # k=6 between the points
    assert curve.perfect(9, 8) == [3.0] and curve.perfect(0, 8) == [] and curve.perfect(3, 0) == [1.0] * 3
    methods = benchmethods.parse_methods(["greedy"], ["adaptive:4"], [64])
    text = "```\nx = 1\n```\n"
    record = CaseRecord(
        "f.py",
        5,
        9,
        prefill_s=[6.0],
        cost_curves={"torch": curve.to_json()},
        runs={
            "greedy": [Run(list(range(11)), 30.0, 8.0, 11, text=text)],
            "adaptive K≤4": [Run(list(range(11)), 14.0, 8.0, 3, text=text)],
        },
    )
    rows = summarise_target(record, methods, "```").methods
    loop = rows["adaptive K≤4"]
    assert (loop.bound_wall_s, loop.bound_decode_s) == (6.0 + 5.0, 5.0)
    assert loop.efficiency_wall == pytest.approx(11.0 / 14.0) and loop.efficiency_decode == pytest.approx(5.0 / 6.0)
    assert rows["greedy"].bound_wall_s is None  # only the loop's methods have a bound
    stale = summarise_target(record, methods, "```")  # a summary saved by a version that priced it otherwise
    stale.methods["adaptive K≤4"].bound_decode_s = stale.methods["adaptive K≤4"].efficiency_decode = 99.0
    config = {"methods": [m.name for m in methods], "backend": "torch", "repeats": 1}
    shown, _ = summarise_saved(BenchRecord(config, {"a": record}, {"a": stale}))
    again = shown["a"].methods["adaptive K≤4"]
    assert (again.bound_decode_s, again.efficiency_decode) == (5.0, pytest.approx(5.0 / 6.0))
    from applyedit.tools.tables import bench_markdown

    report = {
        "model": "m",
        "device": "cpu",
        "backend": "torch",
        "dtype": "float32",
        "threads": 2,
        "repeats": 1,
        "methods": [m.name for m in methods],
        "cases": {"a": summarise_target(record, methods, "```")},
    }
    assert "| a | decode 5.0 s (83%), end to end 11.0 s (79%) |" in bench_markdown(report).splitlines()
