"""`applyedit serve` for real: uvicorn on a free 127.0.0.1 port, real HTTP clients (httpx, the official
`openai` client, the CLI with --server), and an in-process oracle model behind it.

The oracle is a target model (the `TargetModel` seam plus the prompt cache's snapshots) that reads
the prompt it is given and greedily "writes" the correct file: the snippet merged by merge/, or an
instruction "Replace A with B" carried out. Answers thus depend on the request, so a concurrent answer
can be compared with the same request served alone; everything around the model (queue, checks,
diff, prompt cache, HTTP) is the product's. The last tests put real models behind the server: a tiny
random Qwen2 on the torch backend, and the real default model (GGUF, llama.cpp; marked `model`).
"""

from __future__ import annotations

import json
import re
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import torch

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from fakes import FakeVllm, fake_vllm_engine  # noqa: E402

from applyedit import api, merge  # noqa: E402
from applyedit.models import modelstore  # noqa: E402
from applyedit.models.costmodel import prior  # noqa: E402
from applyedit.models.device import pick_dtype  # noqa: E402
from applyedit.models.prefill import ExactPrefill  # noqa: E402
from applyedit.models.promptcache import PromptCache  # noqa: E402
from applyedit.models.tokens import context_length  # noqa: E402
from applyedit.serve.app import Settings, create_app, uvicorn_config  # noqa: E402
from applyedit.serve.chat import parse_chat  # noqa: E402

_PROMPT = re.compile(
    r"File: [^\n]*\n\n(`{3,})[^\n]*\n(.*?)\1\n\n(?:Update snippet:\n\n\1[^\n]*\n(.*?)\1\n|Instruction: (.*?)\n\n?Output)",
    re.S,
)


class OracleModel(ExactPrefill):
    """Writes the correct file for the prompt it was given, `delay` seconds per forward pass."""

    def __init__(self, tokenizer: Any, eos: int, vocab: int, delay: float = 0.0) -> None:
        self.tok, self.vocab, self.delay = tokenizer, vocab, delay
        self.eos_ids = frozenset({eos})
        self.eos = eos
        self.num_forwards = 0
        self._ids: list[int] = []
        self._base: int | None = None
        self._script: list[int] = []

    def oracle(self, prompt: list[int]) -> list[int]:
        text = self.tok.decode(prompt, skip_special_tokens=False)
        m = _PROMPT.search(text)
        assert m, text[-400:]
        fence, source, snippet, instruction = m.groups()
        if snippet is not None:
            result = merge.merge(source, snippet)
            body = result.merged if result.ok and result.merged is not None else source
        else:
            rule = re.match(r"Replace (\S+) with (.+)$", instruction or "")
            body = source.replace(rule.group(1), rule.group(2)) if rule else source
        return list(self.tok(body + fence + "\n", add_special_tokens=False)["input_ids"])

    @property
    def vocab_size(self) -> int:
        return int(self.vocab)

    def reset(self) -> None:
        self._ids = []

    def prefill(self, ids: list[int]) -> int:
        self._base = None
        computed = super().prefill(ids)
        self._base = len(ids)
        self._script = self.oracle(ids) + [self.eos]
        return computed

    def forward(self, ids: list[int], num_logits: int) -> torch.Tensor:
        start = len(self._ids)
        self._ids.extend(ids)
        self.num_forwards += 1
        logits = torch.zeros(num_logits, self.vocab)
        if self._base is None:
            return logits
        time.sleep(self.delay)
        first = len(self._ids) - num_logits
        for row in range(num_logits):
            index = first + row - self._base  # the output position this row predicts
            logits[row, self._script[min(index, len(self._script) - 1)]] = 1.0
        return logits

    def crop_to(self, length: int) -> None:
        del self._ids[length:]

    def snapshot(self) -> tuple[Any, int]:
        return tuple(self._ids), 8 * len(self._ids)

    def restore(self, snapshot: Any, ids: Any) -> None:
        self._ids = list(ids)


def oracle_engine(tokenizer: tuple[Path, Any], delay: float = 0.0) -> api.Engine:
    path, tok = tokenizer
    engine = api.Engine(
        modelstore.resolve(None), path, tok, "cpu", pick_dtype("fp32", "cpu"), context_length(path), cost=prior()
    )
    engine._model = OracleModel(tok, tok.convert_tokens_to_ids("<|im_end|>"), len(tok), delay)  # type: ignore[assignment]
    return engine


class Live:
    """A real uvicorn server on a free loopback port, in this process."""

    def __init__(self, engine: api.Engine, settings: Settings, cache: PromptCache | None = None) -> None:
        import uvicorn

        self.app = create_app(engine, settings, cache)
        self.engine, self.cache = engine, cache
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn_config(self.app))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        for _ in range(500):
            if self.server.started:
                break
            time.sleep(0.01)
        assert self.server.started

    @property
    def worker(self) -> Any:
        return self.app.app.state.worker

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.worker.stop()


@pytest.fixture
def live(tokenizer: tuple[Path, Any]) -> Iterator[Live]:
    server = Live(oracle_engine(tokenizer), Settings(max_body=256 << 10), PromptCache(64 << 20))
    yield server
    server.stop()


