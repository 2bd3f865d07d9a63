"""`ag.function` called from another `ag.function` while it traces (issue 8,
item 4): the inner function's ops join the outer graph (it is inlined), so
a model's `__call__`, a `train_step` called from a `fit` loop and methods on
objects holding `ag.Variable`s give what eager execution gives."""

import numpy as np
import pytest

import autograph as ag


class Dense:
    def __init__(self, n_in, n_out, seed):
        rng = np.random.default_rng(seed)
        self.w = ag.Variable(rng.normal(size=(n_in, n_out)))
        self.b = ag.Variable(np.zeros(n_out))

    @ag.function
    def __call__(self, x):
        return np.tanh(x @ self.w + self.b)


class Model:
    def __init__(self):
        self.first, self.second = Dense(3, 4, 0), Dense(4, 1, 1)

    @ag.function
    def __call__(self, x):
        return self.second(self.first(x))

    @ag.function
    def train_step(self, x, y, rate):
        pred = self(x)
        error = pred - y
        # a hand-written gradient step for the last layer's bias only
        self.second.b.assign(self.second.b - rate * np.mean(error, axis=0))
        return np.mean(error ** 2)

    @ag.function
    def fit(self, x, y, steps):
        loss = np.float64(0.0)
        i = 0
        while i < steps:  # a staged loop calling another ag.function
            loss = self.train_step(x, y, 0.1)
            i += 1
        return loss


def _data():
    rng = np.random.default_rng(2)
    return rng.normal(size=(5, 3)), rng.normal(size=(5, 1))


def _fit_twice(eagerly):
    ag.run_functions_eagerly(eagerly)
    try:
        model = Model()
        x, y = _data()
        losses = [model.fit(x, y, np.int64(3)), model.fit(x, y, np.int64(2))]
        return losses, model(x), model.second.b.numpy()
    finally:
        ag.run_functions_eagerly(False)


def test_fit_loop_calling_train_step_matches_eager_execution():
    staged, eager = _fit_twice(False), _fit_twice(True)
    for s, e in zip(staged[0], eager[0]):
        np.testing.assert_allclose(s, e, rtol=1e-12)
    np.testing.assert_allclose(staged[1], eager[1], rtol=1e-12)
    np.testing.assert_allclose(staged[2], eager[2], rtol=1e-12)
    assert not np.allclose(staged[2], 0.0)  # the steps did update the variable


def test_model_call_inside_another_function_and_on_its_own():
    model = Model()
    x, _ = _data()
    alone = model(x)

    @ag.function
    def doubled(x):
        return 2 * model(x)

    np.testing.assert_allclose(doubled(x), 2 * alone)
    np.testing.assert_allclose(model(x), alone)  # its own graph still works


def test_inner_function_is_traced_once_per_outer_trace_and_its_own_signature():
    traces = []

    @ag.function
    def inner(x, n):
        traces.append((x.shape, n))
        return x * n

    @ag.function
    def outer(x):
        return inner(x, 2) + inner(x, 3)

    x = np.ones(2)
    for _ in range(3):
        np.testing.assert_array_equal(outer(x), [5.0, 5.0])
    assert len(traces) == 2  # one outer trace, two inlined calls; no retrace per call
    np.testing.assert_array_equal(inner(x, 2), [2.0, 2.0])
    np.testing.assert_array_equal(inner(x, 2), [2.0, 2.0])
    assert inner.experimental_get_tracing_count() == 1
    assert len(traces) == 3


@pytest.mark.parametrize("taken", [True, False])
def test_inner_function_under_a_staged_condition(taken):
    counter = ag.Variable(np.int64(0))

    @ag.function
    def bump(k):
        counter.assign(counter + k)
        return counter + 0

    @ag.function
    def maybe(flag):
        if flag:
            bump(np.int64(5))
        return counter + 0

    np.testing.assert_array_equal(maybe(np.bool_(taken)), 5 if taken else 0)
