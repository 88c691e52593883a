"""A forward pass's logits as the decode layer reads them, whichever array kind the backend returns: a
torch tensor (the torch backend, on its device) or a numpy array (llama.cpp, which runs without torch).

Owns the operations the loop, the tie-break and the draft model do on logits, each written for both
kinds with the same meaning: `argmax` (row by row), `reads` (each target's log-probability under its
row, and whether it is the row's greedy choice), `fit` (a draft model's row cut or padded with -inf to
the target's vocabulary) and `stack`. The torch branch is the code the torch path always ran, so its
exactness tests hold as they were; a numpy array never imports torch. Sampling's array math is
speculative/sampling.py's. Knows nothing of models, the cache or text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Logits = Any  # a torch.Tensor or a numpy.ndarray, (rows, V) or one row (V,)


def is_numpy(x: Any) -> bool:
    """Whether `x` is a numpy array (else a torch tensor), told without importing either library."""
    return type(x).__module__ == "numpy"


def argmax(logits: Logits) -> list[int]:
    """The greedy choice of each row of `logits` `(rows, V)`."""
    if is_numpy(logits):
        return [int(i) for i in logits.argmax(axis=-1)]
    return list(logits.argmax(dim=-1).tolist())


def reads(logits: Logits, targets: Sequence[int]) -> tuple[list[float], list[bool]]:
    """Each target's log-probability under its row of `logits` (row i for targets[i], in float32), and
    whether it is that row's greedy choice."""
    if is_numpy(logits):
        import numpy as np

        rows = logits[: len(targets)].astype(np.float32)
        shifted = rows - rows.max(axis=-1, keepdims=True)
        logprobs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        index = np.asarray(list(targets), dtype=np.int64)
        picked = logprobs[np.arange(len(index)), index]
        return [float(v) for v in picked], [bool(g) for g in logprobs.argmax(axis=-1) == index]
    import torch

    lsm = logits[: len(targets)].float().log_softmax(dim=-1)
    at = torch.tensor(list(targets), dtype=torch.long, device=lsm.device)
    return lsm.gather(1, at[:, None])[:, 0].tolist(), (lsm.argmax(dim=-1) == at).tolist()


def fit(row: Logits, vocab: int) -> Logits:
    """A row `(V',)` cut or padded with -inf to `vocab` entries (a token the target cannot score is never drawn)."""
    if row.shape[-1] == vocab:
        return row
    if is_numpy(row):
        import numpy as np

        pad = np.full(max(0, vocab - row.shape[-1]), -np.inf, dtype=row.dtype)
        return np.concatenate([row[:vocab], pad])
    import torch

    return torch.cat([row[:vocab], row.new_full((max(0, vocab - row.shape[-1]),), float("-inf"))])


def stack(rows: Sequence[Logits]) -> Logits:
    """Rows `(V,)` of one kind as one array `(len(rows), V)`."""
    if is_numpy(rows[0]):
        import numpy as np

        return np.stack(list(rows))
    import torch

    return torch.stack(list(rows))
