"""Mine real single-file commits from git histories into the frozen commit corpus.

Walks each repository's history (`git log --no-merges --no-renames` from HEAD) and keeps the
commits that modify exactly one source file in a target language (Python, JavaScript, TypeScript,
Go, Rust, Java; files in other languages, such as docs or changelogs, may change beside it), with
a modest change: 1-60 changed lines (difflib's line diff), both versions at most 800 lines and the
original at least 10, not a rewrite (fewer than half the original's lines deleted), a path that is
not vendored, generated, minified or a declaration file, no generated-code banner, both versions
UTF-8 without carriage returns, their lines different also when whitespace is ignored, and the new
version parsing wherever the old one did (`applyedit.syntax.new_errors`). Commit messages that
read as a merge, revert, release or formatting run are skipped. Candidates are visited in the
order of sha256("<owner>/<name>:<commit>"), at most CAP_PER_REPO cases per repository and
CAP_PER_PATH per file, so that the selection is deterministic and no repository or file dominates.

Writes, under corpus/commits/ (or --out):
  data/<language>.jsonl.gz     one JSON object per case: repo, commit, parent, date, path, language,
                               license, message (first line), before, after (sorted by repo, commit)
  licenses/<owner>+<name>.txt  the license text at the newest commit used
  SOURCES.md                   the table of repositories (rewritten from what was mined)

    python corpus/commits/mine.py GITDIR... [--cap 150] [--out corpus/commits]

A GITDIR is any git directory (bare or not) holding the repository; its owner/name is read from a
path component `<owner>+<name>` (as in `/mirror/pallets+click/repo`) or given as
`owner/name=GITDIR`. Only repositories listed in LICENSES (permissive licenses) are mined.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import hashlib
import json
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

if __package__ in (None, ""):  # run as a script from a checkout: find applyedit two folders up
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

ROOT = Path(__file__).resolve().parent
CAP_PER_REPO = 150
CAP_PER_PATH = 8
MAX_CHANGED = 60
MAX_LINES = 800
MIN_LINES = 10

EXTENSIONS = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
}

# SPDX id and license file(s) of every repository the corpus may draw from (all permissive).
LICENSES: dict[str, tuple[str, tuple[str, ...]]] = {
    "pallets/click": ("BSD-3-Clause", ("LICENSE.txt", "LICENSE.rst", "LICENSE")),
    "pallets/itsdangerous": ("BSD-3-Clause", ("LICENSE.txt", "LICENSE.rst", "LICENSE")),
    "psf/requests": ("Apache-2.0", ("LICENSE",)),
    "encode/httpx": ("BSD-3-Clause", ("LICENSE.md",)),
    "expressjs/express": ("MIT", ("LICENSE",)),
    "tj/commander.js": ("MIT", ("LICENSE",)),
    "sindresorhus/ky": ("MIT", ("license", "license.md")),
    "colinhacks/zod": ("MIT", ("LICENSE",)),
    "spf13/cobra": ("Apache-2.0", ("LICENSE.txt",)),
    "google/go-cmp": ("BSD-3-Clause", ("LICENSE",)),
    "urfave/cli": ("MIT", ("LICENSE",)),
    "dtolnay/semver": ("MIT OR Apache-2.0", ("LICENSE-MIT", "LICENSE-APACHE")),
    "rust-lang/log": ("MIT OR Apache-2.0", ("LICENSE-MIT", "LICENSE-APACHE")),
    "serde-rs/json": ("MIT OR Apache-2.0", ("LICENSE-MIT", "LICENSE-APACHE")),
    "google/gson": ("Apache-2.0", ("LICENSE",)),
    "square/javapoet": ("Apache-2.0", ("LICENSE.txt",)),
}

_SKIP_PATH = re.compile(
    r"(^|/)(vendor|vendored|third_party|node_modules|dist|build|target|testdata|fixtures?|__snapshots__)/"
    r"|\.min\.js$|\.d\.ts$|_pb2\.py$|\.pb\.go$|zz_generated|(^|/)generated?[/_.]|\.generated\.",
    re.I,
)
_GENERATED = re.compile(r"Code generated .* DO NOT EDIT|@generated|auto-?generated|DO NOT EDIT", re.I)
_SKIP_MESSAGE = re.compile(
    r"^\s*(merge\b|revert\b|reformat|format\b|formatting|fmt\b|gofmt|rustfmt|cargo fmt|run (black|prettier|"
    r"rustfmt|gofmt|cargo fmt)|black\b|prettier\b|apply (black|prettier)|release\b|bump\b|prepare\b|version\b|"
    r"v?\d+\.\d+(\.\d+)?\s*$)",
    re.I,
)


def _git(gitdir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], check=True, capture_output=True).stdout


class Blobs:
    """Blob contents through one `git cat-file --batch` process."""

    def __init__(self, gitdir: Path) -> None:
        self.proc = subprocess.Popen(
            ["git", f"--git-dir={gitdir}", "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def get(self, sha: str) -> bytes | None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3:
            return None
        data = self.proc.stdout.read(int(header[2]) + 1)[:-1]
        return data

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def repo_name(arg: str) -> tuple[str, Path]:
    if "=" in arg:
        name, path = arg.split("=", 1)
        return name, Path(path)
    for part in reversed(Path(arg).parts):
        if "+" in part:
            owner, name = part.split("+", 1)
            return f"{owner}/{name}", Path(arg)
    raise SystemExit(f"cannot tell owner/name from {arg}: give it as owner/name=GITDIR")


def history(gitdir: Path) -> list[dict]:
    """Every non-merge commit reachable from HEAD that modifies exactly one source file."""
    out = _git(
        gitdir, "log", "--no-merges", "--no-renames", "--no-abbrev", "--format=%x00%H %P%x09%at%x09%s", "--raw", "HEAD"
    ).decode("utf-8", "replace")
    found = []
    for chunk in out.split("\x00")[1:]:
        head, _, body = chunk.partition("\n")
        ids, date, subject = (head.split("\t", 2) + ["", ""])[:3]
        shas = ids.split()
        if len(shas) != 2:  # the root commit has no parent to diff against
            continue
        raw = {}
        for line in body.split("\n"):
            if line.startswith(":"):
                meta, _, path = line.partition("\t")
                f = meta.split()
                raw[path] = (f[2], f[3], f[4])  # old blob, new blob, status
        sources = [p for p in raw if Path(p).suffix in EXTENSIONS]
        if len(sources) != 1:
            continue
        path = sources[0]
        old, new, status = raw[path]
        if status != "M" or path.startswith('"'):
            continue
        found.append(
            {
                "commit": shas[0],
                "parent": shas[1],
                "date": int(date),
                "message": subject.strip(),
                "path": path,
                "old": old,
                "new": new,
            }
        )
    return found


def _decode(data: bytes | None) -> str | None:
    if data is None or b"\r" in data or b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def changed(old: list[str], new: list[str]) -> tuple[int, int]:
    """(lines added, lines deleted) by difflib's line diff."""
    added = deleted = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            deleted += i2 - i1
            added += j2 - j1
    return added, deleted


