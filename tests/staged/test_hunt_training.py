"""Training loops written the way users write them (best-params tracking,
logging, optimizers), staged by ag.function: the same values as Python."""

import copy

import numpy as np
import pytest

import autograph as ag
from autograph import errors


def track_best(w, x, y, steps):
    params = {"w": w}
    best = copy.deepcopy(params)
    best_loss = np.inf
    for _ in range(steps):
        loss = np.mean((x @ params["w"] - y) ** 2)
        params["w"] = params["w"] - 0.1 * 2 * x.T @ (x @ params["w"] - y) / len(x)
        if loss < best_loss:
            best_loss = loss
            best = copy.deepcopy(params)
    return best, best_loss


def test_deepcopy_of_params_in_a_training_loop_is_pythons():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(8, 3)), rng.normal(size=8)
    expected = track_best(np.zeros(3), x, y, 5)
    staged = ag.function(track_best)(np.zeros(3), x, y, np.int64(5))
    np.testing.assert_array_equal(staged[0]["w"], expected[0]["w"])
    assert staged[1] == expected[1]


def copies_then_changes(w):
    a, b = copy.deepcopy(w), copy.copy(w)
    a += 1.0  # a new array: the argument stays as it was
    b *= 2.0
    return w, a, b


def test_copies_of_an_argument_are_new_arrays():
    expected = copies_then_changes(np.ones(2))
    staged = ag.function(copies_then_changes)(np.ones(2))
    for got, want in zip(staged, expected):
        np.testing.assert_array_equal(got, want)


def step_decay(w, steps):
    lr = 0.1
    for epoch in range(steps):
        if epoch and epoch % 2 == 0:  # int 0 or a bool: only its truth counts
            lr *= 0.5
        w = w - lr * w
    return w, lr


def halve_while(w, steps):
    k = 0
    while steps and not (k >= steps or w[0] < 0.1):
        w = w * 0.5
        k += 1
    return w, k


def test_and_of_an_int_and_a_bool_as_an_if_or_while_test():
    for fn in (step_decay, halve_while):
        for steps in (0, 1, 5):
            expected = fn(np.ones(3), steps)
            staged = ag.function(fn)(np.ones(3), np.int64(steps))
            np.testing.assert_array_equal(staged[0], expected[0])
            assert staged[1] == expected[1]


def log_items(w, x, y, steps):
    losses, total = [], 0.0
    for step in range(steps):
        loss = np.mean((x @ w - y) ** 2)
        w = w - 0.1 * 2 * x.T @ (x @ w - y) / len(x)
        losses.append(loss.item())  # a Python float, as float(loss)
        total += loss.item() * step
        print(f"{step}: {loss.item():.4f}", loss.item())
    return losses, total, np.sum(w).item() / 3, (np.sum(w) > 1).item(), np.int32(steps).item()


def test_item_of_a_loss_in_a_training_loop_is_a_python_number(capsys):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3)).astype(np.float32)
    y = x.sum(axis=1)
    expected = log_items(np.zeros(3, np.float32), x, y, 4)
    printed = capsys.readouterr().out
    staged = ag.function(log_items)(np.zeros(3, np.float32), x, y, np.int64(4))
    assert capsys.readouterr().out == printed
    assert staged == expected
    assert [type(v) for v in staged[0]] == [float] * 4
    assert [type(v) for v in staged[1:]] == [float, float, bool, int]


def fit_copy(w, x, y, steps):
    w = np.array(w, dtype=np.float64)  # a copy (and a cast): the caller's w stays
    for _ in range(steps):
        w -= 0.1 * 2 * x.T @ (x @ w - y) / len(x)
    return w, np.asarray(w, np.float32)


def view_changed(w):
    v = np.asarray(w)  # the argument itself: changing it changes the caller's array
    v += 1.0
    return v


