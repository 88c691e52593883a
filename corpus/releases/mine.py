"""Mine real edits from the package registries: the same file in two consecutive published versions of
a package is a human edit. Writes the frozen release corpus under corpus/releases/.

For every package in PACKAGES (all permissively licensed), every version listed is fetched with the
registry's own client (`pip download --no-deps --no-binary NAME` for a PyPI sdist, `npm pack` for an
npm tarball) into a cache outside the repository (`$APPLYEDIT_CORPUS_CACHE`, else
`~/.cache/applyedit-corpus`), and checked against the SHA-256 recorded in `archives.json` (a new
archive is recorded there; a changed one stops the run). The files the package's pattern names (its own
sources: no generated, vendored, minified or declaration files) are read from each archive as text.

Each file present in two consecutive versions is diffed line by line (difflib), and its changes are
grouped into clusters: hunks at most GAP unchanged lines apart. Each cluster is one edit: the file
before is the older version, the file after is the older version with only that cluster applied. An
edit is kept when it changes 1-60 lines (added plus deleted), both files hold 10-1,000 lines of UTF-8
without carriage returns or lines over 400 characters, it is not formatting alone (the same text
when whitespace and line breaks are ignored), not a version string alone, deletes less than half the file, and the file after
parses wherever the file before did (`applyedit.syntax.new_errors`). Edits are visited in the order of
sha256("<package>:<edit id>"), the package's languages in turn, at most CAP_PER_PACKAGE per package and
CAP_PER_PATH per file path, so that the selection is deterministic and no package, language or file
dominates. Where a changelog entry of the
newer version names an identifier the edit changes (and no other entry does), its text is the edit's
message.

Writes, under corpus/releases/ (or --out):
  data/<language>.jsonl.gz   one JSON object per edit: package, registry, versions, path, language,
                             license, edit id, message, before, after (sorted; gzip without a timestamp)
  licenses/<package>.txt     the license text shipped in the newest archive used
  archives.json              every archive: registry, package, version, file name, size, SHA-256
  SOURCES.md                 the table of packages, version pairs, licenses and checksums

    python corpus/releases/mine.py [--jobs 6] [--out corpus/releases] [--offline]

Run twice, it writes the same bytes; `--offline` uses the cache alone (no registry is asked).
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path

if __package__ in (None, ""):  # run as a script from a checkout: find applyedit two folders up
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

ROOT = Path(__file__).resolve().parent
CAP_PER_PACKAGE = 100
CAP_PER_PATH = 8
GAP = 3  # hunks at most this many unchanged lines apart are one edit
MAX_CHANGED = 60
MAX_LINES = 1000
MIN_LINES = 10
MAX_LINE_LENGTH = 400

EXTENSIONS = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".hpp": "cpp",
}


@dataclass(frozen=True)
class Package:
    registry: str  # "pypi" | "npm"
    name: str
    license: str  # SPDX expression, permissive
    versions: tuple[str, ...]  # consecutive published versions, oldest first
    include: str  # regex over a path inside the archive (its top folder dropped)
    headers: str = "c"  # the language of its `.h` files
    changelog: str = r"(?i)^(docs?/)?(changes|changelog|history|news)(\.(md|rst|txt))?$"
    languages: dict[str, str] = field(default_factory=dict)  # extension -> language, beyond EXTENSIONS

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


def _v(text: str) -> tuple[str, ...]:
    return tuple(text.split())


PACKAGES: tuple[Package, ...] = (
    # Python (and C, C++, Rust, Java beside it) from PyPI sdists
    Package("pypi", "psutil", "BSD-3-Clause", _v("6.0.0 6.1.0 6.1.1 7.0.0 7.1.0 7.1.1 7.1.2 7.1.3 7.2.0 7.2.1 7.2.2"),
            r"^psutil/.*\.(py|c|h)$"),
    Package("pypi", "markupsafe", "BSD-3-Clause", _v("2.1.0 2.1.1 2.1.2 2.1.3 2.1.4 2.1.5 3.0.0 3.0.1 3.0.2 3.0.3 3.0.4"),
            r"^src/markupsafe/.*\.(py|c)$"),
    Package("pypi", "multidict", "Apache-2.0", _v("6.6.3 6.6.4 6.7.0 6.7.1 6.8.0 6.9.0 6.9.1 7.0.0 7.1.0 7.2.0 7.2.1"),
            r"^multidict/.*\.(py|c|h)$"),
    Package("pypi", "greenlet", "MIT", _v("3.3.0 3.3.1 3.3.2 3.4.0 3.5.0 3.5.1 3.5.2 3.5.3 3.5.4 3.5.5 3.5.6"),
            r"^src/greenlet/.*\.(py|c|cpp|hpp|h)$", headers="cpp"),
    Package("pypi", "kiwisolver", "BSD-3-Clause", _v("1.4.2 1.4.3 1.4.4 1.4.5 1.4.6 1.4.7 1.4.8 1.4.9 1.5.0 1.5.1"),
            r"^(py|kiwi|src|lib|py/src)/.*\.(py|cpp|h)$", headers="cpp"),
    Package("pypi", "orjson", "Apache-2.0 OR MIT",
            _v("3.11.0 3.11.1 3.11.2 3.11.3 3.11.4 3.11.5 3.11.6 3.11.7 3.11.8 3.11.9 3.12.0 3.13.0"),
            r"^(src/.*\.rs|pysrc/.*\.py)$"),
    Package("pypi", "jpype1", "Apache-2.0", _v("1.3.0 1.4.0 1.4.1 1.5.0 1.5.1 1.5.2 1.6.0 1.7.0 1.7.1"),
            r"^(native/java/.*\.java|native/common/.*\.(cpp|h)|native/python/.*\.(cpp|h)|jpype/.*\.py)$",
            headers="cpp"),
    Package("pypi", "py4j", "BSD-3-Clause",
            _v("0.10.9 0.10.9.1 0.10.9.2 0.10.9.3 0.10.9.4 0.10.9.5 0.10.9.6 0.10.9.7 0.10.9.8 0.10.9.9"),
            r"^(py4j-java/src/main/java/.*\.java|src/py4j/.*\.py)$"),
    Package("pypi", "rich", "MIT", _v("14.0.0 14.1.0 14.2.0 14.3.0 14.3.1 14.3.2 14.3.3 14.3.4 15.0.0"),
            r"^rich/.*\.py$"),
    Package("pypi", "attrs", "MIT", _v("23.2.0 24.1.0 24.2.0 24.3.0 25.1.0 25.2.0 25.3.0 25.4.0 26.1.0"),
            r"^src/(attr|attrs)/.*\.py$"),
    Package("pypi", "tomlkit", "MIT", _v("0.12.5 0.13.0 0.13.1 0.13.2 0.13.3 0.14.0 0.15.0 0.15.1 0.15.2"),
            r"^tomlkit/.*\.py$"),
    Package("pypi", "pluggy", "MIT", _v("1.0.0 1.2.0 1.3.0 1.4.0 1.5.0 1.6.0 1.7.0"), r"^src/pluggy/.*\.py$"),
    Package("pypi", "werkzeug", "BSD-3-Clause", _v("3.1.0 3.1.1 3.1.2 3.1.3 3.1.4 3.1.5 3.1.6 3.1.7 3.1.8 3.1.9"),
            r"^src/werkzeug/.*\.py$"),
    Package("pypi", "jinja2", "BSD-3-Clause", _v("3.0.3 3.1.0 3.1.1 3.1.2 3.1.3 3.1.4 3.1.5 3.1.6"),
            r"^src/jinja2/.*\.py$"),
    Package("pypi", "packaging", "Apache-2.0 OR BSD-2-Clause", _v("24.0 24.1 24.2 25.0 26.0 26.1 26.2 26.3 26.4"),
            r"^src/packaging/.*\.py$"),
    Package("pypi", "urllib3", "MIT", _v("2.3.0 2.4.0 2.5.0 2.6.0 2.6.1 2.6.2 2.6.3 2.7.0 2.8.0"),
            r"^src/urllib3/.*\.py$"),
    Package("pypi", "pyparsing", "MIT", _v("3.2.0 3.2.1 3.2.2 3.2.3 3.2.4 3.2.5 3.3.0 3.3.1 3.3.2 3.3.3"),
            r"^pyparsing/.*\.py$"),
    # JavaScript and TypeScript (and Java beside them) from npm tarballs
    Package("npm", "ws", "MIT", _v("8.19.0 8.20.0 8.20.1 8.21.0 8.21.1 8.21.2 8.21.3 8.22.0 8.22.1 8.22.2 8.23.0 8.23.1"),
            r"^lib/.*\.js$"),
    Package("npm", "fastify", "MIT",
            _v("5.11.1 5.11.2 5.11.3 5.12.0 5.12.1 5.12.2 5.12.3 5.12.4 5.12.5 5.12.6 5.12.7 5.12.8"),
            r"^(fastify\.js|lib/.*\.js)$"),
    Package("npm", "pino", "MIT", _v("9.13.0 9.13.1 9.14.0 10.0.0 10.1.0 10.1.1 10.2.0 10.2.1 10.3.0 10.3.1 10.4.0"),
            r"^(pino\.js|lib/.*\.js)$"),
    Package("npm", "undici", "MIT",
            _v("8.11.0 8.11.1 8.11.2 8.12.0 8.12.1 8.12.2 8.12.3 8.12.4 8.13.0 8.13.1 8.14.0"), r"^lib/.*\.js$"),
    Package("npm", "koa", "MIT", _v("3.0.0 3.0.1 3.0.2 3.0.3 3.1.0 3.1.1 3.1.2 3.2.0 3.2.1 3.3.0"), r"^lib/.*\.js$"),
    Package("npm", "axios", "MIT",
            _v("1.15.0 1.15.1 1.15.2 1.16.0 1.16.1 1.17.0 1.18.0 1.18.1 1.19.0 1.20.0 1.21.0 1.21.1"),
            r"^lib/.*\.js$"),
    Package("npm", "semver", "ISC", _v("7.7.0 7.7.1 7.7.2 7.7.3 7.7.4 7.8.0 7.8.1 7.8.2 7.8.3 7.8.4 7.8.5 7.8.6"),
            r"^(classes|functions|internal|ranges|bin)/.*\.js$"),
    Package("npm", "rxjs", "Apache-2.0", _v("7.5.1 7.5.2 7.5.3 7.5.4 7.5.5 7.5.6 7.5.7 7.6.0 7.7.0 7.8.0 7.8.1 7.8.2"),
            r"^src/internal/.*\.ts$"),
    Package("npm", "@tanstack/query-core", "MIT",
            _v("5.104.4 5.104.5 5.105.0 5.105.1 5.105.2 5.105.3 5.106.0 5.106.1 5.107.1 5.108.0 5.108.2 5.108.4"),
            r"^src/.*\.ts$"),
    Package("npm", "immer", "MIT",
            _v("11.1.16 11.1.17 11.1.18 11.1.19 11.1.20 11.1.21 11.2.3 11.2.7 11.2.9 11.2.10 11.2.13 11.2.14"),
            r"^src/.*\.ts$"),
    Package("npm", "mobx", "MIT", _v("6.15.3 6.15.4 6.16.0 6.16.1 7.0.0 7.0.1 7.0.2 7.0.3 7.0.4 7.0.5 7.0.6 7.1.3"),
            r"^src/.*\.ts$"),
    Package("npm", "@reduxjs/toolkit", "MIT",
            _v("2.9.1 2.9.2 2.10.0 2.10.1 2.11.0 2.11.1 2.11.2 2.12.0 2.13.0 2.14.0 2.15.0 2.16.0"),
            r"^src/.*\.ts$"),
    Package("npm", "react-native-svg", "MIT",
            _v("15.12.0 15.12.1 15.13.0 15.14.0 15.15.0 15.15.1 15.15.2 15.15.3 15.15.4 15.15.5 15.16.0 15.16.1"),
            r"^(android/src/main/java/.*\.java|src/.*\.ts)$"),
    Package("npm", "react-native-device-info", "MIT",
            _v("13.0.0 13.1.0 13.2.0 14.0.0 14.0.1 14.0.2 14.0.4 14.1.0 14.1.1 15.0.0 15.0.1 15.0.2"),
            r"^(android/src/main/java/.*\.java|src/.*\.ts)$"),
    Package("npm", "@react-native-community/netinfo", "MIT",
            _v("11.2.1 11.3.0 11.3.1 11.3.2 11.3.3 11.4.0 11.4.1 11.5.0 11.5.1 11.5.2 12.0.0 12.0.1"),
            r"^(android/src/main/java/.*\.java|src/.*\.ts)$"),
    Package("npm", "react-native-image-picker", "MIT",
            _v("7.1.0 7.1.1 7.1.2 7.1.3 7.1.4 7.2.1 7.2.2 7.2.3 8.0.0 8.1.0 8.2.0 8.2.1"),
            r"^(android/src/main/java/.*\.java|src/.*\.ts)$"),
)

_SKIP_PATH = re.compile(
    r"(^|/)(vendor|vendored|third_party|node_modules|dist|build|target|testdata|fixtures?|__snapshots__|"
    r"__mocks__|paper)/|\.min\.js$|\.d\.ts$|_pb2\.py$|zz_generated|(^|/)generated?[/_.]|\.generated\.|"
    r"(^|/)_?version\.py$",
    re.I,
)
_GENERATED = re.compile(r"Code generated .* DO NOT EDIT|@generated|auto-?generated|DO NOT EDIT", re.I)
_VERSION = re.compile(r"\d+(\.\d+)+([-.]?(a|b|rc|dev|post)\d*)?")
_LICENSE_FILE = re.compile(r"(?i)^(licen[sc]e|copying)([-._][\w.-]*)?$")


def cache_root() -> Path:
    env = os.environ.get("APPLYEDIT_CORPUS_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "applyedit-corpus"


# -- fetching --------------------------------------------------------------------------------------


def _archive_dir(pkg: Package, version: str) -> Path:
    return cache_root() / pkg.registry / pkg.name.replace("/", "+") / version


def fetch(pkg: Package, version: str, offline: bool = False) -> Path:
    """The package's archive of this version, from the cache or its registry's client."""
    d = _archive_dir(pkg, version)
    found = [p for p in d.glob("*") if p.is_file()] if d.is_dir() else []
    if len(found) == 1:
        return found[0]
    if offline:
        raise SystemExit(f"{pkg.name} {version}: not in the cache ({d}) and --offline")
    d.mkdir(parents=True, exist_ok=True)
    for p in found:
        p.unlink()
    with tempfile.TemporaryDirectory(dir=d.parent) as tmp:
        if pkg.registry == "pypi":
            cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", pkg.name,
                   f"{pkg.name}=={version}", "-d", tmp]
        else:
            cmd = ["npm", "pack", "-q", f"{pkg.name}@{version}", "--pack-destination", tmp]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        got = list(Path(tmp).glob("*"))
        if done.returncode != 0 or len(got) != 1:
            raise SystemExit(f"{pkg.name} {version}: {' '.join(cmd[:4])} failed: {done.stderr.strip()[-400:]}")
        target = d / got[0].name
        got[0].replace(target)
    return target


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def members(archive: Path) -> dict[str, bytes]:
    """Every regular file in the archive, by its path with the top folder dropped."""
    out: dict[str, bytes] = {}
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                if not info.is_dir():
                    out[info.filename] = z.read(info)
    else:
        with tarfile.open(archive) as t:
            for m in t.getmembers():
                f = t.extractfile(m) if m.isfile() else None
                if f is not None:
                    out[m.name] = f.read()
    tops = {name.split("/", 1)[0] for name in out}
    if len(tops) == 1 and all("/" in name for name in out):
        out = {name.split("/", 1)[1]: data for name, data in out.items()}
    return out


# -- reading ---------------------------------------------------------------------------------------


def language_of(pkg: Package, path: str) -> str | None:
    ext = Path(path).suffix
    if ext == ".h":
        return pkg.headers
    return pkg.languages.get(ext) or EXTENSIONS.get(ext)


def _decode(data: bytes) -> str | None:
    if b"\r" in data or b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def lines_of(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def sources(pkg: Package, files: dict[str, bytes]) -> dict[str, str]:
    """The package's own source files in one archive: path -> text (unreadable or generated ones left out)."""
    include = re.compile(pkg.include)
    out = {}
    for path, data in files.items():
        if not include.search(path) or _SKIP_PATH.search(path) or language_of(pkg, path) is None:
            continue
        text = _decode(data)
        if text is None or _GENERATED.search("\n".join(lines_of(text)[:10])):
            continue
        out[path] = text
    return out