def cheap_reason(c: dict) -> str:
    """Why the candidate is skipped by its path or message alone ('' if it is not)."""
    if _SKIP_PATH.search(c["path"]):
        return "path"
    if _SKIP_MESSAGE.search(c["message"]):
        return "message"
    return ""


def reason(c: dict, before: str | None, after: str | None) -> str:
    """'' when the candidate is kept, else why not."""
    from applyedit import syntax

    if cheap := cheap_reason(c):
        return cheap
    if before is None or after is None:
        return "encoding or missing"
    old, new = _lines(before), _lines(after)
    if not MIN_LINES <= len(old) <= MAX_LINES or len(new) > MAX_LINES:
        return "file size"
    if max(map(len, old + new), default=0) > 400:
        return "long line"
    if [x.split() for x in old if x.strip()] == [x.split() for x in new if x.strip()]:
        return "whitespace only"
    added, deleted = changed(old, new)
    if not 1 <= added + deleted <= MAX_CHANGED:
        return "size of change"
    if deleted * 2 >= len(old):
        return "rewrite"
    if _GENERATED.search("\n".join(old[:10] + new[:10])):
        return "generated"
    if syntax.new_errors(before, after, EXTENSIONS[Path(c["path"]).suffix], c["path"]) not in ([], None):
        return "parse"
    return ""


def _order(repo: str, commit: str) -> str:
    return hashlib.sha256(f"{repo}:{commit}".encode()).hexdigest()


def mine(repo: str, gitdir: Path, cap: int = CAP_PER_REPO) -> tuple[list[dict], Counter]:
    spdx = LICENSES[repo][0]
    candidates = sorted(history(gitdir), key=lambda c: _order(repo, c["commit"]))
    blobs, kept, why, per_path = Blobs(gitdir), [], Counter(), Counter()
    try:
        for c in candidates:
            if len(kept) >= cap:
                break
            if per_path[c["path"]] >= CAP_PER_PATH:
                why["path cap"] += 1
                continue
            if why_not := cheap_reason(c):
                why[why_not] += 1
                continue
            before, after = _decode(blobs.get(c["old"])), _decode(blobs.get(c["new"]))
            if why_not := reason(c, before, after):
                why[why_not] += 1
                continue
            per_path[c["path"]] += 1
            kept.append(
                {
                    "repo": repo,
                    "commit": c["commit"],
                    "parent": c["parent"],
                    "date": time.strftime("%Y-%m-%d", time.gmtime(c["date"])),
                    "path": c["path"],
                    "language": EXTENSIONS[Path(c["path"]).suffix],
                    "license": spdx,
                    "message": c["message"],
                    "before": before,
                    "after": after,
                    "_time": c["date"],
                }
            )
    finally:
        blobs.close()
    why["kept"] = len(kept)
    why["candidates"] = len(candidates)
    return kept, why


