"""A Python float in a staged loop's state takes the dtype numpy gives it
after the first iteration: `s = 0.0; s = s + x_f32` accumulates in float32,
as Python does (it was carried as float64: another dtype and other values)."""

import numpy as np

import autograph as ag


_X32 = np.array([0.1, 0.2, 0.3], dtype=np.float32)


def _sum_over_array(x):
    s = 0.0
    for v in x:
        s = s + v
    return s


def _sum_over_staged_range(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i]
    return s


def _sum_in_while(x, n):
    s = 0.0
    i = 0
    while i < n:
        s = s + x[i]
        i += 1
    return s


def _running_maximum(x, n):
    s = 0.0
    for i in range(n):
        s = np.maximum(s, x[i])
    return s


def _same(staged, python):
    assert np.asarray(staged).dtype == np.asarray(python).dtype
    assert np.asarray(staged).tobytes() == np.asarray(python).tobytes()


def test_float_accumulator_over_a_float32_array_stays_float32():
    _same(ag.function(_sum_over_array)(_X32), _sum_over_array(_X32))


def test_float_accumulator_over_a_staged_range_stays_float32():
    _same(ag.function(_sum_over_staged_range)(_X32, np.array(3)),
          _sum_over_staged_range(_X32, 3))


def test_float_accumulator_in_a_staged_while_stays_float32():
    _same(ag.function(_sum_in_while)(_X32, np.array(3)), _sum_in_while(_X32, 3))


def test_float_running_maximum_stays_float32():
    _same(ag.function(_running_maximum)(_X32, np.array(3)), _running_maximum(_X32, 3))


def test_float_accumulator_over_a_float64_array_stays_float64():
    x = _X32.astype(np.float64)
    _same(ag.function(_sum_over_staged_range)(x, np.array(3)), _sum_over_staged_range(x, 3))
