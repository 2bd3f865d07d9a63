"""Helpers of the gradient tests: central finite differences and `check`,
which compares ag.grad with them.  (Imported by file name: pytest puts this
directory on sys.path for the test modules next to it.)"""

import numpy as np

import autograph as ag


def numeric_grad(fn, args, i, eps=1e-6):
    """Central differences of scalar fn(*args) with respect to args[i]."""
    args = [np.array(a, dtype=np.float64) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
            else a for a in args]
    x = args[i]
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += eps
        minus[index] -= eps
        high = fn(*args[:i], plus, *args[i + 1:])
        low = fn(*args[:i], minus, *args[i + 1:])
        grad[index] = (high - low) / (2 * eps)
    return grad


def check(fn, args, argnums=None, rtol=1e-5, atol=1e-6):
    argnums = tuple(i for i, a in enumerate(args) if isinstance(a, np.ndarray)
                    and a.dtype.kind == "f") if argnums is None else argnums
    grads = ag.grad(fn, argnums=argnums)(*args)
    for i, g in zip(argnums, grads):
        expected = numeric_grad(fn, args, i)
        assert np.shape(g) == expected.shape
        np.testing.assert_allclose(g, expected, rtol=rtol, atol=atol)


def smooth(out):
    """A scalar of `out` with a cotangent that differs per element."""
    return np.sum(np.sin(out) + out)
