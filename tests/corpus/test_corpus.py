"""Runs every corpus case (tests/corpus/programs.py) converted and unconverted
and requires the two runs to be indistinguishable.

What is compared, for each case, mode and run:
  * the result: equal values of identical types, deeply (lists, tuples, dicts
    in key order, sets, user objects by type and `vars()`, numpy arrays by
    dtype, shape and elements, numpy scalars by dtype and value, floats with
    NaN and signed zeros, iterators such as `zip`/`enumerate` objects (at the
    top level or in lists/tuples) by type and the items they yield, taken
    right after the call, functions by qualified name).  A generator
    function's result is consumed with `list()` (an async generator's with
    `async for` under `asyncio.run`) and a coroutine function's is run with
    `asyncio.run`, inside the same capture, so what they print or
    raise is compared too;
  * the arguments after the call (mutations of list/dict/object arguments);
  * stdout and stderr (capsys), exactly;
  * exceptions: the identical type (never a wrapper), `str()`, `args` (deep),
    `vars()` (custom attributes), the standard attributes `name`, `obj`,
    `value`, `errno`, `filename`, `__notes__` where present, and the same for
    `__cause__`/`__context__` (type, message, args) and `__suppress_context__`;
  * the traceback's user frames, i.e. frames for which
    `autograph.errors.is_internal_file(co_filename)` is false, as
    (co_filename, f_lineno, co_name) tuples: the LAST user frame must be
    identical, and so must the whole sequence of user frames (both calls go
    through the same `_invoke` helper, so the harness frames agree too);
  * the kind of callable: generator/coroutine/async-generator function-ness;
  * that autograph logged no warning (a callee it failed to convert and
    called unconverted instead).

In modes listed in NUMPY_RESULT_MODES ("graph", "jax") one type rule applies to the
result (not to arguments, output or exceptions): a Python bool/int/float may
come back as the numpy scalar of numpy's dtype for it (bool, int64, float64)
with the same value, since ag.function returns numpy values (e.g. a counter
carried through a staged loop); any other type difference still fails.

Constructs the converters reject on purpose (REJECTED) must instead raise
their catalog error, naming the user's file and a line of the function, at
conversion: at `convert(entity)`, or in modes in CONVERTS_AT_FIRST_CALL
("graph": ag.function converts when first called) at the first call.
What a mode cannot stage and refuses while tracing (REFUSED_IN_MODE: staged
mode never returns a wrong value) must raise exactly the catalog error class
given there, with the given text (the user's variable, the file:line of a
marked line of the function, which must also be the traceback's last user
frame): a call that returns, or raises anything else, fails.

Every case runs twice per mode: the second time through a fresh conversion
that must hit the conversion cache (for `ag.to_graph`: the very same code
object as the first conversion) and give the same outcome again.

Modes: CONVERT_BY_MODE maps each mode to a function `entity -> callable`
giving the callable under test, SCOPE_BY_MODE to the context the call runs
in; MODES lists the modes that run.  By default all three: "python"
(`ag.to_graph` called normally: the plain path), "converted" (the same
function called inside `registry.staging(...)`, so its converted body runs, on
plain values) and "graph" (the built-in graph engine: `ag.function(entity)`,
traced on the arguments -- numpy values become Tensors -- then the graph run;
its REFUSED_IN_MODE entries are what it refuses at trace time: generators,
truth values of multi-element arrays, type() of a 0-d traced value, repr(),
in-place changes of list/dict arguments, ...; its few SKIP entries differ
from Python undetectably, each saying why), and "jax"
(`jax.jit(ag.to_graph(entity))`, the JAX backend: numpy arguments traced as
jax arrays with x64 enabled, other arguments Python values; see
_UnderJaxJit; skipped with a reason when jax is not installed; its
REFUSED_IN_MODE entries are autograph's refusals under JAX (numpy functions
on traced values among them), its SKIP entries the same undetectable
differences).
AUTOGRAPH_CORPUS_MODES=python,converted runs a subset.
To plug in a mode (a backend would be another entry), add its converter (and
scope) and its name to the default MODES once cases that cannot run in it are
in REFUSED_IN_MODE with the catalog error they raise (say, generators) or in
SKIP with a reason, and mode-specific conversion checks are in
check_conversion.  Every (mode, case) pair becomes
one test, with id "<mode>-<case name>[<index>](<args>)".
"""

import asyncio
import contextlib
import copy
import functools
import inspect
import logging
import math
import os
import traceback
import types

import numpy as np
import pytest

import autograph as ag
from autograph import errors, transpiler
from autograph.runtime import registry, structure
from . import programs

# --- modes --------------------------------------------------------------------


def _convert_python(entity):
    return ag.to_graph(entity)


def _convert_graph(entity):
    return ag.function(entity)


def _jax_or_none():
    try:
        import jax
    except ImportError:
        return None
    return jax


