"""np.take of a numpy array the function reads (a table, a dataset) with
staged indices is staged (runtime take_ -> Backend.take): numpy hands
`np.take` to a staged `a` only, never to staged `indices` alone, and refused
it.  `table[t]` itself stays refused, with np.take as the hint."""

import re

import numpy as np
import pytest

import autograph as ag
from autograph import errors

TABLE = np.arange(12.0).reshape(6, 2)


def rows(idx):
    return np.take(TABLE, idx, axis=0).sum(axis=1)


def one_row(i):
    return np.take(TABLE, i, axis=0) * 2


def flat(idx):
    return np.take(TABLE, idx)


def wrapped(idx):
    return np.take(TABLE[:, 1], idx, mode="wrap")


def minibatch_loss(w, idx):
    xb = np.take(TABLE, idx, axis=0)
    return np.mean((xb @ w) ** 2)


CASES = [(rows, np.array([0, 3, 5])), (rows, np.array([-1, 2])), (one_row, np.int64(4)),
         (flat, np.array([[0, 11], [5, 6]])), (wrapped, np.array([7, -8])),
         (minibatch_loss, np.array([1.0, -0.5]), np.array([2, 4]))]


@pytest.mark.parametrize("case", CASES, ids=[c[0].__name__ for c in CASES])
def test_like_numpy(case):
    fn, *args = case
    expected, got = fn(*args), ag.function(fn)(*args)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


def test_gradient_through_the_rows():
    w = np.array([1.0, -0.5])
    idx = np.array([2, 4])
    grad = ag.grad(minibatch_loss)(w, idx)
    xb = TABLE[idx]
    np.testing.assert_allclose(grad, 2 * xb.T @ (xb @ w) / len(idx))


def subscript(idx):
    return TABLE[idx]


def test_subscript_of_a_numpy_table_names_np_take():
    with pytest.raises(errors.TensorUsageError, match=re.escape(
            "write `np.take(arr, t, axis=0)`")):
        ag.function(subscript)(np.array([0, 1]))
