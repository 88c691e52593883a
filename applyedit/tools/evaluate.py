"""`applyedit eval DIR`: run fixture cases and score them against their expected files.

Owns case discovery (`<case>/before.<ext>`, `edit.txt`, `after.<ext>`, optional `case.toml`), running
every case on one loaded model, the per-case checks (exact match, match modulo trailing whitespace,
`git apply --check` of the produced diff, syntax still clean) and the committed exact-match floor.
Returns data: rendering is tables.py's, printing the CLI's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from applyedit import api, files, textio
from applyedit.errors import ApplyEditError, InputError, UsageError
from applyedit.options import RunOptions

FLOOR_FILE = "floor.toml"  # in the fixtures dir: `exact_match_floor = N`, may only rise
# The settings a report names (with the settings given as keywords).
REPORTED = ("proposer", "k", "k_policy", "draft_model", "draft_backend", "draft_k", "anchor", "fallback")


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    dir: Path
    before: Path
    after: Path
    edit: Path
    meta: dict[str, Any]

    @property
    def known_failure(self) -> bool:
        return bool(self.meta.get("known_failure", False))

    @property
    def bench(self) -> bool:
        return bool(self.meta.get("bench", False))


@dataclass
class CaseResult:
    name: str
    known_failure: bool
    exact: bool = False
    whitespace_match: bool = False
    git_apply_ok: bool | None = None  # None when there was no diff to check (no change, or an error)
    syntax_ok: bool | None = None  # None: no grammar, or the original did not parse either
    error: str | None = None
    produced: str | None = None  # the new file as the model wrote it (None on error)
    raw_output: str | None = None  # the model's raw output, for diagnosis (also when the merge answered)
    answer: str = "model"  # "merge" when the model's output failed a check and the merge answered
    tokens: int = 0
    passes: int = 0
    wall_s: float = 0.0
    tokens_per_s: float = 0.0
    tokens_per_pass: float = 0.0
    regions: dict[str, Any] = field(default_factory=dict)  # the run's per-region report (report.report_data)


def discover(root: Path, pattern: str | None = None) -> list[Case]:
    """Every folder under `root` holding before.*, after.* and edit.txt, sorted by name; each case's
    files checked (`check_case`) before any model is opened."""
    cases = []
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        befores, afters = sorted(d.glob("before.*")), sorted(d.glob("after.*"))
        if not (befores and afters and (d / "edit.txt").is_file()):
            continue
        if pattern and pattern not in d.name:
            continue
        meta = read_toml(d / "case.toml", d) if os.path.lexists(d / "case.toml") else {}
        case = Case(d.name, d, befores[0], afters[0], d / "edit.txt", meta)
        check_case(case)
        cases.append(case)
    return cases


# case.toml's keys and their types; any other key is kept for the report, unchecked.
CASE_KEYS: dict[str, type] = {"known_failure": bool, "bench": bool, "language": str}


def read_toml(path: Path, folder: Path) -> dict[str, Any]:
    """A fixture's TOML file as a table: inside `folder` (a symlink out of it is refused), UTF-8, valid."""
    data = fixture_bytes(path, folder)
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as e:
        raise InputError(f"{path}: not a valid TOML file ({str(e) or type(e).__name__})") from None


def fixture_bytes(path: Path, folder: Path) -> bytes:
    """A fixture file's bytes: a regular file inside `folder` (a symlink out of it is refused), capped."""
    try:
        inside = path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError) as e:  # a symlink loop
        raise InputError(f"{path}: cannot be resolved ({e})") from None
    if not inside:
        raise InputError(f"{path} leads outside its case folder {folder} (a symlink); fixtures are self-contained")
    return textio.read_input(path, str(path))


