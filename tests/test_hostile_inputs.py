"""Hostile inputs to the commands around a run: outputs that name inputs (the write plan), config
files and eval fixtures that are not what they claim, and lazy markers that are only text.

The CLI runs for real in a subprocess; each case here is refused before any model is opened, so no
model is needed. The marker tests call the output check itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from applyedit import checks
from applyedit.errors import InputError, OutputCheckError
from applyedit.tools import evaluate


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "applyedit", *args],
        cwd=cwd,
        capture_output=True,
        timeout=120,
        env={**os.environ, "APPLYEDIT_HOME": str(cwd / ".home"), **(env or {})},
    )


def one_line_error(r: subprocess.CompletedProcess[bytes], code: int = 1) -> str:
    err = r.stderr.decode()
    assert r.returncode == code, err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err, err
    return err


# -- the write plan: no output may be an input or another output


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "edit.txt").write_text("Replace x with y\n")
    return tmp_path


@pytest.mark.parametrize(
    "extra, role",
    [
        (["--reject-file", "edit.txt"], "the edit file"),
        (["--reject-file", "r.json", "--report-json", "r.json"], "--report-json"),
        (["--reject-file", "out.py", "--output", "out.py"], "--output"),
    ],
    ids=["edit", "report-json", "output"],
)
def test_reject_file_naming_an_input_or_output_is_refused(project: Path, extra: list[str], role: str) -> None:
    (project / "r.json").write_text("{}")
    (project / "out.py").write_text("old\n")
    r = cli("app.py", "--edit", "edit.txt", *extra, cwd=project)
    assert f"is {role}" in one_line_error(r)
    assert (project / "edit.txt").read_text() == "Replace x with y\n" and (project / "r.json").read_text() == "{}"


def test_reject_file_that_is_a_symlink_is_refused(project: Path) -> None:
    (project / "elsewhere").write_text("precious\n")
    (project / "rej").symlink_to(project / "elsewhere")
    r = cli("app.py", "--edit", "edit.txt", "--reject-file", "rej", cwd=project)
    assert "symlink" in one_line_error(r) and (project / "elsewhere").read_text() == "precious\n"


def make_case(root: Path, name: str = "py_case", **files: bytes) -> Path:
    d = root / name
    d.mkdir(parents=True)
    contents = {"before.py": b"x = 1\n", "after.py": b"y = 1\n", "edit.txt": b"Replace x with y\n", **files}
    for file, data in contents.items():
        (d / file).write_bytes(data)
    return d


def test_eval_json_may_not_name_a_fixture_or_a_symlink(tmp_path: Path) -> None:
    case = make_case(tmp_path / "cases")
    r = cli("eval", "cases", "--json", str(case / "before.py"), cwd=tmp_path)
    assert "is py_case's before.py" in one_line_error(r) and (case / "before.py").read_bytes() == b"x = 1\n"
    (tmp_path / "elsewhere").write_text("precious\n")
    (tmp_path / "link.json").symlink_to(tmp_path / "elsewhere")
    r = cli("eval", "cases", "--json", "link.json", cwd=tmp_path)
    assert "symlink" in one_line_error(r) and (tmp_path / "elsewhere").read_text() == "precious\n"


def test_bench_outputs_go_through_the_write_plan(project: Path) -> None:
    r = cli("bench", "app.py", "--edit", "edit.txt", "--json", "edit.txt", cwd=project)
    assert "--json edit.txt is --edit" in one_line_error(r)
    r = cli("bench", "app.py", "--edit", "edit.txt", "--json", "app.py", cwd=project)
    assert "--json app.py is an input" in one_line_error(r) and (project / "app.py").read_text() == "x = 1\n"
    (project / "elsewhere.png").write_text("precious\n")
    (project / "chart.png").symlink_to(project / "elsewhere.png")
    r = cli("bench", "app.py", "--edit", "edit.txt", "--chart", "chart.png", cwd=project)
    assert "symlink" in one_line_error(r) and (project / "elsewhere.png").read_text() == "precious\n"


# -- config files


def test_applyedit_config_must_name_a_file(project: Path) -> None:
    for named, what in ((project / "missing.toml", "does not exist"), (project, "is a directory")):
        r = cli("app.py", "--edit", "edit.txt", cwd=project, env={"APPLYEDIT_CONFIG": str(named)})
        assert what in one_line_error(r)


def test_deeply_nested_toml_is_a_usage_error(project: Path) -> None:
    (project / "deep.toml").write_text("k = " + "[" * 100_000 + "]" * 100_000 + "\n")
    r = cli("app.py", "--edit", "edit.txt", cwd=project, env={"APPLYEDIT_CONFIG": str(project / "deep.toml")})
    assert "deep.toml" in one_line_error(r)


# -- eval fixtures: checked before any model opens


@pytest.mark.parametrize(
    "files, message",
    [
        ({"case.toml": b"known_failure = \n"}, "not a valid TOML file"),
        ({"case.toml": b"\xff\xfe"}, "not a valid TOML file"),
        ({"case.toml": b'known_failure = "no"\n'}, "known_failure must be true or false"),
        ({"case.toml": b"language = 3\n"}, "language must be a string"),
        ({"case.toml": b"k = " + b"[" * 5000 + b"]" * 5000 + b"\n"}, "not a valid TOML file"),
        ({"after.py": b"\x00\x01binary"}, "binary"),
        ({"after.py": b"\xff\xfe not utf-8"}, "not valid utf-8"),
    ],
    ids=[
        "malformed",
        "not-utf8",
        "known-failure-string",
        "language-type",
        "deep",
        "binary-expected",
        "latin1-expected",
    ],
)
def test_bad_fixture_files_are_input_errors(tmp_path: Path, files: dict[str, bytes], message: str) -> None:
    make_case(tmp_path / "cases", **files)
    with pytest.raises(InputError, match=message):
        evaluate.discover(tmp_path / "cases")
    assert message in one_line_error(cli("eval", "cases", cwd=tmp_path))


def test_a_floor_that_is_no_number_is_an_input_error(tmp_path: Path) -> None:
    make_case(tmp_path / "cases")
    (tmp_path / "cases" / evaluate.FLOOR_FILE).write_text('exact_match_floor = "ten"\n')
    with pytest.raises(InputError, match="whole number"):
        evaluate.read_floor(tmp_path / "cases")
    assert "whole number" in one_line_error(cli("eval", "cases", "--json", "out.json", cwd=tmp_path))


def test_a_fixture_symlink_out_of_its_folder_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.py"
    secret.write_text("TOKEN = 'do not copy me'\n")
    case = make_case(tmp_path / "cases")
    (case / "after.py").unlink()
    (case / "after.py").symlink_to(secret)
    with pytest.raises(InputError, match="outside its case folder"):
        evaluate.discover(tmp_path / "cases")
    (case / "after.py").unlink()
    (case / "after.py").symlink_to(case / "before.py")  # inside the folder: fine
    assert [c.name for c in evaluate.discover(tmp_path / "cases")] == ["py_case"]


# -- lazy markers are comments, not text inside strings


DOCSTRING = '''def f():
    """Example:

    # ...
    # ... existing code ...
    """
    return 1
'''


@pytest.mark.parametrize(
    "language, body",
    [
        ("python", DOCSTRING),
        ("python", 'X = """\n# ... existing code ...\n"""\n'),
        ("javascript", "const t = `\n// ... existing code ...\n`;\n"),
    ],
    ids=["docstring", "triple-quoted", "template"],
)
def test_a_marker_inside_a_string_is_text(language: str, body: str) -> None:
    checks.check_output("x = 1\n", body, allow_markers=False, language=language)