def license_text(files: dict[str, bytes]) -> str:
    texts = [(p, _decode(d) or "") for p, d in sorted(files.items()) if "/" not in p and _LICENSE_FILE.match(p)]
    texts = [(p, t) for p, t in texts if t.strip()]
    if len(texts) == 1:
        return texts[0][1]
    return "\n".join(f"==> {p} <==\n{t}" for p, t in texts)


# -- changelog -------------------------------------------------------------------------------------

_BULLET = re.compile(r"^(\s{0,4})[-*+]\s+(.*)$")
_HEADING_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(\.\d+)*(?![\w.])")


def changelog_entries(files: dict[str, bytes], pkg: Package, version: str) -> list[str]:
    """The bullet entries of the changelog's section for `version` (cleaned of links and issue refs)."""
    pattern = re.compile(pkg.changelog)
    for path in sorted(files):
        if not pattern.match(path):
            continue
        text = _decode(files[path])
        if not text:
            continue
        lines = text.split("\n")
        own = re.compile(rf"(?<![\w.])v?{re.escape(version)}(?![\w.]|\.\d)")
        start = next((i for i, x in enumerate(lines) if own.search(x) and _heading_like(lines, i)), None)
        if start is None:
            continue
        end = next((i for i in range(start + 1, len(lines))
                    if _HEADING_VERSION.search(lines[i]) and _heading_like(lines, i)), len(lines))
        entries: list[str] = []
        for x in lines[start + 1 : end]:
            m = _BULLET.match(x)
            if m:
                entries.append(m.group(2).strip())
            elif entries and x.strip() and x.startswith("  ") and not _BULLET.match(x.strip()):
                entries[-1] += " " + x.strip()
            elif not x.strip() and entries and entries[-1] and not entries[-1].endswith("\n"):
                entries[-1] += "\n"
        return [e for e in (clean_entry(e) for e in entries) if e]
    return []