class _UnderJaxJit:
    """The "jax" mode's callable: `jax.jit(ag.to_graph(entity))` called on the
    case's arguments, with numpy arrays and scalars (top-level arguments)
    passed as jax arrays, i.e. traced, and every other argument a Python value
    the traced function closes over (so it keeps Python semantics, run by the
    converted body while jax traces). Each call traces afresh, as one call
    of the plain function runs its Python once. The result's leaves that are
    traced come back as numpy values (0-d ones as numpy scalars: the
    NUMPY_RESULT_MODES rule); the others are the Python values the traced run
    returned. Staged prints have run when the call returns
    (jax.effects_barrier)."""

    def __init__(self, entity):
        self.converted = ag.to_graph(entity)

    def __call__(self, *args, **kwargs):
        jax = _jax_or_none()
        positions = [i for i, a in enumerate(args) if isinstance(a, (np.ndarray, np.generic))]
        keys = [k for k, a in kwargs.items() if isinstance(a, (np.ndarray, np.generic))]
        kept = {}

        def traced(*arrays):
            call_args, call_kwargs = list(args), dict(kwargs)
            for i, a in zip(positions, arrays):
                call_args[i] = a
            for k, a in zip(keys, arrays[len(positions):]):
                call_kwargs[k] = a
            result = structure.flatten((self.converted(*call_args, **call_kwargs),), ["result"])
            # a staged list (the JAX backend's; a pytree) comes back as the list of its items
            kept["result"] = result
            one_leaf = jax.tree_util.tree_structure(0)
            kept["leaves"] = [
                jax.tree_util.tree_flatten(v) if registry.backend_of(v) is not None
                and not isinstance(v, jax.core.Tracer) else ([v], one_leaf)
                for v in result.values]
            return [leaf for leaves, _ in kept["leaves"] for leaf in leaves
                    if isinstance(leaf, jax.core.Tracer)]

        outputs = iter(jax.jit(traced)(*[args[i] for i in positions],
                                       *[kwargs[k] for k in keys]))
        jax.effects_barrier()
        values = []
        for value, (leaves, tree) in zip(kept["result"].values, kept["leaves"]):
            leaves = [np.asarray(next(outputs))[()] if isinstance(leaf, jax.core.Tracer) else leaf
                      for leaf in leaves]
            values.append(jax.tree_util.tree_unflatten(tree, leaves))
        return structure.unflatten(kept["result"].structure, values)[0]


def _convert_jax(entity):
    jax = _jax_or_none()
    jax.config.update("jax_enable_x64", True)  # numpy's dtypes (int64, float64)
    jax.config.update("jax_traceback_filtering", "off")  # the user's exception, untouched
    return _UnderJaxJit(entity)


CONVERT_BY_MODE = {
    "python": _convert_python,
    # The same converted function, run while tracing is marked: its converted
    # body (not the original one) runs on the plain values, and must give
    # exactly what Python gives too.
    "converted": _convert_python,
    "graph": _convert_graph,
    # jax.jit(ag.to_graph(f)) (the JAX backend); runs only where jax is installed
    "jax": _convert_jax,
}
# What each mode runs inside (the converted body runs only while tracing).
SCOPE_BY_MODE = {
    "converted": lambda: registry.staging("corpus: run the converted body"),
}
# Modes run by default (AUTOGRAPH_CORPUS_MODES=python,... runs a subset).
MODES = [m.strip() for m in
         os.environ.get("AUTOGRAPH_CORPUS_MODES", "python,converted,graph,jax").split(",")
         if m.strip()]
assert set(MODES) <= set(CONVERT_BY_MODE), f"unknown corpus mode in {MODES}"

# Modes whose conversion happens at the first call (ag.function converts and
# traces then): the REJECTED check calls the result, and the call must raise.
CONVERTS_AT_FIRST_CALL = {"graph"}

# Modes whose results are numpy values (ag.function's documented contract,
# autograph/graph/function.py): a Python bool/int/float the original returns
# may come back as the numpy scalar of numpy's dtype for it (bool, int64,
# float64) with the same value -- e.g. a counter carried through a staged
# loop.  Only results; arguments, output and exceptions compare exactly.
NUMPY_RESULT_MODES = {"graph", "jax"}

# (mode, case name or case id) -> reason.  A name skips all of its argument sets.
# Every entry must say why; an entry for a case that does not exist is an error.
# What is left here differs from Python with no way to detect it while tracing
# (docs/ARCHITECTURE.md §6); everything a mode can detect is refused instead,
# with a catalog error, and checked (REFUSED_IN_MODE below).
_SPECIALIZED_LINE = "plain Python's line for this error depends on CPython's specialization"
_IDENTITY = (
    "`(a and b) is b`: a staged `and` gives the cond's output, a new value, so identity "
    "with the operand cannot survive tracing (`is` cannot be overloaded or staged, so it "
    "cannot be refused either); the other results match under NUMPY_RESULT_MODES")
