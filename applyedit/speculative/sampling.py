"""Exact speculative sampling: the sampling settings, logits → probabilities, and the
accept/resample rule for one verify block.

Owns `Sampling` (temperature, top-p, seed; checked once, with the project's errors), `warp` (softmax
at the temperature, then the top-p nucleus), `accept` (one block: how many draft tokens to keep and
the target's own token after them) and `Sampler` (the rule plus the run's one seeded random stream).
The output is distributed exactly as sampling from the target alone: a draft token x drawn from q is
kept with probability min(1, p(x)/q(x)), and at the first rejection the token is drawn from the
residual max(0, p − q), renormalised; a copied token is a point mass (q(x) = 1), so it is kept with
probability p(x) and the residual is p with x removed. After a fully kept draft the bonus token is
drawn from p. Paper symbols (p: the target's distribution, q: the draft's) are used only here.
The math runs on the logits' own array kind (speculative/logits.py): torch tensors with a
torch.Generator, numpy arrays (llama.cpp) with numpy's, so a seed reproduces a run on one backend.
Knows nothing of the cache, proposers' internals, K or text; greedy decoding never comes here.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from applyedit.errors import InputError
from applyedit.speculative.logits import is_numpy

if TYPE_CHECKING:
    from applyedit.speculative.logits import Logits

SEED_LIMIT = 2**63  # torch.Generator.manual_seed takes any 64-bit seed; we take the non-negative ones


@dataclass(frozen=True, slots=True)
class Sampling:
    """How the target's next token is chosen. Temperature 0 is greedy decoding (the default)."""

    temperature: float = 0.0  # 0: greedy (argmax); above 0: sample from softmax(logits / temperature)
    top_p: float = 1.0  # keep the most probable tokens whose mass reaches top_p (1: all of them)
    seed: int | None = None  # seeds the run's one random stream; None draws a fresh one

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0


def settings(temperature: float | None = None, top_p: float | None = None, seed: int | None = None) -> Sampling:
    """Check the user's values and fix the seed: a sampling run without one gets a fresh seed, so its
    statistics can name the seed that reproduces it. Raises `InputError` with a one-line message."""
    t = 0.0 if temperature is None else float(temperature)
    p = 1.0 if top_p is None else float(top_p)
    if not math.isfinite(t) or t < 0.0:
        raise InputError(f"--temperature must be 0 (greedy) or more, and finite; got {temperature}")
    if not math.isfinite(p) or not 0.0 < p <= 1.0:
        raise InputError(f"--top-p must be above 0 and at most 1; got {top_p}")
    if seed is not None and not 0 <= seed < SEED_LIMIT:
        raise InputError(f"--seed must be a whole number from 0 to 2**63 - 1; got {seed}")
    if t == 0.0:
        if p < 1.0:
            raise InputError("--top-p needs --temperature above 0 (greedy decoding always takes the top token)")
        return Sampling(0.0, 1.0, seed)
    return Sampling(t, p, secrets.randbelow(SEED_LIMIT) if seed is None else seed)


def warp(logits: Logits, temperature: float, top_p: float = 1.0) -> Logits:
    """Probabilities `(..., V)` float32 from logits `(..., V)`: softmax(logits / temperature), then the
    top-p nucleus (the most probable tokens, in order, until their mass reaches top_p; always at least
    one), renormalised. A draft model's q must be warped the same way as the target's p.

    Any positive temperature is exact, however small: the logits are shifted so that each row's largest
    is 0 and divided in float64, where a row's largest stays 0 and the rest go to at most 0 (-inf at
    worst), so nothing overflows into inf or nan; as the temperature nears 0 this is greedy's point mass
    on the top token. (float32 would turn 1e-300 into 0, and logits / 1e-38 overflow.)"""
    assert temperature > 0.0
    if is_numpy(logits):
        return _warp_numpy(logits, temperature, top_p)
    import torch

    wide = logits.double()
    shifted = wide - wide.amax(dim=-1, keepdim=True)
    probs = torch.softmax(shifted / temperature, dim=-1).float()
    if top_p >= 1.0:
        return probs
    ordered, order = probs.sort(dim=-1, descending=True, stable=True)
    ahead = ordered.cumsum(dim=-1) - ordered  # mass of the tokens ranked before each one
    ordered = ordered.masked_fill(ahead >= top_p, 0.0)
    probs = torch.zeros_like(probs).scatter_(-1, order, ordered)
    return probs / probs.sum(dim=-1, keepdim=True)