def _heading_like(lines: list[str], i: int) -> bool:
    x = lines[i].strip()
    if x.startswith("#") or x.lower().startswith(("version ", "release ", "v")):
        return True
    nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
    return bool(nxt) and set(nxt) <= set("=-~^*") and len(nxt) >= 3


def clean_entry(text: str) -> str:
    text = text.strip()
    text = re.sub(r":(issue|pr|user|ghsa|cve|gh|pull):`[^`]*`", "", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"`([^`<]+?)\s*<[^>]+>`_+", r"\1", text)
    text = re.sub(r"\s*\bby @[\w-]+( in \S+)?", "", text)
    text = re.sub(r"\s*\(?#\d+\)?", "", text)
    text = re.sub(r"https?://\S+", "", text)
    text = re.sub(r"^(\d+_,?\s*)+:\s*", "", text)  # psutil's "2676_, 2678_: ..."
    text = re.sub(r"\s*\([0-9a-f]{7,40}\)(,? closes)?", "", text)  # "(7fd0575), closes"
    text = re.sub(r"\s*(See issue \d+|Thanks to [^.]*)\.?", "", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text)
    text = re.sub(r"\s+", " ", text).strip(" ,;-")
    if len(text.split()) < 3 or len(text) > 300:
        return ""
    return text