@pytest.mark.parametrize(
    "language, body",
    [
        ("python", "def f():\n    # ... existing code ...\n    return 1\n"),
        ("python", 'def f():\n    """Doc."""\n    # ...\n    return 1\n'),
        ("javascript", "function f() {\n  // ... existing code ...\n}\n"),
    ],
    ids=["comment", "after-docstring", "js-comment"],
)
def test_a_marker_comment_is_still_refused(language: str, body: str) -> None:
    with pytest.raises(OutputCheckError, match="lazy marker"):
        checks.check_output("x = 1\n", body, allow_markers=False, language=language)


def test_a_snippet_with_context_repeated_everywhere_stops_at_the_timeout(tmp_path: Path) -> None:
    """Alike functions and a snippet whose context stands in each: the second reading weighed a place
    per function, a parse of the whole file each (500 functions: 69 s, then "ambiguous"; 1,000:
    minutes). Now it is refused in seconds, and a reading still under way at `--timeout` stops there
    (exit 2, nothing written)."""
    (tmp_path / "e.txt").write_text(
        "# ... existing code ...\n        pass\n    else:\n        pass\n        pass\n    return x\n"
        "# ... existing code ...\n"
    )
    for functions in (500, 2000):
        source = "".join(
            f"def f{i}(x):\n    if x:\n        pass\n    else:\n        pass\n    return x\n\n\n"
            for i in range(functions)
        )
        (tmp_path / "big.py").write_text(source)
        r = cli("big.py", "--edit", "e.txt", cwd=tmp_path)
        assert r.returncode == 1 and b"too many to tell apart" in r.stderr, r.stderr
    t0 = time.monotonic()  # 16,000 lines: seconds of reading
    r = cli("big.py", "--edit", "e.txt", "--timeout", "1", "--in-place", cwd=tmp_path)
    assert r.returncode == 2 and b"stopped by --timeout 1 s" in r.stderr, r.stderr
    assert time.monotonic() - t0 < 1 + 20  # the timeout, plus the CLI's start on a busy machine
    assert (tmp_path / "big.py").read_text() == source and r.stdout == b""


