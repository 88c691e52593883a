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
Knows nothing of the cache, proposers' internals, K or text; greedy decoding never comes here.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from applyedit.errors import InputError

if TYPE_CHECKING:
    import torch

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


def warp(logits: torch.Tensor, temperature: float, top_p: float = 1.0) -> torch.Tensor:
    """Probabilities `(..., V)` float32 from logits `(..., V)`: softmax(logits / temperature), then the
    top-p nucleus (the most probable tokens, in order, until their mass reaches top_p; always at least
    one), renormalised. A draft model's q must be warped the same way as the target's p.

    Any positive temperature is exact, however small: the logits are shifted so that each row's largest
    is 0 and divided in float64, where a row's largest stays 0 and the rest go to at most 0 (-inf at
    worst), so nothing overflows into inf or nan; as the temperature nears 0 this is greedy's point mass
    on the top token. (float32 would turn 1e-300 into 0, and logits / 1e-38 overflow.)"""
    import torch

    assert temperature > 0.0
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


def accept(
    p: torch.Tensor, draft: Sequence[int], q: torch.Tensor | None, generator: torch.Generator
) -> tuple[int, int]:
    """The exact rule for one verify block: `(num_accepted, token)`, where `token` is the correction
    drawn from the residual at the first rejection, or the bonus drawn from p after a fully accepted
    draft. `p`: `(len(draft) + 1, V)` target probabilities, row i predicting the token after
    draft[:i]; `q`: `(len(draft), V)` the distributions the draft tokens were drawn from, or None
    when each is a point mass (copied tokens). Draws len(draft) uniforms, then one token.
    """
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
        return n, _draw(p[n], generator)
    # Correction at the first rejection: the residual max(0, p − q), renormalised by the draw.
    i = num_accepted
    residual = p[i].clone()
    if q is None:
        residual[draft[i]] = 0.0  # a point mass: p with x removed
    else:
        residual = (residual - q[i].to(p.device, p.dtype)).clamp_(min=0.0)
    if not float(residual.sum()) > 0.0:  # p == q up to rounding: nothing left but p itself
        residual = p[i]
    return i, _draw(residual, generator)


def _draw(weights: torch.Tensor, generator: torch.Generator) -> int:
    """One token id from non-negative `weights` `(V,)` (multinomial normalises them)."""
    import torch

    return int(torch.multinomial(weights, 1, generator=generator))


class Sampler:
    """The rule for one run: warps the verify pass's logits and draws from one seeded generator,
    created on the logits' device at the first block (so a seed reproduces a run on that device)."""

    def __init__(self, sampling: Sampling) -> None:
        assert not sampling.greedy
        self.sampling = sampling
        self.seed = sampling.seed if sampling.seed is not None else secrets.randbelow(SEED_LIMIT)
        self._generator: torch.Generator | None = None

    def verify(
        self, logits: torch.Tensor, draft: Sequence[int], draft_probs: torch.Tensor | None = None
    ) -> tuple[int, int]:
        """`(num_accepted, token)` for logits `(len(draft) + 1, V)` of the verify pass over `[last] + draft`."""
        import torch

        if self._generator is None:
            self._generator = torch.Generator(device=logits.device).manual_seed(self.seed)
        p = warp(logits, self.sampling.temperature, self.sampling.top_p)
        return accept(p, draft, draft_probs, self._generator)
