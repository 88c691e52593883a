"""`applyedit serve --engine vllm` for real: uvicorn on a free loopback port, real clients (httpx, the
official `openai` client), and a vLLM engine with applyedit's drafter behind it, on a tiny random
Qwen2 (tests/test_vllm_engine.py). A random model writes no file, so its runs end in the product's own
refusals; with `fallback: merge` the snippet's merge answers and the response still carries the
model's tokens, which is what the load test compares: 4 clients x 10 requests decoded together give
the tokens each request gets alone. Skipped where vLLM is not installed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "vllm", reason="needs vLLM (requirements/vllm-cpu.txt or requirements/vllm-cuda.txt, in a venv of its own)"
)
pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from test_server import Live, expected, post_apply, snippet, source_file  # noqa: E402
from test_vllm_engine import tiny_model  # noqa: E402

from applyedit.models.engine import Engine  # noqa: E402
from applyedit.serve.app import Settings  # noqa: E402


@pytest.fixture(scope="module")
def live(tokenizer: tuple[Path, Any], tmp_path_factory: Any) -> Iterator[Live]:
    _, tok = tokenizer
    folder = tiny_model(tmp_path_factory.mktemp("tiny-serve"), tok, 3)
    engine = Engine.open(str(folder), "cpu", None, backend="vllm")
    _ = engine.model  # `serve` loads the engine before the first request
    server = Live(engine, Settings(queue=64, max_body=256 << 10))
    yield server
    server.stop()


def model_run(c: int, i: int, budget: int) -> dict[str, Any]:
    """A request the model must run (`answer: model`) whose refusal the snippet's merge answers."""
    options = {"answer": "model", "fallback": "merge", "max_new_tokens": budget}  # (merge: the default)
    return {"path": f"pkg/m{c}.py", "content": source_file(c, 40 + 8 * c), "edit": snippet(c, i), "options": options}


def test_apply_runs_on_vllm_and_reports_it(live: Live) -> None:
    """The merge-first answer is unchanged; a model run goes to vLLM, and the report says so."""
    merged = post_apply(live.url, {"path": "a.py", "content": source_file(1), "edit": snippet(1, 3)}).json()
    assert merged["after"] == expected(1, 3) and merged["answer"] == "merge" and merged["tokens"] == []
    r = post_apply(live.url, model_run(1, 3, 40))
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["after"] == expected(1, 3, 48) and data["answer"] == "merge"
    assert len(data["tokens"]) == 40 and data["summary"]["backend"] == "vllm"
    assert data["summary"]["tokens"] == 40 and 1 <= data["summary"]["passes"] <= 40
    assert any("answered with the snippet's merge" in note for note in data["notes"])
    # without the fallback the refusal is the CLI's: the budget ran out (exit 2), an unusable output (422,
    # as app.status_for answers a DecodeError), not a server failure (500)
    body = model_run(1, 3, 40)
    body["options"]["fallback"] = "none"
    refused = post_apply(live.url, body)
    assert refused.status_code == 422 and refused.json()["error"]["exit_code"] == 2
    assert "budget of 40 tokens" in refused.json()["error"]["message"]
    health = httpx.get(live.url + "/health").json()
    assert health["backend"] == "vllm" and health["served"] == 3


def test_openai_client(live: Live) -> None:
    """The chat endpoint on vLLM: the merge's answer, a model run (refused, the merge answers), the errors."""
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=live.url + "/v1", api_key="unused", max_retries=0)
    message = f"<code>{source_file(2)}</code>\n<update>{snippet(2, 4)}</update>"
    reply = client.chat.completions.create(
        model="applyedit", messages=[{"role": "user", "content": message}], extra_body={"path": "mod.py"}
    )
    assert reply.choices[0].message.content == expected(2, 4)
    # the model runs on vLLM (24 tokens: the budget), its output is refused, and the merge answers
    ran = client.chat.completions.create(
        model="applyedit",
        max_tokens=24,
        messages=[{"role": "user", "content": message}],
        extra_body={"path": "mod.py", "answer": "model"},
    )
    assert ran.choices[0].message.content == expected(2, 4) and ran.usage.completion_tokens == 24
    with pytest.raises(openai.NotFoundError, match="unknown model 'gpt-4o'"):
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": message}])


def test_four_clients_ten_requests_get_what_they_get_alone(live: Live) -> None:
    """40 model runs from 4 clients at once (vLLM batches them) give each request's tokens served alone."""
    requests = [model_run(c, i % 9, 24 + 8 * (i % 5)) for c in range(4) for i in range(10)]
    alone = []
    for body in requests:
        r = post_apply(live.url, body)
        assert r.status_code == 200, r.text
        alone.append(r.json()["tokens"])

    def client(c: int) -> list[tuple[int, list[int], str]]:
        out = []
        with httpx.Client(timeout=600) as session:
            for body in requests[c * 10 : (c + 1) * 10]:
                r = session.post(live.url + "/v1/apply", json=body)
                out.append((r.status_code, r.json().get("tokens", []), r.json().get("after", r.text)))
        return out

    peak = 0
    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(client, c) for c in range(4)]
        while not all(f.done() for f in futures):
            peak = max(peak, httpx.get(live.url + "/health").json()["active"])
            time.sleep(0.05)
        results = [x for f in futures for x in f.result()]
    assert [status for status, _, _ in results] == [200] * 40
    assert [tokens for _, tokens, _ in results] == alone
    for body, (_, _, after) in zip(requests, results, strict=True):
        c, i = int(body["path"][5]), int(body["edit"].split("return x * ")[1].split("\n")[0]) - 100
        assert after == expected(c, i, 40 + 8 * c)
    assert peak > 1, "the requests never ran at the same time"