def accept(p: Logits, draft: Sequence[int], q: Logits | None, generator: Any) -> tuple[int, int]:
    """The exact rule for one verify block: `(num_accepted, token)`, where `token` is the correction
    drawn from the residual at the first rejection, or the bonus drawn from p after a fully accepted
    draft. `p`: `(len(draft) + 1, V)` target probabilities, row i predicting the token after
    draft[:i]; `q`: `(len(draft), V)` the distributions the draft tokens were drawn from, or None
    when each is a point mass (copied tokens). Draws len(draft) uniforms, then one token. `generator`:
    a torch.Generator for tensors, a numpy Generator for numpy arrays (`generator()`).
    """
    if is_numpy(p):
        return _accept_numpy(p, draft, q, generator)
    import torch

    n = len(draft)
    assert p.shape[0] == n + 1 and (q is None or q.shape[0] == n)
    if n:
        rows = torch.arange(n, device=p.device)
        x = torch.tensor(list(draft), device=p.device)
        p_x = p[rows, x]
        q_x = torch.ones_like(p_x) if q is None else q[rows, x].to(p.device, p.dtype)
        assert bool((q_x > 0).all()), "a draft token its own distribution gives no mass"
        u = torch.rand(n, generator=generator, device=p.device)
        # Keep x with probability min(1, p(x)/q(x)): u < p/q, written without the division.
        kept = (u * q_x < p_x).int()
        num_accepted = int(kept.cumprod(dim=0).sum())  # the leading run of kept tokens
    else:
        num_accepted = 0
    if num_accepted == n:
        # Bonus: every draft token was kept; the target's own next token, from p.
        return n, draw(p[n], generator)
    # Correction at the first rejection: the residual max(0, p − q), renormalised by the draw.
    i = num_accepted
    residual = p[i].clone()
    if q is None:
        residual[draft[i]] = 0.0  # a point mass: p with x removed
    else:
        residual = (residual - q[i].to(p.device, p.dtype)).clamp_(min=0.0)
    if not float(residual.sum()) > 0.0:  # p == q up to rounding: nothing left but p itself
        residual = p[i]
    return i, draw(residual, generator)


def draw(weights: Logits, generator: Any) -> int:
    """One token id from non-negative `weights` `(V,)`, normalised here (torch: multinomial)."""
    if is_numpy(weights):
        import numpy as np

        wide = weights.astype(np.float64)
        return int(generator.choice(len(wide), p=wide / wide.sum()))
    import torch

    return int(torch.multinomial(weights, 1, generator=generator))


def generator(seed: int, like: Logits) -> Any:
    """The seeded random stream for arrays like `like`: a torch.Generator on its device, or numpy's."""
    if is_numpy(like):
        import numpy as np

        return np.random.default_rng(seed)
    import torch

    return torch.Generator(device=like.device).manual_seed(seed)


def _warp_numpy(logits: Logits, temperature: float, top_p: float) -> Logits:
    """`warp` on a numpy array: the same steps (float64 shift and softmax, a stable descending sort)."""
    import numpy as np

    wide = logits.astype(np.float64)
    shifted = (wide - wide.max(axis=-1, keepdims=True)) / temperature
    exp = np.exp(shifted)
    probs = (exp / exp.sum(axis=-1, keepdims=True)).astype(np.float32)
    if top_p >= 1.0:
        return probs
    order = np.argsort(-probs, axis=-1, kind="stable")
    ordered = np.take_along_axis(probs, order, axis=-1)
    ahead = ordered.cumsum(axis=-1) - ordered  # mass of the tokens ranked before each one
    ordered = np.where(ahead >= top_p, np.float32(0.0), ordered)
    kept = np.zeros_like(probs)
    np.put_along_axis(kept, order, ordered, axis=-1)
    return kept / kept.sum(axis=-1, keepdims=True)


def _accept_numpy(p: Logits, draft: Sequence[int], q: Logits | None, rng: Any) -> tuple[int, int]:
    """`accept` on numpy arrays with a numpy Generator: the same rule, the same draws in the same order."""
    import numpy as np

    n = len(draft)
    assert p.shape[0] == n + 1 and (q is None or q.shape[0] == n)
    num_accepted = 0
    if n:
        rows, x = np.arange(n), np.asarray(list(draft), dtype=np.int64)
        p_x = p[rows, x]
        q_x = np.ones_like(p_x) if q is None else q[rows, x].astype(p.dtype)
        assert bool((q_x > 0).all()), "a draft token its own distribution gives no mass"
        u = rng.random(n, dtype=np.float32)
        kept = (u * q_x < p_x).astype(np.int64)  # keep x with probability min(1, p(x)/q(x))
        num_accepted = int(kept.cumprod().sum())  # the leading run of kept tokens
    if num_accepted == n:
        return n, draw(p[n], rng)  # the bonus, from p
    i = num_accepted
    residual = p[i].copy()
    if q is None:
        residual[draft[i]] = 0.0  # a point mass: p with x removed
    else:
        residual = np.clip(residual - q[i].astype(p.dtype), 0.0, None)
    if not float(residual.sum()) > 0.0:  # p == q up to rounding: nothing left but p itself
        residual = p[i]
    return i, draw(residual, rng)


class Sampler:
    """The rule for one run: warps the verify pass's logits and draws from one seeded generator,
    created for the logits' kind and device at the first block (so a seed reproduces a run there)."""

    def __init__(self, sampling: Sampling) -> None:
        assert not sampling.greedy
        self.sampling = sampling
        self.seed = sampling.seed if sampling.seed is not None else secrets.randbelow(SEED_LIMIT)
        self._generator: Any = None  # a torch.Generator or numpy's, for the logits' kind (`generator`)

    def verify(self, logits: Logits, draft: Sequence[int], draft_probs: Logits | None = None) -> tuple[int, int]:
        """`(num_accepted, token)` for logits `(len(draft) + 1, V)` of the verify pass over `[last] + draft`."""
        if self._generator is None:
            self._generator = generator(self.seed, logits)
        p = warp(logits, self.sampling.temperature, self.sampling.top_p)
        return accept(p, draft, draft_probs, self._generator)
