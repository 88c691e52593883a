"""The careful reader (merge/readings.py over merge/contextread.py's enumeration): every reading of a
snippet as a whole file with its cost, the decision in merge/confirm.py, and a refusal that names the
candidate places as data (`--report-json`, `--reading N`), on the CLI with no model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from applyedit import imports, merge, syntax
from applyedit.merge import certainty, confirm, contextread, places, readings, segment

TWICE = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n"
AT_BOTH = "# ... existing code ...\n    x = 2\n    return x\n# ... existing code ...\n"


def test_two_places_are_two_readings_each_a_whole_file() -> None:
    found = contextread.readings(TWICE, AT_BOTH, "python")
    assert not isinstance(found, contextread.NoReading) and len(found) == 2
    files = {"\n".join(r.lines) + "\n" for r in found}
    assert files == {TWICE.replace("    x = 1\n    return x\n\n\ndef b", "    x = 1\n    x = 2\n    return x\n\n\ndef b"),
                     TWICE[: -len("    return x\n")] + "    x = 2\n    return x\n"}  # fmt: skip
    assert all("could stand at original lines 3 and 8" in r.took[0] for r in found)


def test_equal_costs_leave_the_choice_open_and_name_the_places() -> None:
    weighed = readings.weigh(TWICE, AT_BOTH, "python")
    assert len(weighed.candidates) == 2 and weighed.inherent
    assert weighed.candidates[0].cost == weighed.candidates[1].cost == 1.0
    result = confirm.confirmed(TWICE, AT_BOTH, "python", with_readings=True)
    assert not result.ok and result.ambiguous and len(result.readings) == 2
    assert [p.start for p in result.places] == [2, 7]
    assert {f for p in result.places for f in p.firsts} == {"x = 2", "(nothing)"}


def test_cost_counts_lines_changed_and_an_edit_as_one() -> None:
    original = "a = 1\nb = 2\nc = 3\n"
    assert readings.changed_lines(original, original) == 0
    assert readings.changed_lines(original, "a = 1\nb = 20\nc = 3\n") == 1  # an edit of the line
    assert readings.changed_lines(original, "a = 1\nzzzzzzzz()\nc = 3\n") == 2  # deleted and inserted
    assert readings.changed_lines(original, "a = 1\nc = 3\n") == 1


def test_a_cheaper_reading_by_more_than_the_margin_is_the_answer() -> None:
    """A last segment that changes nothing and ends the snippet with no marker below: "does the file end
    there?" Keeping the eight lines of code after it changes none of them, deleting them eight: the
    cheaper reading is the answer, and both readers give it."""
    rest = "".join(f"v{i} = {i}\n" for i in range(8))
    original = f"def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\n{rest}"
    snippet = "# ... existing code ...\ndef f():\n    return 9\n# ... existing code ...\ndef g():\n    return 2\n"
    weighed = readings.weigh(original, snippet, "python")
    assert [c.cost for c in weighed.candidates + weighed.rest] == [1.0, 9.0]
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == original.replace("return 1", "return 9")


def test_a_reading_that_breaks_the_syntax_is_none_where_another_does_not() -> None:
    """The merge reads `} else {` under a marker as a new line (an `else` after an `else`: a syntax error the
    original does not have); the context reading replaces two lines. The broken one is no reading, and the
    other, the context reading's, answers (the readers' disagreement is no refusal by itself)."""
    original = (
        "export function add(t: any): void {\n  if (t) {\n    if (closed) {\n      // run it now\n      runOld(t);\n"
        "    } else {\n      keep(t);\n      more(t);\n    }\n  }\n}\n\nexport function other(): number {\n"
        "  return 1;\n}\n"
    )
    snippet = "// ...\n    if (closed) {\n      // run it at once\n      runNew(t);\n    } else {\n      // ...\n"
    merged = merge.merge(original, snippet)
    weighed = readings.weigh(original, snippet, "typescript", None, merged.merged)
    assert [c.sources for c in weighed.candidates] == [("context",)]
    assert [(c.sources, why) for c, why in weighed.refused] == [(("merge",), readings.SYNTAX)]
    result = confirm.confirmed(original, snippet, "typescript")
    assert result.ok
    assert result.merged == original.replace("run it now", "run it at once").replace("runOld", "runNew")


def test_a_new_line_beside_its_near_twin_unshown_is_an_edit_of_it() -> None:
    """A snippet's new line next to its context, with a marker on its other side, alike the original line
    standing there that the snippet never shows: that line is edited in place, not kept beside a near twin
    (an import changed below its context line; a return type changed above the function's name)."""
    rust = (
        "use std::fmt;\nuse crate::ffi::PyUuidRef;\nuse crate::serialize::writer::{WriteExt, format_hyphenated};\n\n"
        "pub fn hyphenated(x: u8) -> u8 {\n    x + 1\n}\n"
    )
    snippet = (
        "// ... other imports ...\nuse crate::ffi::PyUuidRef;\nuse crate::serialize::writer::{JsonWriter, format_hyphenated};\n"
        "// ... rest of the file ...\n"
    )
    result = confirm.confirmed(rust, snippet, "rust")
    assert result.ok and result.merged == rust.replace("{WriteExt,", "{JsonWriter,")
    c = (
        "#include <stdio.h>\n\nstatic int\nparse(const char *s)\n{\n    return s[0];\n}\n\nstatic int\n"
        "other(void)\n{\n    return 1;\n}\n"
    )
    snippet = "// ... existing code ...\nstatic long\nparse(const char *s)\n{\n// ... existing code ...\n"
    result = confirm.confirmed(c, snippet, "c")
    assert result.ok and result.merged == c.replace("static int\nparse", "static long\nparse")


def test_a_near_twin_edit_that_breaks_the_file_stays_a_question() -> None:
    """fixtures/py_unicode_snippet: a new constant under its context, alike the line below it (the first
    line of a dict), is added, not an edit of that line: editing it would break the dict."""
    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "py_unicode_snippet"
    original = (fixture / "before.py").read_text(encoding="utf-8")
    result = confirm.confirmed(original, (fixture / "edit.txt").read_text(encoding="utf-8"), "python")
    assert result.ok and result.merged == (fixture / "after.py").read_text(encoding="utf-8")


def test_a_closer_of_an_inner_block_is_no_nearer_context() -> None:
    """A function rewritten whole, shown from its signature to its closing `}` with no marker below: the
    nearest `}` under the signature closes an inner block (another depth), so the segment ends at the
    function's own `}`; it used to read as no reading ("its first and last lines do not stand in that
    order")."""
    original = (
        "#include <a.h>\n\nstatic int helper(void) {\n    return 1;\n}\n\nPyMODINIT_FUNC\nPyInit_mod(void)\n{\n"
        "    PyObject *m = PyModule_Create(&def);\n    if (m == NULL) {\n        return NULL;\n    }\n"
        "    set_gil(m);\n    register_types(m);\n    add_constants(m);\n    add_functions(m);\n    return m;\n}\n"
    )
    snippet = "// ... existing code ...\n\nPyMODINIT_FUNC\nPyInit_mod(void)\n{\n    return PyModuleDef_Init(&def);\n}\n"
    expected = original[: original.index("    PyObject *m")] + "    return PyModuleDef_Init(&def);\n}\n"
    words = contextread.readings(original, snippet, "c")
    assert not isinstance(words, contextread.NoReading)
    assert any("\n".join(r.lines) + "\n" == expected for r in words)


def test_a_line_moved_into_a_new_block_is_still_context() -> None:
    """A line wrapped into a new `if`/`else` (its tail one level deeper than the original's line) with a
    head that says something above it: the segment replaces that line. The one place where head and tail
    stand at one depth (the head's line in `first`) is far, and it used to read as no reading."""
    original = (
        "import sys\n\n\ndef first(a):\n    with raises(TypeError) as info:\n        a()\n    log(info)\n    count(info)\n"
        "    return info\n\n\n"
        "def check(op, a, b):\n    if a:\n        with raises(TypeError) as info:\n            op(a, b)\n"
        "        assert 'kiwi.Expr' in info.exconly()\n    else:\n        return None\n"
    )
    snippet = (
        "# ... existing code ...\n        with raises(TypeError) as info:\n            op(a, b)\n"
        "        if 'PyPy' in sys.version:\n            assert 'Expr' in info.exconly()\n        else:\n"
        "            assert 'kiwi.Expr' in info.exconly()\n# ... existing code ...\n"
    )
    expected = original.replace(
        "        assert 'kiwi.Expr' in info.exconly()\n",
        "        if 'PyPy' in sys.version:\n            assert 'Expr' in info.exconly()\n        else:\n"
        "            assert 'kiwi.Expr' in info.exconly()\n",
    )
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == expected


def test_a_reading_that_deletes_no_code_beats_one_that_deletes_unseen_code_at_one_place() -> None:
    """A line changed under a signature: read in place of the line there (cost 1), or as reaching down to
    a later `return NULL;` and deleting the code between (cost 4, within the margin). The second
    deletes code the snippet never shows; a careful reader takes the first."""
    original = (
        "static PyObject*\nescape(PyObject *self, PyObject *s)\n{\n\tif (!PyUnicode_CheckExact(s))\n\t\treturn NULL;\n"
        "\n\t// no longer needed on 3.12\n\tif (PyUnicode_READY(s))\n\t\treturn NULL;\n\treturn s;\n}\n"
    )
    snippet = (
        "// ... existing code ...\nstatic PyObject*\nescape(PyObject *self, PyObject *s)\n{\n"
        "\tif (!PyUnicode_Check(s))\n\t\treturn NULL;\n// ... existing code ...\n"
    )
    weighed = readings.weigh(original, snippet, "c")
    assert len(weighed.candidates) == 2 and weighed.candidates[1].dropped  # a question within the margin
    result = confirm.confirmed(original, snippet, "c")
    assert result.ok and result.merged == original.replace("CheckExact", "Check")


def _near(original: str, snippet: str, language: str) -> tuple[readings.Candidate, ...]:
    return readings.weigh(original, snippet, language).candidates


def _answers_within_the_margin(
    original: str, snippet: str, language: str, seen: list[object], expected: list[object], want: str
) -> None:
    """The readings near the cheapest show `expected` (a question within the margin), and the snippet is
    answered with `want` all the same."""
    assert seen == expected
    result = confirm.confirmed(original, snippet, language)
    assert result.ok and result.merged == want


def test_a_line_replaced_at_one_place_beats_a_reading_that_deletes_a_block_below() -> None:
    """A line under the context replaced by one not alike it (one code line deleted, one new) against
    the same segment reaching down past the next block, deleting five: the reading that deletes the
    fewest by `certainty.PLACE_DROPS` or more answers."""
    original = (
        "static PyObject *\nswap_mem(PyObject *self, PyObject *args) {\n    struct swapent *swdev;\n    int nswap, i;\n\n"
        "    if ((nswap = swapctl(SWAP_NSWAP, 0, 0)) == 0) {\n        PyErr_SetFromErrno(PyExc_OSError);\n"
        "        return NULL;\n    }\n\n    if ((swdev = calloc(nswap, sizeof(*swdev))) == NULL) {\n"
        "        PyErr_NoMemory();\n        return NULL;\n    }\n\n    if (swapctl(SWAP_STATS, swdev, nswap) == -1) {\n"
        "        PyErr_SetFromErrno(PyExc_OSError);\n        goto error;\n    }\n    return Py_BuildValue(\"i\", nswap);\n"
        "error:\n    free(swdev);\n    return NULL;\n}\n"
    )
    snippet = (
        "// ... existing code ...\n    int nswap, i;\n\n    if ((nswap = swapctl(SWAP_NSWAP, 0, 0)) == 0) {\n"
        "        psutil_oserror();\n        return NULL;\n    }\n// ... existing code ...\n"
    )
    want = original.replace("PyErr_SetFromErrno(PyExc_OSError);\n        return", "psutil_oserror();\n        return")
    _answers_within_the_margin(original, snippet, "c", [c.dropped for c in _near(original, snippet, "c")], [1, 5], want)


def test_lines_edited_in_place_beat_a_reading_that_keeps_a_line_beside_its_copy() -> None:
    """Two lines edited under a segment's context: in place of the lines there (cost 2), or as new lines
    that end with a copy of `args = PyTuple_Pack(1, str);` kept above the original's (cost 7, within the
    margin). The second reads the snippet's context as new code; a careful reader takes the first."""
    original = (
        "static PyObject *\nistr_reduce(PyObject *self)\n{\n    PyObject *str = NULL;\n    PyObject *args = NULL;\n"
        "    PyObject *result = NULL;\n\n    str = PyUnicode_FromObject(self);\n    if (str == NULL) {\n        goto ret;\n"
        "    }\n    args = PyTuple_Pack(1, str);\n    if (args == NULL) {\n        goto ret;\n    }\n"
        "    result = PyTuple_Pack(2, Py_TYPE(self), args);\nret:\n    Py_XDECREF(str);\n    Py_XDECREF(args);\n"
        "    return result;\n}\n"
    )
    snippet = (
        "// ... existing code ...\n    PyObject *result = NULL;\n\n    str = PyUnicode_FromObject(self);\n"
        "    if (UNLIKELY(str == NULL)) {\n        goto ret;\n    }\n    args = PyTuple_Pack(1, str);\n"
        "    if (UNLIKELY(args == NULL)) {\n        goto ret;\n    }\n// ... existing code ...\n"
    )
    want = original.replace("if (str == NULL)", "if (UNLIKELY(str == NULL))")
    want = want.replace("if (args == NULL)", "if (UNLIKELY(args == NULL))")
    _answers_within_the_margin(original, snippet, "c", [c.repeats for c in _near(original, snippet, "c")], [0, 1], want)


def test_a_line_edited_in_place_with_the_files_end_settled_by_the_syntax() -> None:
    """The same choice as above, where the snippet also ends with a `}` after a marker (does the file end
    there? reading so breaks the syntax, so every valid reading keeps the rest): that settled question
    does not keep the reading that deletes no code from answering."""
    original = (
        "#include <sys/sysctl.h>\n\nint\nget_proc(pid_t pid, struct kinfo_proc *proc)\n{\n"
        "    size = sizeof(struct kinfo_proc);\n    if (sysctl((int *)mib, 4, proc, &size, NULL, 0) == -1) {\n"
        '        PyErr_SetFromOSErrnoWithSyscall("sysctl(KERN_PROC_PID)");\n        return -1;\n    }\n\n'
        "    // sysctl stores 0 in the size if we can't find the process information.\n    if (size == 0) {\n"
        '        NoSuchProcess("sysctl (size = 0)");\n        return -1;\n    }\n    return 0;\n}\n'
    )
    snippet = (
        "// ... unchanged ...\nint\n    // ... unchanged ...\n"
        "    if (sysctl((int *)mib, 4, proc, &size, NULL, 0) == -1) {\n"
        '        psutil_PyErr_SetFromOSErrnoWithSyscall("sysctl(KERN_PROC_PID)");\n        return -1;\n'
        "// ... unchanged ...\n}\n"
    )
    want = original.replace("        PyErr_SetFromOSErrno", "        psutil_PyErr_SetFromOSErrno")
    seen = [(c.dropped, c.asked) for c in _near(original, snippet, "c")]
    asked = (places.WAY, places.UNCHANGED)
    _answers_within_the_margin(original, snippet, "c", seen, [(0, asked), (5, asked)], want)


def test_of_two_places_a_pinned_segment_takes_the_one_that_deletes_no_code() -> None:
    """A segment whose top context (`return;` `}`) stands at two places and whose line below stands once:
    right above that line (an edit, cost 1), or at the earlier `}`, deleting the block between (cost 7).
    A careful reader takes the first: the segment's place itself, as the lines it edits there hold as
    many of its words and are fewer (`places.edit_by_its_words`), no question left to weigh."""
    original = (
        "function handshake(req, socket) {\n  const key = req.headers['sec-websocket-key'];\n"
        "  if (req.method !== 'GET') {\n    fail(socket, 405, 'Invalid HTTP method');\n    return;\n  }\n\n"
        "  if (key === undefined || !keyRegex.test(key)) {\n"
        "    const message = 'Missing or invalid Sec-WebSocket-Key header';\n    fail(socket, 400, message);\n"
        "    return;\n  }\n\n  if (version !== 13 && version !== 8) {\n"
        "    const message = 'Missing or invalid Sec-WebSocket-Version header';\n    fail(socket, 400, message);\n"
        "    return;\n  }\n  accept(req, socket);\n}\n"
    )
    snippet = (
        "// ... existing code ...\n    return;\n  }\n\n  if (version !== '13' && version !== '8') {\n"
        "    const message = 'Missing or invalid Sec-WebSocket-Version header';\n// ... existing code ...\n"
    )
    weighed = readings.weigh(original, snippet, "javascript")
    assert [c.asked for c in weighed.candidates] == [()]
    result = confirm.confirmed(original, snippet, "javascript")
    assert result.ok
    assert result.merged == original.replace("version !== 13 && version !== 8", "version !== '13' && version !== '8'")


def test_lines_deleted_between_two_lines_the_snippet_shows_together_are_shown_gone() -> None:
    """`certainty._drops_shown`: a `#if` line deleted between a comment line that stands once and the line
    below it, the snippet showing the two with no marker between, is a deletion the snippet shows; not
    so with a marker between, nor where the line kept below is alike a line deleted (`.doc=nullptr`
    read at the next block's, skipping the `.doc=NULL` it edits), nor where nothing is deleted."""
    original = (
        "void State::clear()\n{\n    // these APIs remain safe during shutdown.\n#if !GREENLET_PY311\n"
        "    if (_Py_IsFinalizing()) {\n        this->tracefunc.CLEAR();\n        return;\n    }\n#endif\n"
        "    this->collect();\n}\n"
    )
    text = original.replace("#if !GREENLET_PY311\n    if (_Py_IsFinalizing()) {", "    if (greenlet::IsShuttingDown()) {")
    together = (
        "// ... existing code ...\n    // these APIs remain safe during shutdown.\n    if (greenlet::IsShuttingDown()) {\n"
        "        this->tracefunc.CLEAR();\n// ... existing code ...\n"
    )
    apart = together.replace("shutdown.\n", "shutdown.\n// ... existing code ...\n")
    assert certainty._drops_shown(original, together, text)
    assert not certainty._drops_shown(original, apart, text)
    assert not certainty._drops_shown(original, together, original.replace("_Py_IsFinalizing()", "IsShuttingDown()"))
    table = (
        "static PyGetSetDef getsets[] = {\n    {\n      .name=\"force\",\n      .set=(setter)setforce,\n      .doc=NULL\n"
        "    },\n    {\n      .name=\"force_slp\",\n      .set=(setter)setforceslp,\n      .doc=nullptr\n    },\n};\n"
    )
    snippet = "// ... existing code ...\n      .set=(setter)setforce,\n      .doc=nullptr\n    },\n// ... existing code ...\n"
    jump = table.replace(
        "      .doc=NULL\n    },\n    {\n      .name=\"force_slp\",\n      .set=(setter)setforceslp,\n", ""
    )
    assert not certainty._drops_shown(table, snippet, jump)


def test_of_two_places_as_costly_the_one_that_deletes_no_code_is_taken() -> None:
    """A new block between a `}` that stands twice and `if (this._compressed) {`, standing once: inserted
    above that line (cost 9), or in place of the block above it, its `return;` and `}` taken for the new
    block's (cost 9 too, deleting two code lines). A careful reader takes the first."""
    original = (
        "  getData(cb) {\n    const data = this.consume();\n    if (this._fin) {\n      this.flush();\n    }\n\n"
        "    if (this._opcode > 0x07) {\n      this.controlMessage(data, cb);\n      return;\n    }\n\n"
        "    if (this._compressed) {\n      this._state = INFLATING;\n      this.decompress(data, cb);\n      return;\n"
        "    }\n  }\n"
    )
    block = (
        "    if (this._maxFragments > 0 && ++this._numFragments > this._maxFragments) {\n"
        "      const error = this.createError(RangeError, 'Too many message fragments');\n\n      cb(error);\n"
        "      return;\n    }\n\n"
    )
    snippet = f"/* ... existing code ... */\n    }}\n\n{block}    if (this._compressed) {{\n/* ... existing code ... */\n"
    seen = [(c.cost, c.dropped) for c in _near(original, snippet, "javascript")]
    want = original.replace("    if (this._compressed)", block + "    if (this._compressed)")
    _answers_within_the_margin(original, snippet, "javascript", seen, [(9.0, 0), (9.0, 2)], want)


def test_a_line_shown_alone_that_is_an_edit_of_one_line_edits_it() -> None:
    """A licence header's year changed, the snippet showing that line alone below a marker: no line of
    the original stands in it, but it is an edit of one line and alike no other, so it edits that
    line and keeps the rest. A name added to a list of names alike none by `places.EDITED` is new
    code with no place: still a question."""
    header = (
        "/*-----------------------------------------------------------------------------\n"
        "| Copyright (c) 2013-2025, Nucleic Development Team.\n|\n"
        "| Distributed under the terms of the Modified BSD License.\n"
        "|----------------------------------------------------------------------------*/\n"
        "#pragma once\n\nnamespace kiwi\n{\n\nclass Symbol\n{\npublic:\n    Symbol() : m_id(0) {}\n};\n\n"
        "} // namespace kiwi\n"
    )
    snippet = "/* existing code... */\n| Copyright (c) 2013-2026, Nucleic Development Team.\n"
    result = confirm.confirmed(header, snippet, "cpp")
    assert result.ok and result.merged == header.replace("2013-2025", "2013-2026")
    names = "from ._make import (\n    Attribute,\n    AttrsInstance,\n    Factory,\n    _make_getattr,\n)\n"
    added = "# ... existing code ...\n    Converter,\n    # ... existing code ...\n"
    assert not confirm.confirmed(names, added, "python").ok


def test_a_context_reading_may_delete_code_where_the_merge_deletes_far_more() -> None:
    """A block's body rewritten (two lines deleted with nothing alike in their place): the merge reads the
    closing `}` as a later one and deletes a whole method besides; the context reading deletes those two
    lines only, `certainty.FEWER` fewer than the merge's file, and is the answer."""
    original = (
        "class App {\n  constructor(options) {\n    if (options.env) {\n      this.env = options.env\n    }\n"
        "    if (options.store) {\n      const { Store } = require('hooks')\n      assert(Store, 'needs node 12')\n"
        "      this.store = new Store()\n    }\n  }\n\n  listen(...args) {\n"
        "    const server = http.createServer(this.callback())\n    server.on('error', onerror)\n"
        "    log('listening')\n    count += 1\n    stats.push(args)\n    track(server)\n"
        "    return server.listen(...args)\n  }\n}\n"
    )
    snippet = (
        "// ... existing code ...\n    }\n    if (options.store) {\n      if (options.store instanceof Store) {\n"
        "        this.store = options.store\n      } else {\n        this.store = new Store()\n      }\n    }\n  }\n"
        "// ... existing code ...\n"
    )
    merged = merge.merge(original, snippet)
    weighed = readings.weigh(original, snippet, "javascript", None, merged.merged)
    best, other = weighed.candidates[0], next(c for c in weighed.rest if "merge" in c.sources)
    assert "merge" not in best.sources and 0 < best.dropped and best.dropped + certainty.FEWER < other.dropped
    result = confirm.confirmed(original, snippet, "javascript")
    expected = original.replace(
        "      const { Store } = require('hooks')\n      assert(Store, 'needs node 12')\n      this.store = new Store()\n",
        "      if (options.store instanceof Store) {\n        this.store = options.store\n      } else {\n"
        "        this.store = new Store()\n      }\n",
    )
    assert result.ok and result.merged == expected


def test_where_the_merge_reads_none_one_plain_context_reading_answers() -> None:
    """The merge cannot place a first line that says nothing (a banner line); the context reading places
    the segment at the file's start, leaves no question open, deletes nothing and repeats nothing: the answer."""
    banner = "/*" + "-" * 60
    original = (
        f"{banner}\n| Copyright (c) 2013-2024, Example Team.\n|\n| Distributed under the BSD License.\n"
        f'|{"-" * 60}*/\n#include "a.h"\n\n/* helpers */\nstatic int one(void) {{ return 1; }}\n'
    )
    snippet = f"{banner}\n| Copyright (c) 2013-2025, Example Team.\n// ... existing code ...\n"
    assert not merge.merge(original, snippet).ok
    result = confirm.confirmed(original, snippet, "c")
    assert result.ok and result.merged == original.replace("2013-2024", "2013-2025")


def test_a_tail_that_says_nothing_far_below_may_be_the_new_lines_own() -> None:
    """A line wrapped in a new `if` block, after a marker: the snippet's `}` stands in the original
    only further down (an inner block's end), which would delete the 10 lines between. The other way
    is a reading too: the `}` is the new block's, the wrapped line the original's, kept in place, and
    the rest kept below the marker. Far cheaper: the answer."""
    original = (
        "class Cache {\n  remove(item) {\n    this.items = this.items.filter((x) => x !== item)\n\n"
        "    this.collect()\n\n    this.notify({\n      type: 'removed',\n      item,\n    })\n  }\n\n"
        "  prune() {\n    if (!this.items.length) {\n      if (this.busy) {\n        this.collect()\n"
        "      } else {\n        this.drop(this)\n      }\n    }\n  }\n}\n"
    )
    snippet = (
        "  // ... existing code ...\n  remove(item) {\n    this.items = this.items.filter((x) => x !== item)\n\n"
        "    if (this.live) {\n      this.collect()\n    }\n\n    // ... existing code ...\n"
    )
    weighed = readings.weigh(original, snippet, "typescript")
    valid = [*weighed.candidates, *weighed.rest]
    assert len(valid) == 2 and valid[1].cost - valid[0].cost > readings.MARGIN and valid[1].dropped > 5
    result = confirm.confirmed(original, snippet, "typescript")
    want = original.replace("    this.collect()\n\n    this.notify", "    if (this.live) {\n      this.collect()\n    }\n\n    this.notify")
    assert result.ok and result.merged == want


def test_a_new_blocks_closing_lines_that_also_close_the_next_block_are_its_own() -> None:
    """A call wrapped in a new `if (...) { return NULL; }` check, a marker below: the new block's
    `return NULL;` `}` also stand right below, closing the next block. Read that way, the next block's
    opening lines are deleted (no new line speaks of `PyErr_BadArgument`); read as the new block's
    own, nothing is. Both are readings, at one cost: the one that deletes no code answers, never the
    deletion (`certainty._keeps_code`)."""
    original = (
        "static PyObject*\nswitch_to(PyObject* self, PyObject* args)\n{\n    PyObject* g = NULL;\n\n"
        "    PyArg_ParseTuple(args, \"O\", &g);\n\n    if (g == NULL) {\n        PyErr_BadArgument();\n"
        "        return NULL;\n    }\n\n    if (do_switch(g) < 0) {\n        return NULL;\n    }\n"
        "    Py_RETURN_NONE;\n}\n"
    )
    snippet = (
        "// ... existing code ...\nswitch_to(PyObject* self, PyObject* args)\n{\n    PyObject* g = NULL;\n\n"
        "    if (!PyArg_ParseTuple(args, \"O\", &g)) {\n        return NULL;\n    }\n\n    // ... existing code ...\n"
    )
    want = original.replace(
        '    PyArg_ParseTuple(args, "O", &g);\n',
        '    if (!PyArg_ParseTuple(args, "O", &g)) {\n        return NULL;\n    }\n',
    )
    weighed = readings.weigh(original, snippet, "c")
    assert weighed.inherent and want in {r.text for r in weighed.candidates}
    assert [r.dropped for r in weighed.candidates] == [0, 2]  # the reading that deletes the check is the other one
    result = confirm.confirmed(original, snippet, "c")
    assert result.ok and result.merged == want


def test_a_header_at_the_files_start_with_no_context_is_an_edit_or_new_lines() -> None:
    """A licence header rewritten, no marker above and one below, no line of the original in it: its
    first line is alike the file's first, so it is an edit of the header there or new lines above it.
    Both are readings (was: no reading, "new code at the file's start, or an edit somewhere?"), the
    choice left open for the model; likewise at the file's end with no marker below."""
    original = "// SPDX-License-Identifier: MIT\n\nuse core::ptr;\n\nfn main() {}\n"
    snippet = "// SPDX-License-Identifier: (Apache-2.0 OR MIT)\n// Copyright the authors\n\n// ... rest of the file ...\n"
    new = "// SPDX-License-Identifier: (Apache-2.0 OR MIT)\n// Copyright the authors\n"
    found = contextread.readings(original, snippet, "rust")
    assert not isinstance(found, contextread.NoReading)
    files = {"\n".join(r.lines) + "\n" for r in found}
    assert files == {new + original, original.replace("// SPDX-License-Identifier: MIT\n", new)}
    result = confirm.confirmed(original, snippet, "rust", with_readings=True)
    assert not result.ok and result.ambiguous and set(result.readings) >= files
    ending = "x = 1\n\n\ndef main():\n    pass\n\n\n# end of version 1\n"
    found = contextread.readings(ending, "# ... existing code ...\n# see NOTES\n# end of version 2\n", "python")
    assert not isinstance(found, contextread.NoReading)
    assert {"\n".join(r.lines) + "\n" for r in found} == {
        ending + "# see NOTES\n# end of version 2\n",
        ending.replace("# end of version 1\n", "# see NOTES\n# end of version 2\n"),
    }


def test_new_lines_between_two_lines_that_stand_once_replace_what_lies_between() -> None:
    """Hand-written ts-011 (immer, from npm): a loop that fills an object rewritten as an object literal,
    between a doc comment line and the next statement, each standing once in the file. The merge cannot
    anchor the segment's first line (`/**`, one of several); the context reading is the one reading, and
    it deletes the loop's 9 lines: a careful reader replaces what lies between the two lines that pin it."""
    from fakes import corpus_module

    from applyedit.merge import reindent

    score = corpus_module("assistant/score")
    case, record = next((c, r) for c, r in score.joined(score.load()) if c["name"] == "ts-011")
    before, after = record["before"], record["after"]
    snippet = reindent.to_file_style(before, case["snippet"])
    assert not merge.merge(before, snippet).ok
    weighed = readings.weigh(before, snippet, "typescript")
    valid = [*weighed.candidates, *weighed.rest]
    assert len(valid) == 1 and valid[0].dropped > certainty.DROPPED and not valid[0].asked
    result = confirm.confirmed(before, snippet, "typescript")
    assert result.ok and result.merged == after
    # the pins must stand on both sides of new lines: a segment with none is not pinned so
    original = "a = 1\nb = 2\nc = 3\n"
    assert not certainty._bounded(original, "# ... existing code ...\na = 1\nb = 2\n# ...\n", original)


def test_the_files_start_pins_a_head_comment_rewritten_with_no_marker_above() -> None:
    """Hand-written js-026 (undici, from npm): the file's head doc comment rewritten, no marker above, the
    first declaration below it as context. The snippet's first line is the file's first, so the file's
    start pins the new lines above as the declaration pins them below: the comment is replaced (its old
    lines deleted), not kept beside the new one."""
    from fakes import corpus_module

    from applyedit.merge import reindent

    score = corpus_module("assistant/score")
    case, record = next((c, r) for c, r in score.joined(score.load()) if c["name"] == "js-026")
    before, after = record["before"], record["after"]
    snippet = reindent.to_file_style(before, case["snippet"])
    assert not merge.merge(before, snippet).ok
    valid = [*readings.weigh(before, snippet, "javascript").candidates]
    assert len(valid) == 1 and valid[0].asked == (places.OPEN,) and valid[0].dropped > certainty.DROPPED
    result = confirm.confirmed(before, snippet, "javascript")
    assert result.ok and result.merged == after
    # with a line of code above the snippet's first line, the file's start pins nothing
    assert certainty._bounded(before, snippet, after) and not certainty._bounded("x = 0\n" + before, snippet, after)


def test_a_pinned_context_reading_answers_where_the_merge_reads_otherwise() -> None:
    """Hand-written py-013 (packaging, from PyPI): a loop's body rewritten, its last lines the file's last,
    no marker below. The merge keeps a line the snippet no longer shows (cost 7); the context reading
    replaces everything between the loop's header lines and the last line, each standing once in the
    file (cost 6, deleting 3 lines of code). Pinned on both sides and the cheaper: the answer, with no
    model (it was a tie for the model)."""
    from fakes import corpus_module

    from applyedit.merge import reindent

    score = corpus_module("assistant/score")
    case, record = next((c, r) for c, r in score.joined(score.load()) if c["name"] == "py-013")
    before, after = record["before"], record["after"]
    snippet = reindent.to_file_style(before, case["snippet"])
    weighed = readings.weigh(before, snippet, "python", None, merge.merge(before, snippet).merged)
    best, other = weighed.candidates
    assert best.sources == ("context",) and best.dropped and other.sources == ("merge",) and other.cost > best.cost
    assert certainty._bounded(before, snippet, best.text)
    result = confirm.confirmed(before, snippet, "python")
    assert result.ok and result.merged == after


def test_a_line_put_in_place_of_its_edit_is_no_repeat() -> None:
    """readings.repeated: a snippet line the original has once, that a reading has twice, is context read
    as new code, unless the reading puts it in place of an edit of it (a commit that makes one function's
    line equal another's: hand-written js-032, answered alone)."""
    original = "def a():\n    x = f(1)\n    return x\n\n\ndef b():\n    x = f(2)\n    return x\n"
    snippet = "# ... existing code ...\ndef b():\n    x = f(1)\n    return x\n"
    edited = original.replace("x = f(2)", "x = f(1)")
    inserted = original.replace("    x = f(2)\n", "    x = f(1)\n    x = f(2)\n")
    assert readings.repeated(original, edited, snippet) == 0
    assert readings.repeated(original, inserted, snippet) == 1
    from fakes import corpus_module

    from applyedit.merge import reindent

    score = corpus_module("assistant/score")
    case, record = next((c, r) for c, r in score.joined(score.load()) if c["name"] == "js-032")
    snippet = reindent.to_file_style(record["before"], case["snippet"])
    result = confirm.confirmed(record["before"], snippet, "javascript")
    assert result.ok and result.merged == record["after"]


def test_a_segment_whole_or_split_at_one_line_reads_whole() -> None:
    """A function's return type on its own line, its name below, then a marker in the body: the two
    header lines stand whole at the function, and also as two blocks (the type line of an earlier
    function, then the name) with code between them. With one line above the cut, which block that
    line ends is a guess, not a reading: the segment stands whole, and the body's edit answers."""
    original = (
        "int\nfirst(int a)\n{\n    return a + 1;\n}\n\nint\nsecond(int b)\n{\n    int c = b * 2;\n"
        "    return c;\n}\n"
    )
    snippet = "// ... existing code ...\nint\nsecond(int b)\n{\n    // ... existing code ...\n    return c + 1;\n}\n"
    result = confirm.confirmed(original, snippet, "c")
    assert result.ok and result.merged == original.replace("return c;", "return c + 1;")


def test_a_header_edited_past_a_blank_line_below_the_context() -> None:
    """Context, a blank line, then a method's header edited (its return annotation unquoted), then a
    marker inside its body: the header is an edit of the original's there, past the blank line both
    have, not a new line above it (which would leave a header with no body)."""
    original = (
        "class Handler:\n    def emit(self, record):\n        try:\n            self.write(record)\n"
        "        except Exception:\n            self.fail(record)\n\n"
        '    def render(self, record) -> "Text":\n        """Render the record."""\n        return Text(record)\n'
    )
    snippet = (
        "    # ... existing code ...\n        except Exception:\n            self.fail(record)\n\n"
        "    def render(self, record) -> Text:\n        # ... existing code ...\n"
    )
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == original.replace('-> "Text":', "-> Text:")


def test_a_segment_after_a_marker_in_a_body_stands_inside_that_body() -> None:
    """A function's header, a marker inside its body, then a loop with its accumulation edited: the
    segment fits best in the next function (which already has that line), but its marker is inside
    the first one, where a place fits too: the context reader places it there."""
    original = (
        "def first(items):\n    total = 0\n    for item in items:\n        total += item.size\n        log(item)\n"
        "    return total\n\n\ndef second(items):\n    total = 0\n    for item in items:\n"
        "        total += item.weight()\n    return total\n"
    )
    snippet = (
        "# ... existing code ...\ndef first(items):\n    # ... existing code ...\n    for item in items:\n"
        "        total += item.weight()\n        count += 1\n    return total\n# ... existing code ...\n"
    )
    found = contextread.readings(original, snippet, "python")
    assert not isinstance(found, contextread.NoReading) and len(found) == 1
    want = original.replace("item.size\n        log(item)\n", "item.weight()\n        count += 1\n")
    assert "\n".join(found[0].lines) + "\n" == want


def test_new_methods_and_the_closing_brace_with_no_marker_below_end_the_class() -> None:
    """New methods, then the class's closing `}` and no marker below: the `}` is the file's last one,
    not any of the nested closers `}` `}` that stand higher up."""
    original = (
        "public class Stats {\n  private static int count(int[] xs)\n  {\n    int n = 0;\n    for (int x : xs) {\n"
        "      if (x > 0) {\n        n++;\n      }\n    }\n    return n;\n  }\n\n  private static int none()\n"
        "  {\n    return 0;\n  }\n\n}\n"
    )
    snippet = (
        "  // ... existing code ...\n\n  private static long total()\n  {\n    return Runtime.getRuntime().totalMemory();\n"
        "  }\n}\n"
    )
    result = confirm.confirmed(original, snippet, "java")
    added = "\n  private static long total()\n  {\n    return Runtime.getRuntime().totalMemory();\n  }\n"
    assert result.ok and result.merged == original[: -len("}\n")] + added.lstrip("\n") + "}\n"


def test_at_each_of_two_places_new_lines_below_the_context_may_edit_the_lines_there() -> None:
    """Context that stands at two places, a blank line, then a test's header edited (`done =>` made
    `(done) =>`) and a marker in its body: at each place the reading that edits the line below is
    weighed, and the one at the header it is an edit of costs least (the model breaks the tie)."""
    original = (
        "describe('net', () => {\n  it('calls once', done => {\n    setTimeout(() => {\n      done();\n    }, 0);\n"
        "  });\n\n  it('calls twice', done => {\n    setTimeout(() => {\n      done();\n    }, 0);\n  });\n\n"
        "  it('does not call a removed listener at all', () => {\n    expect(1).toBe(1);\n  });\n});\n"
    )
    snippet = "  // ... existing code ...\n    }, 0);\n  });\n\n  it('calls twice', (done) => {\n    // ... existing code ...\n"
    weighed = readings.weigh(original, snippet, "typescript")
    want = original.replace("it('calls twice', done =>", "it('calls twice', (done) =>")
    assert weighed.candidates[0].text == want and weighed.candidates[0].cost < weighed.candidates[1].cost


_FOUR = "".join(
    f"#[inline(never)]\npub fn make_{n}(buf: &str, count: usize) -> *mut ffi::Object {{\n    unsafe {{\n"
    f"        build(buf, count, {i})\n    }}\n}}\n\n"
    for i, n in enumerate(("ascii", "one", "two", "four"))
).rstrip("\n") + "\n"
_FOUR_SNIPPET = (
    "// ... existing code ...\n#[inline(never)]\npub fn make_four(buf: &str, count: usize) -> *mut Object {\n"
    "    // ... existing code ...\n"
)


def test_a_header_edited_at_the_one_place_whose_others_fail_a_check() -> None:
    """An attribute that stands above four functions, then the last one's header edited: at the other
    three places the reading renames another function into a second `make_four` (it loses that one,
    which the snippet never shows: refused), so the place where the header is an edit of the original's
    is the one reading, deleting nothing: the answer."""
    found = contextread.readings(_FOUR, _FOUR_SNIPPET, "rust")
    assert not isinstance(found, contextread.NoReading) and len(found) == 4
    result = confirm.confirmed(_FOUR, _FOUR_SNIPPET, "rust")
    assert result.ok and result.merged == _FOUR.replace("make_four(buf: &str, count: usize) -> *mut ffi::", "make_four(buf: &str, count: usize) -> *mut ")


def test_a_snippet_that_changes_nothing_by_its_context_names_that_in_its_refusal() -> None:
    """A function's closing brace, then the next one's header: read by its context that changes
    nothing (it stands so in the file), while the merge reads a deletion before the header. The
    refusal says the snippet's question (no change, or a change), not that a reader has no reading."""
    original = (
        "function alpha() {\n  return 1\n}\n\nfunction beta() {\n  return 1\n}\n\nfunction gamma(items) {\n"
        "  for (const x of items) {\n    handle(x)\n  }\n}\n"
    )
    snippet = "// ... existing code ...\n}\n\nfunction gamma(items) {\n// ... existing code ...\n"
    result = confirm.confirmed(original, snippet, "javascript")
    assert not result.ok and "changes nothing" in result.reason and "also reads as a change" in result.reason


def test_within_the_margin_the_choice_stays_open() -> None:
    """Likewise with two lines after it: deleting them costs 2 more, within the margin: refused, naming
    the place (the reading that deletes them shows nothing there)."""
    original = "def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\nx = 1\ny = 2\n"
    snippet = "# ... existing code ...\ndef f():\n    return 9\n# ... existing code ...\ndef g():\n    return 2\n"
    result = confirm.confirmed(original, snippet, "python", with_readings=True)
    assert not result.ok and result.ambiguous and len(result.readings) == 2
    assert [(p.start + 1, p.firsts) for p in result.places] == [(7, ("x = 1", "(nothing)"))]


_HELPERS = "".join(f"\n\ndef helper_{i}(value):\n    total = value * {i}\n    return total + {i}\n" for i in range(8))


def test_an_open_end_that_rewrites_the_lines_there_keeps_the_rest() -> None:
    """A snippet ends with no marker below after lines that stand, in order, for the original's there (a
    tuple's last entry deleted, a version changed): they rewrite those lines and the rest of the file is
    kept; ending the file there deletes 24 lines of code, far costlier. No question left."""
    original = (
        '"""The package."""\n\nfrom .core import Alpha, Beta, Gamma\n\n__all__ = (\n    "Alpha",\n    "Beta",\n'
        '    "Gamma",\n    "old_name",\n)\n\n__version__ = "1.0.0"\n' + _HELPERS
    )
    snippet = '# ... existing code ...\n    "Beta",\n    "Gamma",\n)\n\n__version__ = "1.1.0"\n'
    weighed = readings.weigh(original, snippet, "python")
    costs = [c.cost for c in weighed.candidates + weighed.rest]
    assert costs[0] == 2.0 and costs[1] - costs[0] >= certainty.OPEN_GAP
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == original.replace('    "old_name",\n', "").replace("1.0.0", "1.1.0")


def test_an_open_end_of_edits_one_for_one_with_a_line_unchanged_among_them() -> None:
    """New lines after the context, each an edit of the original line beside it (one the same): they
    replace those lines, not stand as new lines above them; the file goes on after them."""
    original = (
        "try:\n    from _fast import OPT_A, OPT_B, OPT_C, OPT_D\nexcept ImportError:\n"
        "    OPT_A = 0x100  # type: ignore[assignment]\n    OPT_B = 0x200  # type: ignore[assignment]\n"
        "    OPT_C = 0x400\n    OPT_D = 0x800  # type: ignore[assignment]\n" + _HELPERS
    )
    snippet = (
        "# ... existing code ...\nexcept ImportError:\n    OPT_A = 0x100  # type: ignore[assignment, misc]\n"
        "    OPT_B = 0x200  # type: ignore[assignment, misc]\n    OPT_C = 0x400\n"
        "    OPT_D = 0x800  # type: ignore[assignment, misc]\n"
    )
    weighed = readings.weigh(original, snippet, "python")
    assert len(weighed.candidates + weighed.rest) == 2  # rewritten in place, or the file ends there
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == original.replace("[assignment]", "[assignment, misc]")


def test_an_open_end_pinned_by_one_line_is_decided_where_the_other_way_is_a_reading() -> None:
    """One line of the snippet stands once in the original: enough to decide the open end where ending
    the file there is a valid reading whose cost is measured (56 more); not where it breaks the file
    (a function left open) and the reading deletes a line (`'oldName'`), its gap then no measure: still a
    question (deleting none, it would be kept: certainty._other_way_broken)."""
    original = '__all__ = (\n    "Alpha",\n    "Beta",\n    "old_name",\n)\n\n__version__ = "1.0.0"\n' + _HELPERS
    snippet = '# ... existing code ...\n    "Beta",\n)\n\n__version__ = "1.1.0"\n'
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == original.replace('    "old_name",\n', "").replace("1.0.0", "1.1.0")
    helpers = "".join(f"\nfunction helper{i}(value) {{\n  return value * {i}\n}}\n" for i in range(8))
    original = (
        "function config() {\n  const names = [\n    'alpha',\n    'beta',\n    'oldName',\n  ]\n"
        "  const version = '1.0.0'\n  return { names, version }\n}\n" + helpers
    )
    snippet = "// ... existing code ...\n    'beta',\n  ]\n  const version = '1.1.0'\n"
    weighed = readings.weigh(original, snippet, "javascript")
    assert len(weighed.candidates + weighed.rest) == 1 and len(weighed.refused) == 1
    result = confirm.confirmed(original, snippet, "javascript")
    assert not result.ok and "ends the snippet with new lines" in result.reason


def test_a_snippet_whose_only_change_is_where_the_file_starts_deletes_a_few_lines_above() -> None:
    """A snippet that starts at `import sys` with no marker above and changes nothing else: its one
    change is that the file starts there, the two `__future__` lines above deleted (at most
    `segment.FEW_PAST` lines of code); four lines above stay a question."""
    body = "import sys\n\nimport greenlet\n\n\ndef main():\n    return greenlet.getcurrent()\n"
    snippet = "import sys\n\nimport greenlet\n# ... rest of the file is unchanged\n"
    original = "from __future__ import print_function\nfrom __future__ import absolute_import\n\n" + body
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == body
    four = "from __future__ import annotations\nimport os\nimport re\nimport json\n\n" + body
    result = confirm.confirmed(four, snippet, "python")
    assert not result.ok and "does the file start there?" in result.reason


def test_the_merges_reading_answers_where_the_context_readers_fails_a_check() -> None:
    """A new line that repeats a later method's line, after the method's first lines: the context reader
    reads it as that later line (its tail), deleting the code between, a method with it: refused by the
    invariants. The merge's reading inserts it, deletes nothing, repeats nothing, and no other reading
    is near: the answer. Where the context reader's reading is valid and deletes code, it stays a question."""
    original = (
        "class Store {\n  each(cb: (v: any) => void) {\n    const state = this.state\n    check(state)\n"
        "    state.items.forEach(cb)\n  }\n\n  put(key: string, value: any) {\n    const state = this.state\n"
        "    check(state)\n    const old = state.items.get(key)\n    if (old === value) {\n      return\n    }\n"
        "    prepareCopy(state)\n    state.items.set(key, value)\n  }\n\n  clear() {\n    prepareCopy(this.state)\n"
        "    prepareCopy(state)\n  }\n}\n"
    )
    snippet = (
        "  // ... existing code ...\n  each(cb: (v: any) => void) {\n    const state = this.state\n    check(state)\n"
        "    prepareCopy(state)\n    // ... existing code ...\n"
    )
    weighed = readings.weigh(original, snippet, "typescript", None, merge.merge(original, snippet).merged)
    assert [c.sources for c in weighed.candidates + weighed.rest] == [("merge",)]
    assert [c.sources for c, _ in weighed.refused] == [("context",)]
    result = confirm.confirmed(original, snippet, "typescript")
    expected = original.replace(
        "check(state)\n    state.items.forEach", "check(state)\n    prepareCopy(state)\n    state.items.forEach"
    )
    assert result.ok and result.merged == expected


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "applyedit", *args], cwd=cwd, capture_output=True, timeout=120)