_CODE_WORD = re.compile(r"`([^`]+)`|\b([A-Za-z_]\w*(?:_\w+|[a-z][A-Z]\w*)|\w+\(\))")


def identifiers(entry: str) -> set[str]:
    """Names an entry mentions: code spans (their last dotted part too) and words shaped like code."""
    found = set()
    for m in _CODE_WORD.finditer(entry):
        word = (m.group(1) or m.group(2) or "").strip().rstrip("()")
        for part in {word, word.split(".")[-1]}:
            if re.fullmatch(r"[A-Za-z_][\w]{2,}", part):
                found.add(part)
    return found


def message_for(entries: list[str], changed: list[str]) -> str:
    """The one entry naming an identifier the changed lines hold ('' when none or several do)."""
    text = "\n".join(changed)
    named = [e for e in entries if any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text) for w in identifiers(e))]
    return named[0] if len(named) == 1 else ""


# -- edits -----------------------------------------------------------------------------------------


def clusters(old: list[str], new: list[str]) -> list[list[tuple[int, int, int, int]]]:
    """The line diff's hunks (i1, i2, j1, j2), grouped when at most GAP unchanged lines apart."""
    ops = [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in
           difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if tag != "equal"]
    groups: list[list[tuple[int, int, int, int]]] = []
    for op in ops:
        if groups and op[0] - groups[-1][-1][1] <= GAP:
            groups[-1].append(op)
        else:
            groups.append([op])
    return groups


