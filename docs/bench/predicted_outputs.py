"""Predicted Outputs on the service: a whole-file rewrite asked as a general chat, with the file as OpenAI's
`prediction` and without it, through `applyedit serve` and the official `openai` client.

For each fixture case (default: three small instruction cases), the same request three times per
repeat, interleaved: without a prediction, with the file in the fence the answer is asked in as
`prediction` ("fenced"), and with the bare file as `prediction` ("bare", as editors send it: the answer
starts with the fence, which the prediction does not hold). Each request: a system message asking for
the whole updated file in one fenced block, the case's edit and its file in the user message,
temperature 0. The server runs in this process on the default engine (the CPU
default: llama.cpp on the packaged GGUF) with no prompt cache, and the model's cache is emptied
before each request, so every request prefills its whole prompt. Per request it records the
completion tokens, the verify passes, the server's prefill and decode times (the `applyedit` field of
the answer), the wall time seen by the client, and the accepted and rejected prediction tokens of
the usage; per case it checks that both answers are the same text (greedy decoding: they must be).

    .venv/bin/python docs/bench/predicted_outputs.py --json docs/bench/predicted-outputs.jsonl

prints a Markdown table per form: decode tokens per second and passes without and with the prediction,
their ratios, the share of drafted prediction tokens the model accepted, and the share of the answer's
tokens that came from accepted prediction tokens. Timings: run it on a quiet
machine, and say so in the record when it was not. Knows nothing the product does not: the model,
the server and the client are the product's and the openai package's.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CASES = ("py_change_constant_instr", "go_change_timeout_instr", "ts_rename_interface_instr")
SYSTEM = (
    "You edit source files. Apply the user's edit to the file and answer with the complete updated file "
    "in one fenced code block, and nothing else."
)


def start(engine: Any) -> tuple[str, Any]:
    """`applyedit serve`'s app on a free loopback port in this process: (its OpenAI base URL, the server)."""
    import uvicorn

    from applyedit.serve.app import Settings, create_app, uvicorn_config

    app = create_app(engine, Settings())
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    server = uvicorn.Server(uvicorn_config(app))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return url, server


def request(case: Path) -> tuple[list[dict[str, str]], dict[str, str]]:
    """The case's messages and its predictions by form: "fenced" (its file in the fence the answer is
    asked in) and "bare" (the file alone)."""
    before = next(case.glob("before.*"))
    text = before.read_text(encoding="utf-8").replace("\r\n", "\n")
    edit = (case / "edit.txt").read_text(encoding="utf-8").strip()
    fenced = f"```{before.suffix.lstrip('.')}\n{text}```"
    user = f"Edit: {edit}\n\nFile {before.name}:\n\n{fenced}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}], {"fenced": fenced, "bare": text}


def ask(
    client: Any, engine: Any, messages: list[dict[str, str]], prediction: str | None, budget: int
) -> dict[str, Any]:
    engine.model.reset()  # every request prefills its whole prompt
    extra = {} if prediction is None else {"prediction": {"type": "content", "content": prediction}}
    t0 = time.perf_counter()
    reply = client.chat.completions.create(
        model="applyedit", messages=messages, temperature=0, max_tokens=budget, **extra
    )
    wall = time.perf_counter() - t0
    own = (reply.model_extra or {})["applyedit"]
    details = reply.usage.completion_tokens_details
    return {
        "text": reply.choices[0].message.content,
        "finish_reason": reply.choices[0].finish_reason,
        "tokens": reply.usage.completion_tokens,
        "prompt_tokens": reply.usage.prompt_tokens,
        "passes": own["passes"],
        "prefill_s": own["prefill_s"],
        "decode_s": own["decode_s"],
        "wall_s": round(wall, 4),
        "accepted": details.accepted_prediction_tokens if details else 0,
        "rejected": details.rejected_prediction_tokens if details else 0,
        "prediction_tokens": own["prediction_tokens"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", default=list(CASES), help="fixture case names (fixtures/NAME)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=1500)
    parser.add_argument("--json", type=Path, help="append every request's record here as it ends (JSON lines)")
    parser.add_argument("--forms", default="fenced,bare", help="the prediction forms, each against none")
    args = parser.parse_args()

    import openai

    from applyedit.models.engine import Engine

    engine = Engine.open()
    url, server = start(engine)
    print(f"model {engine.source.name} via {engine.backend} on {engine.device}, {engine.threads} threads")
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=3600)
    records: list[dict[str, Any]] = []
    try:
        forms = ["none", *args.forms.split(",")]
        for name in args.cases:
            messages, predictions = request(ROOT / "fixtures" / name)
            for repeat in range(args.repeats):
                for form in forms:
                    got = ask(client, engine, messages, predictions.get(form), args.max_tokens)
                    records.append({"case": name, "repeat": repeat, "form": form, **got})
                    if args.json:  # written as it goes: a run stopped early keeps what it measured
                        with args.json.open("a", encoding="utf-8") as out:
                            out.write(json.dumps(records[-1]) + "\n")
                    print(
                        f"  {name} repeat {repeat + 1} prediction {form}: "
                        f"{got['tokens']} tokens in {got['passes']} passes, decode {got['decode_s']:.2f} s, "
                        f"accepted {got['accepted']}, rejected {got['rejected']}",
                        flush=True,
                    )
    finally:
        server.should_exit = True
    for form in forms[1:]:
        print(f"\nprediction {form}:")
        for line in table(records, form):
            print(line)


def _form(record: dict[str, Any]) -> str:
    """A record's prediction form; the first records said only with or without (the fenced form)."""
    return record.get("form") or ("fenced" if record.get("prediction") else "none")


def table(records: list[dict[str, Any]], form: str = "fenced") -> list[str]:
    """The Markdown table of one prediction form against none: per case, medians over its repeats."""
    lines = [
        "| case | tokens | same text | passes without / with | decode tok/s without / with | ratio "
        "| wall s without / with | accepted share | answer from prediction |",
        "|---|---:|:---:|---:|---:|---:|---:|---:|---:|",
    ]
    ratios = []
    for case in dict.fromkeys(r["case"] for r in records):
        plain = [r for r in records if r["case"] == case and _form(r) == "none"]
        pred = [r for r in records if r["case"] == case and _form(r) == form]
        if not plain or not pred:
            continue

        def median(rows: list[dict[str, Any]], key: str) -> float:
            return statistics.median(r[key] for r in rows)

        speed = [median(rows, "tokens") / median(rows, "decode_s") for rows in (plain, pred)]
        ratios.append(speed[1] / speed[0])
        drafted = sum(r["accepted"] + r["rejected"] for r in pred)
        share = sum(r["accepted"] for r in pred) / drafted if drafted else 0.0
        same = all(a["text"] == b["text"] for a, b in zip(plain, pred, strict=True))
        kept = sum(r["accepted"] for r in pred) / max(sum(r["tokens"] for r in pred), 1)
        lines.append(
            f"| {case} | {median(plain, 'tokens'):.0f} | {'yes' if same else 'NO'} "
            f"| {median(plain, 'passes'):.0f} / {median(pred, 'passes'):.0f} "
            f"| {speed[0]:.1f} / {speed[1]:.1f} | {speed[1] / speed[0]:.2f}x "
            f"| {median(plain, 'wall_s'):.1f} / {median(pred, 'wall_s'):.1f} | {share:.0%} | {kept:.0%} |"
        )
    lines.append("")
    lines.append(f"decode speed with the prediction / without: {', '.join(f'{r:.2f}x' for r in ratios)}")
    return lines


if __name__ == "__main__":
    main()