# -- every phase keeps the deadline, and line comparisons stay bounded on large inputs

CALC = "".join(f"def f{i}(x):\n    a = x + {i}\n    b = a * 2\n    return b\n\n\n" for i in range(30))
CALC_EDIT = "# ... existing code ...\ndef f7(x):\n    a = x + 7\n    b = a * 3\n# ... existing code ...\n"


@pytest.mark.parametrize("phase", ["reading", "weighing", "invariants", "checks"])
def test_each_phase_stops_at_a_passed_deadline(phase: str) -> None:
    """Reading the snippet, weighing its readings, the invariants and the output checks each check the
    run's stop rule between their steps (each parses or diffs the whole file: seconds on a large one)."""
    from applyedit import interrupt, invariants, textio
    from applyedit.errors import RunTimeout
    from applyedit.merge import confirm, readings
    from applyedit.options import RunOptions

    source = textio.source_from(Path("calc.py"), CALC.encode())
    answer = CALC.replace("    b = a * 2\n    return b\n\n\ndef f8", "    b = a * 3\n    return b\n\n\ndef f8")
    steps = {
        "reading": lambda: confirm.confirmed(CALC, CALC_EDIT, "python"),
        "weighing": lambda: readings.weigh(CALC, CALC_EDIT, "python"),
        "invariants": lambda: invariants.violations(CALC, answer, CALC_EDIT, "snippet", "python"),
        "checks": lambda: checks.check_all(source, answer, CALC_EDIT, "snippet", None, RunOptions()),
    }
    with interrupt.stopping(time.monotonic() - 1, 1.0), pytest.raises(RunTimeout, match="--timeout 1 s"):
        steps[phase]()


def big_file(functions: int) -> str:
    return "".join(
        f"def f{i}(x):\n    a = x + {i}\n    b = a * 2\n    c = b - {i}\n    if c > 10:\n        return c\n"
        f"    d = c + a\n    return d\n\n"
        for i in range(functions)
    )


def test_a_certain_snippet_on_a_20000_line_file_keeps_the_timeout(tmp_path: Path) -> None:
    """A one-function snippet on a 20,000-line file: the line diffs of the reading and of the
    dropped-lines check searched every repeated line's places (38 s past `--timeout 30`, file written).
    Now the run ends within the timeout and 2 s: answered, or stopped with nothing written."""
    source = big_file(2222)
    (tmp_path / "big.py").write_text(source)
    (tmp_path / "e.txt").write_text(
        "# ... existing code ...\ndef f1000(x):\n    a = x + 1000\n    b = a * 3\n# ... existing code ...\n"
    )
    t0 = time.monotonic()
    r = cli("big.py", "--edit", "e.txt", "--timeout", "20", "--in-place", cwd=tmp_path)
    took = time.monotonic() - t0
    expected = source.replace(
        "def f1000(x):\n    a = x + 1000\n    b = a * 2", "def f1000(x):\n    a = x + 1000\n    b = a * 3"
    )
    if r.returncode == 0:
        assert (tmp_path / "big.py").read_text() == expected
    else:
        assert r.returncode == 2 and b"stopped by --timeout 20 s" in r.stderr, r.stderr
        assert (tmp_path / "big.py").read_text() == source
    assert took < 20 + 2


def test_a_snippet_line_of_8_mib_keeps_the_timeout(tmp_path: Path) -> None:
    """A snippet holding one line of nearly 8 MiB: its comparisons ran difflib's ratio on that line
    (68 s past `--timeout 5`; a minute without one). A line that long compares by equality; the run ends
    within the timeout and 2 s (here it answers in about 8 s)."""
    source = "".join(f"def f{i}(x):\n    a = x + {i}\n    b = a * 2\n    return b\n\n" for i in range(20))
    (tmp_path / "small.py").write_text(source)
    blob = "x" * (8 * 1024 * 1024 - 200)
    (tmp_path / "e.txt").write_text(
        f"# ... existing code ...\ndef f5(x):\n    a = x + 5\n    s = '{blob}'\n    b = a * 2\n"
        "# ... existing code ...\n"
    )
    t0 = time.monotonic()
    r = cli("small.py", "--edit", "e.txt", "--timeout", "10", "--in-place", cwd=tmp_path)
    took = time.monotonic() - t0
    if r.returncode == 0:
        assert f"    s = '{blob}'\n" in (tmp_path / "small.py").read_text()
    else:
        assert r.returncode == 2 and b"stopped by --timeout 10 s" in r.stderr, r.stderr[:300]
        assert (tmp_path / "small.py").read_text() == source
    assert took < 10 + 2
