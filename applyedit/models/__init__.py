"""The target-model seam (base.py: `Backend`, and `BACKENDS`, the backends by name) and what stands behind
it: the loop backends' exact prefill (prefill.py), the torch backend with its CPU kernels and fast-load
weights (torchmodel.py), llama.cpp (llamacpp.py), vLLM (vllmengine.py, with applyedit's drafter in
vllmdraft.py), the model store that resolves, prepares and caches models (modelstore.py, hub.py), the
tokenizer (tokens.py: the ids a run feeds; vocab.py and ggufvocab.py: the llama.cpp path's, read from the
GGUF without transformers), the device and dtype (device.py), the verify-pass cost curve (costmodel.py),
the exact prompt cache the backends snapshot into (promptcache.py), and the engine that chooses a backend
and keeps a loaded model for several runs (engine.py).

The product path above it sees only `Backend` (the loop: `TargetModel`) and the engine's properties.
"""