def source_file(n: int, lines: int = 60) -> str:
    return "".join(f"def f{n}_{i}(x):\n    return x + {i}\n\n\n" for i in range(lines // 4))


def snippet(n: int, i: int) -> str:
    return f"# ... existing code ...\ndef f{n}_{i}(x):\n    return x * {i + 100}\n# ... existing code ...\n"


def expected(n: int, i: int, lines: int = 60) -> str:
    return source_file(n, lines).replace(
        f"def f{n}_{i}(x):\n    return x + {i}\n", f"def f{n}_{i}(x):\n    return x * {i + 100}\n"
    )


def post_apply(url: str, body: Any, **kw: Any) -> httpx.Response:
    return httpx.post(url + "/v1/apply", json=body, timeout=60, **kw)


# -- the API


def test_apply_endpoint_and_prompt_cache_reuse(live: Live) -> None:
    body = {"path": "src/app.py", "content": source_file(1, 200), "edit": snippet(1, 3)}
    merged = post_apply(live.url, body).json()  # by default the snippet's unambiguous merge answers
    assert merged["after"] == expected(1, 3, 200) and merged["answer"] == "merge"
    assert merged["report"]["answer"]["model_ran"] is False and merged["tokens"] == []
    assert live.engine.model.num_forwards == 0 and live.cache is not None and live.cache.stats.hits == 0
    body["options"] = {"answer": "model"}  # the model's run, and its prompt cache
    first = post_apply(live.url, body)
    assert first.status_code == 200, first.text
    data = first.json()
    assert data["after"] == expected(1, 3, 200)
    assert data["diff"].startswith("diff --git a/src/app.py b/src/app.py\n") and "+    return x * 103" in data["diff"]
    assert data["report"]["prompt_cache"]["reused"] == 0 and data["changed"] and data["kind"] == "snippet"
    # another edit of the same file: the system prompt and the file come from the cache
    second = post_apply(live.url, {**body, "edit": snippet(1, 5)}).json()
    assert second["after"] == expected(1, 5, 200)
    stats = second["report"]["prompt_cache"]
    assert stats["reused"] + stats["prefilled"] + 1 == stats["prompt_tokens"], stats
    assert stats["reused"] / stats["prompt_tokens"] > 0.6, stats
    health = httpx.get(live.url + "/health").json()
    assert health["status"] == "ok" and health["served"] == 3 and health["prompt_cache"]["hits"] == 1
    models = httpx.get(live.url + "/v1/models").json()
    assert {m["id"] for m in models["data"]} == {"applyedit", modelstore.resolve(None).name}


def test_openai_client_applies_an_edit(live: Live) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=live.url + "/v1", api_key="unused", max_retries=0)
    message = f"<code>{source_file(2)}</code>\n<update>{snippet(2, 4)}</update>"
    reply = client.chat.completions.create(
        model="applyedit", messages=[{"role": "user", "content": message}], extra_body={"path": "mod.py"}
    )
    assert reply.choices[0].message.content == expected(2, 4)
    assert reply.choices[0].finish_reason == "stop" and reply.usage.completion_tokens == 0  # the merge answered
    # with an instruction, streamed (SSE)
    message = (
        f"<instruction>I multiply in f2_7</instruction>\n<code>\n{source_file(2)}</code>\n"
        f"<update>\n{snippet(2, 7)}</update>"
    )
    stream = client.chat.completions.create(
        model=modelstore.resolve(None).name,
        stream=True,
        messages=[{"role": "user", "content": message}],
        extra_body={"path": "m.py", "answer": "model"},
    )
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert text == expected(2, 7)
    # an unknown model is the client's NotFoundError, with the server's message
    with pytest.raises(openai.NotFoundError, match="unknown model 'gpt-4o'"):
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": message}])


def test_parse_chat() -> None:
    code, edit, path = parse_chat(
        [
            {"role": "system", "content": "x"},
            {"role": "user", "content": [{"type": "text", "text": "<code>a = 1</code><update>a = 2</update>"}]},
        ]
    )
    assert (code, edit, path) == ("a = 1\n", "a = 2\n", None)
    code, edit, _ = parse_chat(
        [
            {
                "role": "user",
                "content": "<instruction>Do it</instruction><code>\nx\n</code>"
                "<update>\n# ... existing code ...\ny\n</update>",
            }
        ]
    )
    assert code == "x\n" and edit == "Do it\n\n```\n# ... existing code ...\ny\n```\n"


# -- load: 4 clients x 10 requests


def test_concurrent_clients_get_the_answers_they_get_alone(live: Live) -> None:
    requests = [
        {
            "path": f"pkg/m{c}.py",
            "content": source_file(c, 40 + 8 * c),
            "edit": snippet(c, i % 9),
            "options": {"answer": "model"},
        }
        for c in range(4)
        for i in range(10)
    ]
    alone = {}
    for body in requests[::10]:  # one of each file alone first ...
        alone[json.dumps(body)] = post_apply(live.url, body).json()["after"]

    def client(c: int) -> list[tuple[dict[str, Any], int, str]]:
        out = []
        with httpx.Client(timeout=120) as session:
            for body in requests[c * 10 : (c + 1) * 10]:
                r = session.post(live.url + "/v1/apply", json=body)
                out.append((body, r.status_code, r.json().get("after", r.text)))
        return out

    with ThreadPoolExecutor(4) as pool:
        results = [x for chunk in pool.map(client, range(4)) for x in chunk]
    assert len(results) == 40 and all(status == 200 for _, status, _ in results)
    for body, _, after in results:
        c, i = int(body["path"][5]), int(body["edit"].split("return x * ")[1].split("\n")[0]) - 100
        assert after == expected(c, i, 40 + 8 * c)
        if json.dumps(body) in alone:
            assert after == alone[json.dumps(body)]
    assert live.cache is not None and live.cache.nbytes <= live.cache.limit_bytes
    assert live.cache.stats.hits >= 36  # every request after a file's first reused its prefix
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        f"\npeak RSS of the test process (server, clients, tokenizer): {peak / 1024:.0f} MiB; "
        f"prompt cache {live.cache.nbytes} of {live.cache.limit_bytes} bytes"
    )


# -- bad requests: each a JSON error (or a clean cancel), and the server keeps serving


def still_serving(live: Live) -> None:
    r = post_apply(live.url, {"path": "ok.py", "content": source_file(9), "edit": snippet(9, 2)})
    assert r.status_code == 200 and r.json()["after"] == expected(9, 2)


def error_of(r: httpx.Response, status: int, exit_code: int) -> str:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    error = r.json()["error"]
    assert error["exit_code"] == exit_code
    return str(error["message"])


def test_malformed_json(live: Live) -> None:
    r = httpx.post(
        live.url + "/v1/apply", content=b'{"path": "a.py", "content": ', headers={"content-type": "application/json"}
    )
    assert "bad request" in error_of(r, 400, 1)
    still_serving(live)


@pytest.mark.parametrize(
    "body",
    [
        {"content": "x = 1\n", "edit": "y"},
        {"path": "a.py", "edit": "y"},
        {},
        {"path": "a.py", "content": "x\n", "edit": "y", "options": {"k": "many"}},
        {"path": "a.py", "content": "x\n", "edit": "y", "options": {"model": "other"}},
    ],
)
def test_missing_or_wrong_fields(live: Live, body: dict[str, Any]) -> None:
    error_of(post_apply(live.url, body), 400, 1)
    still_serving(live)


def test_chat_in_the_apply_format_with_an_empty_update(live: Live) -> None:
    """A message without `<code>` and `<update>` is a general chat (tests/test_predicted_outputs.py); one
    with both is the apply format, refused when its update is empty."""
    message = f"<code>\n{source_file(3)}</code>\n<update>\n\n</update>"
    r = httpx.post(
        live.url + "/v1/chat/completions",
        json={"model": "applyedit", "messages": [{"role": "user", "content": message}]},
    )
    assert "<update> is empty" in error_of(r, 400, 1)
    still_serving(live)


def test_oversized_body(live: Live) -> None:
    big = {"path": "a.py", "content": "x = 1\n" * 60_000, "edit": snippet(0, 1)}
    assert "exceeds the server's limit" in error_of(post_apply(live.url, big), 413, 1)

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit is counted as the body arrives
        for _ in range(100):
            yield b" " * 4096

    r = httpx.post(live.url + "/v1/apply", content=chunks(), headers={"content-type": "application/json"})
    error_of(r, 413, 1)
    still_serving(live)


def test_unknown_model(live: Live) -> None:
    message = f"<code>{source_file(3)}</code><update>{snippet(3, 1)}</update>"
    r = httpx.post(
        live.url + "/v1/chat/completions", json={"model": "nope", "messages": [{"role": "user", "content": message}]}
    )
    assert "unknown model 'nope'" in error_of(r, 404, 1)
    still_serving(live)


@pytest.mark.parametrize(
    "path, message",
    [
        ("../etc/passwd", "leaves its folder"),
        ("a/../../b.py", "leaves its folder"),
        ("/etc/passwd", "is absolute"),
        ("C:/x.py", "is absolute"),
        ("", "relative"),
    ],
)
def test_paths_outside_are_refused(live: Live, path: str, message: str) -> None:
    r = post_apply(live.url, {"path": path, "content": "x = 1\n", "edit": snippet(0, 1)})
    assert message in error_of(r, 400, 1)
    still_serving(live)


def test_checks_and_refusals_keep_the_cli_exit_codes(live: Live) -> None:
    # a snippet whose markers are another language's: refused before the model runs (exit 1)
    r = post_apply(live.url, {"path": "a.py", "content": source_file(4), "edit": "// ... existing code ...\nx\n"})
    assert "lazy markers" in error_of(r, 400, 1)
    # output that still holds a lazy marker (the oracle keeps the file when the merge fails): exit 3
    body = {"path": "a.py", "content": "a\n", "edit": "Replace a with # ... existing code ...\n"}
    r = post_apply(live.url, body)
    assert "lazy marker" in error_of(r, 422, 3)
    r = post_apply(live.url, {**body, "options": {"allow_markers": True}})
    assert r.status_code == 200
    still_serving(live)


