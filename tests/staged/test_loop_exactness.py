"""Staged loops give eager Python's and numpy's exact results, or refuse.

Hypothesis writes small loops over an accumulator that starts as a Python
int, a Python float or a numpy scalar (np.int8 .. np.int64, np.uint8,
np.float16 .. np.float64) and meets the elements of an array of those dtypes
through `+ - *` (edge values: int overflow, NaN, inf, empty arrays), runs each
eagerly and with `ag.function`, and compares value bits, dtype and type.
What may differ (docs/ARCHITECTURE.md section 6): a Python int or float
result comes back as np.int64 / np.float64, and a loop that ran no iteration
gives its start value the loop's dtype.  What may not: any other value,
dtype or type; a staged value where Python raises.  The refusals allowed
where eager Python gives a value: PythonIntOverflowError, for a Python int
that Python grows past int64's range (the graph carries it as int64) or
makes a float (`s ** k` with k < 0 at run time), and
the trace-time StagingError for a numpy scalar whose dtype the loop changes
(`s = np.int8(0); s = s + x_i16`: a loop variable keeps one dtype) or a Python
int numpy refuses to combine with the array (`s = 2**40; s = s + x_i8`, which
raises OverflowError eagerly once the loop runs), and PythonFloatResultError
for a Python float power that Python makes complex.  Where Python raises
(a Python float's zero divisor: ZeroDivisionError), the graph raises the
same error, or refuses.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
from autograph import errors
from tests.staged import fuzz_harness

_INTS = ["int8", "int16", "int32", "int64", "uint8"]
_FLOATS = ["float16", "float32", "float64"]


def _edges(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return [0.0, -0.0, 1.5, -2.25, 3.0, float(np.finfo(dtype).max), math.inf, -math.inf,
                math.nan]
    info = np.iinfo(dtype)
    return [0, 1, 2, 7, info.max, info.min, info.max - 1, info.min + 1]


def _numpy_start(dtype, value):
    return f"np.{dtype}({value!r})" if math.isfinite(value) else f"np.{dtype}(float({str(value)!r}))"


@st.composite
def _start(draw):
    kind = draw(st.sampled_from(["int", "float"] + _INTS + _FLOATS))
    if kind == "int":
        return kind, repr(draw(st.sampled_from([0, 1, -3, 5, 2**40, 2**62, -(2**62)])))
    if kind == "float":
        value = draw(st.sampled_from([0.0, 1.0, -2.5, 1e300, math.inf, math.nan]))
        return kind, repr(value) if math.isfinite(value) else f"float({str(value)!r})"
    return kind, _numpy_start(kind, draw(st.sampled_from(_edges(kind)[:7])))


_ARRAY_STATEMENTS = ["s = s {op} v", "s {op}= v", "s = v {op} s", "s = s {op} {k} + v",
                     "s = {k} {op} s + v"]


@st.composite
def _array_program(draw):
    start_kind, start = draw(_start())
    dtype = draw(st.sampled_from(_INTS + _FLOATS))
    values = draw(st.lists(st.sampled_from(_edges(dtype)), max_size=4))
    op = draw(st.sampled_from(["+", "-", "*"]))
    k = draw(st.sampled_from(["2", "3", "0.5", "-1"]))
    statement = draw(st.sampled_from(_ARRAY_STATEMENTS)).format(op=op, k=k)
    loop = draw(st.sampled_from(["for", "range", "while"]))
    if loop == "for":
        body = f"    for v in x:\n        {statement}\n"
    elif loop == "range":
        body = f"    for i in range(n):\n        v = x[i]\n        {statement}\n"
    else:
        body = (f"    i = 0\n    while i < n:\n        v = x[i]\n        {statement}\n"
                "        i += 1\n")
    source = f"import numpy as np\n\n\ndef f(x, n):\n    s = {start}\n{body}    return s\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = np.array(values, dtype)
    return source, (x, np.int64(len(values)))


@st.composite
def _python_int_program(draw):
    """`s = s OP k` on a Python int: overflows int64 when Python grows it."""
    start = draw(st.sampled_from([0, 1, -7, 3, 2**61, -(2**61)]))
    op, k = draw(st.sampled_from([("*", 3), ("*", -2), ("*", 1000), ("+", 2**61),
                                  ("-", 2**61), ("<<", 3), ("**", 2), ("//", 3), ("%", 7),
                                  ("//", -1), ("-", 1)]))
    unary = draw(st.sampled_from(["", "-", "abs"]))
    expression = f"s {op} {k}"
    if unary == "-":
        expression = f"-({expression})"
    elif unary == "abs":
        expression = f"abs({expression})"
    source = ("import numpy as np\n\n\ndef f(x, n):\n"
              f"    s = {start}\n    for i in range(n):\n        s = {expression}\n"
              "    return s\n")
    # (`s ** 2` squares n times: Python's int has 2**n times the digits)
    steps = draw(st.integers(0, 8 if op == "**" else 70))
    return source, (np.zeros(0), np.int64(steps)), _leaves_int64(start, expression, steps)


def _leaves_int64(start, expression, steps):
    """Does a value Python computes on the way (`s << 3` before its `-`) leave int64?"""
    s, inner = start, expression.replace("-(", "(").replace("abs(", "(")
    for _ in range(steps):
        for value in (eval(inner, {"s": s}), eval(expression, {"s": s})):
            if not -(2**63) <= value < 2**63:
                return True
        s = eval(expression, {"s": s})
    return False


@st.composite
def _python_float_program(draw):
    """`s = s OP (i - k)` on a Python float or int: Python raises for a zero
    divisor where numpy gives inf or nan."""
    start = draw(st.sampled_from(["1.0", "-2.5", "0.0", "7", "1e300"]))
    op = draw(st.sampled_from(["/", "//", "%", "*", "+", "**"]))
    k = draw(st.sampled_from([0, 1, 2, "0.5"]))
    source = ("import numpy as np\n\n\ndef f(x, n):\n"
              f"    s = {start}\n    for i in range(n):\n        s = s {op} (i - {k})\n"
              "    return s\n")
    return source, (np.zeros(0), np.int64(draw(st.integers(0, 5))))


def _run(fn, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args), None
        except Exception as e:  # compared below
            return None, e


def _check(source, args, tmp_path, leaves_int64=None):
    module, _ = fuzz_harness.load(source, str(tmp_path))
    expected, e_error = _run(module.f, args)
    staged_fn = ag.function(module.f)
    for _ in range(3):  # interpreted, compiled, fast call
        actual, a_error = _run(staged_fn, args)
        where = f"\n--- program ---\n{source}args: {args!r}"
        if a_error is not None:
            if e_error is not None:
                # both raise: Python's own error, or a refusal of the catalog
                assert type(a_error) is type(e_error) or isinstance(
                    a_error, errors.AutoGraphError), f"{a_error!r}, eager {e_error!r}{where}"
                continue
            if isinstance(a_error, errors.StagingError) and (
                    "changes dtype" in str(a_error) or "cannot carry that dtype" in str(a_error)):
                continue  # a dtype the loop changes (or numpy refuses): refused at trace time
            if isinstance(a_error, errors.GraphOverflowError) and int(args[1]) == 0:
                continue  # the body raises on every run (`np.uint8(0) + -1`): refused by its trace
            if isinstance(a_error, errors.PythonFloatResultError):
                assert type(expected) is complex, f"refused, eager gave {expected!r}{where}"
                continue
            assert isinstance(a_error, errors.PythonIntOverflowError), \
                f"staged raised {a_error!r}, eager gave {expected!r}{where}"
            if "Python gives the float" in str(a_error):  # `s ** k`, k < 0 at run time
                continue
            if leaves_int64 is not None:  # (an intermediate value may leave it too)
                assert leaves_int64, f"refused, but all of eager Python's values fit{where}"
                continue
            assert type(expected) is int and not -(2**63) <= expected < 2**63, \
                f"refused, but eager Python's {expected!r} fits int64{where}"
            continue
        assert e_error is None, f"staged gave {actual!r}, eager raised {e_error!r}{where}"
        _same(expected, actual, args, where)


def _same(expected, actual, args, where):
    """The same type and bits: a Python number is returned as one (ops/random.py
    PythonNumber), a numpy value as numpy's."""
    ran = int(args[1]) > 0
    if not ran and type(actual) is not type(expected):  # no iteration: the start value, typed
        assert actual == expected or actual != actual and expected != expected, \
            f"value {actual!r}, eager {expected!r}{where}"
        return
    assert type(actual) is type(expected), f"type {type(actual)}, eager {type(expected)}{where}"
    if type(expected) in (int, bool):
        assert actual == expected, f"value {actual!r}, eager {expected!r}{where}"
        return
    e, a = np.asarray(expected), np.asarray(actual)
    assert a.dtype == e.dtype, f"dtype {a.dtype}, eager {e.dtype}{where}"
    assert a.tobytes() == e.tobytes(), \
        f"value {actual!r}, eager {expected!r}{where}"


_SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(program=_array_program())
def test_accumulator_over_array_elements_is_exact(program, tmp_path):
    _check(*program, tmp_path)


@_SETTINGS
@given(program=_python_int_program())
def test_python_int_accumulator_is_exact_or_refused(program, tmp_path):
    source, args, leaves_int64 = program
    _check(source, args, tmp_path, leaves_int64)


@_SETTINGS
@given(program=_python_float_program())
def test_python_float_accumulator_is_exact_or_raises_as_python(program, tmp_path):
    _check(*program, tmp_path)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (numpy's wrapping, eagerly)
@pytest.mark.parametrize("start, statement, dtype, eager_raises", [
    ("200", "s = 2 - s + v", "uint8", True),      # -198 meets uint8: numpy's OverflowError
    ("200", "s = s * 2 + v", "uint8", True),      # 400 meets uint8
    ("5", "s = (s - 10) % 7 + v", "uint8", False),  # Python: 2; uint8 wraps: 251 % 7 == 6
    ("0.3", "s = s * 3 + v", "float32", False),   # Python's 0.8999999999999999 -> 0.9 in float32
    ("200", "if v > 0:\n            s = s * 2 + v", "uint8", True),  # in a staged branch
])
def test_first_iteration_python_arithmetic_the_narrow_dtype_would_change_is_refused(
        start, statement, dtype, eager_raises, tmp_path):
    """A loop's Python number that the body makes a narrower numpy value is
    that dtype from the first iteration on in the graph, while Python's first
    iteration computes with the Python number: where the two differ (checked
    at trace time for numbers known before the loop), the loop is refused."""
    source = ("import numpy as np\n\n\ndef f(x, n):\n    s = " + start + "\n    for v in x:\n"
              f"        {statement}\n    return s\n")
    module, _ = fuzz_harness.load(source, str(tmp_path))
    x = np.array([1, 2], dtype)
    if eager_raises:
        with pytest.raises(OverflowError):
            module.f(x, np.int64(2))
    else:
        module.f(x, np.int64(2))
    with pytest.raises(errors.StagingError, match="in Python its first iteration computes"):
        ag.function(module.f)(x, np.int64(2))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (numpy's wrapping, eagerly)
@pytest.mark.parametrize("start, statement", [("0", "s = s * 2 + v"), ("1.0", "s = s * 0.5 + v"),
                                              ("3", "s = (s - 1) % 7 + v")])
def test_first_iteration_python_arithmetic_the_narrow_dtype_keeps_is_staged(start, statement,
                                                                            tmp_path):
    source = ("import numpy as np\n\n\ndef f(x, n):\n    s = " + start + "\n    for v in x:\n"
              f"        {statement}\n    return s\n")
    module, _ = fuzz_harness.load(source, str(tmp_path))
    for dtype in ("uint8", "float32") if "." in start else ("uint8", "int16"):
        x = np.array([1, 2, 3], dtype)
        expected, actual = module.f(x, np.int64(3)), ag.function(module.f)(x, np.int64(3))
        assert type(actual) is type(expected) and actual == expected


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (numpy's wrapping, eagerly)
def test_first_iteration_of_an_inner_loop_from_an_outer_loops_number(tmp_path):
    """An inner loop's number computed from an outer loop's (`s = t + 200`) is
    known only when the graph runs: Python arithmetic on it in the first
    iteration of a loop that makes it a narrower dtype is refused."""
    source = ("import numpy as np\n\n\ndef f(x, n):\n    t = 0\n    for w in x:\n"
              "        s = t + 200\n        for v in x:\n            s = s * 2 + v\n"
              "        t = t + 1\n    return s\n")
    module, _ = fuzz_harness.load(source, str(tmp_path))
    x = np.array([1, 2], np.uint8)
    with pytest.raises(OverflowError):
        module.f(x, np.int64(2))
    with pytest.raises(errors.StagingError, match="only known when the graph runs"):
        ag.function(module.f)(x, np.int64(2))


START = 0  # (set by the tests below; the function reads it as a global)


def _sum_positive(x):
    s = START
    for v in x:
        if v > 0:
            s = s + v
    return s


@pytest.mark.filterwarnings("error::RuntimeWarning")  # (no numpy warning of ours while tracing)
@pytest.mark.parametrize("start,dtype", [(16777217, "float32"), (0.1, "float32"),
                                         (2049, "float16"), (1e300, "float32")])
def test_a_start_the_promoted_dtype_cannot_hold_is_refused(start, dtype):
    # the loop carries s in the array's dtype; with no iteration (or no branch
    # taken) Python returns the start itself: 16777217 came back as 16777216.0
    globals()["START"] = start
    x = np.array([-1.0, -2.0], dtype)
    assert _sum_positive(x) == start
    with pytest.raises(errors.StagingError, match="cannot carry that dtype"):
        ag.function(_sum_positive)(x)


@pytest.mark.parametrize("start", [0, 16777216, 1.5, -0.0, math.inf])
def test_a_start_the_promoted_dtype_holds_is_kept(start):
    globals()["START"] = start
    for x in (np.array([-1.0, -2.0], np.float32), np.array([1.0, 2.5], np.float32)):
        assert ag.function(_sum_positive)(x) == _sum_positive(x)
