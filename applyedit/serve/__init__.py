"""`applyedit serve` and its client: the HTTP API over one loaded model (app.py), its
OpenAI-compatible chat route (chat.py), the worker that runs one request at a time (worker.py), and
the CLI's side of `--server` (client.py). Imported only when `serve` or `--server` runs; the prompt
cache the server resumes from is the models' (models/promptcache.py).
"""
