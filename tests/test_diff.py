"""Tests for applyedit.diff: every diff must be accepted by real `git apply` byte-for-byte."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from applyedit.diff import diff_path, unified_diff
from applyedit.errors import InputError

# Keep the user's and the system's git config (apply.whitespace=fix, quotepath, ...) out of the way.
GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "LC_ALL": "C",
}


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Run git in `repo`, capturing bytes."""
    return subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, capture_output=True, check=check)


def make_repo(root: Path) -> Path:
    """Create an empty git repo with CRLF conversion off."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    git(root, "config", "core.autocrlf", "false")
    return root


def apply_with_git(repo: Path, name: str, before: str, after: str, context: int = 3) -> str:
    """Write `before` to `name`, diff it to `after`, `git apply` the diff and check the bytes."""
    target = repo / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(before.encode("utf-8"))
    patch = unified_diff(before, after, name, context=context)
    patch_file = repo.parent / (repo.name + ".patch")
    patch_file.write_bytes(patch.encode("utf-8"))
    checked = git(repo, "apply", "--check", str(patch_file), check=False)
    assert checked.returncode == 0, (checked.stderr.decode(errors="replace"), patch)
    applied = git(repo, "apply", str(patch_file), check=False)
    assert applied.returncode == 0, (applied.stderr.decode(errors="replace"), patch)
    assert target.read_bytes() == after.encode("utf-8"), patch
    return patch


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh git repo per test."""
    return make_repo(tmp_path / "repo")


@pytest.fixture(scope="module")
def shared_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One git repo reused across Hypothesis examples."""
    return make_repo(tmp_path_factory.mktemp("prop") / "repo")


NUMBERED = "".join(f"line {i}\n" for i in range(1, 101))
FAR_APART = (
    NUMBERED.replace("line 5\n", "LINE 5\n").replace("line 50\n", "").replace("line 95\n", "line 95\nnew after 95\n")
)

CASES = [
    pytest.param("a\nb\nc\n", "a\nB\nc\n", id="plain-one-line"),
    pytest.param("a\nb\nc", "a\nB\nc\n", id="no-final-newline-before-only"),
    pytest.param("a\nb\nc\n", "a\nB\nc", id="no-final-newline-after-only"),
    pytest.param("a\nb\nc", "a\nb\nC", id="no-final-newline-both-last-changed"),
    pytest.param("a\nb\nc", "A\nb\nc", id="no-final-newline-both-first-changed"),
    pytest.param("a\nb\nc", "a\nb\nc\n", id="only-add-final-newline"),
    pytest.param("a\nb\nc\n", "a\nb\nc", id="only-drop-final-newline"),
    pytest.param("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", id="crlf-change"),
    pytest.param("a\r\nb\r\nc", "a\r\nb\r\nC", id="crlf-no-final-newline"),
    pytest.param("a\r\nb\r\nc\r\n", "a\r\nb\nc\r\n", id="crlf-to-lf-one-line"),
    pytest.param("a\nb\r\nc\n", "a\nb\r\nX\r\nc\n", id="mixed-endings"),
    pytest.param("", "x\ny\n", id="empty-before"),
    pytest.param("", "x", id="empty-before-no-final-newline"),
    pytest.param("x\ny\n", "", id="empty-after"),
    pytest.param("x", "", id="empty-after-no-final-newline"),
    pytest.param("\n", "\n\n", id="blank-lines"),
    pytest.param("a\nb\nc\n", "new\na\nb\nc\n", id="insert-top"),
    pytest.param("a\nb\nc\nd\n", "a\nb\nnew\nc\nd\n", id="insert-middle"),
    pytest.param("a\nb\nc\n", "a\nb\nc\nnew\n", id="insert-bottom"),
    pytest.param("a\nb\nc\n", "a\nb\nc\nnew", id="insert-bottom-no-final-newline"),
    pytest.param("a\nb\nc\nd\ne\n", "a\ne\n", id="delete-only"),
    pytest.param("a\nb\nc\n", "b\nc\n", id="delete-first"),
    pytest.param("a\nb\nc", "a\nb\n", id="delete-last-no-final-newline"),
    pytest.param("café\n中文\nx\n", "café\n中文 😀\nx\n", id="unicode"),
    pytest.param("\ufeffa\nb\n", "\ufeffa\nB\n", id="bom-kept"),
    pytest.param("\ufeffa\nb\n", "a\nb\n", id="bom-removed"),
    pytest.param("def f():\n\treturn 1\n", "def f():\n\tx = 2\n\treturn x\n", id="tabs"),
    pytest.param("a  \nb\n", "a  \nb \n", id="trailing-spaces"),
    pytest.param(
        "a\x0cb\nc\u2028d\ne\x1cf\ng\x0bh\nlast\n",
        "a\x0cb\nc\u2028D\ne\x1cf\ng\x0bh\nlast\n",
        id="formfeed-and-u2028-survive",
    ),
    pytest.param("a\rb\nc\n", "a\rb\nC\n", id="lone-cr-inside-line"),
    pytest.param(
        "x\n-a\n+b\n c\n\\ d\n@@ -1 +1 @@\ndiff --git a/x b/x\n",
        "x\n-A\n+b\n c\n\\ D\n@@ -1 +1 @@\ndiff --git a/y b/y\n",
        id="lines-that-look-like-diff-syntax",
    ),
    pytest.param(NUMBERED, FAR_APART, id="many-hunks-far-apart"),
]


@pytest.mark.parametrize(("before", "after"), CASES)
def test_git_apply_reproduces_after(repo: Path, before: str, after: str) -> None:
    """Applying the diff with real `git apply` turns `before` into exactly `after`."""
    patch = apply_with_git(repo, "f.txt", before, after)
    assert patch.startswith("diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -")


def test_many_hunks_are_separate() -> None:
    """Changes far apart produce one hunk each."""
    assert unified_diff(NUMBERED, FAR_APART, "f.txt").count("\n@@ ") == 3


@pytest.mark.parametrize("context", [1, 2, 5])
def test_other_context_sizes_apply(repo: Path, context: int) -> None:
    """Diffs with non-default context sizes still apply exactly."""
    apply_with_git(repo, "f.txt", NUMBERED, FAR_APART, context=context)


def test_negative_context_rejected() -> None:
    """A negative context size is a programming error."""
    with pytest.raises(ValueError):
        unified_diff("a\n", "b\n", "f", context=-1)


def test_identical_texts_give_empty_diff(repo: Path) -> None:
    """Equal texts give "", which `git apply --allow-empty` accepts where supported."""
    for text in ["", "a\n", "a\r\nb"]:
        assert unified_diff(text, text, "f.txt") == ""
    (repo / "f.txt").write_bytes(b"a\n")
    patch_file = repo.parent / "empty.patch"
    patch_file.write_bytes(b"")
    result = git(repo, "apply", "--allow-empty", str(patch_file), check=False)
    if b"allow-empty" in result.stderr and result.returncode != 0:
        pytest.skip("this git has no `git apply --allow-empty`")
    assert result.returncode == 0, result.stderr
    assert (repo / "f.txt").read_bytes() == b"a\n"


def test_no_newline_marker_exact_text() -> None:
    """The marker follows the last line of each side that lacks a newline."""
    assert unified_diff("a\nb", "a\nc", "f") == (
        "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n"
        "\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
    )
    assert unified_diff("a", "a\n", "f").endswith("@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n")


def test_empty_side_hunk_headers() -> None:
    """An empty side keeps a/ and b/ headers and gets git's `0,0` range."""
    created = unified_diff("", "x\ny\n", "f")
    assert created == "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n"
    emptied = unified_diff("x\ny\n", "", "f")
    assert emptied == "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n"


