"""How the merger alone reads a folder of cases as the product does (a marker-less piece of the file
read with implied markers): ok and right / not ok / read as an instruction / ok but wrong, per style.

    PYTHONPATH=. python docs/eval/merge_outcomes.py CASES_DIR
"""
import collections
import sys
from pathlib import Path
from applyedit import merge, syntax, textio
from applyedit.tools.evaluate import discover
t = collections.Counter()
for case in discover(Path(sys.argv[1])):
    src = textio.read_source(case.before, case.meta.get("language"))
    edit = textio.extract_edit(case.edit.read_text(encoding="utf-8"), src.language)
    if not any(merge.is_marker(x) for x in edit.split("\n")):
        edit = merge.implied_snippet(src.text, edit, src.language) or edit
    m = merge.merge(src.text, edit) if any(merge.is_marker(x) for x in edit.split("\n")) else None
    exp = case.after.read_bytes().decode()
    st = case.meta.get("style")
    if m is None: t[(st,"instruction")] += 1
    elif not m.ok: t[(st,"not ok")] += 1
    else:
        right = textio.restore(m.merged, src.style) == exp
        parses = not syntax.new_errors(src.text, m.merged, src.language, src.path)
        t[(st, "ok right" if right else "OK WRONG")] += 1
        if not parses: t[(st, "ok but does not parse")] += 1
for k in sorted(t): print(k, t[k])
