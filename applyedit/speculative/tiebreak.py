"""Multi-candidate verification: the model's log-likelihood of a few candidate outputs after one shared
context, the tree step of speculative decoding used to break a tie between readings of an edit.

Owns the scoring: the candidates' shared prefix is computed once (the prompt prefilled as a decode run
prefills it, then the shared output in blocks); the places where they differ are found in their tokens
(`places`: each ends where they all agree again for a window of tokens); the candidates' parts of the
first place and the window after it are fed side by side after the shared prefix, one sequence each in
one batch where the backend can (`read_branches`: llama.cpp), else one after another with the cache
cropped back to the shared prefix after each, and scored token by token. Where they differ at later
places too (a segment read at line 88 or at line 140), the best-scored alone is fed on through them
once, its logits kept only there (from the first place on where the whole stretch may be read next), to
check that greedy decoding writes it there too. So the cost is one prefill, the shared output (the
caller bounds it: api.window cuts the prompt's file and the candidates to the lines around where they
differ), each candidate's first divergent span with its window, and the best one's text on to its
last place; where that makes no pick, the caller may have every candidate read over the whole stretch
where they differ (`score`'s `margin`: the best one's stretch is then read on its way to the later
places, and only the others' are fed again), within a `budget` of tokens.
`pick` says which candidate wins by at least a margin (in nats), or none. Reaches the model only through
`models/base.py`'s `TargetModel` and `Branches`, and its logits through speculative/logits.py; knows
nothing of text, readings or files (the caller tokenizes the candidates and names them). The run's stop
rule (interrupt.py: `--timeout`, a request's timeout, a client gone) is checked before every forward
pass and between the prefill's chunks, so scoring stops within one pass of it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from applyedit import interrupt
from applyedit.models.base import Branches, TargetModel
from applyedit.speculative.logits import reads as logits_reads
from applyedit.speculative.proposers import common_prefix

if TYPE_CHECKING:
    from applyedit.speculative.logits import Logits

__all__ = ["DOING", "Read", "Scored", "pick", "places", "read_branches", "read_fed", "score"]

DOING = "the model scored the edit's readings"  # what a run stopped here was doing (interrupt.doing)

WINDOW = 16  # tokens scored past the end of the divergent span, where the candidates agree again
BLOCK = 256  # shared tokens fed in one forward pass (backend batches hold 512)
# The margin (nats) the best reading needs over the next for the model to choose it, and only where plain
# greedy decoding writes it, a token of its own included (api.choose_reading, `pick(..., greedy=True)`);
# None: the model is not asked. Calibrated on the development ties (docs/eval/tiebreak/README.md): under
# that rule every wrong pick had a margin under 5.6 nats (10 of them, release corpus); at 6, 60 right
# picks, none wrong, on 145 ties, and none wrong on the ties scored after it was set (the 52 release ties
# scored per place, with the whole-stretch fallback: 8 right, none wrong).
MARGIN: float | None = 6.0


@dataclass(frozen=True)
class Scored:
    """A candidate's log-likelihood over its scored tokens (the first place where the candidates differ and
    the window after it), and whether greedy decoding writes it there (and, for the best-scored, at every
    later place too)."""

    index: int  # the candidate's position in the list scored
    logprob: float  # the sum of the scored tokens' log-probabilities (nats)
    tokens: int  # how many tokens were scored
    start: int  # where the scored span starts in the candidate (its shared prefix with the others)
    accepted: int = 0  # how many of the scored tokens, from the first, are the model's own greedy choices
    span: int = 0  # how many of the scored tokens are the divergent span (the rest: the window after it)
    required: int = 0  # how many of the scored tokens, from the first, greedy decoding must write (`greedy`)
    later: bool | None = None  # greedy decoding writes its later places too (checked for the best-scored only)
    verified: int = 0  # tokens fed to check its later places (the text between them included; on the first
    # candidate where the scores are `whole`, those fed before they were)
    whole: bool = False  # scored over the whole stretch where the candidates differ (`score`'s `margin`)

    @property
    def greedy(self) -> bool:
        """Whether plain greedy decoding writes this reading where the readings differ: its divergent span
        and the window after it (a deletion shows only there: its span may hold no token), up to the end
        of its text (`score`'s `texts`: what follows, a closing fence, is scored but not required), and at
        every later place where that was checked."""
        return self.accepted >= self.required and self.later is not False


def _common_suffix(seqs: Sequence[Sequence[int]], limit: int) -> int:
    n = 0
    while n < limit and all(s[len(s) - 1 - n] == seqs[0][len(seqs[0]) - 1 - n] for s in seqs):
        n += 1
    return n


def places(candidates: Sequence[Sequence[int]], start: int, window: int = WINDOW) -> list[tuple[tuple[int, int], ...]]:
    """Where candidates that share their first `start` tokens differ: per place, each candidate's
    [begin, end), end where they all agree again for `window` tokens (the agreement that costs the fewest
    divergent tokens in all), or their common suffix where they never do."""
    found: list[tuple[tuple[int, int], ...]] = []
    pos = [start] * len(candidates)
    while True:
        while all(p < len(c) for p, c in zip(pos, candidates, strict=True)) and all(
            c[p] == candidates[0][pos[0]] for p, c in zip(pos, candidates, strict=True)
        ):
            pos = [p + 1 for p in pos]
        if all(p == len(c) for p, c in zip(pos, candidates, strict=True)):
            return found
        ends = _agree_again(candidates, pos, window)
        found.append(tuple(zip(pos, ends, strict=True)))
        pos = ends


def _agree_again(candidates: Sequence[Sequence[int]], pos: list[int], window: int) -> list[int]:
    """Per candidate, where it agrees again with every other one for `window` tokens after differing at
    `pos`, the fewest divergent tokens in all; else where their common suffix starts."""
    rests = [c[p:] for c, p in zip(candidates, pos, strict=True)]
    suffix = _common_suffix(rests, min(len(r) for r in rests))
    best = [len(r) - suffix for r in rests]
    first: list[dict[tuple[int, ...], int]] = []
    for rest in rests[1:]:
        grams: dict[tuple[int, ...], int] = {}
        for at in range(len(rest) - window + 1):
            grams.setdefault(tuple(rest[at : at + window]), at)
        first.append(grams)
    lead = rests[0]
    for at in range(len(lead) - window + 1):
        if at >= sum(best):
            break
        gram = tuple(lead[at : at + window])
        found = [g.get(gram) for g in first]
        if all(q is not None for q in found):
            offsets = [at, *(q for q in found if q is not None)]
            if sum(offsets) < sum(best):
                best = offsets
    return [p + b for p, b in zip(pos, best, strict=True)]


def score(
    model: TargetModel,
    context: Sequence[int],
    candidates: Sequence[Sequence[int]],
    window: int = WINDOW,
    texts: Sequence[int] | None = None,
    margin: float | None = None,
    budget: int | None = None,
) -> list[Scored]:
    """Each candidate's log-likelihood after `context` over the first place where the candidates differ
    (`places`) and `window` tokens after it (clipped to the candidate), and how far greedy decoding writes
    it there. Where the best-scored shares its part of that place with others (a segment kept there, read
    at one of several later places), those are scored on at their own next place, as a new tie after the
    text they share, and their scores add up. For the best-scored in the end, whether greedy decoding also
    writes it at every later place (the text between fed once, logits kept only where read). `texts`: per
    candidate, how many of its tokens are its text (the rest, a closing fence, is scored but greedy
    decoding need not write it: its tokenization may differ). With `margin`, where they differ at more
    than one place and that scoring makes no pick (`pick(..., margin, greedy=True)`), every candidate is
    scored again over the whole stretch where they differ (`Scored.whole`): the later places' evidence
    too, at the cost of the text between them, for each; only where those stretches hold `budget` tokens
    or fewer, all candidates together (None: any). Stops with the run's stop rule (interrupt.py)
    between forward passes and the prefill's chunks."""
    if len(candidates) < 2 or not context:
        raise ValueError("score needs a context and at least two candidates")
    with interrupt.doing(DOING), _checked_chunks(model):
        interrupt.check()
        return _score(model, context, candidates, window, texts, margin, budget)


@contextmanager
def _checked_chunks(model: TargetModel) -> Iterator[None]:
    """Within the block, a backend that calls a hook between the chunks of a long forward pass (the
    prefill's: `ExactPrefill.between_chunks`) checks the run's stop rule there too, after the hook it
    had (a server's); the hook restored after."""
    if not hasattr(model, "between_chunks"):
        yield
        return
    before: Callable[[], None] | None = getattr(model, "between_chunks")  # noqa: B009 (not on TargetModel)

    def between() -> None:
        if before is not None:
            before()
        interrupt.check()

    setattr(model, "between_chunks", between)  # noqa: B010
    try:
        yield
    finally:
        setattr(model, "between_chunks", before)  # noqa: B010


def _score(
    model: TargetModel,
    context: Sequence[int],
    candidates: Sequence[Sequence[int]],
    window: int,
    texts: Sequence[int] | None,
    margin: float | None,
    budget: int | None = None,
) -> list[Scored]:
    """`score`'s steps, under its stop checks."""
    shared = min(len(c) for c in candidates)
    for c in candidates[1:]:
        shared = min(shared, common_prefix(candidates[0], c))
    # The prompt less its last token is prefilled, as a decode run prefills it (a prompt cache serves
    # it); the last prompt token and the shared output go in blocks, but for the `lead` fed with the
    # candidates, whose last row scores their first tokens: the last shared token, or where the backend
    # reads the candidates side by side (`read_branches`) and they differ at one place only (nothing
    # is read after), all after the last block boundary (a short block of its own costs llama.cpp far
    # more a token: docs/bench/reader-2026-12-03.md).
    where = places(candidates, shared, window)
    model.prefill(list(context[:-1]))
    prefix, at = [context[-1], *candidates[0][:shared]], model.cached_len
    cut = len(prefix) - 1
    if isinstance(model, Branches) and len(where) <= 1:
        cut = max(0, (at + cut) // BLOCK * BLOCK - at)
    edges = [0, *range((at // BLOCK + 1) * BLOCK - at, cut, BLOCK), cut]
    for begin, end in zip(edges, edges[1:], strict=False):
        if end > begin:
            interrupt.check()
            model.forward(prefix[begin:end], 1)
    lead = prefix[cut:]
    base = model.cached_len
    found = _scored(model, lead, candidates, list(range(len(candidates))), shared, window, texts)
    if len(where) > 1:  # the best-scored at its later places: does greedy decoding write it there too?
        best = max(found, key=lambda s: s.logprob)
        cand = candidates[best.index]
        spans = [(begin, min(len(cand), end + window)) for (begin, end) in (p[best.index] for p in where[1:])]
        # Where every candidate may be read over the whole stretch next (`margin`), the best one's is read
        # on the way: its logits kept from the first place on, fed on to the stretch's end if that is further.
        suffix = _common_suffix(candidates, min(len(c) for c in candidates) - shared)
        whole = _stretch_end(cand, suffix, window)
        cost = sum(_stretch_end(c, suffix, window) - shared for c in candidates)
        ahead = margin is not None and (budget is None or cost <= budget)
        fed = [*lead, *cand[shared : max(whole, spans[-1][1]) if ahead else spans[-1][1]]]
        origin = shared if ahead else spans[0][0]
        read = read_fed(model, fed, len(lead) - 1 + origin - shared)
        written = True
        for begin, end in spans:
            until = end if texts is None else min(end, max(begin, texts[best.index]))
            written = written and _read(read[begin - origin : until - origin])[1] == until - begin
        found[best.index] = dataclasses.replace(best, later=written, verified=len(fed))
        model.crop_to(base)
        if ahead and margin is not None and pick(found, margin, greedy=True) is None:
            verified = sum(f.verified for f in found)
            return _whole(model, lead, candidates, shared, suffix, window, texts, verified, {best.index: read})
    return found


def _stretch_end(candidate: Sequence[int], suffix: int, window: int) -> int:
    """Where a candidate's whole stretch of difference ends: `window` tokens into the `suffix` tokens
    all the candidates end with, clipped to the candidate."""
    return min(len(candidate), len(candidate) - suffix + window)


def _whole(
    model: TargetModel,
    lead: Sequence[int],
    candidates: Sequence[Sequence[int]],
    shared: int,
    suffix: int,
    window: int,
    texts: Sequence[int] | None,
    verified: int,
    known: dict[int, Read],
) -> list[Scored]:
    """Each candidate scored from the shared prefix (the cache, then `lead`) to `window` tokens into the
    `suffix` tokens they all end with (clipped to the candidate), every token between read (`known`: per
    candidate, its stretch as read already); the cache left as found."""
    spans = [list(cand[shared : _stretch_end(cand, suffix, window)]) for cand in candidates]
    fresh = [n for n in range(len(candidates)) if n not in known]
    reads = dict(zip(fresh, read_branches(model, lead, [spans[n] for n in fresh]), strict=True))
    found = []
    for n, (cand, span) in enumerate(zip(candidates, spans, strict=True)):
        total, accepted = _read(known[n][: len(span)] if n in known else reads[n])
        required = len(span) if texts is None else max(0, min(len(span), texts[n] - shared))
        divergent = max(0, len(cand) - suffix - shared)
        found.append(Scored(n, total, len(span), shared, accepted, divergent, required, whole=True))
    return [dataclasses.replace(f, verified=verified) if f.index == 0 else f for f in found]


def _scored(
    model: TargetModel,
    lead: Sequence[int],
    candidates: Sequence[Sequence[int]],
    which: list[int],
    start: int,
    window: int,
    texts: Sequence[int] | None,
) -> list[Scored]:
    """`score` of the candidates `which` (indices into `candidates`) that share their first `start` tokens,
    the cache holding them all but the last few (`lead`, fed with the candidates), left so."""
    group = [candidates[n] for n in which]
    where = places(group, start, window)
    firsts = [end for _, end in where[0]] if where else [len(c) for c in group]
    spans = [list(cand[start : min(len(cand), first + window)]) for cand, first in zip(group, firsts, strict=True)]
    found = []
    for n, span, first, read in zip(which, spans, firsts, read_branches(model, lead, spans), strict=True):
        required = len(span) if texts is None else max(0, min(len(span), texts[n] - start))
        total, accepted = _read(read)
        found.append(Scored(n, total, len(span), start, accepted, max(0, first - start), required))
    top = max(range(len(group)), key=lambda i: found[i].logprob)
    alike = [i for i in range(len(group)) if group[i][start : firsts[i]] == group[top][start : firsts[top]]]
    if len(alike) > 1:  # they share the best part here: their tie is their next place's
        after = min(common_prefix(group[alike[0]], group[i]) for i in alike[1:])
        on = _scored(
            model, [*lead, *group[top][start:after]], candidates, [which[i] for i in alike], after, window, texts
        )
        for i, more in zip(alike, on, strict=True):
            found[i] = _then(found[i], more)
    return [dataclasses.replace(f, index=n) for f, n in zip(found, which, strict=True)]


def _then(here: Scored, then: Scored) -> Scored:
    """A candidate's score at one place and then at its next: summed; written by greedy decoding only
    where both are."""
    written = here.accepted >= here.required
    return dataclasses.replace(
        here,
        logprob=here.logprob + then.logprob,
        tokens=here.tokens + then.tokens,
        accepted=here.required + then.accepted if written else here.accepted,
        span=here.span + then.span,
        required=here.required + then.required,
    )


@dataclass(frozen=True)
class Read:
    """Per fed token from some point on, the log-probability the model gave it and whether it was the
    greedy choice (a slice reads a stretch)."""

    logprobs: list[float]
    greedy: list[bool]

    def __getitem__(self, at: slice) -> Read:
        return Read(self.logprobs[at], self.greedy[at])


def read_fed(model: TargetModel, fed: list[int], read_from: int) -> Read:
    """Feed `fed` after the cache in blocks (a backend's batch holds BLOCK * 2 tokens); how the model read
    each token of `fed[read_from + 1:]` (logits kept only from `read_from` on, read block by block)."""
    read = Read([], [])
    for at in range(0, len(fed), BLOCK):
        block = fed[at : at + BLOCK]
        keep = len(block) - max(0, read_from - at)
        interrupt.check()
        logits = model.forward(block, max(1, keep))
        if keep <= 0:
            continue
        targets = fed[at + len(block) - keep + 1 : at + len(block) + 1]  # each row's next token, where fed has one
        _extend(read, logits[-keep:], targets)
    return read


def read_branches(model: TargetModel, lead: Sequence[int], spans: Sequence[Sequence[int]]) -> list[Read]:
    """How the model reads each of `spans` fed after the cache and `lead` (each span's tokens, as
    `read_fed(model, [*lead, *span], len(lead) - 1)` reads them), the cache left as found: side by side,
    the lead fed once with them, in one batch where the backend can (models/base.Branches: llama.cpp),
    else the lead fed once and the spans one after another; spans that are the same tokens are read once
    (readings that agree at a place). The run's stop rule is checked before each forward pass (the
    backend's side-by-side reading checks it between its batches)."""
    if not spans:
        return []
    unique = list(dict.fromkeys(tuple(span) for span in spans))
    if len(unique) < len(spans):  # a span fed twice after the same lead reads the same: read once
        found = dict(zip(unique, read_branches(model, lead, unique), strict=True))
        return [found[tuple(span)][:] for span in spans]
    if isinstance(model, Branches):
        interrupt.check()
        reads = [Read([], []) for _ in spans]
        for k, at, rows in model.forward_branches(lead, spans):
            assert at == len(reads[k].logprobs), "a span's rows come in order"
            _extend(reads[k], rows, spans[k][at : at + len(rows)])
        return reads
    base = model.cached_len
    for at in range(0, len(lead) - 1, BLOCK):
        interrupt.check()
        model.forward(list(lead[at : min(at + BLOCK, len(lead) - 1)]), 1)
    shared, reads = model.cached_len, []
    for span in spans:
        reads.append(read_fed(model, [lead[-1], *span], 0))
        model.crop_to(shared)
    model.crop_to(base)
    return reads


def _extend(read: Read, logits: Logits, targets: Sequence[int]) -> None:
    """Append to `read` each target's log-probability under its row of `logits` and whether it was the
    row's greedy choice (speculative/logits.py: either array kind)."""
    logprobs, greedy = logits_reads(logits, targets)
    read.logprobs.extend(logprobs)
    read.greedy.extend(greedy)


def _read(read: Read) -> tuple[float, int]:
    """The tokens' summed log-probability and how many, from the first, are the greedy choice."""
    accepted = next((i for i, g in enumerate(read.greedy) if not g), len(read.greedy))
    return sum(read.logprobs), accepted


def pick(scored: Sequence[Scored], margin: float, greedy: bool = False, bare: Container[int] = ()) -> int | None:
    """The index of the candidate whose log-likelihood beats every other's by at least `margin` nats,
    else None (too close to call); with `greedy`, only a candidate that plain greedy decoding would
    write where the readings differ (`Scored.greedy`: the others may all be wrong, and the model then
    writes none of them), and that has a token of its own there (`required`: a deletion at the file's
    end has none, and "writes" it trivially) unless its index is in `bare` (a deletion the reader weighs
    as likely as the others: api.choose_reading) and greedy decoding writes every token scored, the
    closing fence after it included: the model itself ends the file there (on the release corpus it
    did not where it preferred a wrong deletion by 16.9 nats)."""
    ranked = sorted(scored, key=lambda s: s.logprob, reverse=True)
    if len(ranked) < 2 or not math.isfinite(ranked[0].logprob):
        return None
    top = ranked[0]
    ends = top.index in bare and top.accepted >= top.tokens  # a deletion at the file's end the model writes
    if greedy and not (top.greedy and (top.required or ends)):
        return None
    return ranked[0].index if ranked[0].logprob - ranked[1].logprob >= margin else None