def license_text(repo: str, gitdir: Path, commit: str) -> str:
    names = LICENSES[repo][1]
    texts = []
    for name in names:
        try:
            texts.append((name, _git(gitdir, "show", f"{commit}:{name}").decode("utf-8")))
        except subprocess.CalledProcessError:
            continue
    if not texts:
        raise SystemExit(f"{repo}: no license file {names} at {commit}")
    if len(LICENSES[repo][0].split(" OR ")) == 1:
        texts = texts[:1]
    return "\n".join(f"==> {name} <==\n{text}" if len(texts) > 1 else text for name, text in texts)


def sources_md(rows: list[dict], command: str) -> str:
    lines = [
        "# Commit corpus sources",
        "",
        "Real single-file commits from the public histories of permissively licensed repositories, kept",
        "as a frozen sample (`data/<language>.jsonl.gz`, gzip-compressed JSON Lines): for each case the",
        "file before and after the commit, with the commit's repository, id, parent, date, path, language,",
        "license and the first line of its message. Each repository was read from a bare clone of",
        "`https://github.com/<owner>/<name>` (the snapshot's HEAD is listed); its license text at the newest",
        "commit used is in `licenses/<owner>+<name>.txt` (both texts for a dual license). The files are only",
        "read as text: nothing is run or imported.",
        "",
        "- `mine.py` selects the commits (its docstring has the rules: one source file modified, 1-60",
        "  changed lines, at most 800 lines, parses wherever the original did, no generated or vendored",
        "  files, no merge/revert/release/format commits, a capped number per repository and per file, in a",
        "  seeded order) and rewrites `data/`, `licenses/` and this file.",
        "- `cases.py` turns each commit into a clean and a messy update snippet (corpus/generate.py's",
        "  `render`), and the instruction where the message reads as one; `python corpus/commits/cases.py",
        "  --sample corpus/commits/sample` rewrites the frozen fixture sample (`applyedit eval",
        "  corpus/commits/sample` runs it).",
        "- `score.py` scores the no-model merge on every case (`python corpus/commits/score.py`).",
        "",
        "| repository | license | cases | commits (dates) | languages | snapshot HEAD |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['repo']} | {r['license']} | {r['cases']} | {r['first']} .. {r['last']} | "
            f"{', '.join(r['languages'])} | {r['head'][:12]} |"
        )
    lines += [
        "",
        f"Total: {sum(r['cases'] for r in rows)} commits from {len(rows)} repositories. `cases.py` "
        "leaves out a commit whose change adds or removes blank lines at the file's very start or end, "
        "or its final newline: no snippet shows that (`cases.shows_edges`).",
        "",
        "Regenerate (from bare clones under one folder, named `<owner>+<name>`):",
        "",
        f"    {command}",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("gitdirs", nargs="+", help="GITDIR or owner/name=GITDIR")
    p.add_argument("--cap", type=int, default=CAP_PER_REPO, help="cases per repository at most")
    p.add_argument("--out", type=Path, default=ROOT)
    args = p.parse_args(argv)
    by_language: dict[str, list[dict]] = defaultdict(list)
    rows = []
    for arg in args.gitdirs:
        repo, gitdir = repo_name(arg)
        if repo not in LICENSES:
            print(f"{repo}: not in LICENSES, skipped", file=sys.stderr)
            continue
        kept, why = mine(repo, gitdir, args.cap)
        print(f"{repo}: {dict(why)}", file=sys.stderr)
        if not kept:
            continue
        newest = max(kept, key=lambda c: c["_time"])
        (args.out / "licenses").mkdir(parents=True, exist_ok=True)
        owner, name = repo.split("/")
        (args.out / "licenses" / f"{owner}+{name}.txt").write_text(
            license_text(repo, gitdir, newest["commit"]), encoding="utf-8"
        )
        rows.append(
            {
                "repo": repo,
                "license": LICENSES[repo][0],
                "cases": len(kept),
                "first": min(c["date"] for c in kept),
                "last": max(c["date"] for c in kept),
                "languages": sorted({c["language"] for c in kept}),
                "head": _git(gitdir, "rev-parse", "HEAD").decode().strip(),
            }
        )
        for c in kept:
            del c["_time"]
            by_language[c["language"]].append(c)
    data = args.out / "data"
    data.mkdir(parents=True, exist_ok=True)
    for old in data.glob("*.jsonl.gz"):
        old.unlink()
    for language, items in sorted(by_language.items()):
        items.sort(key=lambda c: (c["repo"], c["commit"]))
        payload = "".join(json.dumps(c, ensure_ascii=False, sort_keys=True) + "\n" for c in items)
        with gzip.GzipFile(data / f"{language}.jsonl.gz", "wb", compresslevel=9, mtime=0) as f:
            f.write(payload.encode("utf-8"))
    rows.sort(key=lambda r: r["repo"])
    command = "python corpus/commits/mine.py " + " ".join(f"MIRROR/{r['repo'].replace('/', '+')}" for r in rows)
    command += f" --cap {args.cap}" if args.cap != CAP_PER_REPO else ""
    (args.out / "SOURCES.md").write_text(sources_md(rows, command), encoding="utf-8")
    total = Counter(c["language"] for items in by_language.values() for c in items)
    print(f"{sum(total.values())} cases: {dict(sorted(total.items()))}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