SKIP = {
    ("graph", "numpy_bools_logical_ops"): _IDENTITY,
    # CPython 3.11 itself reports this UnboundLocalError at the `for` line once
    # the function is specialized (its STORE_FAST__LOAD_FAST superinstruction
    # joins the store of `x` with the load of `total`), and at the
    # `total += x` line before: the plain run's line depends on the calls
    # before it. The converted body (the loop body is a function of its own)
    # always reports `total += x`. The value and message match.
    ("converted", "loop_variable_edge_cases[2]('undefined_total')"): _SPECIALIZED_LINE,
    ("graph", "loop_variable_edge_cases[2]('undefined_total')"): _SPECIALIZED_LINE,
    ("jax", "loop_variable_edge_cases[2]('undefined_total')"): _SPECIALIZED_LINE,
}

SKIP.update({
    ("jax", "numpy_bools_logical_ops"): _IDENTITY,
    # (the printed repr() of a traced value is jax's text, as the program run
    # on jax arrays prints it: tests/staged/test_formatted_print.py's JAX test)
    ("jax", "print_numpy_values"): (
        "prints repr() of its numpy scalar argument: under jax.jit the value is a jax "
        "array, whose repr is 'Array(1.5, dtype=float32)' where numpy's is "
        "'np.float32(1.5)'; the program run on jax arrays prints the same text"),
})

# (mode, case name or case id) -> (catalog error class name, text, marker): what
# a mode cannot stage and refuses at trace time (the project's rule: staged mode
# never returns a wrong value, it raises a catalog error naming the user's
# variable, the line and a fix).  The call must raise exactly that class (not
# return, not raise anything else) with `text` in its message; in `text`,
# `{where}` is the user's file:line of the one line of the function that reads
# `marker` (stripped; also the last user frame of the traceback), and `{first}`
# the file:line of the function's first line (as code objects give it).
# Checked twice, through two conversions, like every case.
_GENERATOR = ("NotStageableError", "ag.function cannot stage {name} ({first}): it is {kind}",
              None)
_TRUTH_GRAPH = "{op}: the {what} has shape {shape}; it needs a single value " \
    "(use np.all(...) or np.any(...)) (at {where})"
_TRUTH_JAX = "the condition at {where} is a tensor of dtype {dtype} and shape {shape}; a " \
    "staged condition must hold a single value"


def _truth_graph(marker, shape="(2,)", op="cond", what="condition"):
    return ("GraphValueError", _TRUTH_GRAPH.format(op=op, what=what, shape=shape,
                                                   where="{where}"), marker)


def _numpy_jax(call, marker):
    return ("TensorUsageError", f"`{call}` at {{where}} hands a JAX traced value to numpy",
            marker)


def _truth_jax(marker, dtype, shape="(2,)"):
    return ("StagingError", _TRUTH_JAX.format(dtype=dtype, shape=shape, where="{where}"), marker)


def _traced_type(name, marker):
    return ("TracedTypeError", f"type() at {{where}}: '{name}' is a staged value", marker)


def _argument_change(name, function, how, marker):
    return ("ArgumentChangeError",
            f"`{name}`, a Python container passed as an argument to the ag.function "
            f"'{function}' ({{first}}), is changed in place by {how}", marker)


_TRUTH_ERRORS = {  # numpy_truthiness_errors: construct -> (marker, graph op, dtype, what)
    "if": ("if arr:", "cond", "int64", "condition"),
    "while": ("while arr:", "while_loop", "int64", "condition"),
    "not": ("return not arr", "truth test", "int64", "value tested"),
    "ifexp": ('return "yes" if arr > 1 else "no"', "cond", "bool", "condition"),
    "assert": ("assert arr > 1", "assert", "bool", "condition"),
    "chain": ("return 0 < arr < 5", "cond", "bool", "condition"),
}
_AND_MARKER = 'return value and "has truth"'
_AND_SIDES = ("StagingError", "variable 'the value of `value and 'has truth'`' is a staged "
              "value in one branch of the staged `if` at {where}", _AND_MARKER)
_MOVING_AVERAGE = ("StagingError", "variable 'current' is the Python value None before the "
                   "staged `for` loop at {where}", "for value in signal:")
_BOOL = ("TensorUsageError", "bool() of graph tensor '(row > 1).any()' at {where}",
         "flags.append(bool((row > 1).any()))")
