"""applyedit: apply an edit to a source file with a local code LLM, via lossless speculative decoding.

The public API is `apply(file, edit, ...)` returning an `ApplyResult` (new text, diff, statistics);
`Engine` keeps a loaded model across several runs. Heavy modules load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["apply", "ApplyResult", "Engine", "__version__"]

if TYPE_CHECKING:
    from applyedit.api import ApplyResult, Engine, apply


def __getattr__(name: str) -> Any:
    if name in ("apply", "ApplyResult", "Engine"):
        from applyedit import api

        return getattr(api, name)
    raise AttributeError(name)
