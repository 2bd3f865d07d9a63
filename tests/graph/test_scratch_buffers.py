"""Intermediates written into scratch buffers kept across calls (compiler.py,
`_scratch_candidates`): a product or ufunc result whose every reader is a
ufunc (so it never escapes the call) is written with `out=` into a buffer of
a set the compiled function takes from a pool and gives back.  What the call
returns -- directly, as a view, through a list, into a Variable or a print --
is never such a buffer; two threads, or a call re-entered from a print's
file, never share a set; the bits and warnings equal eager numpy's."""

import io
import sys
import threading
import warnings

import numpy as np
import pytest

from autograph.graph import Variable, function, print_op

RNG = np.random.default_rng(11)


def _same_bits(staged, eager):
    assert type(staged) is type(eager)
    assert staged.dtype == eager.dtype and staged.shape == eager.shape
    assert staged.tobytes() == eager.tobytes()


def mlp(x, w1, b1, w2, b2, w3):
    h = np.tanh(x @ w1 + b1)
    h = np.tanh(h @ w2 + b2)
    return h @ w3


def _mlp_args(dtype, scale=1.0):
    return (RNG.standard_normal((8, 16)).astype(dtype) * scale,
            RNG.standard_normal((16, 16)).astype(dtype),
            RNG.standard_normal(16).astype(dtype),
            RNG.standard_normal((16, 16)).astype(dtype),
            RNG.standard_normal(16).astype(dtype),
            RNG.standard_normal((16, 4)).astype(dtype))


def _warm(staged, *args):
    for _ in range(3):  # the first run interprets, the second compiles
        staged(*args)
    return staged.get_concrete_function(*args).source


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_intermediates_use_scratch_and_results_stay_unchanged(dtype):
    staged = function(mlp, autograph=False)
    args = _mlp_args(dtype)
    source = _warm(staged, *args)
    assert "_scratch" in source and "out=s" in source
    first = staged(*args)
    kept = first.copy()
    for _ in range(3):
        other = _mlp_args(dtype)
        _same_bits(staged(*other), mlp(*other))
    _same_bits(first, kept)
    _same_bits(first, mlp(*args))


def test_scratch_is_the_same_buffer_across_calls_but_results_are_new():
    staged = function(mlp, autograph=False)
    args = _mlp_args(np.float32)
    _warm(staged, *args)
    results = [staged(*args) for _ in range(4)]
    assert len({id(r) for r in results}) == 4
    assert not any(np.shares_memory(a, b) for a in results for b in results if a is not b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_inf_and_overflow_give_eager_bits_and_warnings(dtype):
    staged = function(mlp, autograph=False)
    big = np.finfo(dtype).max
    x, w1, b1, w2, b2, w3 = _mlp_args(dtype, scale=1.0)
    x[0, 0], x[1, 1], x[2, 2] = np.nan, np.inf, -np.inf
    w1[3, 3] = big  # overflow in the product
    b2[5] = -0.0
    args = (x, w1, b1, w2, b2, w3)
    for _ in range(4):
        with warnings.catch_warnings(record=True) as seen_eager:
            warnings.simplefilter("always")
            eager = mlp(*args)
        with warnings.catch_warnings(record=True) as seen_staged:
            warnings.simplefilter("always")
            out = staged(*args)
        _same_bits(out, eager)
        # (np.dot's warnings name `dot` where `@` names `matmul`: test_dot_kernel.py)
        assert [(w.category, str(w.message).replace(" dot", " matmul")) for w in seen_staged] \
            == [(w.category, str(w.message)) for w in seen_eager]
        assert seen_eager


def test_returned_intermediate_is_not_a_scratch_buffer():
    def f(x, w):
        h = x @ w
        y = np.tanh(h)
        return h, y * 2

    staged = function(f, autograph=False)
    x, w = RNG.standard_normal((5, 6)), RNG.standard_normal((6, 6))
    _warm(staged, x, w)
    h1, y1 = staged(x, w)
    keep = h1.copy(), y1.copy()
    staged(x + 1, w)
    _same_bits(h1, keep[0])
    _same_bits(y1, keep[1])


@pytest.mark.parametrize("view", [lambda h: h.T, lambda h: h[1:3], lambda h: h.reshape(-1),
                                  lambda h: h[0], lambda h: h[:, ::2]])
def test_returned_view_of_an_intermediate_is_not_a_scratch_buffer(view):
    def f(x, w):
        return view(np.tanh(x @ w) + 1.0)

    staged = function(f, autograph=False)
    x, w = RNG.standard_normal((4, 6)), RNG.standard_normal((6, 6))
    _warm(staged, x, w)
    out = staged(x, w)
    keep = out.copy()
    for _ in range(3):
        _same_bits(staged(x * 3, w), f(x * 3, w))
    _same_bits(out, keep)


def test_intermediate_returned_through_a_list_is_not_a_scratch_buffer():
    def f(x, w):
        a = np.tanh(x @ w)
        b = a @ w
        return [a, b, b * 2]

    staged = function(f, autograph=False)
    x, w = RNG.standard_normal((4, 6)), RNG.standard_normal((6, 6))
    _warm(staged, x, w)
    out = staged(x, w)
    keep = [v.copy() for v in out]
    staged(-x, w)
    for v, k in zip(out, keep):
        _same_bits(v, k)


def test_intermediate_assigned_to_a_variable_is_not_a_scratch_buffer():
    v = Variable(np.zeros((4, 6)))

    @function(autograph=False)
    def f(x, w):
        h = np.tanh(x @ w)
        v.assign(h)
        return (h @ w).sum()

    x, w = RNG.standard_normal((4, 6)), RNG.standard_normal((6, 6))
    _warm(f, x, w)
    f(x, w)
    kept = v.numpy().copy()
    _same_bits(kept, np.tanh(x @ w))
    f(x * 0.5, w)
    _same_bits(v.numpy(), np.tanh((x * 0.5) @ w))
    assert not np.array_equal(kept, v.numpy())


def test_printed_intermediate_prints_this_calls_value():
    out = io.StringIO()

    @function(autograph=False)
    def f(x, w):
        h = np.tanh(x @ w)
        print_op(h, file=out)
        return h @ w

    x, w = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 4))
    _warm(f, x, w)
    out.seek(0)
    out.truncate()
    f(x, w)
    assert out.getvalue() == str(np.tanh(x @ w)) + "\n"


