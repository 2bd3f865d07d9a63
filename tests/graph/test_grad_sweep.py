"""Gradients found wrong by a sweep over the rules (each test compares
ag.grad with central finite differences of the plain Python function)."""

import numpy as np
from grad_check import check

WEIGHTS = np.random.default_rng(7).standard_normal((4, 2, 3))


def test_transpose_with_negative_axes():
    # the rule inverted the permutation as written: (-1, 0, 1) was taken as
    # already sorted, so the gradient came back (4, 2, 3), the output's shape
    x = np.random.default_rng(0).standard_normal((2, 3, 4))

    def loss(x):
        return np.sum(WEIGHTS * np.transpose(x, (-1, 0, 1)))

    def loss_method(x):
        return np.sum(WEIGHTS.transpose(1, 2, 0) * x.transpose((0, -2, -1)))

    check(loss, [x])
    check(loss_method, [x])
    cube = np.random.default_rng(1).standard_normal((2, 2, 2))

    def loss_cube(x):  # same shape either way: the values were wrong
        return np.sum(WEIGHTS[:2, :, :2] * np.transpose(x, (-1, 0, 1)))

    check(loss_cube, [cube])