_TYPE_CASES = {
    "numpy_float32_accumulation": _traced_type("acc", "return acc, type(acc)"),
    "numpy_zero_d_array_loop": _traced_type("value", "return steps, value, type(value)"),
}
REFUSED_IN_MODE = {
    # ag.function refuses generator and async functions at the first call (a
    # traced call would hand back one generator/coroutine object, holding
    # graph tensors, on every call)
    **{("graph", name): _GENERATOR for name in (
        "generator_with_control_flow", "generator_with_yield_from", "generator_raises_midway",
        "async_control_flow", "generator_with_break_in_while", "async_generator_entry",
        "async_await_in_conditions")},
    # the truth value of a traced array with several (or no) elements: numpy
    # raises ValueError when it runs; the engine raises its GraphValueError (a
    # ValueError too) while tracing, at the user's line
    ("graph", "if_on_array_comparison"): _truth_graph("if arr > 0:"),
    ("graph", "if_on_single_element_array[2](array[]:int8)"): _truth_graph("if arr:", "(0,)"),
    **{("graph", f"numpy_truthiness_errors[{i}](array[1,2]:int64,'{construct}')"):
       _truth_graph(marker, op=op, what=what)
       for i, (construct, (marker, op, _, what)) in enumerate(_TRUTH_ERRORS.items())},
    ("graph", "numpy_truthiness_in_and[1](array[1,2]:int64)"): _truth_graph(_AND_MARKER),
    # `value and 'has truth'` with a staged `value` is a cond whose two sides
    # are a str and a tensor
    ("graph", "numpy_truthiness_in_and[0](array[True]:bool)"): _AND_SIDES,
    ("graph", "numpy_truthiness_in_and[2](float64(0.0))"): _AND_SIDES,
    # type() of a 0-d staged value: a numpy scalar, a 0-d array or a Python
    # number when run eagerly, which one trace cannot tell (isinstance too)
    **{("graph", name): entry for name, entry in _TYPE_CASES.items()},
    ("graph", "numpy_in_assert_not_and_while"): (
        "TensorTextError", "f-string or format() of graph tensor 'arr' at {where}",
        'assert np.all(arr != 0), f"zero in {arr}"'),
    # an explicit bool() needs a concrete value (tf.function's
    # OperatorNotAllowedInGraphError)
    ("graph", "numpy_iteration_and_any_all"): _BOOL,
    # a variable that is None before a staged loop and a tensor after its
    # first iteration (tf.function refuses it too; `current = signal[0]` stages)
    ("graph", "numpy_moving_average"): _MOVING_AVERAGE,
    # ag.function traces on copies of list/dict arguments: an in-place change
    # would never reach the caller's container
    ("graph", "pop_from_empty_list[1]([7])"): _argument_change(
        "values", "pop_from_empty_list", "`.pop(...)` at {where}", "first = values.pop()"),
    ("graph", "append_mutates_argument"): _argument_change(
        "values", "append_mutates_argument", "`.append(...)` at {where}",
        "values.append(len(values))"),
    ("graph", "for_over_growing_list"): _argument_change(
        "items", "for_over_growing_list", "`.append(...)` at {where}", "items.append(x + 3)"),
    ("graph", "dict_changed_during_iteration"): _argument_change(
        "mapping", "dict_changed_during_iteration", "an item assignment, `del` or an "
        "in-place operator such as `+=` (seen when the trace ended", None),

    # jax.jit(ag.to_graph(f)): autograph's own refusals under JAX
    # a numpy function on a traced value: JAX traces jax.numpy only, and numpy
    # asks for a concrete array; refused naming the jnp spelling
    ("jax", "numpy_where_and_conditional_expression"): _numpy_jax(
        "np.where(arr > 0, arr, 0.0)", "clipped = np.where(arr > 0, arr, 0.0)"),
    ("jax", "staged_if_inside_with"): _numpy_jax("np.log(x)", "y = np.log(x)"),
    ("jax", "if_on_array_comparison"): _truth_jax("if arr > 0:", "bool"),
    ("jax", "if_on_single_element_array[2](array[]:int8)"): _truth_jax("if arr:", "int8", "(0,)"),
    **{("jax", f"numpy_truthiness_errors[{i}](array[1,2]:int64,'{construct}')"):
       _truth_jax(marker, dtype)
       for i, (construct, (marker, _, dtype, _)) in enumerate(_TRUTH_ERRORS.items())},
    ("jax", "numpy_truthiness_in_and[1](array[1,2]:int64)"): _truth_jax(_AND_MARKER, "int64"),
    ("jax", "numpy_truthiness_in_and[0](array[True]:bool)"): _AND_SIDES,
    ("jax", "numpy_truthiness_in_and[2](float64(0.0))"): _AND_SIDES,
    **{("jax", name): entry for name, entry in _TYPE_CASES.items()},
    # (the assert's f-string of a tracer is refused, as the graph engine's:
    # it was formatted from the tracer's placeholder text)
    ("jax", "numpy_in_assert_not_and_while"): (
        "TensorTextError", "f-string or format() of staged value 'f\"zero in {{arr}}\"' at "
        "{where}", 'assert np.all(arr != 0), f"zero in {arr}"'),
    ("jax", "numpy_iteration_and_any_all"): (_BOOL[0], _BOOL[1].replace("graph tensor",
                                                                       "JAX traced value"),
                                             _BOOL[2]),
    ("jax", "numpy_moving_average"): _MOVING_AVERAGE,
    # appends in a loop over range(stop, 0, step) with a traced stop: JAX
    # needs the trip count at tracing to stack the items
    ("jax", "range_with_numpy_bounds"): (
        "StagingError", "list 'out' gets items appended at {where} in a staged `for` loop "
        "whose trip count is not known when the function is traced",
        "for i in range(stop, 0, step):"),
}