def test_np_array_of_a_staged_value_is_a_copy_and_asarray_the_value():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(8, 3)), rng.normal(size=8)
    for w in (np.zeros(3), np.zeros(3, np.float32)):
        expected = fit_copy(w, x, y, 3)
        staged = ag.function(fit_copy)(w, x, y, np.int64(3))
        for got, want in zip(staged, expected):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
        assert not w.any()
    with pytest.raises(errors.InPlaceChangeError, match="changes the argument `w` in place"):
        ag.function(view_changed)(np.zeros(3))


def asarray_of_a_staged_list(x, n):
    rows = []
    for i in range(n):
        rows.append(x[i])
    return np.asarray(rows)


def array_of_a_staged_range(n):
    return np.array(range(n)), np.array(range(1, n, 2), dtype=np.float32)


def test_np_asarray_of_a_staged_list_and_np_array_of_a_staged_range():
    # np.asarray(rows) gave the staged list itself back (a Python list of shape
    # () came out); np.array(range(n)) crashed in the conversion (no .dtype)
    with pytest.raises(errors.TensorUsageError, match="np.array\\(\\) of a staged list"):
        ag.function(asarray_of_a_staged_list)(np.ones(3), np.int64(3))
    staged = ag.function(array_of_a_staged_range)(np.int64(6))
    for got, want in zip(staged, array_of_a_staged_range(6)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def clipped_steps(w, x, y, steps):
    logged = []
    for _ in range(steps):
        g = 2 * x.T @ (x @ w - y) / len(x)
        w = w - 0.1 * g.clip(min=-0.5, max=0.5)  # ndarray.clip's keyword names
        logged.append(np.mean((x @ w - y) ** 2).round(4))
    return (w, logged, x.repeat(2, axis=0), x.take([0, 2], axis=1), x.swapaxes(0, 1),
            x.cumprod(axis=1), (x > 0).nonzero())


def test_ndarray_methods_of_a_training_loop():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(4, 3)), rng.normal(size=4)
    expected = clipped_steps(np.zeros(3), x, y, 3)
    staged = ag.function(clipped_steps)
    for _ in range(2):  # (interpreted, then compiled)
        got = staged(np.zeros(3), x, y, np.int64(3))
        np.testing.assert_array_equal(got[0], expected[0])
        assert got[1] == expected[1]
        for a, b in zip(got[2:-1], expected[2:-1]):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(got[-1], expected[-1]):
            np.testing.assert_array_equal(a, b)
    loss = lambda w: np.sum(w.repeat(2) ** 2) + np.sum(w.cumprod()) + np.sum(w.round(1))  # noqa: E731
    grads = ag.grad(loss)(np.array([1.5, 2.0]))
    np.testing.assert_allclose(grads, [4 * 1.5 + 1 + 2.0, 4 * 2.0 + 1.5])


def test_ndarray_attributes_a_tensor_lacks_are_catalog_errors():
    def traced_trace(x):
        return x.trace() + x.conj().sum() + x.itemsize + x.mT.sum()

    with pytest.raises(errors.UnsupportedArrayAttributeError,
                       match=r"`x.trace` at .*test_hunt_training.py:\d+: ndarray.trace is not "
                             r"staged") as raised:
        ag.function(traced_trace)(np.eye(2))
    # (not an AttributeError: hasattr(x, "trace") would answer False, Python True)
    assert not isinstance(raised.value, AttributeError)
    got = ag.function(lambda x: (x.conj(), x.itemsize, x.mT))(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(got[0], np.arange(6.0).reshape(2, 3))
    assert got[1] == 8
    np.testing.assert_array_equal(got[2], np.arange(6.0).reshape(2, 3).T)


def test_conj_of_a_real_array_is_the_array_itself():
    # (np.conjugate of a bool array is int8: x.conj() of a mask came back int8)
    for x in (np.array([True, False]), np.array([1, -2], np.int8), np.array([1 + 2j, 3j])):
        got = ag.function(lambda v: v.conj() * 1)(x)
        assert got.dtype == (x.conj() * 1).dtype
        np.testing.assert_array_equal(got, x.conj() * 1)