def test_a_refused_snippet_lists_its_readings_and_a_request_takes_one(live: Live) -> None:
    """Twins (one edit at two places that read the same): refused with the readings and their places in
    the error body, as data; a request's `reading` takes one, with no model."""
    twice = "def f():\n    return 1\n\n\ndef f():\n    return 1\n"
    body = {
        "path": "t.py",
        "content": twice,
        "edit": "# ... existing code ...\ndef f():\n    return 2\n# ... existing code ...\n",
    }
    r = post_apply(live.url, body)
    assert "could stand at original lines 1 and 5" in error_of(r, 400, 1)
    error = r.json()["error"]
    assert error["readings"] == 2 and [p["line"] for p in error["places"]] == [2, 6]
    taken = post_apply(live.url, {**body, "options": {"reading": 2}})
    assert taken.status_code == 200, taken.text
    assert taken.json()["after"] == "def f():\n    return 2\n\n\ndef f():\n    return 1\n"  # as place 2 lists it
    still_serving(live)


def test_a_tiny_temperature_samples_the_oracles_file(live: Live) -> None:
    """A temperature too small for float32 (1e-300: a 500 "probability tensor contains inf, nan") samples
    from a point mass on the model's top token: the oracle's file, as greedy writes it."""
    body = {"path": "a.py", "content": source_file(6), "edit": snippet(6, 2)}
    for temperature in (1e-38, 1e-300):
        options = {"answer": "model", "temperature": temperature, "seed": 1}
        r = post_apply(live.url, {**body, "options": options})
        assert r.status_code == 200, r.text
        assert r.json()["after"] == expected(6, 2) and r.json()["summary"]["temperature"] == temperature
    still_serving(live)


TWINS = "def f():\n    return 1\n\n\ndef f():\n    return 1\n"
TWINS_EDIT = "# ... existing code ...\ndef f():\n    return 2\n# ... existing code ...\n"


def test_the_chat_apply_format_takes_a_reading_and_refuses_what_it_cannot_honour(live: Live) -> None:
    """The apply format honours `reading` as /v1/apply's options do (it refused as without it), range-checked
    in the run's words with the field named (7 was no error); `stop`, which it cannot honour (its answer is
    the whole file), is a 400 naming it (it was ignored), and so is `reading` in a general chat."""
    message = f"<code>\n{TWINS}</code>\n<update>\n{TWINS_EDIT}</update>"
    chat = {"model": "applyedit", "path": "t.py", "messages": [{"role": "user", "content": message}]}
    url = live.url + "/v1/chat/completions"
    refused = httpx.post(url, json=chat, timeout=60)
    assert "could stand at original lines 1 and 5" in error_of(refused, 400, 1)
    assert refused.json()["error"]["readings"] == 2
    for n in (1, 2):
        applied = post_apply(
            live.url, {"path": "t.py", "content": TWINS, "edit": TWINS_EDIT, "options": {"reading": n}}
        )
        assert applied.status_code == 200, applied.text
        taken = httpx.post(url, json={**chat, "reading": n}, timeout=60)
        assert taken.status_code == 200, taken.text
        assert taken.json()["choices"][0]["message"]["content"] == applied.json()["after"] != TWINS
    for n in (7, 0):
        r = httpx.post(url, json={**chat, "reading": n}, timeout=60)
        assert error_of(r, 400, 1).startswith(f"reading {n}: the edit has 2 readings to choose from")
        assert r.json()["error"]["param"] == "reading"
    r = httpx.post(url, json={**chat, "stop": "```"}, timeout=60)
    assert "stop" in error_of(r, 400, 1)
    assert r.json()["error"]["param"] == "stop" and r.json()["error"]["code"] == "unsupported_parameter"
    general = {"model": "applyedit", "messages": [{"role": "user", "content": "Hello"}], "reading": 2}
    r = httpx.post(url, json=general, timeout=60)
    assert "apply format" in error_of(r, 400, 1) and r.json()["error"]["param"] == "reading"
    still_serving(live)


