"""Issue 7's matrix through the real CLI: every bad input or bad output exits non-zero with one clear
stderr line (no traceback), prints no diff, and leaves the user's files byte-identical.

`main()` runs in-process; model outputs that the real model cannot be made to produce on demand are
scripted behind the model seam (tests/fakes.py): `Engine.open` returns an engine with the real
tokenizer whose forward pass writes a fixed text. Everything after the forward pass is the product:
the loop, the proposer, the extractor, the checks, the diff and the writer.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from applyedit import api, cli, files, modelstore
from fakes import ScriptedModel, scripted_engine

PY = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
PY_NEW = PY.replace("return 1", "return 10")


class Run:
    def __init__(self, code: int, out: bytes, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def one_line(self, needle: str) -> None:
        """The failure shape every case shares: one stderr line holding `needle`, no traceback, no diff."""
        lines = [line for line in self.err.strip().splitlines() if line.startswith("applyedit: error")]
        assert len(lines) == 1 and needle in lines[0], self.err
        assert "Traceback" not in self.err and self.out == b""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.py").write_text(PY)
    return tmp_path


@pytest.fixture
def run(capfdbinary: pytest.CaptureFixture[bytes]) -> Callable[..., Run]:
    def go(*args: str) -> Run:
        capfdbinary.readouterr()
        with pytest.raises(SystemExit) as info:
            cli.main(list(args))
        out, err = capfdbinary.readouterr()
        return Run(int(info.value.code or 0), out, err.decode())

    return go


@pytest.fixture
def model(tokenizer: tuple[Path, Any], monkeypatch: pytest.MonkeyPatch) -> Callable[..., api.Engine]:
    """`model(text)`: the CLI's engine now writes `text` (the raw output after the opening fence)."""

    def script(text: str, forward_hook: Callable[[int], None] | None = None) -> api.Engine:
        engine = scripted_engine(tokenizer, text)
        if forward_hook is not None:
            scripted = engine._model
            forward = scripted.forward

            def hooked(ids: list[int], num_logits: int) -> Any:
                forward_hook(scripted.num_forwards)
                return forward(ids, num_logits)

            scripted.forward = hooked  # type: ignore[method-assign]
        monkeypatch.setattr(api.Engine, "open", classmethod(lambda cls, *a, **k: engine))
        return engine

    return script


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --- FILE problems -----------------------------------------------------------------------------------

def test_unreadable_file(work: Path, run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch) -> None:
    """Permission denied (injected: these tests run as root, who reads anything) is one clear line."""
    real = Path.read_bytes

    def denied(self: Path) -> bytes:
        if self.name == "f.py":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", denied)
    run("f.py", "--edit-text", "x").one_line("cannot read f.py: Permission denied")


