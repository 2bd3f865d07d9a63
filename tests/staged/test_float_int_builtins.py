"""`float(t)` / `int(t)` of a staged 0-d value: a staged Python number (the
graph engine's PythonNumber), so what follows computes as Python computes
with a Python float or int (runtime/builtins.py `float_`, `int_`;
backends/graph.py `python_number`).  What cannot be staged exactly is
refused as before."""

import math

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def history(w, x, steps):
    hist = []
    for _ in range(steps):
        loss = np.sum((x * w - 1.0) ** 2)
        w = w - 0.1 * x * (x * w - 1.0)
        hist.append(float(loss))
    return w, hist


def test_a_float_history_of_a_training_loop_is_pythons():
    x, w = np.ones(3, np.float32), np.zeros(3, np.float32)
    expected = history(w, x, 3)
    staged = ag.function(history)(w, x, 3)
    assert staged[1] == expected[1] and all(type(v) is float for v in staged[1])
    assert staged[0].dtype == expected[0].dtype == np.float32


def mixes(x, n):
    a = float(x[0]) * x  # a Python float meets float32: float32
    b = int(n) * x  # a Python int meets float32: float32
    c = float(x[0]) + 1  # a Python float
    d = int(n) + 2**40  # a Python int
    return a, b, c, d, float(n) / 3, int(x[0] > 0)


CASES = [
    (np.array([0.1, 2.0], np.float32), np.int8(5)),
    (np.array([-1.5, 2.0], np.float16), np.uint32(7)),
    (np.array([np.nan, 1.0], np.float32), np.int64(2**62)),
    (np.array([np.inf, 1.0], np.float64), np.bool_(True)),
]


@pytest.mark.parametrize("x, n", CASES, ids=lambda v: str(v))
def test_float_and_int_compute_as_python_numbers(x, n):
    expected = mixes(x, n)
    staged = ag.function(mixes)(x, n)
    for s, e in zip(staged, expected):
        assert type(s) is type(e)
        assert np.asarray(s).dtype == np.asarray(e).dtype
        assert np.asarray(s).tobytes() == np.asarray(e).tobytes()


def test_python_values_call_the_builtins_unchanged():
    def f(v):
        return float(v), int(v), float("1.5"), int("ff", 16)

    assert ag.to_graph(f)(3) == f(3) == (3.0, 3, 1.5, 255)
    assert "ag__.float_(" in ag.to_code(f) and "ag__.int_(" in ag.to_code(f)


def test_int_of_a_float_value_is_refused_as_before():
    def f(x):
        return int(x[0]) * x  # Python raises on NaN and inf: not staged

    with pytest.raises(errors.TensorUsageError, match=r"int\(\) of graph tensor"):
        ag.function(f)(np.array([1.5, 2.0]))


def test_float_of_an_array_is_refused_as_before():
    def f(x):
        return float(x) + 1

    with pytest.raises(errors.TensorUsageError, match=r"float\(\) of graph tensor 'x'"):
        ag.function(f)(np.array([1.5]))


def rounded_history(w, x, steps):
    hist = []
    for _ in range(steps):
        loss = np.sum((x * w - 1.0) ** 2)
        w = w - 0.1 * x * (x * w - 1.0)
        hist.append(round(float(loss), 3))  # Python's round of a Python float
    return hist, round(float(x[0]) + 2.175, 2), round(float(x[0]), True)


def test_round_of_a_python_float_with_ndigits_is_pythons(tmp_path):
    x, w = np.array([0.5, 2.0, 1.5]), np.zeros(3)
    expected = rounded_history(w, x, 4)
    assert expected[1] == 2.67  # (np.round would give 2.68)
    staged = ag.function(rounded_history)
    for _ in range(2):  # (interpreted, then compiled)
        got = staged(w, x, np.int64(4))
        assert got == expected and [type(v) for v in got[0]] == [float] * 4
    concrete = staged.get_concrete_function(w, x, np.int64(4))
    concrete.save(str(tmp_path / "saved"))
    assert ag.load(str(tmp_path / "saved"))(w, x, np.int64(4))[1] == 2.67


def rounded_then_numpy(x, steps):
    s, r = 0.5, 0.5
    for i in range(steps):
        s = round(s, 2) + x[i]  # a Python float first, a numpy value after
        r = math.sqrt(r) + x[i]
    return s, r


def test_round_and_math_of_a_loop_variable_that_becomes_a_numpy_value():
    # the loop's re-typing made round's op numpy's np.round without its
    # ndigits (a wrong value)
    x = np.array([1.234, 2.345, 3.456])
    for dtype in (np.float64, np.float32):
        expected = rounded_then_numpy(x.astype(dtype), 3)
        got = ag.function(rounded_then_numpy)(x.astype(dtype), np.int64(3))
        assert got == expected
        assert [v.dtype for v in got] == [v.dtype for v in expected] == [dtype, dtype]


def adam_by_the_book(w, x, y, steps):
    """Adam as PyTorch writes its step size: math.sqrt of a bias correction,
    a cosine schedule with math.cos."""
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, steps + 1):
        g = 2 * x.T @ (x @ w - y) / len(x)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        schedule = 0.5 * (1 + math.cos(math.pi * t / steps))
        step = 0.05 * schedule * math.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        w = w - step * m / (np.sqrt(v) + 1e-8)
    return w, step, math.exp(float(x[0, 0])), math.log1p(abs(x[0, 1]))


def test_math_functions_of_staged_python_floats_are_pythons():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(6, 3)), rng.normal(size=6)
    for dtype in (np.float64, np.float32):
        w, xd, yd = np.zeros(3, dtype), x.astype(dtype), y.astype(dtype)
        expected = adam_by_the_book(w, xd, yd, 5)
        staged = ag.function(adam_by_the_book)
        for _ in range(2):  # (interpreted, then compiled)
            got = staged(w, xd, yd, np.int64(5))
            np.testing.assert_array_equal(got[0], expected[0])
            assert got[0].dtype == expected[0].dtype and got[1:] == expected[1:]
            assert [type(v) for v in got[1:]] == [float] * 3
    with pytest.raises(ValueError, match="math domain error"):
        ag.function(lambda x: math.sqrt(x[0]))(np.array([-1.0]))
