"""Lossless speculative decoding: the loop (loop.py: prefill, then propose -> verify -> accept -> crop),
what it drafts with (proposers.py: the copy proposer; draftmodel.py: a small draft model), how many
tokens it drafts (policy.py: the K policies and the shared `Alignment`), exact sampling (sampling.py),
the logits of either array kind a backend returns (logits.py), the forced tokens of an anchored run
(anchor.py), one run's callbacks (runwatch.py), and the proposers and K policies by name (registry.py).

Reaches a model only through `models/base.py`'s seams (`TargetModel`; the tie-break's `Branches`), and
reads the measured cost of a pass from `models/costmodel.py`; knows nothing of files, the CLI or the
server.
"""