def test_a_refusal_lists_the_readings_and_reading_n_takes_one(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text(TWICE)
    (tmp_path / "e.txt").write_text(AT_BOTH)
    refused = _cli("f.py", "--edit", "e.txt", "--report-json", "r.json", cwd=tmp_path)
    assert refused.returncode == 1 and refused.stdout == b""
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["readings"] == 2 and [p["line"] for p in report["places"]] == [3, 8]
    assert "could stand at original lines 3 and 8" in report["refused"]
    taken = {}
    for n in (1, 2):
        done = _cli("f.py", "--edit", "e.txt", "--reading", str(n), "--output", f"out{n}.py", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        taken[n] = (tmp_path / f"out{n}.py").read_text()
    assert sorted(t.count("x = 2") for t in taken.values()) == [1, 1] and taken[1] != taken[2]
    assert (tmp_path / "f.py").read_text() == TWICE
    none = _cli("f.py", "--edit", "e.txt", "--reading", "3", cwd=tmp_path)
    assert none.returncode == 1 and b"has 2 readings" in none.stderr


CODEGEN_TS = (
    "import codegenNativeComponent from 'react-native/Libraries/Utilities/codegenNativeComponent';\n"
    "import type { ColorValue } from 'react-native';\n"
    "import type {\n  Float,\n  Int32,\n} from 'react-native/Libraries/Types/CodegenTypes';\n"
    "import type { ViewProps } from './utils';\n\n"
    "interface NativeProps extends ViewProps {\n  r?: string;\n  fill?: ColorValue;\n}\n\n"
    "export default codegenNativeComponent<NativeProps>('RNSVGCircle');\n"
)
CODEGEN_SNIPPET = (
    "import { codegenNativeComponent } from 'react-native';\n"
    "import type { CodegenTypes, ColorValue } from 'react-native';\n"
    "import type { ViewProps } from './utils';\n// ... existing code ...\n"
)


def test_new_imports_that_would_bind_a_name_from_two_modules_replace_the_head() -> None:
    """A snippet that starts with new imports and no marker above: the original's imports above are
    replaced or kept. Kept, `codegenNativeComponent` is imported from two modules (an early error in
    TypeScript: imports.import_conflicts), so that reading is broken and the question has one answer."""
    result = confirm.confirmed(CODEGEN_TS, CODEGEN_SNIPPET, "typescript")
    head = CODEGEN_TS[: CODEGEN_TS.index("import type { ViewProps }")]
    new = CODEGEN_SNIPPET.split("import type { ViewProps }")[0]
    assert result.ok and result.merged == CODEGEN_TS.replace(head, new)
    # the same name imported again from the same module is no clash: still a question
    module = "'react-native/Libraries/Utilities/codegenNativeComponent'"
    same = CODEGEN_SNIPPET.replace("from 'react-native';\nimport type { Codegen", f"from {module};\nimport type {{ Codegen")
    assert imports.import_conflicts(CODEGEN_TS.replace(head, same.split("import type { ViewProps }")[0] + head), "typescript") == 0
    assert not confirm.confirmed(CODEGEN_TS, same, "typescript").ok


RESPOND_JS = (
    "function respond(ctx) {\n  if (ctx.status === 204) {\n    return\n  }\n"
    "  ctx.res.end(ctx.body)\n}\n\nfunction other() {\n  return 1\n}\n"
)


def test_an_open_end_whose_other_way_leaves_a_block_open_keeps_the_rest() -> None:
    """A snippet cut off inside a function, no marker below, adding a line and deleting none: ending the
    file there leaves the function unclosed (a syntax error), so the rest is kept, one line of the
    snippet standing once in the original to place it; so too a whole method shown with no marker below
    (nobody deletes code by leaving it out: the adversarial suite's no_context shape). A reading that
    deletes a line stays a question."""
    snippet = (
        "// ... existing code ...\n  if (ctx.status === 204) {\n    ctx.remove('Content-Length')\n    return\n  }\n"
    )
    result = confirm.confirmed(RESPOND_JS, snippet, "javascript")
    added = "    ctx.remove('Content-Length')\n    return"
    assert result.ok and result.merged == RESPOND_JS.replace("    return", added)
    deletes = snippet.replace("    return\n", "")
    assert not confirm.confirmed(RESPOND_JS, deletes, "javascript").ok
    methods = "class A {\n  alpha(items) {\n    return 0\n  }\n\n  omega(items) {\n    return 1\n  }\n}\n"
    whole = "// ... existing code ...\n  alpha(items) {\n    return 5\n  }\n"
    weighed = readings.weigh(methods, whole, "javascript")
    assert len(weighed.candidates + weighed.rest) == 1 and weighed.refused[0][1] == readings.SYNTAX
    kept = confirm.confirmed(methods, whole, "javascript")
    assert kept.ok and kept.merged == methods.replace("return 0", "return 5")


LENGTH_JS = (
    "module.exports = {\n  get length () {\n    const len = this.get('Content-Length')\n    if (len === '') return\n"
    "    return ~~len\n  },\n\n  /**\n   * Return the protocol string.\n   */\n  get protocol () {\n"
    "    return 'http'\n  }\n}\n"
)


def test_a_reading_that_puts_the_originals_code_inside_a_comment_is_broken() -> None:
    """A body rewritten, the snippet ending with the next doc comment's `/**` and a marker: read as new
    lines above the old body, that `/**` turns the old body into a comment (syntax.commented_code). That
    reading is broken; the context reading, which deletes the old body's lines the other keeps only in
    a comment, answers."""
    snippet = (
        "// ... existing code ...\n    const len = this.get('Content-Length')\n    if (len === '') return\n"
        "    const parsed = Number.parseInt(len, 10)\n    return Number.isNaN(parsed) ? undefined : parsed\n"
        "  },\n\n  /**\n// ... existing code ...\n"
    )
    swallowing = LENGTH_JS.replace("    return ~~len\n", "    const parsed = 1\n  },\n\n  /**\n    return ~~len\n")
    assert syntax.commented_code(swallowing, "javascript") == [8, 9]  # `return ~~len`, `},`
    weighed = readings.weigh(LENGTH_JS, snippet, "javascript", merged=merge.merge(LENGTH_JS, snippet).merged)
    assert [(c.sources, c.swallowed) for c, why in weighed.refused if why == readings.SYNTAX] == [(("merge",), 1)]
    result = confirm.confirmed(LENGTH_JS, snippet, "javascript")
    new = "    const parsed = Number.parseInt(len, 10)\n    return Number.isNaN(parsed) ? undefined : parsed\n"
    assert result.ok and result.merged == LENGTH_JS.replace("    return ~~len\n", new)


def test_imports_the_edit_left_unused_go_with_the_file_start_the_snippet_shows() -> None:
    """A snippet that starts at the original's second line with no marker above, rewriting a version check
    around an import as one import: `import sys` above it is used nowhere after the edit (and was before),
    so the file starts where the snippet does. Where `sys` is still used, it stays a question."""
    body = (
        "from math import ceil\nfrom typing import List\n\nif sys.version_info >= (3, 8):\n"
        "    from typing import Protocol\nelse:\n    from typing_extensions import Protocol\n\n\n"
        "class Edge(Protocol):\n    size: int\n\n\ndef total(edges: List[Edge]) -> int:\n    return ceil(sum(e.size for e in edges))\n"
    )
    original = "import sys\n" + body
    snippet = "from math import ceil\nfrom typing import List, Protocol\n\n\nclass Edge(Protocol):\n# ... existing code ...\n"
    expected = body.replace(body[body.index("from typing import List\n") : body.index("class Edge")], "from typing import List, Protocol\n\n\n")
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == expected
    still = original + "\n\ndef version() -> str:\n    return sys.version\n"
    assert not confirm.confirmed(still, snippet, "python").ok


def test_imports_the_snippet_imports_again_go_at_its_open_end() -> None:
    """New import lines at a snippet's open end, one per line, rewriting the grouped imports below: kept,
    every name would be imported twice; the names the old lines import are all imported again, so they
    go. Where the old lines import a name the new ones do not, it stays a question."""
    head = '__all__ = [\n    "Alpha",\n    "Beta",\n]\n\n'
    original = head + "from ._a import (\n    Alpha,\n    Beta,\n)\n"
    snippet = '# ... existing code ...\n    "Beta",\n]\n\nfrom ._a import Alpha\nfrom ._a import Beta\n'
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == head + "from ._a import Alpha\nfrom ._a import Beta\n"
    more = original.replace("    Beta,\n)", "    Beta,\n    Gamma,\n)")
    assert not confirm.confirmed(more, snippet, "python").ok


def test_a_version_check_around_an_import_goes_with_the_imports_the_snippet_rewrites() -> None:
    """A snippet that starts with a new import line and no marker above, rewriting the imports above it
    and a version check whose every statement is an import (imports.imports_only): each name is imported
    again, or (`sys`) used nowhere after the edit, so the lines above go."""
    body = "\n\nclass Edge(Protocol):\n    size: List[int]\n"
    original = (
        "import sys\nfrom typing import List\n\nif sys.version_info >= (3, 8):\n    from typing import Protocol\n"
        "else:\n    from typing_extensions import Protocol\n" + body
    )
    snippet = "from typing import List, Protocol\n\n\nclass Edge(Protocol):\n# ... existing code ...\n"
    assert imports.imports_only(original[: original.index("\n\n\nclass")] + "\n", "python")
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == "from typing import List, Protocol\n" + body


def test_python_2_future_imports_go_with_the_file_start_the_snippet_shows() -> None:
    """The snippet starts with a new import and no marker above; above its place the original has only
    `from __future__` imports that are no-ops in Python 3: the file starts where the snippet does.
    `from __future__ import annotations` changes the module: it stays a question."""
    body = "import subprocess\nimport unittest\n\n\nclass T(unittest.TestCase):\n    pass\n"
    original = "from __future__ import print_function\nfrom __future__ import absolute_import\n\n" + body
    snippet = "import gc\nimport subprocess\nimport unittest\n# ... existing code ...\n"
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok and result.merged == "import gc\n" + body
    annotations = original.replace("absolute_import", "annotations")
    assert not confirm.confirmed(annotations, snippet, "python").ok


def test_a_closer_at_an_open_start_with_new_code_below_is_the_one_above_that_code() -> None:
    """A snippet that opens with `}` and no marker, new code right below it: the `}` is the one above the
    place the new code goes, as if a marker stood above it (the marker a chat assistant left off). With
    a line of the original below it instead, which block it closes stays the question
    (tests/test_invariants.py)."""
    original = "function a () {\n  return 1\n}\n\nfunction c () {\n  return 3\n}\n"
    snippet = "}\n\nfunction b () {\n  return 2\n}\n\nfunction c () {\n// ... existing code ...\n"
    result = confirm.confirmed(original, snippet, "javascript")
    assert result.ok
    assert result.merged == original.replace("}\n\nfunction c", "}\n\nfunction b () {\n  return 2\n}\n\nfunction c")


def test_a_segment_at_several_places_stands_where_the_lines_it_edits_stand() -> None:
    """`certainty.edited_in_place`: `def __init__(` stands in two classes; the snippet's signature line is
    an edit of the first class's (one word added), far from the second's: a careful reader edits the
    first. Where the second's is nearly as alike, the places stay the question."""
    original = (
        "class A(Error):\n    def __init__(\n        self, pool: Pool, url: str, reason: Exception | None = None\n"
        "    ) -> None:\n        self.reason = reason\n\n\n"
        "class B(Error):\n    def __init__(\n        self, pool: Pool, url: str, retries: int = 3\n"
        "    ) -> None:\n        self.retries = retries\n"
    )
    snippet = (
        "    def __init__(\n        self, pool: Pool, url: str | None, reason: Exception | None = None\n"
        "    ) -> None:\n# ... keep existing code ...\n"
    )
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok
    assert result.merged == original.replace("url: str, reason", "url: str | None, reason")
    near = original.replace("retries: int = 3", "reason: Exception = None")
    assert not confirm.confirmed(near, snippet, "python").ok


def test_of_two_places_a_pinned_segment_may_replace_one_line_where_the_other_deletes_far_more() -> None:
    """The segment's `}` stands at two places and its last line once: right above the line it replaces
    (one line, not alike its new one), or at the earlier `}`, deleting five lines more. A careful reader
    takes the first: the segment's own place, its words missing no more there from fewer lines
    (`places.edit_by_its_words`)."""
    original = (
        "function f (host) {\n  if (!host) {\n    return host;\n  }\n\n  let h = host;\n"
        "  if (h.charAt(0) === '[') {\n    h = h.slice(1, -1);\n  }\n  h = h.replace(/\\.+$/, '');\n\n"
        "  // Allowed characters for any IPv4 shape\n  return h;\n}\n"
    )
    snippet = (
        "  // existing code...\n  }\n  h = trimTrailingDots(h);\n\n  // Allowed characters for any IPv4 shape\n"
        "// existing code...\n"
    )
    weighed = readings.weigh(original, snippet, "javascript")
    assert [(c.dropped, c.asked) for c in weighed.candidates] == [(1, ())]
    result = confirm.confirmed(original, snippet, "javascript")
    assert result.ok
    assert result.merged == original.replace("h = h.replace(/\\.+$/, '');", "h = trimTrailingDots(h);")


def test_where_the_readers_differ_the_reading_that_copies_no_shown_line_answers() -> None:
    """`certainty.copies_none`: the snippet shows a new line between `if (signal.aborted) {` and `return`.
    The merge reads its `return` as new code, kept beside the original's (two `return`s, the `abort`
    call kept); the context reader reads it as the original's, the new line in place of the one call
    between (a line the snippet shows gone). Both cost 2; the careful reader takes the second."""
    original = (
        "function addSignal (self, signal) {\n  self.reason = null\n\n  if (signal.aborted) {\n    abort(self)\n"
        "    return\n  }\n\n  self.signal = signal\n  self.onAbort = () => abort(self)\n}\n"
    )
    snippet = (
        "// … existing code …\n  if (signal.aborted) {\n    self.reason = signal.reason ?? new RequestAbortedError()\n"
        "    return\n    // … existing code …\n"
    )
    weighed = readings.weigh(original, snippet, "javascript", None, merge.merge(original, snippet).merged)
    assert sorted(c.sources for c in weighed.candidates) == [("context",), ("merge",)]
    result = confirm.confirmed(original, snippet, "javascript")
    assert result.ok
    assert result.merged == original.replace("    abort(self)\n", "    self.reason = signal.reason ?? new RequestAbortedError()\n")



def test_a_whole_python_function_between_markers_at_its_level_replaces_its_namesake() -> None:
    """merge/structure.py's `_whole`: the snippet shows a whole function, its signature and its last line
    edited, so neither edge stands in the original; a marker back at the header's level follows it (it
    stands for the file's other definitions, not the body's rest): the function shown replaces its
    namesake. Counterexamples: the marker one level in stands for the rest of the body, which is kept;
    a class of another name with that body is no edit of the function (refused)."""
    original = (
        "import re\n\n_WORD = re.compile(r'\\W+')\n\n\ndef slugify(text: str) -> str:\n"
        '    """Turn a page title into a URL slug."""\n    lowered = text.lower()\n'
        '    return _WORD.sub("-", lowered).strip("-")\n\n\ndef title(text: str) -> str:\n    return text.title()\n'
    )
    snippet = (
        '# ... existing code ...\ndef slugify(text: str, separator: str = "-") -> str:\n'
        '    """Turn a page title into a URL slug."""\n    lowered = text.lower()\n'
        "    return _WORD.sub(separator, lowered).strip(separator)\n\n\n# ... existing code ...\n"
    )
    result = confirm.confirmed(original, snippet, "python")
    assert result.ok
    assert result.merged == original.replace(
        "def slugify(text: str) -> str:", 'def slugify(text: str, separator: str = "-") -> str:'
    ).replace('sub("-", lowered).strip("-")', "sub(separator, lowered).strip(separator)")
    inside = (
        '# ... existing code ...\ndef slugify(text: str, separator: str = "-") -> str:\n'
        '    """Turn a page title into a URL slug."""\n    # ... existing code ...\n'
    )
    kept = confirm.confirmed(original, inside, "python")
    assert kept.ok and kept.merged == original.replace(
        "def slugify(text: str) -> str:", 'def slugify(text: str, separator: str = "-") -> str:'
    )
    other = snippet.replace('def slugify(text: str, separator: str = "-") -> str:', "class Slug:")
    assert not confirm.confirmed(original, other, "python").ok


def test_a_line_above_a_c_function_header_edited_in_place_replaces_the_original_one() -> None:
    """`certainty.head_line_edited`: the snippet shows `static inline int` above a function's header,
    where the original has `ALWAYS_INLINE static inline int` (a macro the grammar cannot read, so the
    syntax check tells neither reading from the other). The merge reads it as a new line under the old
    one (two return types); the context reader reads the line edited in place. The words of one are a
    part of the other's: the careful reader takes the edit in place. Where they are not (`long` for
    `int`), the question stays open."""
    original = (
        "#include <stdio.h>\n\nALWAYS_INLINE static inline int\ncount(const char* s)\n{\n    return s[0];\n}\n\n"
        "ALWAYS_INLINE static inline int\nsize(const char* s)\n{\n    return s[1];\n}\n"
    )
    snippet = "// ... existing code ...\nstatic inline int\nsize(const char* s)\n// ... existing code ...\n"
    weighed = readings.weigh(original, snippet, "c", None, merge.merge(original, snippet).merged)
    assert sorted(c.sources for c in weighed.candidates) == [("context",), ("merge",)]
    result = confirm.confirmed(original, snippet, "c")
    assert result.ok
    assert result.merged == original.replace("ALWAYS_INLINE static inline int\nsize", "static inline int\nsize")
    assert "edited in place" in result.notes[0]
    other = confirm.confirmed(original, snippet.replace("static inline int", "static inline long"), "c")
    assert not other.ok


def test_an_unpinned_segment_stands_where_it_replaces_one_line_if_every_other_place_loses_far_more() -> None:
    """`certainty._keeps_code`: a whole method shown, `begin` in two classes, no line of it standing once
    in the original. Read at the first it replaces one line (an edit of a call); at the second, four.
    Unpinned, the careful reader takes the first where every other place deletes `FAR_DROPS` (3) more
    lines; where the second would delete only two, the line reader still takes the first, as the lines
    it edits there hold the new lines' words (`places.edit_by_its_words`), and so does the structure
    (`structure._by_body`): the shown `if not first:` only the first's holds."""
    compact = (
        "class Compact:\n    def begin(self, out, first):\n        self.check(out)\n        if not first:\n"
        '            out.write_reserved(",")\n        return None\n\n    def end(self, out):\n        self.check(out)\n'
        "        return None\n\n\n"
    )
    pretty = (
        "class Pretty:\n    def begin(self, out, first):\n        self.check(out)\n        spaces = self.indent * 2\n"
        "        self.reserve(out, spaces)\n"
        '        out.write("\\n" if first else ",\\n")\n        out.pad(spaces)\n        return None\n\n'
        "    def end(self, out):\n        if not first:\n            self.check(out)\n        return None\n"
    )
    snippet = (
        "# ... existing code ...\n    def begin(self, out, first):\n        self.check(out)\n        if not first:\n"
        '            out.put(",")\n        return None\n# ... existing code ...\n'
    )
    result = confirm.confirmed(compact + pretty, snippet, "python")
    assert result.ok
    assert result.merged == compact.replace("out.write_reserved", "out.put") + pretty
    near = pretty.replace("        self.reserve(out, spaces)\n", "").replace("        out.pad(spaces)\n", "")
    lines = merge.merge(compact + near, snippet)
    weighed = readings.weigh(compact + near, snippet, "python", None, lines.merged if lines.ok else None)
    assert [c.asked for c in weighed.candidates] == [()]
    assert weighed.candidates[0].text == compact.replace("out.write_reserved", "out.put") + near
    by_structure = confirm.confirmed(compact + near, snippet, "python")
    assert by_structure.merged == compact.replace("out.write_reserved", "out.put") + near


def test_a_line_shown_between_two_neighbours_is_new_there_though_a_copy_stands_elsewhere() -> None:
    """`readings.repeated`: the snippet shows an import between two lines that stand together in the
    original (the `./utils` import and `import type {`); the same import stands at the file's end, beside
    other lines. Read there it is new code, not the snippet's context read as new: the reading that
    inserts it is the one valid reading (the merge's breaks the syntax) and answers. Shown beside a line
    it stands beside in the original, it stays a repeat."""
    original = (
        "import { Subscribable } from './subscribable'\nimport { replaceEqualDeep } from './utils'\nimport type {\n"
        "  Options,\n  Result,\n} from './types'\n\nexport class Observer extends Subscribable {\n  options?: Options\n}\n\n"
        "export function make(): Result {\n  return {} as Result\n}\n\nimport type { QueryClient } from './queryClient'\n"
    )
    snippet = (
        "// ... keep existing code ...\nimport { replaceEqualDeep } from './utils'\n"
        "import type { QueryClient } from './queryClient'\nimport type {\n"
    )
    result = confirm.confirmed(original, snippet, "typescript")
    assert result.ok
    assert result.merged == original.replace("from './utils'\n", "from './utils'\nimport type { QueryClient } from './queryClient'\n")
    assert readings.repeated(original, result.merged, snippet) == 0
    # two imports that stand together at the end, shown together at the top: the snippet's context, repeated
    two = original + "import type { Query } from './query'\n"
    both = snippet.replace("import type {\n", "import type { Query } from './query'\nimport type {\n")
    moved = two.replace("from './utils'\n", "from './utils'\nimport type { QueryClient } from './queryClient'\n"
                        "import type { Query } from './query'\n")  # fmt: skip
    assert readings.repeated(two, moved, both) == 2


def test_of_two_ways_at_one_place_the_clearly_cheaper_answers() -> None:
    """`certainty._one_way_cheaper`: a segment at its one place, its new lines read as editing the alike
    lines there (replacing the `if` block) or as replacing more (the `close` handler too): the careful
    reader's way costs 5 less and deletes less code: the answer. Two ways within 1 of each other stay a
    question."""
    original = (
        "function pipe(stream, handler, controller) {\n  stream\n    .on('error', function (err) {\n"
        "      if (!this.readableEnded) {\n        if (typeof handler.onResponseError === 'function') {\n"
        "          handler.onResponseError(controller, err)\n        } else {\n          throw err\n        }\n      }\n"
        "    })\n    .on('close', function () {\n      if (!this.errored) {\n"
        "        handler.onResponseEnd?.(controller, {})\n      }\n    })\n}\n\nfunction other() {\n  return 1\n}\n"
    )
    snippet = (
        "// ... existing code ...\n  stream\n    .on('error', function (err) {\n      // Never rethrow from a stream event.\n"
        "      if (!this.readableEnded) {\n        handler.onResponseError?.(controller, err)\n      }\n    })\n"
        "// ... existing code ...\n"
    )
    result = confirm.confirmed(original, snippet, "javascript")
    old = (
        "      if (!this.readableEnded) {\n        if (typeof handler.onResponseError === 'function') {\n"
        "          handler.onResponseError(controller, err)\n        } else {\n          throw err\n        }\n      }\n"
    )
    new = (
        "      // Never rethrow from a stream event.\n      if (!this.readableEnded) {\n"
        "        handler.onResponseError?.(controller, err)\n      }\n"
    )
    assert result.ok and result.merged == original.replace(old, new)
    weighed = readings.weigh(original, snippet, "javascript", None, result.merged)
    ways = [*weighed.candidates, *weighed.rest]
    assert [c.asked for c in ways] == [(places.WAY,), (places.WAY,)]
    assert certainty._one_way_cheaper(ways, ways[1].cost - ways[0].cost)
    assert not certainty._one_way_cheaper(ways, 1.0)


def test_a_segment_that_changes_nothing_at_an_open_start_keeps_the_many_lines_above() -> None:
    """A header line shown with no marker above it (a messy snippet's first line), then a marker and an
    edit: the header changes nothing, and the reading where the file starts there deletes eight lines of
    code the snippet never shows. The merge reads none (the header stands twice); the context reading
    keeps them, the other deletes far more than `segment.FEW_PAST` lines: the answer. With three
    lines above fewer, the two readings lie within the margin: a question."""
    defines = "#define MIN_SIZE 8\n#define MAX_SIZE 64\n#define GROWTH 2\n#define SHRINK 4\n#define PERTURB 5\n#define DUMMY 6\n"
    body = (
        "static inline void\nclear_keys(keys_t *dk)\n{\n    dk->used = 0;\n    dk->size = MIN_SIZE;\n}\n\n"
        "static inline void\nfree_keys(keys_t *dk)\n{\n    /* a freelist may come later */\n    PyMem_Free(dk);\n}\n"
    )
    original = "#include <stdlib.h>\n#include <string.h>\n\n" + defines + "\n" + body
    snippet = (
        "static inline void\n// ... existing code ...\n    /* a freelist may come later */\n    if (dk->slots != NULL) {\n"
        "        PyMem_Free(dk->slots);\n    }\n    PyMem_Free(dk);\n}\n"
    )
    result = confirm.confirmed(original, snippet, "c")
    added = "    if (dk->slots != NULL) {\n        PyMem_Free(dk->slots);\n    }\n    PyMem_Free(dk);\n"
    assert result.ok and result.merged == original.replace("    PyMem_Free(dk);\n", added)
    fewer = original.replace("#define SHRINK 4\n#define PERTURB 5\n#define DUMMY 6\n", "")
    result = confirm.confirmed(fewer, snippet, "c")
    assert not result.ok and "does the file start there?" in result.reason


def test_a_refusal_names_the_question_its_near_readings_answer_apart() -> None:
    """`readings._asked_apart`: of two questions, an open start every near reading answers alike and a
    segment's place they answer in two ways, the refusal names the place, the snippet's real question."""
    start = "segment 1 (from 'static PyObject*') changes nothing and starts the snippet: does the file start there?"
    place = "segment 2 (from 'return NULL;') could stand at original lines 53 and 78"
    near = [
        readings.Candidate("a", 1.0, (f"{start}: option 1", f"{place}: option {n}"), ("context",)) for n in (1, 2)
    ]
    assert readings._asked_apart(near) == place
    assert readings._asked_apart(near[:1]) == ""


def test_where_the_merge_doubts_only_how_lines_above_an_anchor_pair_the_context_reading_answers() -> None:
    """`MergeResult.pairing`: the snippet shows an `else:` branch cut down to one line above the loop's
    `return 1`; the merge's head adds one line and deletes four, and no line that says something pairs
    them, so it reads none. The context reader places the segment with no question, deleting the four
    lines between `else:` and `return 1` (more than `DROPPED`): that doubt is the merge's own, not the
    snippet's, and the context reading answers."""
    original = (
        'def cell_size(character, table):\n    """The width of a character."""\n    codepoint = ord(character)\n'
        "    lower_bound = 0\n    upper_bound = len(table) - 1\n    index = (lower_bound + upper_bound) // 2\n"
        "    while True:\n        start, end, width = table[index]\n        if codepoint < start:\n"
        "            upper_bound = index - 1\n        elif codepoint > end:\n            lower_bound = index + 1\n"
        "        else:\n            return 0 if width == -1 else width\n        if upper_bound < lower_bound:\n"
        "            break\n        index = (lower_bound + upper_bound) // 2\n    return 1\n\n\ndef other(x):\n    return x\n"
    )
    snippet = (
        "# ... existing code ...\ndef cell_size(character, table):\n    # ... existing code ...\n        else:\n"
        "            return width\n    return 1\n# ... existing code ...\n"
    )
    merged = merge.merge(original, snippet)
    assert not merged.ok and merged.pairing
    result = confirm.confirmed(original, snippet, "python")
    old = (
        "            return 0 if width == -1 else width\n        if upper_bound < lower_bound:\n            break\n"
        "        index = (lower_bound + upper_bound) // 2\n"
    )
    assert result.ok and result.merged == original.replace(old, "            return width\n")


def test_lines_read_as_new_are_new_where_reading_them_as_context_breaks_the_syntax() -> None:
    """The snippet rewrites an `if` branch, its new function named as the `else` branch's: the merge
    reads that `def` as the original's (context), which leaves the `if` branch empty: the file does not
    compile, and the merge's reading is refused. The context reader, asking nothing and deleting
    nothing, reads the `def` as new (a line of context read as new: `repeats`); where the other reading
    is refused only for breaking the syntax, that is the answer."""
    original = (
        "import sys\n\nPY_3_14_PLUS = sys.version_info[:2] >= (3, 14)\n\n\nif PY_3_14_PLUS:  # pragma: no cover\n"
        "    import annotationlib\n\n    _get_annotations = annotationlib.get_annotations\n\nelse:\n\n"
        '    def _get_annotations(cls):\n        return cls.__dict__.get("__annotations__", {})\n\n\ndef other():\n'
        "    return 1\n"
    )
    new = (
        "if PY_3_14_PLUS:\n    import annotationlib\n\n    # We request forward-ref annotations.\n\n"
        "    def _get_annotations(cls):\n        return annotationlib.get_annotations(\n"
        "            cls, format=annotationlib.Format.FORWARDREF\n        )\n\nelse:\n"
    )
    snippet = (
        "# ... other methods ...\nPY_3_14_PLUS = sys.version_info[:2] >= (3, 14)\n\n\n" + new + "# ... other methods ...\n"
    )
    weighed = readings.weigh(original, snippet, "python", None, merge.merge(original, snippet).merged)
    assert [c.repeats for c in weighed.candidates + weighed.rest] == [1]
    assert [c.sources for c, _ in weighed.refused] == [("merge",)]
    result = confirm.confirmed(original, snippet, "python")
    old = (
        "if PY_3_14_PLUS:  # pragma: no cover\n    import annotationlib\n\n"
        "    _get_annotations = annotationlib.get_annotations\n\nelse:\n"
    )
    assert result.ok and result.merged == original.replace(old, new)


def _refused(original: str, snippet: str, language: str) -> str:
    """The reason a snippet is refused (it must be)."""
    result = confirm.confirmed(original, snippet, language)
    assert not result.ok
    return result.reason


def _answered(original: str, snippet: str, language: str) -> str:
    """The file a snippet is answered with (it must be)."""
    result = confirm.confirmed(original, snippet, language)
    assert result.ok, result.reason
    return result.merged


_COUNTS = (
    "package main\n\nfunc first(items []int) int {\n\tcount := len(items)\n\treturn count\n}\n\n"
    "func second(items []int) int {\n\tcount := len(items)\n\treturn count\n}\n"
)


_BOUNDS = (
    "function bounds(range, value) {\n  if (range.low) {\n    if (value < range.low.min) {\n      return false\n"
    "    }\n  } else if (range.low.kind === 'open' && !inside(range.low, value)) {\n    return false\n  }\n"
    "  if (range.high) {\n    if (value > range.high.max) {\n      return false\n    }\n"
    "  } else if (range.high.kind === 'closed' && !inside(range.high, value)) {\n    return false\n  }\n"
    "  return true\n}\n"
)


def test_of_two_places_as_telling_the_edit_is_where_the_lines_it_replaces_hold_its_words() -> None:
    """Twin blocks, the snippet's context (`}` above, `return false` below) standing at both: its new
    line keeps `range.low` and `'open'`, which the `low` block's line holds and the `high` block's does
    not, and at both it replaces one line: it edits the `low` block (`places.edit_by_its_words`)."""
    snippet = (
        "// ... existing code ...\n    }\n  } else if (range.low.kind === 'open' && !range.low.has(value)) {\n"
        "    return false\n// ... existing code ...\n"
    )
    assert _answered(_BOUNDS, snippet, "javascript") == _BOUNDS.replace(
        "!inside(range.low, value)", "!range.low.has(value)"
    )


def test_the_same_guard_edited_or_a_place_that_only_adds_lines_stays_a_question() -> None:
    """Counterexamples: the same guard in two functions, its line edited, misses the same words at both
    places; and where one place only adds lines (a new block after the last one) and the other replaces
    a block alike it, adding is no edit whose words can be weighed: each is still two readings."""
    guards = (
        "function first(items) {\n  if (!items) {\n    return false\n  }\n  return items[0]\n}\n\n"
        "function last(items) {\n  if (!items) {\n    return false\n  }\n  return items[items.length - 1]\n}\n"
    )
    snippet = (
        "// ... existing code ...\n  if (!items) {\n    throw new Error('no items')\n  }\n// ... existing code ...\n"
    )
    assert "original lines 2 and 9" in _refused(guards, snippet, "javascript")
    blocks = "".join(
        f"const {name.upper()[0]} = make({{\n  name: '{name}',\n  unlimited: true\n}})\n\n"
        for name in ("alpha", "beta", "delta")
    ).rstrip("\n") + "\n"
    snippet = (
        "// ... existing code ...\n  unlimited: true\n})\n\nconst C = make({\n  name: 'gamma',\n  unlimited: true\n"
        "})\n\nconst D = make({\n// ... existing code ...\n"
    )
    assert "original lines 3 and 8" in _refused(blocks, snippet, "javascript")


def test_a_reading_that_deletes_nothing_is_no_answer_by_that_alone() -> None:
    """Two readings of a method added after a member-depth marker, nothing below it: the anchor merge
    replaces `add` with the new method; the context reader deletes nothing, but reads `add`'s last line
    (`return self`) as the new method's own and splits `add`. Deleting nothing does not make a reading
    the answer: both are misreadings, and the snippet is refused (or the model asked), never answered
    with either. (Taken as a rule, "where the readers differ, the reading that deletes nothing stands"
    answered this one wrong: docs/eval/reader.md, 2026-12-08.) Likewise a line added after a function's
    first line above a column-0 marker: the anchor merge deletes the function's `return`, the context
    reader does not, and it stays two readings."""
    calculator = (
        "import math\n\n\nclass Calculator:\n    def __init__(self):\n        self.result = 0\n\n"
        "    def add(self, n):\n        self.result += n\n        return self\n\n\ndef main():\n"
        "    c = Calculator()\n    print(c.add(2).result)\n"
    )
    snippet = (
        "    # ... existing code ...\n\n    def exp(self, n):\n        self.result = math.pow(self.result, n)\n"
        "        return self\n"
    )
    added = calculator.replace("return self\n", "return self\n" + snippet.split("\n", 1)[1], 1)
    _never_wrong(calculator, snippet, "python", added)
    snippet = (
        "// ... existing code ...\nfunc second(items []int) int {\n\tcount := len(items)\n\tcount *= 2\n"
        "// ... existing code ...\n"
    )
    second = _COUNTS.index("func second")
    expected = _COUNTS[:second] + _COUNTS[second:].replace("\treturn", "\tcount *= 2\n\treturn")
    _never_wrong(_COUNTS, snippet, "go", expected)


def _never_wrong(original: str, snippet: str, language: str, expected: str) -> None:
    """Refused, or answered with the expected file; a refusal names two readings."""
    result = confirm.confirmed(original, snippet, language)
    assert result.merged == expected if result.ok else "readings" in result.reason