def check_case(case: Case) -> None:
    """Refuse a case whose files cannot be scored: a file outside its folder, not UTF-8 text, or a
    case.toml key of the wrong type (`known_failure = "no"` would hide a failure)."""
    for path in (case.before, case.after, case.edit):
        textio.decode_text(fixture_bytes(path, case.dir), str(path))
    for key, kind in CASE_KEYS.items():
        if key in case.meta and not isinstance(case.meta[key], kind):
            raise InputError(
                f"{case.dir / 'case.toml'}: {key} must be {'true or false' if kind is bool else 'a string'}, "
                f"not {case.meta[key]!r}"
            )


def read_floor(root: Path) -> int:
    path = root / FLOOR_FILE
    if not os.path.lexists(path):
        return 0
    floor = read_toml(path, root).get("exact_match_floor", 0)
    if type(floor) is not int or floor < 0:
        raise InputError(f"{path}: exact_match_floor must be a whole number of cases, not {floor!r}")
    return floor


def _strip_ws(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).rstrip("\n")


def git_apply_check(case: Case, diff: str) -> bool:
    """Does `git apply --check` accept the diff against a pristine copy of the original?"""
    git = shutil.which("git")  # found on the user's PATH, wherever git is installed
    if git is None:
        raise InputError("eval checks each diff with `git apply --check`, but git is not on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(case.before, Path(tmp) / case.before.name)
        # Only the user's own git config is kept out (HOME, GIT_CONFIG_*): it could change how diffs apply.
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        proc = subprocess.run(
            [git, "apply", "--check", "-"],
            cwd=tmp,
            input=diff.encode(),
            capture_output=True,
            env={**env, "GIT_CONFIG_NOSYSTEM": "1", "HOME": tmp},
        )
        return proc.returncode == 0


def syntax_ok(before: str, after: str, language: str) -> bool | None:
    from applyedit import syntax

    errors = syntax.new_errors(before, after, language)
    return None if errors is None else not errors


def run_case(engine: api.Engine, case: Case, options: RunOptions | None = None, **settings: Any) -> CaseResult:
    """One case on a warm engine; `settings` (RunOptions field names) replace those of `options`."""
    result = CaseResult(case.name, case.known_failure)
    expected = textio.decode_text(fixture_bytes(case.after, case.dir), str(case.after))
    t0 = time.perf_counter()
    try:
        # Absolute paths: the diff and the prompt name the file relative to its case folder
        # ("before.py"), wherever eval runs from and however the folder was given. The output checks
        # are the CLI's defaults: a refusal is an error here, as it would be for a user.
        edit = textio.decode_text(fixture_bytes(case.edit, case.dir), str(case.edit))
        out = api.apply(
            case.before.resolve(),
            edit,
            engine=engine,
            cwd=case.dir.resolve(),
            language=case.meta.get("language"),
            options=options,
            **settings,
        )
    except ApplyEditError as e:
        result.error = str(e)
        result.wall_s = time.perf_counter() - t0
        result.raw_output = e.output
        decoded = e.decode
        if decoded is not None:
            result.tokens, result.passes = len(decoded.tokens), len(decoded.steps)
            result.tokens_per_pass = result.tokens / max(1, result.passes)
        return result
    s = out.summary
    result.wall_s, result.tokens, result.passes = s.wall_s, s.tokens, s.passes
    result.tokens_per_s, result.tokens_per_pass = s.tokens_per_s, s.tokens_per_pass
    result.produced = out.after
    result.raw_output, result.answer = out.output, out.answer
    result.regions = dict(out.report)
    result.exact = out.after == expected
    result.whitespace_match = _strip_ws(out.after) == _strip_ws(expected)
    result.git_apply_ok = git_apply_check(case, out.diff) if out.diff else None
    result.syntax_ok = syntax_ok(out.before, out.after, textio.language_for(case.before, case.meta.get("language")))
    return result


def evaluate(
    root: Path,
    pattern: str | None = None,
    engine: api.Engine | None = None,
    on_case: Callable[[Case, CaseResult], None] | None = None,
    on_start: Callable[[int, int, Case], None] | None = None,
    options: RunOptions | None = None,
    json_path: Path | None = None,
    resume: bool = False,
    **settings: Any,
) -> dict[str, Any]:
    """Run every case; return per-case results, totals and whether the suite holds its floor.
    No case found (none under `root`, or none matching `pattern`) is an input error, raised before
    any model is opened. `on_start(n, total, case)` is called as case n of total (1-based) begins.
    `settings` (RunOptions field names) replace those of `options`; the model's open `engine` when none is given.
    `json_path`: the report is written there (atomically) after every case, so a long run can stop at
    any time; `resume` takes the cases already in it as done (they are not run again)."""
    cases = discover(root, pattern)
    if not cases:
        raise InputError(
            f"no cases in {root}"
            + (f" match {pattern!r}" if pattern else "")
            + " (a case is a folder holding before.<ext>, after.<ext> and edit.txt)"
        )
    if resume and json_path is None:
        raise UsageError("--resume needs --json PATH")
    if json_path is not None:  # the write plan: no symlink, no case's file, checked before any case runs
        inputs = [(f"{c.name}'s {p.name}", p) for c in cases for p in (c.before, c.after, c.edit, c.dir / "case.toml")]
        files.plan_outputs([("--json", json_path)], [*inputs, (FLOOR_FILE, root / FLOOR_FILE)])
    if pattern is None:
        read_floor(root)  # a floor that is no number fails now, not after every case ran
    done = saved_cases(json_path) if resume and json_path is not None else {}
    opts = (options or RunOptions()).replace(**settings)
    engine = engine or api.Engine.open(opts.model, opts.device, opts.dtype, backend=opts.backend)
    reported = {
        **({n: getattr(opts, n) for n in REPORTED} if options is not None else {}),
        **{k: v for k, v in settings.items() if not callable(v)},
    }
    results: list[CaseResult] = []
    for n, case in enumerate(cases, 1):
        if case.name in done:
            results.append(done[case.name])
            continue
        if on_start:
            on_start(n, len(cases), case)
        r = run_case(engine, case, opts)
        results.append(r)
        if on_case:
            on_case(case, r)
        if json_path is not None:
            files.write_atomic(
                json_path,
                json.dumps(summarise(root, pattern, engine, reported, results), indent=2).encode(),
                follow=False,
            )
    return summarise(root, pattern, engine, reported, results)


def saved_cases(json_path: Path) -> dict[str, CaseResult]:
    """The cases an earlier (interrupted) run saved in its report, by name; none when there is no file."""
    if not json_path.is_file():
        return {}
    try:
        known = {f.name for f in fields(CaseResult)}  # a record from an older version may hold more
        return {
            d["name"]: CaseResult(**{k: v for k, v in d.items() if k in known})
            for d in json.loads(json_path.read_text(encoding="utf-8"))["cases"]
        }
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(f"--resume: {json_path} is not an `applyedit eval --json` report ({e})") from e


def summarise(
    root: Path, pattern: str | None, engine: api.Engine, reported: dict[str, Any], results: list[CaseResult]
) -> dict[str, Any]:
    """The report: per-case results, totals and whether the suite holds its floor."""
    exact = sum(r.exact for r in results)
    floor = read_floor(root) if pattern is None else 0
    unexpected = [r.name for r in results if not r.exact and not r.known_failure]
    tokens, passes = sum(r.tokens for r in results), sum(r.passes for r in results)
    return {
        "root": str(root),
        "options": reported,
        "model": engine.source.name,
        "device": engine.device,
        "dtype": engine.dtype_name,
        "backend": engine.backend,
        "cases": [asdict(r) for r in results],
        "total": len(results),
        "exact": exact,
        "whitespace_match": sum(r.whitespace_match for r in results),
        "known_failures": sum(r.known_failure for r in results),
        "known_failures_passing": [r.name for r in results if r.known_failure and r.exact],
        "unexpected_failures": unexpected,
        "floor": floor,
        "tokens": tokens,
        "passes": passes,
        "speedup_in_passes": tokens / passes if passes else 0.0,
        "ok": exact >= floor and not unexpected,
    }