# (mode, case name or case id) -> reason: known converter bugs, reported to the
# owner, expected to fail (strict: an XPASS fails, so fixed bugs get noticed).
# Temporary only: every entry is listed in the corpus report.
XFAIL = {
    # Known limitation of the converted body (it runs only while tracing; the
    # plain path is the original code and matches exactly): branches run as
    # generated functions called by `ag__.if_stmt`, so each level of a
    # recursion through an `if` takes three frames instead of one, and 600
    # levels pass CPython's default recursion limit of 1000.
    ("converted", "recursion_depth[0](600)"):
        "recursion through an `if` while tracing: 3 frames per level (if_stmt, branch)",
    # The same limitation: ag.function traces the same converted body.
    ("graph", "recursion_depth[0](600)"):
        "recursion through an `if` while tracing: 3 frames per level (if_stmt, branch)",
    ("jax", "recursion_depth[0](600)"):
        "recursion through an `if` while tracing: 3 frames per level (if_stmt, branch)",
}

# Constructs the converters reject on purpose (programs.REJECTED, the same in
# every mode since conversion is shared): conversion must raise the named
# catalog error, naming the offending line.
REJECTED = {(mode, name): entry for mode in MODES for name, entry in programs.REJECTED.items()}


def _lookup(table, mode, case):
    return table.get((mode, case.id)) or table.get((mode, case.name))


def _params():
    params = []
    for mode in MODES:
        for case in programs.CASES:
            marks = []
            skip_reason = _lookup(SKIP, mode, case)
            xfail_reason = _lookup(XFAIL, mode, case)
            if mode == "jax" and _jax_or_none() is None:
                marks.append(pytest.mark.skip(reason="the jax mode needs jax (pip install -e .[jax])"))
            elif skip_reason:
                marks.append(pytest.mark.skip(reason=skip_reason))
            elif xfail_reason:
                marks.append(pytest.mark.xfail(strict=True, reason=xfail_reason))
            test_id = f"{mode}-{case.id}".replace(" ", "_")
            params.append(pytest.param(mode, case, marks=marks, id=test_id))
    return params


def test_skip_and_xfail_tables_are_well_formed():
    known = {c.id for c in programs.CASES} | {c.name for c in programs.CASES}
    for table in (SKIP, XFAIL, REJECTED, REFUSED_IN_MODE):
        for (mode, key), reason in table.items():
            assert mode in CONVERT_BY_MODE, f"unknown mode {mode!r}"
            assert key in known, f"no corpus case {key!r}"
            if table in (SKIP, XFAIL):
                assert isinstance(reason, str) and reason.strip(), f"{key}: give a reason"
    for (mode, key), (error_name, text, marker) in REFUSED_IN_MODE.items():
        assert issubclass(getattr(errors, error_name), errors.AutoGraphError), error_name
        assert text.strip() and (marker is None or "{where}" in text), key
    for case in programs.CASES:  # one table per (mode, case)
        for mode in CONVERT_BY_MODE:
            tables = [name for name, table in (("SKIP", SKIP), ("XFAIL", XFAIL),
                                               ("REFUSED_IN_MODE", REFUSED_IN_MODE))
                      if _lookup(table, mode, case)]
            assert len(tables) <= 1, f"{mode}-{case.id} is in {tables}"


def test_numpy_result_rule_is_narrow():
    """The NUMPY_RESULT_MODES rule: same value and numpy's dtype for the
    Python value, nothing looser."""
    same = [(3, np.int64(3)), (True, np.bool_(True)), (2.5, np.float64(2.5)),
            (-0.0, np.float64(-0.0)), (math.nan, np.float64(math.nan))]
    for expected, actual in same:
        assert_same([expected], [actual], numpy_scalars=True)
    different = [(3, np.int32(3)), (3, np.int64(4)), (True, np.int64(1)), (1, np.bool_(True)),
                 (2.5, np.float32(2.5)), (0.0, np.float64(-0.0)), (3, np.float64(3.0)),
                 (3, np.array(3)), (2 ** 70, np.float64(2.0 ** 70)), ("3", np.str_("3"))]
    for expected, actual in different:
        with pytest.raises(AssertionError):
            assert_same([expected], [actual], numpy_scalars=True)
    with pytest.raises(AssertionError):
        assert_same(3, np.int64(3))  # only where the mode asks for it


def test_corpus_is_large_and_ids_are_unique():
    names = {c.name for c in programs.CASES}
    ids = [c.id for c in programs.CASES]
    assert len(names) >= 90
    assert len(ids) == len(set(ids))


# --- running one side --------------------------------------------------------


class Outcome:
    __slots__ = ("value", "error", "args", "kwargs", "stdout", "stderr")

    def __init__(self, value, error, args, kwargs):
        self.value, self.error, self.args, self.kwargs = value, error, args, kwargs
        self.stdout = self.stderr = None


