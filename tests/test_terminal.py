"""The CLI in a real pseudo-terminal at 80 and 160 columns (issue 20), with the scripted target slowed
down (tests/scripted_cli.py): every phase of the progress line appears in plain words, with an ETA,
each frame fits the terminal, and the report names the edited regions."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
ORIGINAL = "class Store:\n" + "".join(f"    def get{i}(self):\n        return {i}\n\n" for i in range(20))


def run_in_pty(tmp_path: Path, width: int) -> tuple[int, bytes, list[str]]:
    """Run the scripted CLI with stderr on a pty of `width` columns; (exit code, stdout, screen lines)."""
    (tmp_path / "s.py").write_text(ORIGINAL)
    (tmp_path / "out.txt").write_text(ORIGINAL.replace("return 7", "return 70") + "```\n")
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, width, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("COLUMNS", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            str(HERE / "scripted_cli.py"),
            str(tmp_path / "out.txt"),
            "0.15",
            "--",
            "s.py",
            "--edit-text",
            "Make get7 return 70.",
        ],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    screen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        screen += chunk
    out = proc.stdout.read() if proc.stdout else b""
    code = proc.wait(timeout=30)
    os.close(master)
    frames = [ANSI.sub("", part) for part in re.split(r"[\r\n]", screen.decode("utf-8", "replace"))]
    return code, out, [f for f in frames if f.strip()]


@pytest.mark.parametrize("width", [80, 160])
def test_phases_eta_and_regions_in_a_real_terminal(tmp_path: Path, width: int, tokenizer: object) -> None:
    code, out, lines = run_in_pty(tmp_path, width)
    text = "\n".join(lines)
    assert code == 0, text
    assert b"+        return 70" in out  # the diff on stdout
    assert "loading the model weights" in text
    assert re.search(r"reading the prompt \d+%", text)
    assert re.search(r"writing line \d+/~6[12], \d+:\d\d left", text), text  # the ETA
    assert "drafts accepted" in text
    assert all(line.rstrip().endswith("elapsed") for line in lines if "elapsed" in line)
    assert all(len(line) <= width for line in lines), [line for line in lines if len(line) > width]
    assert any("edited" in line and "class Store › def get7" in line for line in lines), text