def test_crlf_bytes_kept_in_diff() -> None:
    """CR stays in diff lines, so CRLF files round-trip unchanged."""
    assert "-b\r\n+B\r\n" in unified_diff("a\r\nb\r\n", "a\r\nB\r\n", "f")


SPECIAL_NAMES = [
    pytest.param("plain.py", id="plain"),
    pytest.param("sub/dir/x.py", id="subdirectory"),
    pytest.param("my file.py", id="space"),
    pytest.param("sub dir/my file.py", id="space-in-dir"),
    pytest.param("café.py", id="non-ascii"),
    pytest.param("sp café.py", id="space-and-non-ascii"),
    pytest.param("中文/😀.py", id="cjk-emoji"),
    pytest.param('q"uote.py', id="double-quote"),
    pytest.param("it's.py", id="single-quote"),
    pytest.param("back\\slash.py", id="backslash"),
    pytest.param("tab\there.py", id="tab"),
    pytest.param("sp ace\tt.py", id="space-and-tab"),
    pytest.param("new\nline.py", id="newline"),
    pytest.param("esc\x1b\x01\x7f.py", id="control-bytes"),
]


@pytest.mark.parametrize("name", SPECIAL_NAMES)
def test_special_paths_apply(repo: Path, name: str) -> None:
    """Diffs for paths with spaces, quotes, control or non-ASCII characters apply exactly."""
    apply_with_git(repo, name, "a\nb\n", "a\nB\n")


