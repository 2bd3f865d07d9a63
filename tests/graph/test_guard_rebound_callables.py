"""A global or closure variable that holds what the traced code calls (a
helper function, a functools.partial, a bound method) and is rebound to
another after the first call: the graph ran the old one's code, so the call
traces again (guards.py `_CALLED_BY_NAME`, watched by identity)."""

import functools

import numpy as np

import autograph as ag

X = np.ones(2)


def _double(x):
    return x * 2.0


def _triple(x):
    return x * 3.0


def _scale(x, s):
    return x * s


class _Scaler:
    def __init__(self, s):
        self.s = s

    def apply(self, x):
        return x * self.s


HELPER = _double
PARTIAL = functools.partial(_scale, s=2.0)
METHOD = _Scaler(2.0).apply


def test_a_global_helper_rebound_traces_again():
    global HELPER

    @ag.function
    def f(x):
        return HELPER(x) + 1.0

    try:
        np.testing.assert_allclose(f(X), [3.0, 3.0])
        HELPER = _triple
        np.testing.assert_allclose(f(X), [4.0, 4.0])
    finally:
        HELPER = _double


def test_a_global_partial_or_bound_method_rebound_traces_again():
    global PARTIAL, METHOD

    @ag.function
    def f(x):
        return PARTIAL(x) + METHOD(x)

    try:
        np.testing.assert_allclose(f(X), [4.0, 4.0])
        PARTIAL = functools.partial(_scale, s=5.0)
        np.testing.assert_allclose(f(X), [7.0, 7.0])
        METHOD = _Scaler(10.0).apply
        np.testing.assert_allclose(f(X), [15.0, 15.0])
    finally:
        PARTIAL, METHOD = functools.partial(_scale, s=2.0), _Scaler(2.0).apply


def test_a_closure_variable_helper_rebound_traces_again():
    helper = _double

    @ag.function
    def f(x):
        return helper(x)

    np.testing.assert_allclose(f(X), [2.0, 2.0])
    helper = _triple
    np.testing.assert_allclose(f(X), [3.0, 3.0])
