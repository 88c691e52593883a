"""Run the real CLI with the scripted target, slowed down so a terminal sees every phase.

    python tests/scripted_cli.py OUTPUT_TEXT_FILE SECONDS_PER_PASS -- applyedit-arguments...

The target "loads" (a pause), prefills in chunks that report their progress (as the real backends
do) and writes the text of OUTPUT_TEXT_FILE (the raw output after the opening fence), one verify
pass per SECONDS_PER_PASS. Everything else is the product. For terminal tests (tests/test_terminal.py).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from applyedit import api
from applyedit.cli import main as cli  # noqa: E402
from applyedit.models import modelstore  # noqa: E402
from applyedit.models.tokens import load_tokenizer  # noqa: E402
from applyedit.models.torchmodel import TorchModel  # noqa: E402
from fakes import ScriptedModel, scripted_engine  # noqa: E402


def main() -> None:
    text, delay = Path(sys.argv[1]).read_text(), float(sys.argv[2])
    args = sys.argv[4:] if sys.argv[3] == "--" else sys.argv[3:]
    path = modelstore.prepare_tokenizer(modelstore.resolve(None))  # the tokenizer only: no weights
    engine = scripted_engine((path, load_tokenizer(path)), text)
    scripted: ScriptedModel = engine._model

    class Slow(ScriptedModel):
        on_prefill: Any = None

        def prefill(self, ids: list[int]) -> int:
            for done in range(0, len(ids), 128):
                if self.on_prefill is not None:
                    self.on_prefill(done, len(ids))
                time.sleep(delay)
            n = super().prefill(ids)
            if self.on_prefill is not None:
                self.on_prefill(n, n)
            return n

        def forward(self, ids: list[int], num_logits: int) -> Any:
            time.sleep(delay)
            return super().forward(ids, num_logits)

    slow = Slow(scripted.script[:-1], next(iter(scripted.eos_ids)), scripted.vocab)
    engine._model = None

    def load(cls: Any, *a: Any, **k: Any) -> Slow:
        time.sleep(4 * delay)
        return slow

    TorchModel.load = classmethod(load)  # type: ignore[method-assign, assignment]
    api.Engine.open = classmethod(lambda cls, *a, **k: engine)  # type: ignore[method-assign, assignment]
    cli.main(args)


if __name__ == "__main__":
    main()