def apply_cluster(old: list[str], new: list[str], group: list[tuple[int, int, int, int]]) -> list[str]:
    """The old file with only this cluster's hunks applied."""
    out = old[: group[0][0]]
    for n, (i1, i2, j1, j2) in enumerate(group):
        out += new[j1:j2]
        out += old[i2 : group[n + 1][0]] if n + 1 < len(group) else []
    return out + old[group[-1][1] :]


def _key(lines: list[str]) -> list[str]:
    return [" ".join(x.split()) for x in lines if x.strip()]


def why_not(old: list[str], after: list[str], group: list[tuple[int, int, int, int]], language: str, path: str,
            before_text: str, after_text: str) -> str:
    """'' when the edit is kept, else why not."""
    from applyedit import syntax

    deleted = sum(i2 - i1 for i1, i2, _, _ in group)
    added = sum(j2 - j1 for _, _, j1, j2 in group)
    if not 1 <= added + deleted <= MAX_CHANGED:
        return "size of change"
    if deleted * 2 >= len(old):
        return "rewrite"
    start, end = group[0][0], group[-1][1]
    a, b = old[start:end], after[start : end + added - deleted]  # the stretch the cluster rewrote
    if "".join("".join(a).split()) == "".join("".join(b).split()):
        return "formatting only"  # the same text with whitespace and line breaks moved
    if [_VERSION.sub("V", x) for x in _key(a)] == [_VERSION.sub("V", x) for x in _key(b)]:
        return "version string"
    if syntax.new_errors(before_text, after_text, language, path) not in ([], None):
        return "parse"
    return ""