@pytest.mark.parametrize("name", SPECIAL_NAMES)
@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param("a\nb\n", "a\nB\n", id="change"),
        pytest.param("a\r\nb", "a\r\nB\r\n", id="crlf-no-final-newline"),
        pytest.param("", "x\n", id="from-empty"),
        pytest.param("x\ny\n", "", id="to-empty"),
    ],
)
def test_matches_git_diff_output(repo: Path, name: str, before: str, after: str) -> None:
    """Our diff equals `git diff` output (minus its index line) for simple changes."""
    target = repo / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(before.encode("utf-8"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "before")
    target.write_bytes(after.encode("utf-8"))
    out = git(repo, "diff", "--no-color", "--no-ext-diff", "--", name).stdout.decode("utf-8")
    lines = [line for line in out.splitlines(keepends=True) if not line.startswith("index ")]
    expected = re.sub(r"(?m)^(@@ [^@]* @@).*$", r"\1", "".join(lines))
    assert unified_diff(before, after, name) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param("x.py", "x.py", id="plain"),
        pytest.param("./x.py", "x.py", id="dot-slash"),
        pytest.param("sub/../x.py", "x.py", id="dot-dot"),
        pytest.param("sub//x.py", "sub/x.py", id="double-slash"),
        pytest.param("./sub/./deep/../x.py", "sub/x.py", id="mixed"),
    ],
)
def test_diff_path_normalises(tmp_path: Path, given: str, expected: str) -> None:
    """diff_path strips `./`, `..` and `//` and is relative to cwd."""
    assert diff_path(given, cwd=tmp_path) == expected
    assert diff_path(tmp_path / given, cwd=tmp_path) == expected


def test_diff_path_defaults_to_process_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without `cwd`, paths are relative to the process's current directory."""
    monkeypatch.chdir(tmp_path)
    assert diff_path("./a/b.py") == "a/b.py"
    assert diff_path(tmp_path / "a" / "b.py") == "a/b.py"


def test_diff_path_names_a_symlinks_target(tmp_path: Path) -> None:
    """A symlink is named by its target (what git apply can patch), inside cwd or outside it."""
    outside = tmp_path / "outside.py"
    outside.write_text("x\n")
    cwd = tmp_path / "proj"
    (cwd / "lib").mkdir(parents=True)
    (cwd / "lib" / "f.py").write_text("x\n")
    (cwd / "link.py").symlink_to("lib/f.py")
    (cwd / "out.py").symlink_to(outside)
    (cwd / "dirlink").symlink_to("lib")
    assert diff_path("link.py", cwd=cwd) == "lib/f.py"
    assert diff_path("dirlink/f.py", cwd=cwd) == "lib/f.py"
    assert diff_path("out.py", cwd=cwd) == "../outside.py"
    assert diff_path(cwd / "out.py", cwd=cwd) == os.path.realpath(outside)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param("../x.py", "../x.py", id="parent"),
        pytest.param("sub/../../x.py", "../x.py", id="escapes-via-dot-dot"),
        pytest.param("/etc/passwd", "/etc/passwd", id="absolute-elsewhere"),
    ],
)
def test_diff_path_outside_cwd_stays_as_given(tmp_path: Path, given: str, expected: str) -> None:
    """A file outside cwd keeps the form it was given in: relative with its `../`, or absolute."""
    cwd = tmp_path / "proj"
    (cwd / "sub").mkdir(parents=True)
    assert diff_path(given, cwd=cwd) == expected


def test_diff_path_of_cwd_itself_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is the current directory"):
        diff_path(".", cwd=tmp_path)


def test_diff_path_sibling_with_common_prefix_is_outside(tmp_path: Path) -> None:
    """`/x/proj2/f` is not inside `/x/proj` although the strings share a prefix."""
    (tmp_path / "proj").mkdir()
    base = os.path.realpath(tmp_path)
    assert diff_path(tmp_path / "proj2" / "f.py", cwd=tmp_path / "proj") == f"{base}/proj2/f.py"
    assert diff_path("../proj2/f.py", cwd=tmp_path / "proj") == "../proj2/f.py"


CONTENTS = ["", "a", "b", "ab", "x y", "\tz", "é", "-a", "\\"]


@st.composite
def texts(draw: st.DrawFn) -> str:
    """A file text made of short, often repeated lines with LF, CRLF or mixed endings."""
    contents = draw(st.lists(st.sampled_from(CONTENTS), max_size=14))
    mode = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    endings = [draw(st.sampled_from(["\n", "\r\n"])) if mode == "mixed" else mode for _ in contents]
    if contents and not draw(st.booleans()):
        endings[-1] = ""  # no final newline
    return "".join(c + e for c, e in zip(contents, endings))


def test_property_git_apply_round_trips(shared_repo: Path) -> None:
    """For random texts, `git apply` of the diff reproduces `after` byte-for-byte. Equal texts (an
    empty diff) return early, so most examples must reach `git apply`."""
    reached = {"all": 0, "applied": 0}

    @settings(derandomize=True, deadline=None, max_examples=1000)
    @given(before=texts(), after=texts(), context=st.sampled_from([1, 3]))
    def check(before: str, after: str, context: int) -> None:
        reached["all"] += 1
        if before == after:
            assert unified_diff(before, after, "p.txt", context=context) == ""
            return
        apply_with_git(shared_repo, "p.txt", before, after, context=context)
        reached["applied"] += 1

    check()
    assert reached["all"] >= 900 and reached["applied"] >= 0.7 * reached["all"], reached