def test_server_messages_name_the_requests_own_fields(live: Live) -> None:
    """A run's refusal of a setting names the field as the request spells it, with `param` set (it said
    "--reading 3" with no param); `stream_options` goes with `stream: true` only and `include_usage` is a
    boolean (both were accepted: "false" counted as true)."""
    body = {"path": "t.py", "content": TWINS, "edit": TWINS_EDIT, "options": {"reading": 3}}
    r = post_apply(live.url, body)
    message = error_of(r, 400, 1)
    assert message.startswith("options.reading 3: the edit has 2 readings") and "--" not in message
    assert r.json()["error"]["param"] == "options.reading"
    r = post_apply(live.url, {**body, "options": {"k": "many"}})
    assert r.json()["error"]["param"] == "options.k"  # a request the validator refuses names its field too
    message = f"<code>{source_file(3)}</code>\n<update>{snippet(3, 1)}</update>"
    chat = {"model": "applyedit", "path": "a.py", "messages": [{"role": "user", "content": message}]}
    url = live.url + "/v1/chat/completions"
    for options, stream in (({"include_usage": True}, False), ({"include_usage": "false"}, True)):
        r = httpx.post(url, json={**chat, "stream": stream, "stream_options": options}, timeout=60)
        assert "stream_options" in error_of(r, 400, 1) and r.json()["error"]["param"] == "stream_options"
    with httpx.stream("POST", url, json={**chat, "stream": True, "stream_options": {"include_usage": False}}) as r:
        events = [json.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: {")]
    assert r.status_code == 200 and all("usage" not in e for e in events)


def test_a_timeout_before_decoding_names_the_requests_seconds_and_no_model_loading(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 60: a request whose timeout passes before decoding began (its drafting's plan held up here) on
    a warm server says so in the request's words. It said "stopped by options.timeout 0.29... s before
    decoding began (loading the model took most of it)": the seconds left after the queue, not those sent,
    and a model loading where none was (the server's is loaded before its first request)."""
    plan = api.plan_drafting

    def slow_plan(*args: Any, **kwargs: Any) -> Any:
        time.sleep(1.0)
        return plan(*args, **kwargs)

    monkeypatch.setattr(api, "plan_drafting", slow_plan)
    body = {"path": "a.py", "content": source_file(6), "edit": "Replace x with y", "options": {"timeout": 0.5}}
    r = post_apply(live.url, body)
    assert r.status_code == 504, r.text
    said = "stopped by options.timeout 0.5 s before decoding began; nothing was written"
    assert r.json()["error"]["message"] == said
    message = f"<code>\n{source_file(3)}</code>\n<update>\nReplace x with y\n</update>"
    chat = {"model": "applyedit", "path": "a.py", "messages": [{"role": "user", "content": message}], "timeout": 0.5}
    r = httpx.post(live.url + "/v1/chat/completions", json=chat, timeout=60)
    assert r.status_code == 504 and r.json()["error"]["message"] == said.replace("options.", ""), r.text
    monkeypatch.undo()
    still_serving(live)


def test_token_required_when_set(tokenizer: tuple[Path, Any]) -> None:
    server = Live(oracle_engine(tokenizer), Settings(token="s3cret"))
    try:
        body = {"path": "a.py", "content": source_file(5), "edit": snippet(5, 1)}
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
            r = post_apply(server.url, body, headers=headers)
            assert "bearer token" in error_of(r, 401, 1)
        assert httpx.get(server.url + "/v1/models").status_code == 401
        ok = post_apply(server.url, body, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200 and ok.json()["after"] == expected(5, 1)
        assert httpx.get(server.url + "/health").status_code == 200  # liveness needs no token
    finally:
        server.stop()


def test_non_loopback_host_needs_a_token() -> None:
    from applyedit.errors import UsageError
    from applyedit.serve.app import check_settings

    with pytest.raises(UsageError, match="--token"):
        check_settings(Settings(host="0.0.0.0"))
    check_settings(Settings(host="0.0.0.0", token="t"))
    check_settings(Settings(host="::1"))


def wait_until(condition: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    """Poll `condition` for at most `seconds`: a race that never resolves fails here, it does not hang."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"waited {seconds:.0f} s for {what}"
        time.sleep(0.01)


def slow_server(tokenizer: tuple[Path, Any], **settings: Any) -> Live:
    return Live(oracle_engine(tokenizer, delay=0.05), Settings(**settings))


SLOW = {
    "path": "slow.py",
    "content": source_file(6, 400),
    "edit": snippet(6, 50),
    "options": {"k": 4, "k_policy": "fixed", "anchor": "none", "answer": "model"},
}  # every line decoded: seconds


def test_closed_connection_cancels_the_run(tokenizer: tuple[Path, Any]) -> None:
    server = slow_server(tokenizer)
    try:
        payload = json.dumps(SLOW).encode()
        sock = socket.create_connection(("127.0.0.1", int(server.url.rsplit(":", 1)[1])))
        sock.sendall(
            b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        for _ in range(500):
            if server.worker.running is not None:
                break
            time.sleep(0.01)
        time.sleep(0.3)
        sock.close()  # mid-run
        for _ in range(1000):
            if server.worker.served == 1:
                break
            time.sleep(0.01)
        model = server.engine.model
        assert server.worker.served == 1 and server.worker.cancelled == 1
        assert model.num_forwards < 100  # stopped long before its ~680 passes
        # and the server keeps serving, the next run complete
        r = post_apply(server.url, {"path": "b.py", "content": source_file(7), "edit": snippet(7, 1)})
        assert r.status_code == 200 and r.json()["after"] == expected(7, 1)
    finally:
        server.stop()


def test_timeout_and_full_queue(tokenizer: tuple[Path, Any]) -> None:
    server = slow_server(tokenizer, queue=1)
    try:
        r = post_apply(server.url, {**SLOW, "options": {**SLOW["options"], "timeout": 0.5}})
        assert "timeout" in error_of(r, 504, 2)
        quick = {**SLOW, "options": {**SLOW["options"], "timeout": 2.0}}
        with ThreadPoolExecutor(2) as pool:
            running = pool.submit(post_apply, server.url, quick)
            wait_until(lambda: server.worker.running is not None, "the first request to run")
            waiting = pool.submit(post_apply, server.url, quick)
            wait_until(lambda: server.worker.jobs.qsize() >= 1, "the second request to queue")
            assert "busy" in error_of(post_apply(server.url, quick), 503, 2)
            assert running.result().status_code == 504 and waiting.result().status_code == 504
        server.engine.model.delay = 0.0
        r = post_apply(server.url, {"path": "b.py", "content": source_file(8), "edit": snippet(8, 1)})
        assert r.status_code == 200
    finally:
        server.stop()


# -- hostile requests: each a JSON error, never a 500 or plain text, and the server keeps serving


def raw_exchange(url: str, data: bytes, wait: float = 10.0) -> bytes:
    """Send `data` on a fresh connection; everything the server answers until it closes (or `wait`)."""
    sock = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=wait)
    try:
        sock.sendall(data)
        answer, deadline = b"", time.monotonic() + 6 * wait
        while time.monotonic() < deadline and (chunk := sock.recv(65536)):
            answer += chunk
        return answer
    except TimeoutError:
        return answer
    finally:
        sock.close()


def raw_json(answer: bytes, status: int) -> dict[str, Any]:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 %d" % status), answer[:300]
    assert b"content-type: application/json" in head.lower(), head
    return dict(json.loads(body))


@pytest.mark.parametrize("field", ["content", "path", "edit"])
def test_a_lone_surrogate_is_a_json_400(live: Live, field: str) -> None:
    body = {"path": "a.py", "content": source_file(1), "edit": snippet(1, 2)}
    text = json.dumps(body).replace(json.dumps(body[field])[:-1], json.dumps(body[field])[:-1] + "\\ud800", 1)
    r = httpx.post(live.url + "/v1/apply", content=text.encode(), headers={"content-type": "application/json"})
    assert "lone surrogate" in error_of(r, 400, 1)
    message = "<code>x = 1\n</code><update>x = '\\ud800'\n</update>"
    content = message.replace("\n", "\\n")
    chat = f'{{"model": "applyedit", "messages": [{{"role": "user", "content": "{content}"}}]}}'
    r = httpx.post(
        live.url + "/v1/chat/completions", content=chat.encode(), headers={"content-type": "application/json"}
    )
    assert "lone surrogate" in error_of(r, 400, 1)
    still_serving(live)


def test_bad_chat_parts_and_nul_edits_are_400(live: Live) -> None:
    parts = [{"type": "text", "text": 5}, {"type": "text", "text": "<code>x\n</code><update>y\n</update>"}]
    chat = {"model": "applyedit", "messages": [{"role": "user", "content": parts}]}
    r = httpx.post(live.url + "/v1/chat/completions", json=chat)
    assert "not a string" in error_of(r, 400, 1)
    r = post_apply(live.url, {"path": "a.py", "content": source_file(1), "edit": "Replace x\x00 with y"})
    assert "NUL" in error_of(r, 400, 1)
    still_serving(live)


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n{}",
        b"\x16\x03\x01 garbage that is no request line\r\n\r\n",
        b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    ],
    ids=["content-length", "request-line", "two-lengths"],
)
def test_protocol_errors_are_json(live: Live, request_bytes: bytes) -> None:
    error = raw_json(raw_exchange(live.url, request_bytes), 400)["error"]
    assert error["exit_code"] == 1 and "bad HTTP request" in error["message"]
    still_serving(live)


def test_a_body_shorter_than_its_content_length_times_out(tokenizer: tuple[Path, Any]) -> None:
    server = Live(oracle_engine(tokenizer), Settings(body_timeout=1.0))
    try:
        t0 = time.monotonic()
        answer = raw_exchange(
            server.url,
            b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 1000\r\n\r\n{"path": ',
            wait=30,
        )
        assert time.monotonic() - t0 < 20  # the read timeout, not the client's patience, ended it
        assert "did not arrive" in raw_json(answer, 408)["error"]["message"]
        still_serving(server)
    finally:
        server.stop()


HTML_FILE = (
    'HTML = "<code>x</code>"\nNESTED = """\n<code>\n  <code>inner</code>\n</code>\n"""\n\n\ndef f(x):\n    return x\n'
)


def test_chat_round_trips_a_file_holding_code_tags(live: Live) -> None:
    message = f"<code>{HTML_FILE}</code>\n<update>{snippet(0, 0)}</update>"
    code, edit, _ = parse_chat([{"role": "user", "content": message}])
    assert code == HTML_FILE and edit == snippet(0, 0)
    update = "# ... existing code ...\ndef f(x):\n    return '<code>' + x + '</code>'\n"
    message = f"<instruction>Wrap it</instruction>\n<code>{HTML_FILE}</code>\n<update>{update}</update>"
    r = httpx.post(
        live.url + "/v1/chat/completions",
        timeout=60,
        json={"model": "applyedit", "path": "page.py", "messages": [{"role": "user", "content": message}]},
    )
    assert r.status_code == 200, r.text
    want = HTML_FILE.replace("    return x\n", "    return '<code>' + x + '</code>'\n")
    assert r.json()["choices"][0]["message"]["content"] == want
    still_serving(live)


# -- hostile requests on both engines: every limit checked at the edge, no run left behind, no stall,
# no prose in a file, no model file written; the server answers a valid request right after each


@pytest.fixture
def vllm_live(tokenizer: tuple[Path, Any]) -> Iterator[tuple[Live, FakeVllm]]:
    """The server on the vLLM backend's own code (models/vllmengine.py: its engine thread, waits and
    aborts) driving an engine with no model (vLLM is not installed here): a run never finishes until
    a test says how many steps it takes."""
    fake = FakeVllm(len(tokenizer[1]))
    server = Live(fake_vllm_engine(tokenizer, fake), Settings(queue=8, max_body=256 << 10))
    yield server, fake
    server.stop()


MODEL_RUN = {"path": "m.py", "content": source_file(9), "edit": snippet(9, 2), "options": {"answer": "model"}}


@pytest.mark.parametrize("engine", ["loop", "vllm"])
def test_request_limits_are_checked_at_the_edge(engine: str, live: Live, vllm_live: tuple[Live, FakeVllm]) -> None:
    """A timeout of 1e10 s (it overflowed vLLM's wait: a plain-text 500 and a run left in the engine),
    an endless or negative one, a draft length of 10**12: each a JSON 400 naming the field, nothing run."""
    server = live if engine == "loop" else vllm_live[0]
    for raw in (b"1e10", b"Infinity", b"NaN", b"-1", b"0"):
        body = json.dumps({**MODEL_RUN, "options": {"answer": "model", "timeout": 0}}).replace(
            '"timeout": 0', '"timeout": ' + raw.decode()
        )
        r = httpx.post(server.url + "/v1/apply", content=body, headers={"content-type": "application/json"})
        assert "options.timeout" in error_of(r, 400, 1), raw
    for options in ({"k": 10**12}, {"draft_k": 10**6}, {"k": -1}):
        assert "options." in error_of(post_apply(server.url, {**MODEL_RUN, "options": options}), 400, 1)
    message = f"<code>{source_file(9)}</code>\n<update>{snippet(9, 2)}</update>"
    chat = {"model": "applyedit", "timeout": 1e10, "messages": [{"role": "user", "content": message}]}
    assert "timeout" in error_of(httpx.post(server.url + "/v1/chat/completions", json=chat), 400, 1)
    health = httpx.get(server.url + "/health").json()
    assert health["served"] == 0 and health["active"] == 0
    still_serving(server)


def test_the_runs_refusals_name_the_requests_fields_not_the_clis_flags(
    live: Live, vllm_live: tuple[Live, FakeVllm]
) -> None:
    """Issue 60: what the run says of a setting names it as the request does. A snippet whose markers are
    another language's comments said "pass --language" (a flag no request has: /v1/apply's field is
    `options.language`, the chat route's `path`); a temperature on the vLLM backend said "--backend vllm
    decodes greedily: drop options.temperature", with no `param`."""
    foreign = {"path": "a.py", "content": source_file(3), "edit": snippet(3, 1).replace("# ...", "// ...")}
    said = error_of(post_apply(live.url, foreign), 400, 1)
    assert "(options.language names the file's language if a.py is not python)" in said and "--" not in said
    message = f"<code>{foreign['content']}</code>\n<update>{foreign['edit']}</update>"
    chat = {"model": "applyedit", "path": "a.py", "messages": [{"role": "user", "content": message}]}
    said = error_of(httpx.post(live.url + "/v1/chat/completions", json=chat, timeout=60), 400, 1)
    assert "(path names the file's language if a.py is not python)" in said and "--" not in said
    server, _ = vllm_live
    r = post_apply(server.url, {**MODEL_RUN, "options": {"answer": "model", "temperature": 0.5}})
    assert error_of(r, 400, 1) == "options.temperature: the vllm backend decodes greedily; drop it"
    assert r.json()["error"]["param"] == "options.temperature"
    still_serving(server)


def answer_tokens(tok: Any, body: dict[str, Any]) -> list[int]:
    """What a model that writes the right file for `body` writes (the file, its closing fence)."""
    from applyedit import textio

    after = expected(9, 2)
    return list(
        tok(after + textio.fence_for(body["content"], body["edit"]) + "\n", add_special_tokens=False)["input_ids"]
    )


def test_a_failed_vllm_run_leaves_nothing_in_the_engine(
    tokenizer: tuple[Path, Any], vllm_live: tuple[Live, FakeVllm]
) -> None:
    """A run stopped by its timeout, and one whose client went away, each take their request out of the
    engine before the run ends: the engine holds nothing after, /health says 0 active, and the next
    request is decoded alone and answered."""
    server, fake = vllm_live
    t0 = time.monotonic()
    r = post_apply(server.url, {**MODEL_RUN, "options": {"answer": "model", "timeout": 0.5}})
    assert "timeout" in error_of(r, 504, 2) and time.monotonic() - t0 < 0.5 + 10
    assert fake.held == {} and len(fake.aborted) == 1 and server.engine.model.held == 0
    assert httpx.get(server.url + "/health").json()["active"] == 0
    payload = json.dumps(MODEL_RUN).encode()  # no timeout: the client leaves while vLLM decodes
    sock = socket.create_connection(("127.0.0.1", int(server.url.rsplit(":", 1)[1])))
    sock.sendall(
        b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(payload)}\r\n\r\n".encode()
        + payload
    )
    wait_until(lambda: len(fake.held) == 1, "the run to reach the engine")
    assert httpx.get(server.url + "/health").json()["active"] == 1
    sock.close()
    wait_until(lambda: server.worker.cancelled == 1 and not server.worker.active, "the run to stop")
    assert fake.held == {} and len(fake.aborted) == 2 and server.engine.model.held == 0
    assert httpx.get(server.url + "/health").json()["active"] == 0
    fake.steps, fake.tokens = 3, answer_tokens(tokenizer[1], MODEL_RUN)
    r = post_apply(server.url, MODEL_RUN)
    assert r.status_code == 200, r.text
    assert r.json()["after"] == expected(9, 2) and r.json()["summary"]["backend"] == "vllm"


def repeated_context(functions: int) -> dict[str, Any]:
    """A file of `functions` alike functions and a snippet whose context stands in every one of them:
    its second reading weighs a place per function (each a parse of the whole file)."""
    content = "".join(
        f"def f{i}(x):\n    if x:\n        pass\n    else:\n        pass\n    return x\n\n\n" for i in range(functions)
    )
    edit = "# ... existing code ...\n        pass\n    else:\n        pass\n        pass\n    return x\n"
    edit += "# ... existing code ...\n"
    return {"path": "big.py", "content": content, "edit": edit}


def test_a_slow_merge_is_held_to_its_timeout_and_to_its_client(tokenizer: tuple[Path, Any]) -> None:
    """A large file with repeated context held the only worker for a minute (the merge ignored the
    timeout and the client): now the merge stops at the request's timeout, the request queued behind
    it is answered, a client that leaves mid-merge frees the worker, and the whole reading, with no
    timeout, ends in a few seconds (refused: the context stands everywhere)."""
    server = Live(oracle_engine(tokenizer), Settings(max_body=8 << 20))
    try:
        slow = {**repeated_context(1000), "options": {"timeout": 1.0}}
        with ThreadPoolExecutor(2) as pool:
            t0 = time.monotonic()
            first = pool.submit(post_apply, server.url, slow)
            wait_until(lambda: server.worker.running is not None, "the slow request to run")
            quick = pool.submit(
                post_apply, server.url, {"path": "q.py", "content": source_file(3), "edit": snippet(3, 1)}
            )
            assert "timeout" in error_of(first.result(), 504, 2)
            assert quick.result().json()["after"] == expected(3, 1)
            assert time.monotonic() - t0 < 1.0 + 10  # the timeout, plus a few seconds for a busy machine
        t0 = time.monotonic()
        r = post_apply(server.url, repeated_context(1000))
        assert "too many to tell apart" in error_of(r, 400, 1) and time.monotonic() - t0 < 60
        payload = json.dumps(repeated_context(8000)).encode()  # 64,000 lines: seconds of reading
        sock = socket.create_connection(("127.0.0.1", int(server.url.rsplit(":", 1)[1])))
        sock.sendall(
            b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        wait_until(lambda: server.worker.running is not None, "the reading to start")
        time.sleep(0.3)
        sock.close()
        wait_until(lambda: server.worker.cancelled == 1 and server.worker.running is None, "the reading to stop", 15)
        still_serving(server)
    finally:
        server.stop()


def test_prose_naming_a_tag_never_reaches_the_file(live: Live) -> None:
    """ "The file is in the <code> block." before the real blocks: the file comes back without the prose
    (a tag opens a block only at a line's start or after another block); where every tag stands inside
    a line and the message reads two ways, it is refused."""
    message = f"The file is in the <code> block.\n<code>\n{source_file(3)}</code>\n<update>\n{snippet(3, 1)}</update>"
    r = httpx.post(
        live.url + "/v1/chat/completions",
        json={"model": "applyedit", "path": "a.py", "messages": [{"role": "user", "content": message}]},
    )
    assert r.status_code == 200, r.text
    assert r.json()["choices"][0]["message"]["content"] == expected(3, 1)
    inline = f"See the <code> block: <code>{source_file(3)}</code> <update>{snippet(3, 1)}</update>"
    r = httpx.post(
        live.url + "/v1/chat/completions",
        json={"model": "applyedit", "path": "a.py", "messages": [{"role": "user", "content": inline}]},
    )
    assert "on a line of its own" in error_of(r, 400, 1)
    assert parse_chat([{"role": "user", "content": f"Apply: <code>{source_file(3)}</code> <update>x</update>"}])[0] == (
        source_file(3)
    )
    still_serving(live)


def test_a_request_never_prepares_a_model(live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request asking for the draft model where it is not prepared: a JSON 503 that says how to prepare
    it, and nothing written into the model cache (it was assembled there, 491 MB, during a request)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("APPLYEDIT_HOME", str(home))
    for proposer in ("draft", "hybrid"):
        r = post_apply(live.url, {**MODEL_RUN, "options": {"answer": "model", "proposer": proposer}})
        assert "applyedit model prepare --draft" in error_of(r, 503, 2)
    assert [p for p in home.rglob("*")] == []
    still_serving(live)


def test_an_80_mb_body_gets_its_413(tokenizer: tuple[Path, Any]) -> None:
    """A body ten times the limit (it got a connection reset): the whole body is read and dropped, then
    the 413 arrives."""
    server = Live(oracle_engine(tokenizer), Settings())
    try:
        big = b'{"path": "a.py", "content": "' + b"x" * (80 << 20) + b'", "edit": "y"}'
        request = urllib.request.Request(server.url + "/v1/apply", big, {"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as answer:  # it was a ConnectionResetError
            urllib.request.urlopen(request, timeout=120)
        assert (
            answer.value.code == 413
            and "exceeds the server's limit" in json.loads(answer.value.read())["error"]["message"]
        )
        still_serving(server)
    finally:
        server.stop()


def test_errors_name_the_request_path_not_the_servers_folder(live: Live) -> None:
    r = post_apply(live.url, {"path": "src/a.py", "content": "x = 1\n" * 30_000, "edit": "Replace x with y"})
    message = error_of(r, 400, 1)
    assert message.startswith("src/a.py: the prompt") and "applyedit-serve-" not in message, message
    assert tempfile.gettempdir() not in message
    still_serving(live)


@pytest.mark.parametrize(
    "field, value",
    [
        ("n", 2),
        ("tools", [{"type": "function", "function": {"name": "f", "parameters": {}}}]),
        ("tool_choice", "required"),
        ("logprobs", True),
        ("top_logprobs", 3),
        ("response_format", {"type": "json_object"}),
    ],
)
def test_chat_refuses_what_it_cannot_honour(live: Live, field: str, value: Any) -> None:
    """Fields an OpenAI client sends that this server cannot honour are a 400 in OpenAI's shape naming
    the field (they were ignored); their harmless values are accepted."""
    message = f"<code>{source_file(3)}</code>\n<update>{snippet(3, 1)}</update>"
    chat = {"model": "applyedit", "path": "a.py", "messages": [{"role": "user", "content": message}]}
    r = httpx.post(live.url + "/v1/chat/completions", json={**chat, field: value})
    error_of(r, 400, 1)
    assert r.json()["error"]["param"] == field and r.json()["error"]["code"] == "unsupported_parameter"
    ok = httpx.post(live.url + "/v1/chat/completions", json={**chat, "n": 1, "logprobs": False, "tool_choice": "none"})
    assert ok.status_code == 200 and ok.json()["choices"][0]["message"]["content"] == expected(3, 1)


def tiny_torch_engine(tokenizer: tuple[Path, Any]) -> api.Engine:
    """The real torch backend (TorchModel: its chunked prefill) on a tiny random Qwen2 with the real
    tokenizer's vocabulary; its outputs are noise, which a test of cancelling never reads."""
    from fakes import tiny_qwen

    from applyedit.models.torchmodel import TorchModel

    path, tok = tokenizer
    engine = api.Engine(
        modelstore.resolve(None), path, tok, "cpu", pick_dtype("fp32", "cpu"), context_length(path), cost=prior()
    )
    eos = tok.convert_tokens_to_ids("<|im_end|>")
    engine._model = TorchModel(model=tiny_qwen(7, len(tok), 8192), eos_ids=frozenset({eos}))  # type: ignore[assignment]
    return engine


def test_a_client_leaving_during_the_prefill_frees_the_worker(tokenizer: tuple[Path, Any]) -> None:
    """The prefill stops at the next chunk boundary once the client is gone, not at its end."""
    engine = tiny_torch_engine(tokenizer)
    layer = engine.model.model.model.layers[0]
    chunks: list[float] = []
    hook = layer.register_forward_pre_hook(lambda *_: (chunks.append(time.monotonic()), time.sleep(0.4)) and None)
    server = Live(engine, Settings())
    try:
        content = source_file(11, 600)  # ~5,000 prompt tokens: 20 prefill chunks, 8 s at 0.4 s a chunk
        body = {"path": "big.py", "content": content, "edit": "Replace x with y", "options": {"answer": "model"}}
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(server.url + "/v1/apply", json=body, timeout=1.5)  # the client leaves mid-prefill
        for _ in range(300):
            if server.worker.served == 1:
                break
            time.sleep(0.05)
        assert server.worker.served == 1 and server.worker.cancelled == 1
        assert len(chunks) < 12, len(chunks)  # the prefill did not run to its end (20 chunks)
    finally:
        hook.remove()
        server.stop()


def polluted_cache_dir(root: Path, outside: Path) -> Path:
    """A --cache-dir key folder holding what a crash, a disk error or a hostile user could leave."""
    from applyedit.models.promptcache import MAGIC

    folder = root / "key"
    folder.mkdir(parents=True)
    (outside / "victim.snap").write_bytes(b"not yours")
    (folder / "link.snap").symlink_to(outside / "victim.snap")
    (folder / "dir.snap").mkdir()
    (folder / "dir.snap" / "inner").write_text("x")
    (folder / "header.snap").write_bytes(MAGIC + (1 << 62).to_bytes(8, "little") + b"{")
    (folder / "old.snap").write_bytes((10).to_bytes(8, "little") + b'{"ids": []}')
    (folder / "empty.snap").write_bytes(b"")
    return folder


def test_serve_starts_and_answers_whatever_the_cache_dir_holds(tokenizer: tuple[Path, Any], tmp_path: Path) -> None:
    from applyedit.models.promptcache import DiskStore

    outside = tmp_path / "outside"
    outside.mkdir()
    folder = polluted_cache_dir(tmp_path / "cache", outside)
    codec = (lambda ids: json.dumps(list(ids)).encode(), lambda data: tuple(json.loads(data)))
    cache = PromptCache(64 << 20, disk=DiskStore(folder, 64 << 20, *codec))
    server = Live(oracle_engine(tokenizer), Settings(), cache)
    try:
        body = {"path": "a.py", "content": source_file(12, 200), "edit": snippet(12, 3), "options": {"answer": "model"}}
        assert post_apply(server.url, body).json()["after"] == expected(12, 3, 200)
        assert sorted(p.name for p in folder.iterdir()) == [p.name for p in folder.glob("*.snap")]  # only good ones
        assert len(list(folder.glob("*.snap"))) == 1 and (outside / "victim.snap").read_bytes() == b"not yours"
        # a restarted server finds the good one; damage it and the next restart drops it, answers stay right
        (snap,) = folder.glob("*.snap")
        data = bytearray(snap.read_bytes())
        data[-3] ^= 0x01
        snap.write_bytes(bytes(data))
        cache2 = PromptCache(64 << 20, disk=DiskStore(folder, 64 << 20, *codec))
        server2 = Live(oracle_engine(tokenizer), Settings(), cache2)
        try:
            second = post_apply(server2.url, {**body, "edit": snippet(12, 5)}).json()
            assert second["after"] == expected(12, 5, 200) and second["report"]["prompt_cache"]["reused"] == 0
        finally:
            server2.stop()
    finally:
        server.stop()


# -- the CLI as the server's client


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "applyedit", *args],
        cwd=cwd,
        capture_output=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_cli_uses_the_server(live: Live, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(source_file(1))
    (tmp_path / "edit.txt").write_text(snippet(1, 2))
    r = cli("app.py", "--edit", "edit.txt", "--server", live.url, "--answer", "model", cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    served = post_apply(live.url, {"path": "app.py", "content": source_file(1), "edit": snippet(1, 2)}).json()
    assert r.stdout.decode() == served["diff"]
    assert subprocess.run(["git", "apply", "--check", "-"], input=r.stdout, cwd=tmp_path).returncode == 0
    # APPLYEDIT_SERVER, --in-place, --report-json with the reused prompt tokens
    r = cli(
        "app.py",
        "--edit",
        "edit.txt",
        "--in-place",
        "--report-json",
        "r.json",
        "--answer",
        "model",
        cwd=tmp_path,
        env={"APPLYEDIT_SERVER": live.url},
    )
    assert r.returncode == 0, r.stderr.decode()
    assert (tmp_path / "app.py").read_text() == expected(1, 2)
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["report"]["prompt_cache"]["reused"] > 0 and b"prompt cache:" in r.stderr
    # a refusal on the server is the CLI's exit code, and nothing is written
    (tmp_path / "b.py").write_text("a\n")
    r = cli(
        "b.py",
        "--edit-text",
        "Replace a with # ... existing code ...",
        "--in-place",
        "--server",
        live.url,
        cwd=tmp_path,
    )
    assert r.returncode == 3 and b"lazy marker" in r.stderr and (tmp_path / "b.py").read_text() == "a\n"


def test_cli_through_a_server_refuses_as_a_local_run_does(live: Live, tmp_path: Path) -> None:
    """A snippet refused for its readings: `--server` writes the same --report-json as a local run (it
    wrote none), and `--reading 0` gets the local run's message (it got "options.reading: Input should be
    greater than or equal to 1")."""
    (tmp_path / "t.py").write_text(TWINS)
    (tmp_path / "edit.txt").write_text(TWINS_EDIT)
    reports = {}
    for where, more in (("local", ()), ("server", ("--server", live.url))):
        r = cli("t.py", "--edit", "edit.txt", "--report-json", f"{where}.json", *more, cwd=tmp_path)
        assert r.returncode == 1 and (tmp_path / "t.py").read_text() == TWINS, r.stderr.decode()
        reports[where] = json.loads((tmp_path / f"{where}.json").read_text())
    local, remote = reports["local"], reports["server"]
    assert remote["readings"] == local["readings"] == 2 and remote["places"] == local["places"]
    assert remote["exit_code"] == local["exit_code"] == 1 and remote["refused"] == "server: " + local["refused"]
    said = {}
    for where, more in (("local", ()), ("server", ("--server", live.url))):
        r = cli("t.py", "--edit", "edit.txt", "--reading", "0", *more, cwd=tmp_path)
        assert r.returncode == 1, r.stderr.decode()
        said[where] = r.stderr.decode()
    assert "--reading 0: the edit has 2 readings" in said["local"]
    assert said["server"] == said["local"].replace("--reading 0:", "server: --reading 0:", 1)


def test_cli_through_a_server_reads_the_edit_in_the_edit_format_given(live: Live, tmp_path: Path) -> None:
    """`--edit-format` through `--server` (issue 61): the server reads the edit in the format named (it is sent
    as /v1/apply's `options.edit_format`), and the CLI holds the answer to that kind's checks and reports
    that kind, as a local run does. It read the edit by its shape: an update snippet sent as an instruction
    (the oracle leaves the file as it is; --allow-unchanged) was checked and reported as a snippet's answer
    (`kind` "snippet", "the output equals the original although the edit is an update snippet")."""
    (tmp_path / "app.py").write_text(source_file(1))
    (tmp_path / "edit.txt").write_text(snippet(1, 2))
    args = ("app.py", "--edit", "edit.txt", "--server", live.url, "--report-json", "r.json", "--allow-unchanged")
    r = cli(*args, "--edit-format", "instruction", "--answer", "model", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == b"", r.stderr.decode()
    assert json.loads((tmp_path / "r.json").read_text())["kind"] == "instruction"
    assert b"although the edit is an instruction" in r.stderr
    r = cli(*args, "--edit-format", "snippet", "--answer", "model", cwd=tmp_path)  # the same edit as a snippet
    assert r.returncode == 0 and json.loads((tmp_path / "r.json").read_text())["kind"] == "snippet"
    # a SEARCH/REPLACE block with a lazy marker, named as one: read by the server's snippet reader, no model
    block = (
        "<<<<<<< SEARCH\ndef f1_2(x):\n    return x + 2\n=======\n"
        "def f1_2(x, y=0):\n    # ... existing code ...\n>>>>>>> REPLACE\n"
    )
    (tmp_path / "block.txt").write_text(block)
    forwards = live.engine.model.num_forwards
    r = cli(
        "app.py",
        "--edit",
        "block.txt",
        "--server",
        live.url,
        "--edit-format",
        "search-replace",
        "--in-place",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr.decode()
    assert (tmp_path / "app.py").read_text() == source_file(1).replace("def f1_2(x):", "def f1_2(x, y=0):")
    assert live.engine.model.num_forwards == forwards
    r = cli("app.py", "--edit", "block.txt", "--server", live.url, "--edit-format", "diff", cwd=tmp_path)
    assert r.returncode == 1 and "--edit-format diff: the edit is not a unified diff" in r.stderr.decode()


def test_cli_with_an_unreachable_server_fails_cleanly(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    r = cli(
        "app.py", "--edit-text", "Replace x with y", "--in-place", "--server", f"http://127.0.0.1:{port}", cwd=tmp_path
    )
    err = r.stderr.decode()
    assert r.returncode == 2 and "cannot reach the applyedit server" in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / "app.py").read_text() == "x = 1\n" and r.stdout == b""


def test_serve_refuses_other_hosts_without_a_token_and_bench_warm_needs_its_inputs(tmp_path: Path) -> None:
    r = cli("serve", "--host", "0.0.0.0", cwd=tmp_path)
    assert r.returncode == 1 and b"--token" in r.stderr and len(r.stderr.decode().strip().splitlines()) == 1
    r = cli("bench", str(tmp_path), "--warm", "b.txt", cwd=tmp_path)
    assert r.returncode == 1 and b"--warm EDIT_B needs a FILE and --edit EDIT_A" in r.stderr


def test_bench_warm_summary() -> None:
    from applyedit.tools import benchwarm

    def phase(wall: float, reused: int, sha: str) -> dict[str, Any]:
        return {
            "wall_s": wall,
            "prefill_s": 1.0,
            "decode_s": 2.0,
            "reused": reused,
            "prompt_tokens": 1000,
            "diff_sha256": sha,
        }

    runs = [
        {
            "repeat": 1,
            "cold_b": phase(30, 0, "b"),
            "server_start_s": 5.0,
            "warm_first_a": phase(20, 0, "a"),
            "warm_b": phase(10, 960, "b"),
            "warm_repeat_a": phase(9, 990, "a"),
            "cold_a": phase(31, 0, "a"),
        },
        {
            "repeat": 2,
            "cold_b": phase(34, 0, "b"),
            "server_start_s": 6.0,
            "warm_first_a": phase(22, 0, "a"),
            "warm_b": phase(12, 960, "x"),
            "warm_repeat_a": phase(9, 990, "a"),
            "cold_a": phase(33, 0, "a"),
        },
        {"repeat": 3, "cold_b": phase(32, 0, "b")},
    ]  # cut short after its first run
    report = benchwarm.summarise({"file": "f.py", "lines": 300, "model_args": [], "runs": runs})
    med = report["medians"]
    assert med["cold_b"]["wall_s"] == 32 and med["cold_b"]["n"] == 3 and med["warm_b"]["n"] == 2
    assert report["warm_b_reused_share"] == 0.96 and report["warm_b_speedup_vs_cold_b"] == 32 / 11
    assert report["warm_first_a_saving_s"] == 32 - 21
    assert report["same_output"] == {"warm_first_a": True, "warm_b": False, "warm_repeat_a": True}
    text = "\n".join(benchwarm.render(report))
    assert "2.91x faster" in text and "warm_b NO" in text and "96.0%" in text


# -- real models behind the server: the tests above run the oracle; these run the tiny torch model on the
# real torch backend, and the real default model on llama.cpp


JSON_FILE = (
    "import json\n\n\ndef load(path):\n    with open(path) as f:\n        return json.load(f)\n\n\n"
    "def save(path, data):\n    with open(path, 'w') as f:\n        json.dump(data, f)\n\n\n"
    + source_file(9, 160)  # enough lines for the prompt cache's blocks
    + "def count(items):\n    return len(items)\n\n\ndef total(prices):\n    return sum(prices)\n"
)
COUNT_EDIT = (
    "# ... existing code ...\ndef count(items):\n    return len(list(items))\n\n\ndef total(prices):\n"
    "# ... existing code ...\n"
)
TOTAL_EDIT = "# ... existing code ...\ndef total(prices):\n    return sum(prices, 0.0)\n"


def test_tiny_torch_model_behind_the_server(tokenizer: tuple[Path, Any]) -> None:
    """The real torch backend (TorchModel, a tiny random Qwen2) served: its tokens through a warm prompt
    cache equal a cold server's full prefill; its noise ends at the budget, which `fallback: merge`
    answers with the snippet's merge (the model's tokens still come back); the openai client runs it too
    (to its budget of 8 tokens, then the default fallback answers)."""
    warm = Live(tiny_torch_engine(tokenizer), Settings(), PromptCache(64 << 20))
    cold = Live(tiny_torch_engine(tokenizer), Settings())  # no prompt cache: every prompt prefilled in full
    options = {"answer": "model", "fallback": "merge", "max_new_tokens": 12}
    try:
        first = post_apply(warm.url, {"path": "t.py", "content": JSON_FILE, "edit": COUNT_EDIT, "options": options})
        assert first.status_code == 200, first.text
        data = first.json()
        assert data["report"]["answer"]["model_ran"] is True and 0 < len(data["tokens"]) <= 12
        assert data["answer"] == "merge"
        assert data["after"] == JSON_FILE.replace("return len(items)", "return len(list(items))")
        again = {"path": "t.py", "content": JSON_FILE, "edit": TOTAL_EDIT, "options": options}
        second, alone = post_apply(warm.url, again).json(), post_apply(cold.url, again).json()
        assert second["after"] == alone["after"] == JSON_FILE.replace("sum(prices)", "sum(prices, 0.0)")
        assert second["report"]["prompt_cache"]["reused"] > 0 and alone["report"]["prompt_cache"]["reused"] == 0
        assert second["report"]["answer"]["model_ran"] is True and len(second["tokens"]) > 0
        assert second["tokens"] == alone["tokens"]  # the reused prompt decodes as a full prefill does
        openai = pytest.importorskip("openai")
        client = openai.OpenAI(base_url=warm.url + "/v1", api_key="unused", max_retries=0, timeout=300)
        message = f"<code>{JSON_FILE}</code>\n<update>{TOTAL_EDIT}</update>"
        reply = client.chat.completions.create(
            model="applyedit",
            messages=[{"role": "user", "content": message}],
            max_tokens=8,
            extra_body={"path": "t.py", "answer": "model"},
        )
        # The model ran to its budget of 8 tokens; the default fallback answered with the merge.
        assert 0 < reply.usage.completion_tokens <= 8
        assert reply.choices[0].message.content == JSON_FILE.replace("sum(prices)", "sum(prices, 0.0)")
        health = httpx.get(warm.url + "/health").json()
        assert health["status"] == "ok" and health["served"] == 3 and health["prompt_cache"]["hits"] >= 1
    finally:
        warm.stop()
        cold.stop()


@pytest.fixture(scope="module")
def gguf_server(tokenizer: tuple[Path, Any]) -> Iterator[Live]:
    """The real default model (its GGUF on llama.cpp) behind the server, with a prompt cache."""
    pytest.importorskip("llama_cpp")
    server = Live(api.Engine.open(backend="llamacpp"), Settings(), PromptCache(512 << 20))
    yield server
    server.stop()


@pytest.mark.model
@pytest.mark.timeout(1800)
def test_real_model_behind_the_server_openai_client_and_prompt_cache(gguf_server: Live) -> None:
    """The official openai client gets the real model's edit (the model ran: completion tokens), and a
    second edit of the same file reuses the cached prompt and is still the hand-written expected file."""
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=gguf_server.url + "/v1", api_key="unused", max_retries=0, timeout=900)
    message = f"<code>{JSON_FILE}</code>\n<update>{COUNT_EDIT}</update>"
    reply = client.chat.completions.create(
        model="applyedit",
        messages=[{"role": "user", "content": message}],
        extra_body={"path": "m.py", "answer": "model"},
    )
    assert reply.choices[0].message.content == JSON_FILE.replace("return len(items)", "return len(list(items))")
    assert reply.choices[0].finish_reason == "stop" and reply.usage.completion_tokens > 0
    notes = (reply.model_extra or {})["applyedit"]["notes"]
    assert not any("answered with the snippet's merge" in n for n in notes), notes  # the model's own file
    r = httpx.post(
        gguf_server.url + "/v1/apply",
        timeout=900,
        json={
            "path": "m.py",
            "content": JSON_FILE,
            "edit": TOTAL_EDIT,
            "options": {"answer": "model", "fallback": "none"},
        },
    )
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["after"] == JSON_FILE.replace("sum(prices)", "sum(prices, 0.0)") and data["answer"] == "model"
    assert data["report"]["answer"]["model_ran"] is True and len(data["tokens"]) > 0
    stats = data["report"]["prompt_cache"]
    assert stats["reused"] > 0.5 * stats["prompt_tokens"], stats  # the system prompt and the file, cached