class Consumed:
    """What an iterator result (zip, enumerate, map, ...) yielded, taken once so
    that comparing two outcomes (and comparing again) does not exhaust it."""

    __slots__ = ("kind", "items")

    def __init__(self, iterator):
        self.kind = type(iterator)
        self.items = [_consume_iterators(item) for item in iterator]

    def __repr__(self):
        return f"<{self.kind.__name__} yielding {self.items!r}>"


def _consume_iterators(value):
    if type(value) in (list, tuple):
        return type(value)(_consume_iterators(v) for v in value)
    if hasattr(type(value), "__next__"):
        return Consumed(value)
    return value


async def _collect_async(agen):
    return [item async for item in agen]


def _invoke_raw(fn, call):
    """fn on fresh copies of the arguments, exceptions propagating."""
    return fn(*copy.deepcopy(call.args), **copy.deepcopy(call.kwargs))


def _invoke(fn, call):
    """Calls fn on fresh copies of the arguments, drives generators/coroutines."""
    args = copy.deepcopy(call.args)
    kwargs = copy.deepcopy(call.kwargs)
    try:
        value = fn(*args, **kwargs)
        if inspect.iscoroutine(value):
            value = asyncio.run(value)
        elif inspect.isgenerator(value):
            value = ("<generator items>", list(value))
        elif inspect.isasyncgen(value):
            value = ("<async generator items>", asyncio.run(_collect_async(value)))
        value = _consume_iterators(value)
    except Exception as e:  # noqa: BLE001 - any exception is an outcome to compare
        return Outcome(None, e, args, kwargs)
    return Outcome(value, None, args, kwargs)


def _run(fn, call, capsys, mode=None):
    capsys.readouterr()
    with SCOPE_BY_MODE.get(mode, contextlib.nullcontext)():
        outcome = _invoke(fn, call)
    captured = capsys.readouterr()
    outcome.stdout, outcome.stderr = captured.out, captured.err
    return outcome


# --- comparing ----------------------------------------------------------------------

_EXCEPTION_ATTRIBUTES = ("name", "obj", "value", "errno", "strerror", "filename", "__notes__")


def _fail(path, message):
    raise AssertionError(f"at {path}: {message}")


def _numpy_typed(expected, actual):
    """True when `actual` is the numpy scalar that ag.function returns for the
    Python bool/int/float `expected`: numpy's dtype for that Python value
    (bool, int64, float64) and the same value.  Nothing else qualifies."""
    if type(expected) not in (bool, int, float) or not isinstance(actual, np.generic):
        return False
    try:
        dtype = np.asarray(expected).dtype
    except OverflowError:
        return False
    if actual.dtype != dtype or dtype.kind not in "bif":
        return False
    if type(expected) is float:
        return (expected == actual and math.copysign(1, expected) == math.copysign(1, actual)) \
            or (math.isnan(expected) and math.isnan(actual))
    return bool(expected == actual)


def assert_same(expected, actual, path="result", numpy_scalars=False):
    """Deep equality with identical types at every level (see module doc).

    With `numpy_scalars` (modes in NUMPY_RESULT_MODES, results only), a
    Python bool/int/float may come back as the numpy scalar of the same value
    and numpy's dtype for it (ag.function's contract: calls return numpy values).
    """
    if numpy_scalars and _numpy_typed(expected, actual):
        return
    if type(expected) is not type(actual):
        _fail(path, f"type {type(actual).__name__} (value {actual!r}), "
                    f"expected {type(expected).__name__} (value {expected!r})")
    if isinstance(expected, np.ndarray):
        if expected.dtype != actual.dtype or expected.shape != actual.shape:
            _fail(path, f"array {actual.dtype}{actual.shape}, expected {expected.dtype}{expected.shape}")
        if not np.array_equal(expected, actual, equal_nan=expected.dtype.kind in "fc"):
            _fail(path, f"array {actual!r}, expected {expected!r}")
    elif isinstance(expected, np.generic):
        if expected.dtype != actual.dtype:
            _fail(path, f"dtype {actual.dtype}, expected {expected.dtype}")
        if not (expected == actual or (expected != expected and actual != actual)):
            _fail(path, f"{actual!r}, expected {expected!r}")
    elif isinstance(expected, float):
        same = (expected == actual and math.copysign(1, expected) == math.copysign(1, actual)) \
            or (math.isnan(expected) and math.isnan(actual))
        if not same:
            _fail(path, f"{actual!r}, expected {expected!r}")
    elif isinstance(expected, (list, tuple)):
        if len(expected) != len(actual):
            _fail(path, f"length {len(actual)} ({actual!r}), expected {len(expected)} ({expected!r})")
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, f"{path}[{i}]", numpy_scalars)
    elif isinstance(expected, dict):
        if list(expected) != list(actual):
            _fail(path, f"keys {list(actual)!r}, expected {list(expected)!r}")
        for key in expected:
            assert_same(expected[key], actual[key], f"{path}[{key!r}]", numpy_scalars)
    elif isinstance(expected, (set, frozenset)):
        if expected != actual:
            _fail(path, f"{actual!r}, expected {expected!r}")
    elif isinstance(expected, BaseException):
        assert_same_exception(expected, actual, path)
    elif isinstance(expected, (types.FunctionType, types.MethodType)):
        if expected.__qualname__ != actual.__qualname__:
            _fail(path, f"function {actual.__qualname__}, expected {expected.__qualname__}")
    elif isinstance(expected, (int, str, bytes, complex, range, type, type(None))):
        if expected != actual:
            _fail(path, f"{actual!r}, expected {expected!r}")
    elif isinstance(expected, Consumed):  # zip/enumerate/map/... objects
        assert_same(expected.kind, actual.kind, f"type({path})")
        assert_same(expected.items, actual.items, f"list({path})", numpy_scalars)
    elif hasattr(expected, "__dict__"):
        assert_same(vars(expected), vars(actual), f"vars({path})", numpy_scalars)
    elif expected != actual:
        _fail(path, f"{actual!r}, expected {expected!r}")


