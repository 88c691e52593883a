"""OpenAI's Predicted Outputs on `applyedit serve`, for real: uvicorn on a free loopback port, the official
`openai` client and httpx, and real models behind it: a tiny random Qwen2 on the torch backend (fp32,
the exactness reference; its outputs are noise, which the equalities below do not mind) and the real
default model on llama.cpp (marked `model`).

What is held: a general chat request answers the same text at temperature 0 with a prediction, with a
wrong one and without one, whole and streamed; the usage's accepted and rejected prediction tokens are
the run's own drafts, counted here from the model's verify passes; a bad or oversized prediction is a
4xx in OpenAI's error shape; a client that leaves mid-stream stops the run; the apply format still
answers as before with a prediction as one more draft source; a run's failures (its budget, its
timeout) have their own statuses.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")
openai = pytest.importorskip("openai")

from fakes import FakeVllm, fake_vllm_engine  # noqa: E402
from test_server import (  # noqa: E402
    JSON_FILE,
    Live,
    error_of,
    expected,
    oracle_engine,
    snippet,
    source_file,
    tiny_torch_engine,
    wait_until,
)

from applyedit import api  # noqa: E402
from applyedit.models.promptcache import PromptCache  # noqa: E402
from applyedit.serve.app import Settings  # noqa: E402
from applyedit.serve.chat import apply_format  # noqa: E402

QUESTION = [
    {"role": "system", "content": "You rewrite files."},
    {"role": "user", "content": f"Add a docstring to total():\n\n{JSON_FILE}"},
]


class Passes:
    """Every verify pass the model runs (a forward whose every row's logits are read: `[last] + draft`),
    recorded as its draft length; a prefill (one row's logits of many tokens) is not one."""

    def __init__(self, model: Any, delay: float = 0.0) -> None:
        self.model, self.delay, self.drafts = model, delay, []
        self.forward = model.forward
        model.forward = self

    def __call__(self, ids: list[int], num_logits: int) -> Any:
        if num_logits == len(ids):
            self.drafts.append(len(ids) - 1)
            time.sleep(self.delay)
        return self.forward(ids, num_logits)

    def take(self) -> list[int]:
        drafts, self.drafts = self.drafts, []
        return drafts


@pytest.fixture(scope="module")
def tiny(tokenizer: tuple[Path, Any]) -> Iterator[tuple[Live, Passes]]:
    server = Live(tiny_torch_engine(tokenizer), Settings(max_body=512 << 10))
    passes = Passes(server.engine.model)
    yield server, passes
    server.stop()


def client_of(server: Live) -> Any:
    return openai.OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0, timeout=300)


def held_to_its_passes(usage: Any, finish: str, drafts: list[int]) -> tuple[int, int]:
    """A reply's accepted and rejected prediction tokens, checked against the verify passes the model
    ran: together they are every drafted token, and every pass emitted its kept draft and one token of
    the model's own (the last pass's EOS excepted, which is no output token)."""
    details = usage.completion_tokens_details
    accepted, rejected = details.accepted_prediction_tokens, details.rejected_prediction_tokens
    assert accepted + rejected == sum(drafts), (accepted, rejected, drafts)
    eos = 1 if finish == "stop" else 0
    assert usage.completion_tokens == accepted + len(drafts) - eos, (usage, drafts)
    return accepted, rejected


def checked(reply: Any, drafts: list[int]) -> tuple[int, int]:
    return held_to_its_passes(reply.usage, reply.choices[0].finish_reason, drafts)


def test_greedy_chat_is_the_same_text_with_a_prediction_without_one_and_with_a_wrong_one(
    tiny: tuple[Live, Passes],
) -> None:
    server, passes = tiny
    client = client_of(server)
    plain = client.chat.completions.create(model="applyedit", messages=QUESTION, max_tokens=40, temperature=0)
    text = plain.choices[0].message.content
    assert plain.usage.completion_tokens == 40 and plain.choices[0].finish_reason == "length"
    assert plain.usage.completion_tokens_details is None  # no prediction sent: no prediction counts
    assert passes.take() == [0] * 40  # no prediction, no drafts: one token per pass

    def ask(prediction: Any) -> Any:
        return client.chat.completions.create(
            model="applyedit",
            messages=QUESTION,
            max_tokens=40,
            temperature=0,
            prediction={"type": "content", "content": prediction},
        )

    # the model's own text as the prediction: drafted, kept, the same text in fewer passes
    right = ask(text)
    assert right.choices[0].message.content == text and right.choices[0].finish_reason == "length"
    drafts = passes.take()
    accepted, _ = checked(right, drafts)
    assert accepted > 0 and len(drafts) < 40
    # a prediction wrong in its middle, and one of another text altogether (as text parts)
    wrong = text[: len(text) // 3] + "\nsomething else entirely = 1\n" + text[2 * len(text) // 3 :]
    for prediction in (wrong, [{"type": "text", "text": JSON_FILE[:200]}, {"type": "text", "text": JSON_FILE[200:]}]):
        reply = ask(prediction)
        assert reply.choices[0].message.content == text
        checked(reply, passes.take())


def test_streamed_chat_sends_the_same_text_its_finish_and_its_usage(tiny: tuple[Live, Passes]) -> None:
    server, passes = tiny
    client = client_of(server)
    whole = client.chat.completions.create(model="applyedit", messages=QUESTION, max_tokens=30)
    text = whole.choices[0].message.content
    passes.take()
    for prediction in (None, text):
        extra = {} if prediction is None else {"prediction": {"type": "content", "content": prediction}}
        chunks = list(
            client.chat.completions.create(
                model="applyedit",
                messages=QUESTION,
                max_tokens=30,
                temperature=0,
                stream=True,
                stream_options={"include_usage": True},
                **extra,
            )
        )
        pieces = [c.choices[0].delta.content or "" for c in chunks if c.choices]
        assert "".join(pieces) == text
        finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
        assert finishes == ["length"]
        assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 30  # the usage comes last
        drafts = passes.take()
        if prediction is None:
            assert chunks[-1].usage.completion_tokens_details is None and drafts == [0] * 30
            assert sum(1 for p in pieces if p) > 1  # the text came pass by pass, not at the end
        else:
            accepted, _ = held_to_its_passes(chunks[-1].usage, "length", drafts)
            assert accepted > 0


def test_a_stop_string_ends_the_text_before_it(tiny: tuple[Live, Passes]) -> None:
    server, passes = tiny
    client = client_of(server)
    text = (
        client.chat.completions.create(model="applyedit", messages=QUESTION, max_tokens=40).choices[0].message.content
    )
    stop = text[len(text) // 2 : len(text) // 2 + 3]
    assert stop and stop not in text[: len(text) // 2]
    for stream in (False, True):
        reply = client.chat.completions.create(
            model="applyedit",
            messages=QUESTION,
            max_tokens=40,
            stop=[stop],
            stream=stream,
            prediction={"type": "content", "content": text},
        )
        if stream:
            chunks = [c for c in reply if c.choices]
            got = "".join(c.choices[0].delta.content or "" for c in chunks)
            finish = chunks[-1].choices[0].finish_reason
        else:
            got, finish = reply.choices[0].message.content, reply.choices[0].finish_reason
        assert got == text[: text.index(stop)] and finish == "stop"
    passes.take()


def test_a_stop_string_leaves_no_accepted_prediction_token_past_it(tiny: tuple[Live, Passes]) -> None:
    """The model's own text as the prediction, cut by a stop string in its middle: the pass that crosses
    the stop kept drafts the answer then cut away. Those count as rejected, never accepted: the accepted
    prediction tokens are at most the completion's (they were more), and every drafted token counts once."""
    server, passes = tiny
    client = client_of(server)
    text = (
        client.chat.completions.create(model="applyedit", messages=QUESTION, max_tokens=40).choices[0].message.content
    )
    stop = text[len(text) // 2 : len(text) // 2 + 3]
    assert stop and stop not in text[: len(text) // 2]
    passes.take()
    ask = {
        "model": "applyedit",
        "messages": QUESTION,
        "max_tokens": 40,
        "stop": [stop],
        "prediction": {"type": "content", "content": text},
    }
    whole = client.chat.completions.create(**ask)
    drafts = passes.take()
    chunks = list(client.chat.completions.create(**ask, stream=True, stream_options={"include_usage": True}))
    assert passes.take() == drafts
    for usage in (whole.usage, chunks[-1].usage):
        details = usage.completion_tokens_details
        accepted, rejected = details.accepted_prediction_tokens, details.rejected_prediction_tokens
        assert accepted + rejected == sum(drafts), (accepted, rejected, drafts)
        assert 0 < accepted <= usage.completion_tokens, (accepted, usage)
        # the prediction is the model's own text: inside the answer every drafted token was kept, and each
        # pass added at most one token of the model's own
        assert accepted >= usage.completion_tokens - len(drafts), (accepted, usage, drafts)
    assert whole.choices[0].message.content == text[: text.index(stop)]


def test_seeded_sampling_with_a_prediction_repeats_itself(tiny: tuple[Live, Passes]) -> None:
    """Sampling runs with a prediction too (speculative/sampling.py's exact rule, proven in test_sampling.py); the
    same seed gives the same text, and the counts hold."""
    server, passes = tiny
    client = client_of(server)
    greedy = client.chat.completions.create(model="applyedit", messages=QUESTION, max_tokens=24)
    passes.take()
    replies = []
    for _ in range(2):
        replies.append(
            client.chat.completions.create(
                model="applyedit",
                messages=QUESTION,
                max_tokens=24,
                temperature=0.7,
                top_p=0.9,
                seed=11,
                prediction={"type": "content", "content": greedy.choices[0].message.content},
            )
        )
        checked(replies[-1], passes.take())
    assert replies[0].choices[0].message.content == replies[1].choices[0].message.content


@pytest.mark.parametrize(
    "prediction",
    [
        "a bare string",
        {"type": "text", "content": "x"},
        {"type": "content", "content": 5},
        {"type": "content", "content": [{"type": "image_url", "image_url": {"url": "x"}}]},
        {"type": "content"},
    ],
)
def test_a_prediction_of_the_wrong_type_is_a_400(tiny: tuple[Live, Passes], prediction: Any) -> None:
    server, passes = tiny
    with pytest.raises(openai.BadRequestError) as caught:
        client_of(server).chat.completions.create(
            model="applyedit", messages=QUESTION, max_tokens=4, extra_body={"prediction": prediction}
        )
    assert caught.value.body["param"] == "prediction" and "prediction" in caught.value.body["message"]
    assert passes.take() == []  # nothing ran


def test_an_oversized_prediction_is_a_4xx_and_nothing_runs(tiny: tuple[Live, Passes]) -> None:
    server, passes = tiny
    client = client_of(server)
    context = server.engine.context
    longer = "".join(f"v{i} = {i}\n" for i in range(context // 3))  # more tokens than the context holds
    assert len(longer) < 512 << 10  # under the body cap: the context refuses it
    for stream in (False, True):
        with pytest.raises(openai.BadRequestError, match="more than the model's context") as caught:
            client.chat.completions.create(
                model="applyedit",
                messages=QUESTION,
                max_tokens=4,
                stream=stream,
                prediction={"type": "content", "content": longer},
            )
        assert caught.value.body["code"] == "context_length_exceeded"
    r = httpx.post(
        server.url + "/v1/chat/completions",
        json={"model": "applyedit", "messages": QUESTION, "prediction": {"type": "content", "content": longer * 6}},
    )
    assert "exceeds the server's limit" in error_of(r, 413, 1)  # the body cap
    with pytest.raises(openai.BadRequestError, match="exceed the model's context"):
        client.chat.completions.create(model="applyedit", messages=QUESTION, max_tokens=context)
    assert passes.take() == []


def test_a_client_leaving_mid_stream_stops_the_run(tiny: tuple[Live, Passes]) -> None:
    server, passes = tiny
    passes.delay = 0.05  # each verify pass: 50 ms, so 2,000 tokens would take 100 s
    served, cancelled = server.worker.served, server.worker.cancelled
    try:
        body = {"model": "applyedit", "messages": QUESTION, "max_tokens": 2000, "stream": True}
        with httpx.stream("POST", server.url + "/v1/chat/completions", json=body, timeout=60) as r:
            assert r.status_code == 200
            lines = r.iter_lines()
            got = [line for line, _ in zip(lines, range(6), strict=False) if line.startswith("data: ")]
            assert json.loads(got[0][6:])["choices"][0]["delta"]["role"] == "assistant"
        # the response is closed: the run stops at its next pass
        wait_until(lambda: server.worker.served == served + 1, "the run to stop")
        assert server.worker.cancelled == cancelled + 1
        assert 0 < len(passes.take()) < 200
    finally:
        passes.delay = 0.0
    reply = client_of(server).chat.completions.create(model="applyedit", messages=QUESTION, max_tokens=3)
    assert reply.usage.completion_tokens == 3  # and the server goes on serving
    passes.take()


def test_a_run_past_its_timeout_is_a_504_whole_or_streamed(tiny: tuple[Live, Passes]) -> None:
    server, passes = tiny
    passes.delay = 0.05
    try:
        body = {"model": "applyedit", "messages": QUESTION, "max_tokens": 400, "timeout": 0.5}
        r = httpx.post(server.url + "/v1/chat/completions", json=body, timeout=60)
        assert "timeout" in error_of(r, 504, 2)
        with httpx.stream(
            "POST", server.url + "/v1/chat/completions", json={**body, "stream": True}, timeout=60
        ) as streamed:
            assert streamed.status_code == 200  # the run began: its error is the stream's last event
            events = [json.loads(line[6:]) for line in streamed.iter_lines() if line.startswith("data: {")]
        assert events[-1]["error"]["type"] == "RunTimeout" and "timeout" in events[-1]["error"]["message"]
    finally:
        passes.delay = 0.0
    passes.take()


@pytest.mark.parametrize("temperature", [1e-38, 1e-300])
def test_a_tiny_temperature_answers_with_the_greedy_text(tiny: tuple[Live, Passes], temperature: float) -> None:
    """A positive temperature too small for float32 (a 500, or a stream cut after its head) samples from
    a point mass on the top token: the greedy text, with and without a prediction, whole and streamed."""
    server, passes = tiny
    client = client_of(server)
    greedy = client.chat.completions.create(model="applyedit", messages=QUESTION, max_tokens=12, temperature=0)
    text = greedy.choices[0].message.content
    for prediction in (None, {"type": "content", "content": text}):
        extra = {} if prediction is None else {"prediction": prediction}
        cold = client.chat.completions.create(
            model="applyedit", messages=QUESTION, max_tokens=12, temperature=temperature, seed=1, **extra
        )
        assert cold.choices[0].message.content == text
        stream = client.chat.completions.create(
            model="applyedit", messages=QUESTION, max_tokens=12, temperature=temperature, seed=1, stream=True, **extra
        )
        assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == text
    passes.take()


def test_a_failure_after_the_streams_head_is_its_last_event(tiny: tuple[Live, Passes]) -> None:
    """Any exception in a streamed run after its 200 head (here a bug in the model's third verify pass)
    ends the stream with an error event in OpenAI's shape, not a cut connection; the server goes on."""
    server, passes = tiny
    model = server.engine.model
    counted = model.forward
    seen: list[int] = []

    def failing(ids: list[int], num_logits: int) -> Any:
        if num_logits == len(ids):
            seen.append(len(ids))
            if len(seen) == 3:
                raise RuntimeError("a bug in the third verify pass")
        return counted(ids, num_logits)

    model.forward = failing
    try:
        body = {"model": "applyedit", "messages": QUESTION, "max_tokens": 20, "stream": True}
        with httpx.stream("POST", server.url + "/v1/chat/completions", json=body, timeout=60) as r:
            assert r.status_code == 200
            events = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: {")]
        assert events[0]["choices"][0]["delta"]["role"] == "assistant"
        error = events[-1]["error"]
        assert error["type"] == "server_error" and "RuntimeError" in error["message"] and error["exit_code"] == 2
        with pytest.raises(openai.APIError, match="RuntimeError"):  # the official client raises it as an error
            seen.clear()
            list(
                client_of(server).chat.completions.create(
                    model="applyedit", messages=QUESTION, max_tokens=20, stream=True
                )
            )
    finally:
        model.forward = counted
    reply = client_of(server).chat.completions.create(model="applyedit", messages=QUESTION, max_tokens=3)
    assert reply.usage.completion_tokens == 3
    passes.take()


def test_the_apply_format_is_told_apart() -> None:
    assert not apply_format([{"role": "user", "content": "hi"}])
    assert not apply_format([{"role": "user", "content": "<code>\nx = 1\n</code>\nmake it 2"}])  # no <update>
    assert not apply_format([{"role": "user", "content": "prose naming <code> and <update> tags"}])
    tagged = "<code>\nx = 1\n</code>\n<update>\nx = 2\n</update>"
    assert apply_format([{"role": "user", "content": tagged}])
    assert apply_format([{"role": "user", "content": [{"type": "text", "text": tagged}]}])
    assert not apply_format([{"role": "user", "content": tagged}, {"role": "user", "content": "thanks"}])


@pytest.fixture
def oracle(tokenizer: tuple[Path, Any]) -> Iterator[Live]:
    server = Live(oracle_engine(tokenizer), Settings(), PromptCache(64 << 20))
    yield server
    server.stop()


def test_the_apply_format_with_a_prediction_answers_as_without_one(oracle: Live) -> None:
    """The apply format's checked file, whole and streamed, is the same with a prediction (one more draft
    source); its usage then counts the copy drafts (every source's); an empty `<update>` is still refused."""
    client = client_of(oracle)
    message = f"<code>\n{source_file(4)}</code>\n<update>\n{snippet(4, 2)}</update>"
    messages = [{"role": "user", "content": message}]
    ask = {"model": "applyedit", "messages": messages, "extra_body": {"path": "m.py", "answer": "model"}}
    plain = client.chat.completions.create(**ask)
    assert plain.choices[0].message.content == expected(4, 2) and plain.usage.completion_tokens > 0
    assert plain.usage.completion_tokens_details is None
    prediction = {"type": "content", "content": expected(4, 2)}
    predicted = client.chat.completions.create(**ask, prediction=prediction)
    assert predicted.choices[0].message.content == expected(4, 2)
    details = predicted.usage.completion_tokens_details
    assert details.accepted_prediction_tokens > 0 and details.rejected_prediction_tokens >= 0
    assert details.accepted_prediction_tokens <= predicted.usage.completion_tokens  # none past the closing fence
    chunks = list(
        client.chat.completions.create(
            **ask, prediction=prediction, stream=True, stream_options={"include_usage": True}
        )
    )
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == expected(4, 2)
    assert chunks[-1].usage.completion_tokens_details.accepted_prediction_tokens == details.accepted_prediction_tokens
    empty = f"<code>\n{source_file(4)}</code>\n<update>\n\n</update>"
    with pytest.raises(openai.BadRequestError, match="<update> is empty"):
        client.chat.completions.create(model="applyedit", messages=[{"role": "user", "content": empty}])


def test_an_apply_run_out_of_budget_is_a_422_not_a_500(oracle: Live) -> None:
    r = httpx.post(
        oracle.url + "/v1/apply",
        timeout=60,
        json={
            "path": "m.py",
            "content": source_file(5),
            "edit": snippet(5, 1),
            "options": {"answer": "model", "fallback": "none", "max_new_tokens": 5},
        },
    )
    message = error_of(r, 422, 2)
    assert "budget" in message and r.json()["error"]["type"] == "DecodeError"


PRICES = (
    "import json\n\n\ndef load(path):\n    with open(path) as f:\n        return json.load(f)\n\n\n"
    "def count(items):\n    return len(items)\n\n\ndef total(prices):\n    return sum(prices)\n"
)


@pytest.mark.model
@pytest.mark.timeout(1800)
def test_real_model_on_llamacpp_greedy_with_and_without_a_prediction(tokenizer: tuple[Path, Any]) -> None:
    """The real default model (its GGUF on llama.cpp, the CPU default): a whole-file rewrite asked as a
    general chat gives the same text with the file as its prediction, most of it drafted and kept."""
    pytest.importorskip("llama_cpp")
    server = Live(api.Engine.open(backend="llamacpp"), Settings())
    try:
        client = client_of(server)
        messages = [
            {
                "role": "user",
                "content": "Rewrite this file with total() adding 0.0 as sum's start. Answer with the whole "
                f"file in a ```python block and nothing else.\n\n```python\n{PRICES}```",
            }
        ]
        plain = client.chat.completions.create(model="applyedit", messages=messages, max_tokens=200, temperature=0)
        predicted = client.chat.completions.create(
            model="applyedit",
            messages=messages,
            max_tokens=200,
            temperature=0,
            prediction={"type": "content", "content": f"```python\n{PRICES}```"},
        )
        assert predicted.choices[0].message.content == plain.choices[0].message.content
        text = plain.choices[0].message.content
        assert "0.0" in text.split("def total")[1] and plain.choices[0].finish_reason == "stop"  # the edit, done
        details = predicted.usage.completion_tokens_details
        assert details.accepted_prediction_tokens > predicted.usage.completion_tokens // 2, predicted.usage
    finally:
        server.stop()


def test_a_general_chat_on_the_vllm_backend_runs_greedily_there(tokenizer: tuple[Path, Any]) -> None:
    """The vLLM backend's own code (models/vllmengine.py) driving an engine with no model (vLLM is not
    installed here): the request runs in it whole; the prediction is taken but vLLM's drafter reads the
    prompt only, so its counts are 0; sampling is a 400 there, before anything runs."""
    fake = FakeVllm(
        len(tokenizer[1]), steps=2, tokens=tokenizer[1]("print('hi')\n", add_special_tokens=False)["input_ids"]
    )
    server = Live(fake_vllm_engine(tokenizer, fake), Settings())
    try:
        client = client_of(server)
        reply = client.chat.completions.create(
            model="applyedit", messages=QUESTION, max_tokens=50, prediction={"type": "content", "content": "x = 1\n"}
        )
        assert reply.choices[0].message.content == "print('hi')\n" and reply.choices[0].finish_reason == "stop"
        details = reply.usage.completion_tokens_details
        assert (details.accepted_prediction_tokens, details.rejected_prediction_tokens) == (0, 0)
        with pytest.raises(openai.BadRequestError, match="greedily"):
            client.chat.completions.create(model="applyedit", messages=QUESTION, max_tokens=5, temperature=0.5)
    finally:
        server.stop()
