"""The target-model seam and what stands behind it: the torch backend with its CPU kernels and
fast-load weights (backend.py), llama.cpp (llamacpp.py), the model store that resolves, prepares and
caches models (modelstore.py, hub.py), the verify-pass cost curve (costmodel.py), and the engine that
chooses a backend and keeps a loaded model for several runs (engine.py).

The product path above it sees only `TargetModel` and the engine's properties.
"""