def assert_same_exception(expected, actual, path="exception", depth=0):
    if type(expected) is not type(actual):
        _fail(path, f"raised {type(actual).__qualname__}: {actual}, "
                    f"expected {type(expected).__qualname__}: {expected}")
    if str(expected) != str(actual):
        _fail(path, f"message {str(actual)!r}, expected {str(expected)!r}")
    assert_same(expected.args, actual.args, f"{path}.args")
    assert_same(vars(expected), vars(actual), f"vars({path})")
    for attribute in _EXCEPTION_ATTRIBUTES:
        if hasattr(expected, attribute) or hasattr(actual, attribute):
            assert_same(getattr(expected, attribute, "<missing>"),
                        getattr(actual, attribute, "<missing>"), f"{path}.{attribute}")
    if expected.__suppress_context__ != actual.__suppress_context__:
        _fail(path, f"__suppress_context__ {actual.__suppress_context__}")
    if depth < 3:
        for link in ("__cause__", "__context__"):
            e, a = getattr(expected, link), getattr(actual, link)
            if e is None or a is None:
                if e is not a:
                    _fail(f"{path}.{link}", f"{a!r}, expected {e!r}")
            else:
                assert_same_exception(e, a, f"{path}.{link}", depth + 1)


def _harness_frame(code):
    """A frame of the jax mode's wrapper or of jax itself (not in the plain run)."""
    return code in _JAX_WRAPPER_CODES or any(
        code.co_filename.startswith(d) for d in _jax_dirs())


_JAX_WRAPPER_CODES = {_UnderJaxJit.__call__.__code__}
_JAX_WRAPPER_CODES |= {c for c in _UnderJaxJit.__call__.__code__.co_consts
                       if isinstance(c, types.CodeType)}


@functools.lru_cache(maxsize=None)
def _jax_dirs():
    import sys
    return tuple(os.path.dirname(m.__file__) + os.sep
                 for m in (sys.modules.get("jax"), sys.modules.get("jaxlib")) if m is not None)


def user_frames(exc):
    """(file, line, function) of every traceback frame outside the autograph
    package (and outside the jax mode's wrapper and jax)."""
    return [(frame.f_code.co_filename, lineno, frame.f_code.co_name)
            for frame, lineno in traceback.walk_tb(exc.__traceback__)
            if not errors.is_internal_file(frame.f_code.co_filename)
            and not _harness_frame(frame.f_code)]


def assert_same_traceback(expected, actual):
    expected_frames, actual_frames = user_frames(expected), user_frames(actual)
    assert actual_frames, "the converted run's traceback has no user frame"
    assert actual_frames[-1] == expected_frames[-1], (
        f"last user frame {actual_frames[-1]}, expected {expected_frames[-1]}")
    assert actual_frames == expected_frames, (
        "user frames differ:\n  converted: " + "\n             ".join(map(str, actual_frames))
        + "\n  original:  " + "\n             ".join(map(str, expected_frames)))


def assert_same_outcome(expected, actual, mode=None):
    if expected.error is not None or actual.error is not None:
        if actual.error is None:
            raise AssertionError(f"expected {type(expected.error).__name__}: {expected.error}, "
                                 f"but the converted run returned {actual.value!r}")
        if expected.error is None:
            raise AssertionError(
                f"the converted run raised {type(actual.error).__name__}: {actual.error}, "
                f"expected a return of {expected.value!r}\n"
                + "".join(traceback.format_exception(actual.error, limit=-12)))
        assert_same_exception(expected.error, actual.error)
        assert_same_traceback(expected.error, actual.error)
    else:
        assert_same(expected.value, actual.value, numpy_scalars=mode in NUMPY_RESULT_MODES)
    assert_same(expected.args, actual.args, "arguments after the call")
    assert_same(expected.kwargs, actual.kwargs, "keyword arguments after the call")
    assert actual.stdout == expected.stdout, "stdout differs"
    assert actual.stderr == expected.stderr, "stderr differs"


