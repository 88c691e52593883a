"""applyedit: apply an edit to a source file with a local code LLM, via lossless speculative decoding.

The public API is `apply(file, edit, ...)` returning an `ApplyResult` (new text, diff, statistics);
`RunOptions` holds a run's settings (`apply(file, edit, options=RunOptions(k=8))`, or the same as
keywords: `apply(file, edit, k=8)`); `Engine` keeps a loaded model across several runs. Heavy modules
load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["apply", "ApplyResult", "Engine", "RunOptions", "__version__"]

if TYPE_CHECKING:
    from applyedit.api import ApplyResult, apply
    from applyedit.models.engine import Engine
    from applyedit.options import RunOptions


def __getattr__(name: str) -> Any:
    if name in ("apply", "ApplyResult"):
        from applyedit import api

        return getattr(api, name)
    if name == "Engine":
        from applyedit.models.engine import Engine

        return Engine
    if name == "RunOptions":
        from applyedit.options import RunOptions

        return RunOptions
    raise AttributeError(name)