def edits_of(pkg: Package, v1: str, v2: str, path: str, before: str, after: str, entries: list[str],
             why: Counter) -> list[dict]:
    """Every kept edit between the two versions of one file."""
    language = language_of(pkg, path)
    assert language is not None
    old, new = lines_of(before), lines_of(after)
    if not (MIN_LINES <= len(old) <= MAX_LINES and MIN_LINES <= len(new) <= MAX_LINES):
        why["file size"] += 1
        return []
    if max(map(len, old + new), default=0) > MAX_LINE_LENGTH:
        why["long line"] += 1
        return []
    out = []
    for k, group in enumerate(clusters(old, new)):
        lines = apply_cluster(old, new, group)
        text = "\n".join(lines) + ("\n" if before.endswith("\n") else "")
        if reason := why_not(old, lines, group, language, path, before, text):
            why[reason] += 1
            continue
        changed = [x for i1, i2, j1, j2 in group for x in old[i1:i2] + new[j1:j2]]
        out.append({
            "package": pkg.name,
            "registry": pkg.registry,
            "from": v1,
            "to": v2,
            "path": path,
            "language": language,
            "license": pkg.license,
            "edit": f"{v1}..{v2}:{path}#{k}",
            "message": message_for(entries, changed),
            "before": before,
            "after": text,
        })
    return out


