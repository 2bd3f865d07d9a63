import inspect
"""ag.function: tracing rules, cache keys, signatures, methods, results."""

import collections
import re
import warnings

import numpy as np
import pytest

from autograph import errors
from autograph.graph import (ConcreteFunction, Function, TensorSpec, Variable, function,
                             run_functions_eagerly)


def counting(fn, **options):
    """An ag.function of fn that counts its traces in `calls`."""
    calls = []

    def traced(*args, **kwargs):
        calls.append(1)
        return fn(*args, **kwargs)

    return function(traced, autograph=False, **options), calls


def test_same_shape_and_dtype_does_not_retrace():
    f, calls = counting(lambda x: x * 2)
    for _ in range(3):
        np.testing.assert_array_equal(f(np.ones(3)), np.full(3, 2.0))
    f(np.zeros(3))
    assert len(calls) == 1 and f.experimental_get_tracing_count() == 1


def test_new_dtype_or_shape_retraces():
    f, calls = counting(lambda x: x * 2)
    f(np.ones(3))
    f(np.ones(3, np.float32))
    f(np.ones(4))
    f(np.ones((3, 1)))
    assert len(calls) == 4
    assert f(np.ones(3, np.float32)).dtype == np.float32
    assert len(calls) == 4


def test_python_int_traces_once_per_value():
    f, calls = counting(lambda x, n: x * n)
    assert f(np.ones(2), 2)[0] == 2.0
    assert f(np.ones(2), 3)[0] == 3.0
    assert f(np.ones(2), 2)[0] == 2.0
    assert len(calls) == 2


def test_python_scalars_of_different_types_are_different_keys():
    f, calls = counting(lambda x, n: x * n)
    f(np.ones(2), 1)
    f(np.ones(2), 1.0)
    f(np.ones(2), True)
    assert len(calls) == 3


def test_strings_lists_dicts_namedtuples_are_flattened():
    Pair = collections.namedtuple("Pair", "a b")

    def fn(mode, xs, d, p):
        total = sum(xs) + d["w"] * p.a + p.b
        return {"out": total * 2 if mode == "double" else total, "mode": mode}

    f, calls = counting(fn)
    args = ("double", [np.ones(2), np.ones(2)], {"w": np.full(2, 3.0)}, Pair(np.ones(2), 1))
    out = f(*args)
    assert out["mode"] == "double"
    np.testing.assert_array_equal(out["out"], np.full(2, 12.0))
    f("double", [np.zeros(2), np.ones(2)], {"w": np.zeros(2)}, Pair(np.ones(2), 1))
    assert len(calls) == 1
    f("single", *args[1:])
    f("double", [np.ones(2)] * 3, *args[2:])
    f(*args[:3], Pair(np.ones(2), 2))
    assert len(calls) == 4


def test_other_objects_are_keyed_by_identity():
    class Scale:
        def __init__(self, k):
            self.k = k

    f, calls = counting(lambda x, s: x * s.k)
    a, b = Scale(2), Scale(3)
    assert f(np.ones(1), a)[0] == 2 and f(np.ones(1), a)[0] == 2
    assert f(np.ones(1), b)[0] == 3
    assert len(calls) == 2


def test_keyword_arguments():
    f, calls = counting(lambda x, y=1.0: x + y)
    assert f(np.ones(1), y=np.ones(1))[0] == 2
    assert f(np.ones(1), y=np.zeros(1))[0] == 1
    assert f(np.ones(1))[0] == 2
    assert len(calls) == 2


def test_return_structure_and_python_values():
    Out = collections.namedtuple("Out", "y extra")
    f = function(lambda x: [Out(x + 1, "tag"), {"n": 3, "z": (x, None)}], autograph=False)
    out = f(np.ones(2))
    assert isinstance(out, list) and isinstance(out[0], Out)
    assert out[0].extra == "tag" and out[1]["n"] == 3 and out[1]["z"][1] is None
    assert isinstance(out[0].y, np.ndarray)
    assert f(np.ones(2))[1]["z"][0] is not None


def test_returned_numpy_constants_are_fresh_each_call():
    f = function(lambda x: (np.arange(3.0), x), autograph=False)
    first, _ = f(np.ones(1))
    first[0] = 99
    np.testing.assert_array_equal(f(np.ones(1))[0], np.arange(3.0))