def test_call_reentered_from_a_print_file_keeps_its_buffers():
    depth = []

    class Reenter:
        """A file whose write calls the staged function again (once)."""

        def write(self, text):
            if not depth:
                depth.append(1)
                inner.append(f(*other))
                depth.pop()

        def flush(self):
            pass

    def body(x, w):
        h = np.tanh(x @ w + 1.0)
        print_op("x", file=Reenter())
        return np.tanh(h @ w) @ w

    def eager(x, w):
        return np.tanh(np.tanh(x @ w + 1.0) @ w) @ w

    f = function(body, autograph=False)
    args = RNG.standard_normal((4, 6)), RNG.standard_normal((6, 6))
    other = RNG.standard_normal((4, 6)), RNG.standard_normal((6, 6))
    inner = []
    _warm(f, *args)
    inner.clear()
    result = f(*args)
    assert len(inner) >= 1
    _same_bits(result, eager(*args))
    _same_bits(inner[-1], eager(*other))


def test_threads_calling_one_function_get_their_own_buffers():
    staged = function(mlp, autograph=False)
    concrete_args = _mlp_args(np.float64)
    _warm(staged, *concrete_args)
    concrete = staged.get_concrete_function(*concrete_args)
    inputs = [_mlp_args(np.float64) for _ in range(8)]
    expected = [mlp(*a) for a in inputs]
    failures = []

    def hammer(k):
        for i in range(400):
            j = (k + i) % len(inputs)
            call = concrete if i % 2 else staged
            got = call(*inputs[j])
            if got.tobytes() != expected[j].tobytes():
                failures.append((k, i))

    threads = [threading.Thread(target=hammer, args=(k,)) for k in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []


def test_loop_carried_products_stay_right():
    def f(x, w, n):
        i = 0
        while i < n:
            x = np.tanh(x @ w + 0.5)
            i += 1
        return x @ w

    staged = function(f)
    x, w = RNG.standard_normal((4, 6)), RNG.standard_normal((6, 6)) * 0.3
    for _ in range(3):
        staged(x, w, np.int64(3))
    out = staged(x, w, np.int64(4))
    keep = out.copy()
    _same_bits(staged(x * 2, w, np.int64(5)), f(x * 2, w, 5))
    _same_bits(out, keep)
    _same_bits(out, f(x, w, 4))


def test_no_pool_when_nothing_qualifies():
    staged = function(lambda x, w: x @ w, autograph=False)
    x, w = RNG.standard_normal((4, 6)), RNG.standard_normal((6, 6))
    assert "_scratch" not in _warm(staged, x, w)


def test_product_read_through_a_view_inside_the_graph_stays_right():
    def f(x, w):
        h = x @ w
        t = h.T  # an aliasing reader: h keeps a new array
        return (t @ x) + h.sum()

    staged = function(f, autograph=False)
    x, w = RNG.standard_normal((6, 6)), RNG.standard_normal((6, 6))
    source = _warm(staged, x, w)
    assert "out=s" not in source
    for k in range(3):
        _same_bits(staged(x + k, w), f(x + k, w))


def test_long_in_place_chain_after_a_product_compiles_and_stays_right():
    def f(x, w):
        h = x @ w
        for _ in range(1500):  # (unrolled while tracing: a chain of 1500 in-place ops)
            h = h * 0.999
        return h @ w

    staged = function(f, autograph=False)
    x, w = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 4))
    source = _warm(staged, x, w)
    assert "out=s" in source
    out = staged(x, w)
    keep = out.copy()
    _same_bits(staged(x * 2, w), f(x * 2, w))
    _same_bits(out, keep)
    _same_bits(out, f(x, w))


def test_product_of_two_scratch_products_gets_its_own_buffer():
    def f(x, w):
        h = np.tanh(x @ w)
        g = h @ h  # (h dies here: its buffer must not be g's `out`)
        k = np.tanh(g) @ g
        return np.tanh(k @ w)

    staged = function(f, autograph=False)
    x, w = RNG.standard_normal((6, 6)) * 0.3, RNG.standard_normal((6, 6)) * 0.3
    source = _warm(staged, x, w)
    assert source.count("out=s") == 3
    for k in range(3):
        _same_bits(staged(x - k, w), f(x - k, w))


def test_product_read_inside_a_branch_stays_right():
    def f(x, w):
        h = x @ w
        if x.sum() > 0:
            y = h * 2.0
        else:
            y = h - 1.0
        return y @ w

    staged = function(f)
    x, w = RNG.standard_normal((4, 6)), RNG.standard_normal((6, 6))
    for _ in range(3):
        staged(x, w)
    first = staged(x, w)
    keep = first.copy()
    for sign in (1, -1, 1, -1):
        _same_bits(staged(sign * np.abs(x), w), f(sign * np.abs(x), w))
    _same_bits(first, keep)
