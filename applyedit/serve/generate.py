"""A general chat request on the server's loaded model, with OpenAI's Predicted Outputs.

Owns what a chat completion that is no apply-format request runs: the messages checked and rendered
with the chat template the model ships (`Chat.read`, `prompt_ids`; each message's text is tokenized as
text, so a `<|im_end|>` inside it forges no turn), the `prediction` read (`read_prediction`: a string
or a list of text parts) and turned into the copy proposer's one source, with the adaptive K policy the
apply runs use (registry.K_POLICIES["adaptive"]), decoded by the one decode loop (speculative/loop.py) to
EOS, a `stop` string or the output budget (`run`), and the text as it is verified (`TextOut`: whole
accepted blocks, held back only where a stop string or a UTF-8 character may still be completing).
Greedy output does not depend on the prediction (the loop's invariant); sampling stays exactly
distributed (speculative/sampling.py). On an engine that decodes whole requests itself (vLLM) the request
runs greedily there, whose drafter reads the prompt only: the prediction is then not drafted from,
and its counts are 0.

`Generated.accepted` / `rejected` are the prediction's tokens the run drafted that the answer holds /
does not hold (`prediction_counts`: every verify pass's copy draft, its kept prefix as far as the output
keeps it, and the rest of it). Knows nothing of
HTTP, queues or the apply format: serve/chat.py reads the request and answers it, serve/worker.py
runs `run` on its thread with the request's deadline and cancel flag.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from applyedit.errors import InputError, ModelError, PromptTooLongError
from applyedit.speculative.proposers import COPY

ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}  # OpenAI's -> template's
MAX_STOPS = 4  # OpenAI takes up to 4 stop strings


def message_text(content: Any, where: str) -> str:
    """A message's text: a string, or a list of text parts joined (OpenAI's content parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        if not all(isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str) for p in content):
            raise InputError(f"{where}: every content part must be {{'type': 'text', 'text': '...'}} (text only)")
        return "".join(p["text"] for p in content)
    raise InputError(f"{where}: the content must be a string or a list of text parts")


def read_prediction(value: Any) -> str | None:
    """The predicted output of OpenAI's `prediction` field ({"type": "content", "content": text or
    text parts}); None when absent. InputError (a 400 naming `prediction`) for any other shape."""
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("type") != "content" or "content" not in value:
        raise InputError('prediction: give {"type": "content", "content": "the predicted output"}')
    return message_text(value["content"], "prediction")


def read_stop(value: Any) -> tuple[str, ...]:
    """OpenAI's `stop`: None, a string or a list of up to 4 non-empty strings."""
    stops = [] if value is None else [value] if isinstance(value, str) else value
    if not isinstance(stops, list) or not all(isinstance(s, str) and s for s in stops) or len(stops) > MAX_STOPS:
        raise InputError(f"stop: give a string or a list of at most {MAX_STOPS} non-empty strings")
    return tuple(stops)


@dataclass(frozen=True)
class Chat:
    """A general chat request as the run takes it."""

    messages: tuple[tuple[str, str], ...]  # (the template's role, the text)
    prediction: str | None = None
    max_tokens: int | None = None  # None: the rest of the context
    temperature: float | None = None  # None or 0: greedy
    top_p: float | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()

    @classmethod
    def read(cls, messages: list[dict[str, Any]], **fields: Any) -> Chat:
        """The request's messages (roles system, developer, user, assistant; text content) and fields."""
        read = []
        for i, m in enumerate(messages):
            role = m.get("role") if isinstance(m, dict) else None
            if role not in ROLES:
                raise InputError(
                    f"messages[{i}]: role {role!r} is not one this server answers (system, developer, user, "
                    "assistant; it makes no tool calls)"
                )
            read.append((ROLES[role], message_text(m.get("content"), f"messages[{i}]")))
        if not read:
            raise InputError("messages: give at least one message")
        return cls(tuple(read), **fields)


