"""Runs one random program (fuzz_programs.py) three ways and compares them.

  * plain: the original function on the numpy arguments (the reference);
  * converted: `ag.to_graph(f)` called while tracing is marked, so its
    converted body runs on the same plain values;
  * graph: `ag.function(f)`, traced on the first argument set and run on all.

A verdict is "match", "refused" (the graph mode raised an AutoGraphError:
a deliberate refusal, whose message must point at the user's file and name
no generated variable) or "mismatch" with what differed.
"""

import contextlib
import importlib.util
import io
import itertools
import os
import re
import sys

import numpy as np

import autograph as ag
from autograph import errors
from autograph.runtime import registry

# Names autograph generates: a message shown to the user must not contain them.
GENERATED_NAMES = re.compile(r"\b(loop_cond|retval_|do_return|ag__|break_|continue_|"
                             r"if_cond|loop_body|if_true|if_false|itr\d|fjump|raised_in_try)|"
                             r"<value of|<TensorList")

_counter = itertools.count()


class Verdict:
    __slots__ = ("kind", "detail", "source", "features")

    def __init__(self, kind, detail, source, features):
        self.kind, self.detail, self.source, self.features = kind, detail, source, features

    def __repr__(self):
        return f"{self.kind}: {self.detail}\n--- program ---\n{self.source}"


def load(source, directory):
    """Imports `source` from a file of its own (autograph reads source files)."""
    name = f"fuzz_program_{os.getpid()}_{next(_counter)}"
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module, path


def _call(fn, args, scope=contextlib.nullcontext):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), scope():
        try:
            value = fn(*args)
        except Exception as e:  # noqa: BLE001 - an exception is an outcome to compare
            return None, e, out.getvalue()
    return value, None, out.getvalue()


def _same_value(expected, actual):
    """Same numbers and the same kind (a Python int may come back as int64)."""
    if isinstance(expected, tuple):
        return (isinstance(actual, tuple) and len(actual) == len(expected)
                and all(_same_value(e, a) for e, a in zip(expected, actual)))
    e, a = np.asarray(expected), np.asarray(actual)
    if e.shape != a.shape:
        return False
    if e.dtype != a.dtype and not (isinstance(expected, int) and a.dtype == np.int64):
        return False
    return bool(np.array_equal(e, a, equal_nan=e.dtype.kind == "f"))


def _compare(mode, expected, actual):
    e_value, e_error, e_out = expected
    a_value, a_error, a_out = actual
    if e_error is not None or a_error is not None:
        if type(e_error) is not type(a_error):
            return f"{mode}: raised {a_error!r}, expected {e_error!r}"
        return None
    if not _same_value(e_value, a_value):
        return f"{mode}: returned {a_value!r}, expected {e_value!r}"
    if e_out != a_out:
        return f"{mode}: printed {a_out!r}, expected {e_out!r}"
    return None


def _refusal_problem(error, path):
    text = str(error)
    if GENERATED_NAMES.search(text):
        return f"refusal names a generated variable: {text}"
    if os.path.basename(path) not in text:
        return f"refusal does not point at the user's file: {text}"
    return None


def for_jax(source):
    """(source, stage) to run a program under JAX: `jax.jit(ag.to_graph(f))`
    (the corpus's jax mode), its `np.sin(v)` written `(0.5 * v)` -- JAX
    traces jax.numpy only, and a numpy function on a tracer is refused
    (TensorUsageError naming the jnp spelling: not what the fuzzer looks for)."""
    from tests.corpus.test_corpus import _convert_jax
    return source.replace("np.sin(", "(0.5 * "), _convert_jax


def run(source, features, argument_sets, directory, stage=ag.function):
    """The verdict for one program; `stage` makes the graph-mode callable."""
    module, path = load(source, directory)
    try:
        return _run(module.f, source, features, argument_sets, path, stage)
    finally:
        sys.modules.pop(module.__name__, None)


def _run(fn, source, features, argument_sets, path, stage):
    def verdict(kind, detail=""):
        return Verdict(kind, detail, source, features)

    expected = [_call(fn, args) for args in argument_sets]
    for e in expected:
        if e[1] is not None:  # the writer promises programs that do not raise
            return verdict("mismatch", f"plain run raised {e[1]!r}")
    converted = ag.to_graph(fn)
    marked = lambda: registry.staging("fuzz: the converted body")  # noqa: E731
    for args, e in zip(argument_sets, expected):
        problem = _compare("converted", e, _call(converted, args, marked))
        if problem:
            return verdict("mismatch", f"{problem} for {args!r}")
    staged = stage(fn)
    for args, e in zip(argument_sets, expected):
        actual = _call(staged, args)
        if isinstance(actual[1], errors.AutoGraphError):
            problem = _refusal_problem(actual[1], path)
            if problem:
                return verdict("mismatch", problem)
            return verdict("refused", f"{type(actual[1]).__name__}: {actual[1]}")
        problem = _compare("graph", e, actual)
        if problem:
            return verdict("mismatch", f"{problem} for {args!r}")
    return verdict("match")