# --- checks of the conversion itself ---------------------------------------------------


def _function_of(entity):
    """The plain function inside a method/partial/callable object."""
    while True:
        if isinstance(entity, types.MethodType):
            entity = entity.__func__
        elif isinstance(entity, functools.partial):
            entity = entity.func
        elif isinstance(entity, types.FunctionType):
            return entity
        else:
            entity = type(entity).__call__


def _kind(fn):
    return (inspect.isgeneratorfunction(fn), inspect.iscoroutinefunction(fn),
            inspect.isasyncgenfunction(fn))


def check_conversion(mode, entity, converted, previous):
    if CONVERT_BY_MODE[mode] is not _convert_python:
        return
    original_fn, converted_fn = _function_of(entity), _function_of(converted)
    assert transpiler.is_converted_code(converted_fn.__code__), "to_graph returned unconverted code"
    assert _kind(converted_fn) == _kind(original_fn), "generator/coroutine kind changed"
    if previous is not None:
        assert _function_of(previous).__code__ is converted_fn.__code__, \
            "second to_graph did not reuse the cached conversion"


def assert_refused_in_mode(mode, case, convert):
    """The REFUSED_IN_MODE check: each call (through two conversions) raises
    exactly the catalog class, with the text, at the marker's line."""
    error_name, text, marker = _lookup(REFUSED_IN_MODE, mode, case)
    error_type = getattr(errors, error_name)
    fn = _function_of(case.entity)
    filename, where, line = fn.__code__.co_filename, None, None
    if marker is not None:
        lines, first = inspect.getsourcelines(fn)
        offending = [first + i for i, source in enumerate(lines) if source.strip() == marker]
        assert len(offending) == 1, f"exactly one line of {fn.__name__} must read {marker!r}"
        line = offending[0]
        where = errors.where(filename, line)
    expected = text.format(
        where=where, first=errors.where(filename, fn.__code__.co_firstlineno),
        name=fn.__name__, kind="an async function" if inspect.iscoroutinefunction(fn)
        else "a generator")
    for _ in range(2):  # the second conversion comes from the caches
        converted = convert(case.entity)
        with pytest.raises(Exception) as info:  # (a return fails: DID NOT RAISE)
            _invoke_raw(converted, case.call)
        error = info.value
        assert type(error) is error_type, (
            f"raised {type(error).__qualname__}: {error}, expected {error_name}")
        assert expected in str(error), f"{expected!r} not in {str(error)!r}"
        if line is not None:
            assert user_frames(error)[-1][:2] == (filename, line), user_frames(error)


def assert_rejected(mode, case, convert):
    error_name, text, marker = REJECTED[(mode, case.name)]
    error_type = getattr(errors, error_name)
    fn = _function_of(case.entity)
    lines, first = inspect.getsourcelines(fn)
    offending = [first + i for i, line in enumerate(lines) if line.strip() == marker]
    assert len(offending) == 1, f"exactly one line of {fn.__name__} must read {marker!r}"
    with pytest.raises(error_type) as info:
        converted = convert(case.entity)
        if mode in CONVERTS_AT_FIRST_CALL:
            _invoke_raw(converted, case.call)
    assert isinstance(info.value, errors.AutoGraphError)
    expected = text.format(where=errors.where(fn.__code__.co_filename, offending[0]))
    assert expected in str(info.value)


# --- the test -------------------------------------------------------------------------


def assert_no_autograph_warnings(caplog):
    """A callee that cannot be converted is logged and called unconverted; in
    the corpus every callee must convert, so such a fallback is a failure."""
    warned = [r.getMessage() for r in caplog.records
              if (r.name == "autograph" or r.name.startswith("autograph."))
              and r.levelno >= logging.WARNING]
    caplog.clear()
    assert not warned, "autograph logged: " + "\n".join(warned)


@pytest.mark.parametrize("mode, case", _params())
def test_converted_matches_original(mode, case, capsys, caplog):
    caplog.set_level(logging.WARNING, logger="autograph")
    convert = CONVERT_BY_MODE[mode]
    expected = _run(case.entity, case.call, capsys)
    if (mode, case.name) in REJECTED:
        assert_rejected(mode, case, convert)
        return
    if _lookup(REFUSED_IN_MODE, mode, case):
        assert_refused_in_mode(mode, case, convert)
        return

    first = convert(case.entity)
    check_conversion(mode, case.entity, first, None)
    assert_same_outcome(expected, _run(first, case.call, capsys, mode), mode)
    assert_no_autograph_warnings(caplog)

    second = convert(case.entity)  # must come from the conversion cache
    check_conversion(mode, case.entity, second, first)
    assert_same_outcome(expected, _run(second, case.call, capsys, mode), mode)
    assert_no_autograph_warnings(caplog)