def _order(pkg: Package, edit: str) -> str:
    return hashlib.sha256(f"{pkg.name}:{edit}".encode()).hexdigest()


def mine(pkg: Package, archives: dict[str, Path]) -> tuple[list[dict], Counter, str]:
    """The package's kept edits (capped, in the seeded order), the reasons for the rest, its license text."""
    why: Counter = Counter()
    found: list[dict] = []
    newest_files: dict[str, bytes] = {}
    previous: dict[str, str] | None = None
    for n, version in enumerate(pkg.versions):
        files = members(archives[version])
        src = sources(pkg, files)
        if previous is not None:
            entries = changelog_entries(files, pkg, version)
            for path in sorted(set(previous) & set(src)):
                if previous[path] != src[path]:
                    found += edits_of(pkg, pkg.versions[n - 1], version, path, previous[path], src[path], entries, why)
        previous, newest_files = src, files
    by_language: dict[str, list[dict]] = defaultdict(list)
    for e in sorted(found, key=lambda e: _order(pkg, e["edit"])):
        by_language[e["language"]].append(e)
    ordered = [e for row in zip_longest(*(by_language[k] for k in sorted(by_language))) for e in row if e]
    kept, per_path = [], Counter()
    for e in ordered:  # the package's languages in turn, each in the seeded order
        if len(kept) >= CAP_PER_PACKAGE:
            why["package cap"] += 1
        elif per_path[e["path"]] >= CAP_PER_PATH:
            why["path cap"] += 1
        else:
            per_path[e["path"]] += 1
            kept.append(e)
    why["kept"] = len(kept)
    return kept, why, license_text(newest_files)