def prompt_ids(tokenizer: Any, messages: Sequence[tuple[str, str]]) -> list[int]:
    """The prompt of `messages` in the model's own chat template, the assistant's turn opened. The
    template's control tokens stay control tokens; each message's text is tokenized as text (the
    template is rendered with a stand-in per message, as tokens.chat_ids does for the apply prompt)."""
    from applyedit.models.tokens import text_ids

    marks = [f"\x00applyedit-message-{i}\x00" for i in range(len(messages))]
    frame = tokenizer.apply_chat_template(
        [{"role": role, "content": mark} for (role, _), mark in zip(messages, marks, strict=True)],
        tokenize=False,
        add_generation_prompt=True,
    )
    parts = re.split("(" + "|".join(re.escape(m) for m in marks) + ")", frame)
    if [p for p in parts if p in marks] != marks:
        raise ModelError("the model's chat template does not place each message once, in order")
    texts = dict(zip(marks, (text for _, text in messages), strict=True))
    ids: list[int] = []
    for part in parts:
        if part in texts:
            ids += text_ids(tokenizer, texts[part])
        elif part:
            ids += tokenizer(part, add_special_tokens=False)["input_ids"]
    return ids


class TextOut:
    """The output's text as the tokens come: `stop_at` is the loop's stop check (the shortest output
    holding a stop string), `more` the text not handed out yet that is certain, `text` the final text
    (cut before the first stop string)."""

    def __init__(self, decode: Callable[[Sequence[int]], str], stops: Sequence[str]) -> None:
        self.decode, self.stops = decode, tuple(stops)
        self.hold = max((len(s) for s in self.stops), default=1) - 1  # a stop string may be completing
        self.tokens: list[int] = []
        self.sent = ""

    def cut(self, text: str) -> int | None:
        """Where the first stop string starts in `text`, or None."""
        found = [i for i in (text.find(s) for s in self.stops) if i >= 0]
        return min(found) if found else None

    def stop_at(self, output: Sequence[int]) -> int | None:
        if not self.stops or self.cut(self.decode(output)) is None:
            return None
        end = len(output)  # the shortest prefix that still holds a stop string
        while end > 0 and self.cut(self.decode(output[: end - 1])) is not None:
            end -= 1
        return end

    def more(self, emitted: Sequence[int]) -> str:
        """The text these newly emitted tokens make certain (none while a character or a stop string may
        still be completing)."""
        self.tokens.extend(emitted)
        text = self.decode(self.tokens)
        stop = self.cut(text)
        end = stop if stop is not None else max(0, len(text) - self.hold)
        while end > 0 and text[end - 1] == "\ufffd":  # a UTF-8 character whose bytes have not all come
            end -= 1
        return self._hand_out(text[:end])

    def rest(self, tokens: Sequence[int]) -> str:
        """The text still to hand out once the run is over, given its final tokens."""
        self.tokens = list(tokens)
        return self._hand_out(self.text)

    @property
    def text(self) -> str:
        text = self.decode(self.tokens)
        stop = self.cut(text)
        return text if stop is None else text[:stop]

    def _hand_out(self, certain: str) -> str:
        if len(certain) <= len(self.sent) or not certain.startswith(self.sent):
            return ""
        new, self.sent = certain[len(self.sent) :], certain
        return new


@dataclass(frozen=True)
class Generated:
    """A finished general chat run."""

    text: str
    finish_reason: str  # "stop" (EOS or a stop string) | "length" (the output budget)
    prompt_tokens: int
    completion_tokens: int
    accepted: int  # prediction tokens drafted that the model kept and the output holds
    rejected: int  # prediction tokens drafted that the output does not hold
    passes: int  # verify passes (forward passes after the prefill)
    prediction_tokens: int  # the prediction's length in tokens (0: none sent)
    prefill_s: float = 0.0  # the prompt's prefill
    decode_s: float = 0.0  # from the end of the prefill to the last pass


