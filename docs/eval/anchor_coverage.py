"""How much of each expected file `--anchor merge` forces, and whether what it forces is right: for
every case of a folder (fixture format) whose snippet merges unambiguously, the stretches
(anchor.stretches) must stand in the expected file at their merged positions when the merge equals
the expected file. No model: the merger and the anchors only.

    PYTHONPATH=. python docs/eval/anchor_coverage.py CASES_DIR
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from applyedit import markers, merge, textio
from applyedit.speculative.anchor import stretches
from applyedit.tools.evaluate import discover


def main(root: str) -> None:
    counts: Counter[tuple[str, str]] = Counter()
    fractions: list[float] = []
    for case in discover(Path(root)):
        src = textio.read_source(case.before, case.meta.get("language"))
        edit = textio.extract_edit(case.edit.read_text(encoding="utf-8"), src.language)
        if not any(markers.is_marker(x) for x in edit.split("\n")):
            continue  # an instruction: nothing to anchor
        style = case.meta.get("style", "snippet")
        expected = textio.normalise(case.after.read_bytes().decode("utf-8"))[0].split("\n")
        result = merge.merge(src.text, edit)
        if not result.ok:
            counts[style, "merge not ok (no anchors, no fallback)"] += 1
            continue
        right = result.merged is not None and result.merged.split("\n") == expected
        found = stretches(src.text, result, "```")
        forced = [(s.start, s.lines[: len(s.lines) - s.fence]) for s in found]
        consistent = all(tuple(expected[a : a + len(lines)]) == lines for a, lines in forced)
        counts[style, f"merge ok, {'right' if right else 'WRONG'}, anchors {'right' if consistent else 'WRONG'}"] += 1
        fractions.append(sum(len(lines) for _, lines in forced) / max(1, len(expected)))
    for (style, what), n in sorted(counts.items()):
        print(f"{style}: {what}: {n}")
    if fractions:
        print(f"lines forced, mean over ok merges: {sum(fractions) / len(fractions):.1%}")


if __name__ == "__main__":
    main(*sys.argv[1:])