def test_input_signature_with_none_dims():
    f, calls = counting(lambda x: x.sum(axis=1),
                        input_signature=[TensorSpec((None, 3), np.float32)])
    assert f(np.ones((2, 3), np.float32)).shape == (2,)
    assert f(np.ones((5, 3), np.float32)).shape == (5,)
    assert f([[1.0, 2.0, 3.0]])[0] == 6.0  # Python values are converted
    assert len(calls) == 1
    with pytest.raises(errors.GraphError, match=re.escape("don't match its traced signature")):
        f(np.ones((2, 4), np.float32))
    with pytest.raises(errors.GraphError, match=re.escape("float64) that don't match")):
        f(np.ones((2, 3), np.float64))


def test_reduce_retracing_relaxes_shapes_after_a_change():
    f, calls = counting(lambda x: x * 2, reduce_retracing=True)
    f(np.ones(2))
    f(np.ones(3))
    f(np.ones(7))
    f(np.ones(11))
    assert len(calls) == 2
    assert f.get_concrete_function(np.ones(5)).inputs[0].shape == (None,)
    f(np.ones((2, 2)))
    assert len(calls) == 3


def test_retrace_warning_names_the_changing_argument():
    def add_step(x, step):
        return x + step

    f = function(add_step, autograph=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for step in range(8):
            f(np.ones(2), step)
    retrace = [w for w in caught if issubclass(w.category, errors.RetracingWarning)]
    assert len(retrace) == 1
    message = str(retrace[0].message)
    assert "argument 'step'" in message and "input_signature" in message
    assert "Python int" in message and "add_step' was retraced 5 times" in message


def test_no_warning_for_a_few_traces():
    f, _ = counting(lambda x: x + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in range(1, 5):
            f(np.ones(n))


def test_decorator_forms_methods_and_callable_objects():
    @function
    def bare(x):
        return x + 1

    @function(autograph=False)
    def with_args(x):
        return x + 2

    class Model:
        def __init__(self, k):
            self.k = k

        @function(autograph=False)
        def apply(self, x):
            return x * self.k

    class Callable:
        def __call__(self, x):
            return x - 1

    assert isinstance(bare, Function) and bare.python_function.__name__ == "bare"
    assert with_args(np.ones(1))[0] == 3
    m2, m3 = Model(2), Model(3)
    assert m2.apply(np.ones(1))[0] == 2 and m3.apply(np.ones(1))[0] == 3
    assert Model.apply.experimental_get_tracing_count() == 2
    assert function(Callable(), autograph=False)(np.ones(1))[0] == 0


def test_get_concrete_function_and_signatures():
    f = function(lambda x, n: x * n, autograph=False)
    cf = f.get_concrete_function(TensorSpec((None,), np.float32), 3)
    assert isinstance(cf, ConcreteFunction)
    assert [t.shape for t in cf.inputs] == [(None,)] and cf.outputs[0].dtype == np.float32
    np.testing.assert_array_equal(cf(np.ones(4, np.float32), 3), np.full(4, 3.0))
    assert f(np.ones(2, np.float32), 3)[0] == 3  # the spec'd trace serves the call
    assert f.experimental_get_tracing_count() == 1
    assert f.pretty_printed_concrete_signatures() == \
        "<lambda>(x: float32[?], n=3) -> (float32[?])"
    listing = str(cf.graph)
    assert "multiply" in listing and "test_function.py" in listing


def test_run_functions_eagerly_runs_python_on_numpy():
    seen = []

    @function(autograph=False)
    def f(x):
        seen.append(type(x))
        return x.sum()

    run_functions_eagerly(True)
    try:
        assert f(np.ones(3)) == 3.0 and f(np.ones(3)) == 3.0
    finally:
        run_functions_eagerly(False)
    assert seen == [np.ndarray, np.ndarray]
    f(np.ones(3))
    assert seen[-1].__name__ == "Tensor"


def test_variables_are_keyed_by_identity():
    f, calls = counting(lambda v, x: v + x)
    a, b = Variable(1.0), Variable(2.0)
    assert f(a, np.ones(1))[0] == 2 and f(b, np.ones(1))[0] == 3
    assert f(a, np.ones(1))[0] == 2
    assert len(calls) == 2


def test_leaked_tensor_is_reported():
    kept = []
    f = function(lambda x: kept.append(x) or x, autograph=False)
    with pytest.raises(errors.TraceLeakError, match=r"kept\[0\]"):  # (guards.py)
        f(np.ones(1))
    g = function(lambda x: x + kept[0], autograph=False)
    used_line = inspect.currentframe().f_lineno - 1  # the lambda's line: where `+` runs
    with pytest.raises(errors.GraphError, match=re.escape(
            f"is used at {__file__}:{used_line}, outside the graph that made it")):
        g(np.ones(1))


def test_generated_source_calls_kernels_directly():
    f = function(lambda x, w: np.tanh(x @ w) + 1, autograph=False)
    source = f.get_concrete_function(np.ones((2, 3)), np.ones((3, 4))).source
    assert "a0 @ a1" in source and "tanh" in source and "for " not in source


# --- cache keys of Python floats and complex numbers: by bit pattern -------------


def test_negative_zero_gets_its_own_trace():
    import math

    f = function(lambda x, s: x * 0 + math.copysign(1.0, s))
    assert f(np.zeros(()), 0.0) == 1.0
    assert f(np.zeros(()), -0.0) == -1.0  # not the 0.0 trace: 0.0 == -0.0 in Python
    assert f(np.zeros(()), 0.0) == 1.0
    assert f.experimental_get_tracing_count() == 2
    assert "s=-0.0" in f.pretty_printed_concrete_signatures()


def test_nan_reuses_its_trace():
    f = function(lambda x, s: x + s)
    for nan in (float("nan"), float("nan"), np.nan):  # distinct NaN objects
        assert np.isnan(f(np.zeros(()), nan))
    assert f.experimental_get_tracing_count() == 1


def test_complex_keys_by_bits_and_numbers_by_type():
    f = function(lambda x, s: x + s)
    f(np.zeros(()), complex(0.0, 0.0))
    f(np.zeros(()), complex(0.0, -0.0))
    f(np.zeros(()), complex(0.0, float("nan")))
    f(np.zeros(()), complex(0.0, float("nan")))
    assert f.experimental_get_tracing_count() == 3
    g = function(lambda x, s: x + s)
    for value in (True, 1, 1.0, 1, True):  # equal in Python, different keys
        g(np.zeros(()), value)
    assert g.experimental_get_tracing_count() == 3


# --- ag.function usage errors are catalog errors, with the user's line ---------


def test_function_of_a_non_callable_is_a_catalog_type_error():
    with pytest.raises(errors.FunctionUsageError) as e:
        function(3)
    assert isinstance(e.value, TypeError) and isinstance(e.value, errors.AutoGraphError)
    assert str(e.value) == errors.not_callable_message(3, f"{__file__}:{_line_of('function(3)')}")
    assert re.search(re.escape("ag.function needs a callable, got 3 (at ") + r".*test_function\.py:\d+"
                     + re.escape("). Pass the function itself"), str(e.value))


def test_input_signature_must_hold_tensor_specs():
    with pytest.raises(TypeError, match=re.escape(
            "input_signature must hold ag.TensorSpec, got (2,) (at "
            f"{__file__}:{_line_of('input_signature=[(2,)]')}). Write input_signature=[")):
        function(lambda x: x, input_signature=[(2,)])


def test_call_with_the_wrong_number_of_arguments_for_the_input_signature():
    f = function(lambda x: x, input_signature=[TensorSpec((2,), np.float64)])
    with pytest.raises(errors.FunctionUsageError, match=re.escape(
            f"<lambda>() takes 1 arguments (its input_signature), got 2 (at "
            f"{__file__}:{_line_of('f([1.0, 2.0], 3)')}). Pass one array per ag.TensorSpec")):
        f([1.0, 2.0], 3)


def _line_of(text):
    """The line of this file holding `text` (once)."""
    with open(__file__) as source:
        found = [i for i, line in enumerate(source, 1) if text in line and "_line_of" not in line]
    assert len(found) == 1, found
    return found[0]


def test_scalar_results_are_numpy_scalars_even_where_numpy_keeps_a_0d_array():
    # documented in graph/function.py: the compiler makes every 0-d output a scalar
    for fn in (lambda x: x, lambda x: x + 1):
        got = function(fn)(np.array(1))
        assert type(got) is np.int64 and got == fn(np.array(1))
    import sys

    assert "every 0-d result is a numpy scalar" in " ".join(
        sys.modules[Function.__module__].__doc__.split())


def c1(x, n):  # named as the compiled code names its globals (c0, c1, ...)
    r = x + 1
    for k in range(n):
        r = x + k
    return r


def test_a_function_named_as_a_generated_global_runs():
    # the compiled graph's `def c1` rebound the global c1 its own code reads
    x = np.array([1., -2.], np.float16)
    got = function(c1)(x, np.int64(3))
    assert got.dtype == np.float16 and np.array_equal(got, c1(x, np.int64(3)))
