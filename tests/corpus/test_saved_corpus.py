"""Every graph-mode corpus program that traces is saved, loaded in a fresh
process that cannot import the corpus (nor any test module), and run there:
the loaded graph must give what the traced function gives on its second call
(the graph alone: Python side effects of tracing are not part of it) --
the same values of the same types, the same printed output, the same
exception type, message and notes (which name the user's file:line as text).

The programs and their arguments are the corpus's own (programs.CASES, with
test_corpus's SKIP/XFAIL/REJECTED/REFUSED_IN_MODE tables for the graph mode: a
program refused while tracing has no graph to save); all saved
programs run in one subprocess.  A program whose trace holds something that
is not data (an argument keyed by identity, a user object returned) must be
refused at save with GraphSaveError; nothing else may fail.
"""

import contextlib
import copy
import io
import os
import pickle
import re
import subprocess
import sys
import textwrap

import autograph as ag
from autograph import errors

from . import programs, test_corpus

MODE = "graph"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Runs in the subprocess: loads and calls every saved program, imports of the
# corpus or the tests refused, and reports each outcome.
_RUNNER = textwrap.dedent("""
    import contextlib, copy, io, pickle, sys

    class NoTestImports:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("tests", "corpus", "programs", "test_corpus"):
                raise ImportError(f"the saved graph imported {name}")
            return None

    sys.meta_path.insert(0, NoTestImports())
    import autograph as ag

    jobs = pickle.load(open(sys.argv[1], "rb"))
    results = []
    for index, path, args, kwargs in jobs:
        out, err = io.StringIO(), io.StringIO()
        try:
            loaded = ag.load(path)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                value = loaded(*copy.deepcopy(args), **copy.deepcopy(kwargs))
            outcome = ("value", value)
        except Exception as e:
            outcome = ("error", (type(e).__module__, type(e).__qualname__, str(e),
                                 list(getattr(e, "__notes__", ()))))
        results.append((index, outcome, out.getvalue(), err.getvalue()))
    modules = sorted(m for m in sys.modules if m.split(".")[0] in ("tests", "corpus"))
    pickle.dump((results, modules), open(sys.argv[2], "wb"))
""")


def _graph_cases():
    for case in programs.CASES:
        if test_corpus._lookup(test_corpus.SKIP, MODE, case) or \
                test_corpus._lookup(test_corpus.XFAIL, MODE, case) or \
                test_corpus._lookup(test_corpus.REFUSED_IN_MODE, MODE, case) or \
                (MODE, case.name) in test_corpus.REJECTED:
            continue
        yield case


def _second_call(function, call):
    """The outcome of calling the traced function again: the graph alone."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            test_corpus._invoke(function, call)  # traces; its Python prints are not compared
        outcome = test_corpus._invoke(function, call)
    outcome.stdout, outcome.stderr = out.getvalue(), err.getvalue()
    return outcome


def _error_key(error):
    return (type(error).__module__, type(error).__qualname__, str(error),
            list(getattr(error, "__notes__", ())))


def test_saved_corpus_programs_run_without_their_source(tmp_path):
    jobs, expected, refused = [], {}, {}
    for index, case in enumerate(_graph_cases()):
        function = ag.function(case.entity)
        outcome = _second_call(function, case.call)
        if not function.concrete_functions:
            continue  # tracing itself raised: there is no graph to save
        path = str(tmp_path / f"case{index}")
        try:
            function.save(path)
        except errors.GraphSaveError as e:
            refused[case.id] = str(e)
            continue
        expected[index] = (case, outcome)
        jobs.append((index, path, copy.deepcopy(case.call.args),
                     copy.deepcopy(case.call.kwargs)))
    ops = set()
    for _, path, _, _ in jobs:
        ops |= set(re.findall(r'"op": "([^"]+)"', (tmp_path / path / "graph.json").read_text()))
    # (print and assert of tensors, and Variables, are in tests/graph/test_saveload.py:
    # the corpus prints and asserts Python values, which happens at tracing)
    assert {"cond", "while_loop", "list_append"} <= ops, ops
    jobs_file, results_file = tmp_path / "jobs.pickle", tmp_path / "results.pickle"
    jobs_file.write_bytes(pickle.dumps(jobs))
    env = dict(os.environ, PYTHONPATH=ROOT)
    subprocess.run([sys.executable, "-c", _RUNNER, str(jobs_file), str(results_file)],
                   cwd=tmp_path, env=env, check=True, timeout=300)
    results, test_modules = pickle.loads(results_file.read_bytes())
    assert test_modules == []
    assert len(results) == len(jobs)
    failures = []
    for index, (kind, payload), stdout, stderr in results:
        case, want = expected[index]
        try:
            if want.error is not None:
                assert kind == "error", f"returned {payload!r}, expected {want.error!r}"
                assert payload == _error_key(want.error)
            else:
                assert kind == "value", f"raised {payload}"
                test_corpus.assert_same(want.value, payload)
            assert stdout == want.stdout, f"stdout {stdout!r}, expected {want.stdout!r}"
            assert stderr == want.stderr, f"stderr {stderr!r}, expected {want.stderr!r}"
        except AssertionError as e:
            failures.append(f"{case.id}: {e}")
    assert not failures, "\n".join(failures)
    # the corpus is mostly saveable; what is not must be refused for a reason
    assert len(jobs) >= 150, (len(jobs), refused)
    for case_id, message in refused.items():
        assert "keyed by identity" in message or "Python object" in message, (case_id, message)
    print(f"\n{len(jobs)} corpus programs saved, loaded and run in one subprocess; "
          f"{len(refused)} refused at save (arguments or results that are not data)")