def version_key(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def sources_md(rows: list[dict], lock: dict[str, dict]) -> str:
    lines = [
        "# Release corpus sources",
        "",
        "Real edits between consecutive published versions of permissively licensed packages, taken from",
        "the package registries (PyPI sdists, npm tarballs), kept frozen in `data/<language>.jsonl.gz`",
        "(gzip-compressed JSON Lines): for each edit the file before (the older version) and after (the",
        "older version with one cluster of the change applied), with the package, the two versions, the",
        "path, language, license and the changelog entry that names the change, where one does. Each",
        "package's license text, as shipped in the newest archive used, is in `licenses/<package>.txt`.",
        "The files are only read as text: nothing is run or imported. Nothing here comes from a",
        "repository's history.",
        "",
        "- `mine.py` fetches the archives with the registries' own clients (`pip download`, `npm pack`)",
        "  into a cache outside the repository, checks each against its SHA-256 below (`archives.json`),",
        "  selects the edits (its docstring has the rules) and rewrites `data/`, `licenses/`,",
        "  `archives.json` and this file; `python corpus/releases/mine.py` regenerates them byte for byte.",
        "- `cases.py` turns each edit into a clean and a messy update snippet (corpus/generate.py's",
        "  `render`), and the changelog entry as an instruction where there is one; `python",
        "  corpus/releases/cases.py --sample corpus/releases/sample` rewrites the frozen fixture sample",
        "  (`applyedit eval corpus/releases/sample` runs it).",
        "- `score.py` scores the no-model answer on every case (`python corpus/releases/score.py`).",
        "",
        "| package | registry | license | edits | languages | versions (consecutive) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['package']} | {r['registry']} | {r['license']} | {r['edits']} | "
                     f"{', '.join(r['languages'])} | {' → '.join(r['versions'])} |")
    total = sum(r["edits"] for r in rows)
    lines += [
        "",
        f"Total: {total} edits from {len(rows)} packages. `cases.py` leaves out an edit that adds or removes "
        "blank lines at the file's very start or end, or its final newline: no snippet shows that "
        "(`cases.shows_edges`).",
        "",
        "## Archives (SHA-256)",
        "",
        "| archive | SHA-256 | bytes |",
        "|---|---|---|",
    ]
    for key in sorted(lock):
        a = lock[key]
        lines.append(f"| {a['registry']}: {a['file']} | `{a['sha256']}` | {a['size']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=ROOT)
    p.add_argument("--jobs", type=int, default=6, help="downloads at once")
    p.add_argument("--offline", action="store_true", help="use the cached archives only")
    p.add_argument("--only", nargs="*", help="these packages alone (for a look; does not write)")
    args = p.parse_args(argv)
    packages = [k for k in PACKAGES if not args.only or k.name in args.only]
    lock_path = args.out / "archives.json"
    lock: dict[str, dict] = json.loads(lock_path.read_text()) if lock_path.exists() else {}

    wanted = [(pkg, v) for pkg in packages for v in pkg.versions]
    with ThreadPoolExecutor(args.jobs) as pool:
        paths = list(pool.map(lambda pv: fetch(pv[0], pv[1], args.offline), wanted))
    archives: dict[str, dict[str, Path]] = defaultdict(dict)
    new_lock: dict[str, dict] = {}
    for (pkg, v), path in zip(wanted, paths, strict=True):
        key = f"{pkg.registry}/{pkg.name}/{v}"
        digest = sha256(path)
        if key in lock and lock[key]["sha256"] != digest:
            raise SystemExit(f"{key}: {path.name} has SHA-256 {digest}, archives.json records {lock[key]['sha256']}")
        new_lock[key] = {"registry": pkg.registry, "package": pkg.name, "version": v, "file": path.name,
                         "sha256": digest, "size": path.stat().st_size}
        archives[pkg.name][v] = path

    by_language: dict[str, list[dict]] = defaultdict(list)
    rows = []
    licenses: dict[str, str] = {}
    for pkg in packages:
        kept, why, text = mine(pkg, archives[pkg.name])
        print(f"{pkg.name}: {dict(why)}", file=sys.stderr)
        if not kept:
            continue
        licenses[pkg.slug] = text
        rows.append({"package": pkg.name, "registry": pkg.registry, "license": pkg.license, "edits": len(kept),
                     "languages": sorted({e["language"] for e in kept}), "versions": pkg.versions})
        for e in kept:
            by_language[e["language"]].append(e)
    total = Counter({lang: len(items) for lang, items in by_language.items()})
    print(f"{sum(total.values())} edits: {dict(sorted(total.items()))}", file=sys.stderr)
    if args.only:
        return 0

    data = args.out / "data"
    data.mkdir(parents=True, exist_ok=True)
    for old in data.glob("*.jsonl.gz"):
        old.unlink()
    for language, items in sorted(by_language.items()):
        items.sort(key=lambda e: (e["package"], version_key(e["to"]), e["path"], e["edit"]))
        payload = "".join(json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n" for e in items)
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as f:
            f.write(payload.encode("utf-8"))
        (data / f"{language}.jsonl.gz").write_bytes(buf.getvalue())
    lic = args.out / "licenses"
    lic.mkdir(parents=True, exist_ok=True)
    for old in lic.glob("*.txt"):
        old.unlink()
    for slug, text in sorted(licenses.items()):
        (lic / f"{slug}.txt").write_text(text, encoding="utf-8")
    lock_path.write_text(json.dumps(dict(sorted(new_lock.items())), indent=1, sort_keys=True) + "\n")
    (args.out / "SOURCES.md").write_text(sources_md(sorted(rows, key=lambda r: r["package"]), new_lock),
                                         encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