def prediction_counts(steps: Sequence[Any]) -> tuple[int, int]:
    """(accepted, rejected): the copy-drafted tokens of a run's verify passes (`decoded.Step`s) that its
    output holds, and the rest of them. A draft the model kept past where the output ends (a stop string,
    the end of turn) is not in the answer: it counts as rejected, so the accepted never outnumber the
    output's tokens, and the two add up to every copy-drafted token."""
    accepted = rejected = 0
    for step in steps:
        if step.drafter != COPY:
            continue
        kept = max(0, min(step.num_accepted, len(step.emitted) - step.forced))
        accepted += kept
        rejected += len(step.draft) - kept
    return accepted, rejected


def budget_for(engine: Any, chat: Chat, prompt: int, prediction: int) -> int:
    """The output budget: `max_tokens`, else the rest of the context; PromptTooLongError when the prompt
    and that do not fit, or the prediction alone is longer than the context."""
    if prediction > engine.context:
        raise PromptTooLongError(
            f"prediction: {prediction:,} tokens, more than the model's context of {engine.context:,} tokens"
        )
    budget = chat.max_tokens if chat.max_tokens is not None else engine.context - prompt
    if budget < 1 or prompt + budget > engine.context:
        raise PromptTooLongError(
            f"the messages ({prompt:,} tokens) plus room for the output ({max(budget, 0):,}) exceed the "
            f"model's context of {engine.context:,} tokens"
        )
    return budget


def run(
    engine: Any,
    chat: Chat,
    *,
    deadline: float | None = None,
    timeout: float | None = None,
    on_step: Callable[[Any, int], None] | None = None,
    on_text: Callable[[str], None] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> Generated:
    """Decode `chat` on the engine's loaded model. `on_start(prompt tokens)` once the request fits the
    context, before the prefill; `on_step(step, tokens so far)` after each verify pass (it may raise to
    stop the run: a client gone); `on_text(text)` with the text each pass makes certain; the deadline
    raises RunTimeout between passes (runwatch.watch)."""
    from applyedit.models.base import WholeRequests
    from applyedit.options import RunOptions
    from applyedit.speculative import loop, registry, sampling
    from applyedit.speculative.policy import FixedK, KPolicy
    from applyedit.speculative.proposers import CopyProposer, NullProposer, Proposer, Source
    from applyedit.speculative.runwatch import watch

    prompt = prompt_ids(engine.tokenizer, chat.messages)
    predicted = engine.encode(chat.prediction) if chat.prediction else []
    budget = budget_for(engine, chat, len(prompt), len(predicted))
    greedy = not chat.temperature
    decoding = sampling.settings(chat.temperature, None if greedy else chat.top_p, chat.seed)
    out = TextOut(engine.decode, chat.stop)
    model = engine.model
    if isinstance(model, WholeRequests) and not decoding.greedy:
        raise InputError("this server's vLLM backend decodes greedily: send temperature 0")
    if on_start is not None:
        on_start(len(prompt))
    if isinstance(model, WholeRequests):  # vLLM: it drafts (from the prompt) and batches itself
        result = model.decode_request(prompt, budget, out.stop_at, deadline)
        accepted = rejected = 0
    else:
        proposer: Proposer = NullProposer()
        policy: KPolicy = FixedK(0)
        if predicted:
            proposer = CopyProposer([Source("prediction", tuple(predicted))])
            policy = registry.K_POLICIES["adaptive"](engine, RunOptions())

        def step(s: Any, tokens: int) -> None:
            if on_step is not None:
                on_step(s, tokens)
            if on_text is not None and (text := out.more(s.emitted)):
                on_text(text)

        result = loop.run(
            model,
            prompt,
            proposer,
            policy,
            budget,
            stop=out.stop_at,
            on_step=watch(deadline, timeout, step),
            sampling=decoding,
        )
        accepted, rejected = prediction_counts(result.steps)
    rest = out.rest(result.tokens)
    if on_text is not None and rest:
        on_text(rest)
    return Generated(
        text=out.text,
        finish_reason="length" if result.stop_reason == "budget" else "stop",
        prompt_tokens=len(prompt),
        completion_tokens=len(result.tokens),
        accepted=accepted,
        rejected=rejected,
        passes=len(result.steps),
        prediction_tokens=len(predicted),
        prefill_s=result.prefill_s,
        decode_s=result.decode_s,
    )