def test_bad_utf8_names_the_byte_and_offers_encoding(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    (work / "l1.py").write_bytes("s = 'caf\xe9'\n".encode("latin-1"))
    before = snapshot(work)
    run("l1.py", "--edit-text", "x").one_line("is not valid utf-8 (byte 0xe9 at offset 8); pass --encoding")
    model("s = 'café!'\n```\n")
    ok = run("l1.py", "--edit-text", "add a bang", "--encoding", "latin-1", "--in-place")
    assert ok.code == 0, ok.err
    assert snapshot(work)["l1.py"] == "s = 'café!'\n".encode("latin-1") and snapshot(work).keys() == before.keys()


def test_prompt_over_the_context_is_refused_before_weights_load(work: Path) -> None:
    """The real default model (tokenizer only): the message gives the token counts and the limit."""
    (work / "big.py").write_text("".join(f"value_{i:05d} = {i * 7919}\n" for i in range(9000)))
    proc = subprocess.run([sys.executable, "-m", "applyedit", "big.py", "--edit-text", "Bump every value."],
                          cwd=work, capture_output=True, timeout=300)
    err = proc.stderr.decode()
    assert proc.returncode == 1 and proc.stdout == b"" and len(err.strip().splitlines()) == 1, err
    assert "exceeds the model's context of 32,768 tokens" in err and "tokens) plus room for the output" in err


# --- EDIT problems -----------------------------------------------------------------------------------

@pytest.mark.parametrize("content", ["", "  \n\t\n"])
def test_empty_edit_file(work: Path, run: Callable[..., Run], content: str) -> None:
    (work / "e.txt").write_text(content)
    run("f.py", "--edit", "e.txt").one_line("the edit is empty")
    assert (work / "f.py").read_text() == PY


@pytest.mark.parametrize("snippet, form", [
    ("// ... existing code ...\nfunction a() {\n  return 10;\n}\n", "//"),
    ("<!-- ... rest of file ... -->\n<p>hi</p>\n", "<!--"),
])
def test_snippet_for_another_language_is_refused(work: Path, run: Callable[..., Run], snippet: str, form: str) -> None:
    run("f.py", "--edit-text", snippet).one_line(f"lazy markers are {form} comments, which python does not use")


def test_snippet_that_shares_no_line_with_the_file_is_flagged(work: Path, run: Callable[..., Run],
                                                             model: Callable[..., Any]) -> None:
    """A same-language snippet from another file may still be a pure addition: the run goes on, and
    the warning says no line of it matches this file (so the dropped-code check could not run)."""
    snippet = "# ... existing code ...\ndef unrelated(x):\n    y = x * 2\n    return y\n# ... existing code ...\n"
    model(PY + "\n\ndef unrelated(x):\n    y = x * 2\n    return y\n```\n")
    r = run("f.py", "--edit-text", snippet)
    assert r.code == 0 and b"+def unrelated(x):" in r.out
    assert "warning: the dropped-code check could not run" in r.err and "no snippet line matches the original" in r.err


def test_chat_reply_with_fence_and_prose_takes_the_block(work: Path, run: Callable[..., Run],
                                                         model: Callable[..., api.Engine]) -> None:
    reply = ("Sure! Here is the change:\n\n```python\ndef a():\n    return 10\n\n# ... existing code ...\n```\n\n"
             "This makes a() return 10.\n")
    engine = model(PY_NEW + "```\n")
    r = run("f.py", "--edit-text", reply, "--in-place")
    assert r.code == 0, r.err
    assert (work / "f.py").read_text() == PY_NEW
    assert engine._model.num_forwards < 15  # the merged snippet predicted the output: long accepted drafts


@pytest.mark.parametrize("marker", [
    "# ... existing code ...", "// ... rest of the file ...", "/* ... unchanged ... */", "<!-- ... existing code -->",
    "-- ... existing code ...", "# … keep existing methods …",
])
def test_leftover_marker_in_any_comment_form_is_refused(work: Path, run: Callable[..., Run],
                                                        model: Callable[..., Any], marker: str) -> None:
    model(f"def a():\n    return 10\n\n\n{marker}\n```\n")
    r = run("f.py", "--edit-text", "Make a() return 10.")
    assert r.code == 3
    r.one_line(f"lazy marker at line 5 ({marker!r})")
    assert (work / "f.py").read_text() == PY
    allowed = run("f.py", "--edit-text", "Make a() return 10.", "--allow-markers", "--allow-syntax-errors")
    assert allowed.code == 0 and marker.encode() in allowed.out


def test_bare_ellipsis_is_code_not_a_marker(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    new = PY.replace("    return 1\n", "    ...\n")
    model(new + "```\n")
    r = run("f.py", "--edit-text", "Make a() a stub.", "--in-place")
    assert r.code == 0, r.err
    assert (work / "f.py").read_text() == new


def test_language_flag_for_files_the_extension_does_not_name(work: Path, run: Callable[..., Run],
                                                             model: Callable[..., Any]) -> None:
    """A C++ class in a `.h` (read as C) and a Python script without an extension: with --language
    the right grammar checks the output (a broken one is refused); without it, it cannot."""
    (work / "shape.h").write_text("class Shape {\n public:\n  int sides() const { return 3; }\n};\n")
    model("class Shape {\n public:\n  int sides() const { return 4;\n};\n```\n")
    assert run("shape.h", "--edit-text", "Make it 4.").code == 0  # C cannot parse the original: no check
    r = run("shape.h", "--edit-text", "Make it 4.", "--language", "cpp")
    assert r.code == 3
    r.one_line("no longer parses as cpp")
    (work / "tool").write_text(PY)
    model("def a(:\n    return 10\n```\n")
    r = run("tool", "--edit-text", "Make a() return 10.", "--language", "python")
    assert r.code == 3
    r.one_line("no longer parses as python (syntax errors at line")
    assert (work / "tool").read_text() == PY and (work / "shape.h").read_text().count("return 3") == 1


# --- Line endings and whitespace ---------------------------------------------------------------------

@pytest.mark.parametrize("raw, expected", [
    (b"x = 1\r\ny = 2\r\n", b"x = 1\r\ny = 3\r\n"),  # CRLF stays CRLF
    (b"x = 1\ny = 2", b"x = 1\ny = 3"),  # no final newline stays missing
    (b"\xef\xbb\xbfx = 1\ny = 2\n", b"\xef\xbb\xbfx = 1\ny = 3\n"),  # the BOM is kept
    (b"if x:\n\ty = 2\n", b"if x:\n\ty = 3\n"),  # tabs stay tabs
])
def test_text_style_is_kept(work: Path, run: Callable[..., Run], model: Callable[..., Any],
                            raw: bytes, expected: bytes) -> None:
    (work / "s.py").write_bytes(raw)
    body = expected.decode("utf-8-sig").replace("\r\n", "\n")
    model(body + ("" if body.endswith("\n") else "\n") + "```\n")
    r = run("s.py", "--edit-text", "Set y to 3.", "--in-place")
    assert r.code == 0, r.err
    assert (work / "s.py").read_bytes() == expected


# --- Model output problems ---------------------------------------------------------------------------

def test_truncated_output_is_never_a_diff(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    model("def a():\n    return 10\n")  # end of turn before the closing fence
    r = run("f.py", "--edit-text", "Make a() return 10.")
    assert r.code == 2
    r.one_line("the file was cut short")


def test_budget_hit_with_the_real_model(work: Path) -> None:
    """The real default model, three output tokens: exit 2, the budget named, nothing written."""
    proc = subprocess.run([sys.executable, "-m", "applyedit", "f.py", "--edit-text", "Make a() return 10.",
                           "--max-new-tokens", "3", "--in-place", "-q"], cwd=work, capture_output=True, timeout=900)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b"", err
    assert "reached its budget of 3 tokens" in err and len(err.strip().splitlines()) == 1
    assert (work / "f.py").read_text() == PY and sorted(os.listdir(work)) == ["f.py"]


def test_empty_output_for_a_nonempty_file(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    model("```\n")
    r = run("f.py", "--edit-text", "Make a() return 10.")
    assert r.code == 3
    r.one_line("the model returned an empty file")


def test_syntax_break_is_refused_unless_allowed(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    model(PY_NEW.replace("return 10", "return (10") + "```\n")
    r = run("f.py", "--edit-text", "Make a() return 10.", "--in-place")
    assert r.code == 3
    r.one_line("the output no longer parses as python (syntax errors at line")
    assert (work / "f.py").read_text() == PY
    ok = run("f.py", "--edit-text", "Make a() return 10.", "--allow-syntax-errors")
    assert ok.code == 0 and b"return (10" in ok.out and "accepted (--allow-syntax-errors)" in ok.err


def test_dropped_code_is_refused_unless_allowed(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    snippet = "def a():\n    return 10\n\n# ... existing code ...\n"
    model("def a():\n    return 10\n```\n")  # b() vanished
    r = run("f.py", "--edit-text", snippet, "--in-place", "--fallback", "none")
    assert r.code == 3
    r.one_line("the output dropped 2 original lines that the snippet left alone (original lines 5-6)")
    assert (work / "f.py").read_text() == PY
    ok = run("f.py", "--edit-text", snippet, "--allow-drops", "--fallback", "none")
    assert ok.code == 0 and "accepted (--allow-drops)" in ok.err


def test_dropped_code_check_that_cannot_run_says_so(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    (work / "twice.py").write_text("def f():\n    return 1\n\n\ndef f():\n    return 1\n")
    model("def f():\n    return 2\n\n\ndef f():\n    return 1\n```\n")
    r = run("twice.py", "--edit-text", "# ... existing code ...\ndef f():\n    return 2\n# ... existing code ...\n")
    assert r.code == 0 and "the dropped-code check could not run" in r.err


# --- Writing the file ---------------------------------------------------------------------------------

def test_in_place_keeps_mode_and_writes_through_symlinks(work: Path, run: Callable[..., Run],
                                                         model: Callable[..., Any]) -> None:
    os.chmod(work / "f.py", 0o640)
    (work / "link.py").symlink_to("f.py")
    model(PY_NEW + "```\n")
    r = run("link.py", "--edit-text", "Make a() return 10.", "--in-place")
    assert r.code == 0, r.err
    assert (work / "link.py").is_symlink() and (work / "f.py").read_text() == PY_NEW
    assert stat.S_IMODE((work / "f.py").stat().st_mode) == 0o640 and sorted(os.listdir(work)) == ["f.py", "link.py"]


def test_backup_keeps_the_original(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    model(PY_NEW + "```\n")
    r = run("f.py", "--edit-text", "Make a() return 10.", "--in-place", "--backup")
    assert r.code == 0, r.err
    assert (work / "f.py.orig").read_text() == PY and (work / "f.py").read_text() == PY_NEW
    run("f.py", "--edit-text", "x", "--backup").one_line("--backup keeps the file that --in-place or --output replaces")


def test_file_changed_during_the_run_is_not_overwritten(work: Path, run: Callable[..., Run],
                                                        model: Callable[..., Any]) -> None:
    theirs = PY + "\n\ndef c():\n    return 3\n"

    def someone_saves(forwards: int) -> None:
        if forwards == 2:
            (work / "f.py").write_text(theirs)

    model(PY_NEW + "```\n", someone_saves)
    r = run("f.py", "--edit-text", "Make a() return 10.", "--in-place", "--proposer", "none")
    assert r.code == 1
    r.one_line("f.py changed on disk while applyedit ran; nothing was written")
    assert (work / "f.py").read_text() == theirs


def test_read_only_target_and_directory(work: Path, run: Callable[..., Run], model: Callable[..., Any]) -> None:
    model(PY_NEW + "```\n")
    os.chmod(work / "f.py", 0o444)
    run("f.py", "--edit-text", "Make a() return 10.", "--in-place").one_line("f.py is read-only")
    os.chmod(work / "f.py", 0o644)
    (work / "ro").mkdir()
    (work / "ro" / "g.py").write_text(PY)
    os.chmod(work / "ro", 0o555)
    try:
        run("ro/g.py", "--edit-text", "Make a() return 10.", "--in-place").one_line("the directory is read-only")
    finally:
        os.chmod(work / "ro", 0o755)
    assert (work / "f.py").read_text() == PY and (work / "ro" / "g.py").read_text() == PY
    assert sorted(os.listdir(work / "ro")) == ["g.py"]


def test_ctrl_c_mid_run_leaves_the_original_and_no_temp_files(work: Path, run: Callable[..., Run],
                                                               model: Callable[..., Any]) -> None:
    def interrupt(forwards: int) -> None:
        if forwards == 3:
            raise KeyboardInterrupt

    model(PY_NEW + "```\n", interrupt)
    before = snapshot(work)
    r = run("f.py", "--edit-text", "Make a() return 10.", "--in-place", "--proposer", "none")
    assert r.code == 130 and "interrupted; nothing was written" in r.err and r.out == b""
    assert snapshot(work) == before


def test_ctrl_c_during_the_rename_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "f.py").write_text(PY)

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_atomic(tmp_path / "f.py", PY_NEW.encode())
    assert sorted(os.listdir(tmp_path)) == ["f.py"] and (tmp_path / "f.py").read_text() == PY


def test_timeout_stops_the_run_cleanly(work: Path, run: Callable[..., Run], tokenizer: tuple[Path, Any],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow target (20 ms per pass, one token per pass: at least 8 s for this output) and a 0.5 s
    timeout: the run stops between passes, exit 2, nothing written."""
    import time

    long_text = "".join(f"v{i} = {i}\n" for i in range(80))
    (work / "long.py").write_text(long_text)
    engine = scripted_engine(tokenizer, long_text.replace("v0 = 0", "v0 = 1") + "```\n")
    forward = engine._model.forward

    def slow(ids: list[int], num_logits: int) -> Any:
        time.sleep(0.02)
        return forward(ids, num_logits)

    engine._model.forward = slow  # type: ignore[method-assign]
    monkeypatch.setattr(api.Engine, "open", classmethod(lambda cls, *a, **k: engine))
    r = run("long.py", "--edit-text", "Set v0 to 1.", "--in-place", "--proposer", "none", "--timeout", "0.5")
    assert r.code == 2
    r.one_line("stopped by --timeout 0.5 s after")
    assert (work / "long.py").read_text() == long_text and engine._model.num_forwards < 200


# --- Model problems -----------------------------------------------------------------------------------

@pytest.fixture
def fake_slices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Three small slice files standing in for the 1.1 GB default model, with their true size and
    SHA-256 as the expected values, in a private APPLYEDIT_HOME."""
    import hashlib

    parts = []
    for i, data in enumerate([b"GGUF" + b"a" * 1000, b"b" * 1000, b"c" * 7]):
        parts.append(tmp_path / f"part{i}.bin")
        parts[-1].write_bytes(data)
    whole = b"".join(p.read_bytes() for p in parts)
    monkeypatch.setenv("APPLYEDIT_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(modelstore, "slice_files", lambda: parts)
    monkeypatch.setattr(modelstore, "DEFAULT_GGUF_BYTES", len(whole))
    monkeypatch.setattr(modelstore, "DEFAULT_GGUF_SHA256", hashlib.sha256(whole).hexdigest())
    return parts


def test_damaged_gguf_cache_is_assembled_and_verified_again(fake_slices: list[Path]) -> None:
    path = modelstore.assemble_default_gguf()
    good = path.read_bytes()
    damaged = bytearray(good)
    damaged[500] ^= 0xFF  # same size: only the hash can tell
    path.write_bytes(bytes(damaged))
    st = path.stat()  # damage comes later than the verification (a write in the same clock tick may not move mtime)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert modelstore.assemble_default_gguf() == path and path.read_bytes() == good
    path.write_bytes(good[:100])  # truncated
    assert modelstore.assemble_default_gguf() == path and path.read_bytes() == good


def test_slices_that_do_not_hash_right_are_a_model_error(fake_slices: list[Path], work: Path,
                                                         run: Callable[..., Run], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(modelstore, "DEFAULT_GGUF_SHA256", "0" * 64)
    r = run("f.py", "--edit-text", "Make a() return 10.")
    assert r.code == 2
    r.one_line("the default model's slices do not assemble to the expected file")
    assert not list((Path(os.environ["APPLYEDIT_HOME"]) / "gguf").iterdir())  # no partial file kept


def test_a_cache_with_a_truncated_weight_file_is_not_ready(tmp_path: Path) -> None:
    def write(folder: Path) -> None:
        (folder / "model.safetensors").write_bytes(b"w" * 4096)
        (folder / "config.json").write_text("{}")

    dest = modelstore.publish(tmp_path / "m", write, "test")
    assert modelstore.is_ready(dest)
    (dest / "model.safetensors").write_bytes(b"w" * 100)
    assert not modelstore.is_ready(dest)
    (dest / "model.safetensors").unlink()
    assert not modelstore.is_ready(dest)


def test_cuda_without_a_gpu(work: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the case is about machines without one")
    proc = subprocess.run([sys.executable, "-m", "applyedit", "f.py", "--edit-text", "x", "--device", "cuda"],
                          cwd=work, capture_output=True, timeout=300)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b"" and len(err.strip().splitlines()) == 1, err
    assert "--device cuda was asked for, but no CUDA device is available" in err


# --- Exit codes ---------------------------------------------------------------------------------------

def test_exit_codes_are_documented_in_help_and_readme(run: Callable[..., Run]) -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    for args in (["--help"], ["apply", "--help"]):
        r = run(*args)
        text = " ".join(r.out.decode().split())
        for code, meaning in cli.EXIT_CODES.items():
            assert f"{code} {meaning}" in text, (args, code)
    for code, meaning in cli.EXIT_CODES.items():
        assert f"| {code} | {meaning} |" in readme, code


def test_api_reads_a_relative_file_from_cwd_not_the_process_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tokenizer: tuple[Path, Any]) -> None:
    """`api.apply(rel, cwd=repo)` edits repo/rel, the file its diff names, wherever the caller runs."""
    repo, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    (repo / "pkg").mkdir(parents=True)
    elsewhere.mkdir()
    (repo / "pkg" / "m.py").write_text(PY)
    (elsewhere / "pkg").mkdir()
    (elsewhere / "pkg" / "m.py").write_text("decoy = True\n")  # the process directory's file of that name
    monkeypatch.chdir(elsewhere)
    engine = scripted_engine(tokenizer, PY_NEW + "```\n")
    result = api.apply("pkg/m.py", "Return 10 from a.", engine=engine, cwd=repo)
    assert result.diff.startswith("diff --git a/pkg/m.py b/pkg/m.py")
    assert "-    return 1\n+    return 10\n" in result.diff and "decoy" not in result.diff
    assert (repo / "pkg" / "m.py").read_text() == PY  # api.apply returns the diff; it writes nothing
