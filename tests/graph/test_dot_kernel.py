"""`a @ b` of 2-D float32/float64 arrays compiles to np.dot when both operands
are C-contiguous at run time (compiler._as_dot): the same BLAS gemm call, so
the results must equal eager numpy's `@` bit for bit; other layouts, shapes
and dtypes keep `@`."""

import warnings

import numpy as np
import pytest

import autograph as ag

RNG = np.random.default_rng(7)


def _staged_matmul():
    return ag.function(lambda a, b: a @ b, autograph=False)


def _same_bits(staged, eager):
    assert staged.dtype == eager.dtype and staged.shape == eager.shape
    assert staged.tobytes() == eager.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_contiguous_operands_give_eager_bits(dtype):
    staged = _staged_matmul()
    for m, n, p in [(2, 2, 2), (8, 16, 16), (3, 5, 7), (64, 33, 2), (17, 300, 9)]:
        a = (RNG.standard_normal((m, n)) * 1e3).astype(dtype)
        b = RNG.standard_normal((n, p)).astype(dtype)
        _same_bits(staged(a, b), a @ b)
        assert "_dot(" in staged.get_concrete_function(a, b).source


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_other_layouts_take_matmul_at_run_time(dtype):
    staged = _staged_matmul()
    base = RNG.standard_normal((12, 12)).astype(dtype)
    for a, b in [(base[:, :6], base[:6, :5]),  # row stride larger than the row
                 (base.T[:5], base[:, :4]),  # a transposed view
                 (base[::2, ::2], base[:6, :6]),  # strided
                 (np.asfortranarray(base[:4, :6]), base[:6, :3])]:
        _same_bits(staged(a, b), a @ b)


def test_same_array_twice_and_mixed_operands():
    staged = _staged_matmul()
    x = RNG.standard_normal((6, 6))
    _same_bits(staged(x, x), x @ x)
    _same_bits(staged(x, x.T), x @ x.T)  # (matmul's syrk case: `@` runs)


@pytest.mark.parametrize("a_shape, b_shape, dtype", [
    ((1, 4), (4, 3), np.float64),  # a dim of 1: gemv or dot inside numpy
    ((3, 4), (4, 1), np.float64),
    ((4,), (4, 3), np.float64),  # 1-D
    ((2, 3, 4), (4, 2), np.float64),  # batched
    ((3, 4), (4, 2), np.int64),
    ((3, 4), (4, 2), np.complex128),
])
def test_other_shapes_and_dtypes_keep_matmul(a_shape, b_shape, dtype):
    staged = _staged_matmul()
    a = np.ones(a_shape, dtype)
    b = np.full(b_shape, 2, dtype)
    _same_bits(np.asarray(staged(a, b)), np.asarray(a @ b))
    assert "_dot(" not in staged.get_concrete_function(a, b).source


def test_mixed_dtypes_keep_matmul():
    staged = _staged_matmul()
    a, b = np.ones((3, 4), np.float32), np.ones((4, 2))
    _same_bits(staged(a, b), a @ b)
    assert "_dot(" not in staged.get_concrete_function(a, b).source


def test_nan_inf_and_overflow_as_eager():
    staged = _staged_matmul()
    a = np.array([[np.nan, 1.0], [np.inf, 3e38]], np.float32)
    b = np.array([[0.0, 1.0], [10.0, -np.inf]], np.float32)
    with warnings.catch_warnings(record=True) as eager_warnings:
        warnings.simplefilter("always")
        eager = a @ b
    with warnings.catch_warnings(record=True) as staged_warnings:
        warnings.simplefilter("always")
        result = staged(a, b)
    _same_bits(result, eager)
    # the same floating-point warnings (numpy names the function: dot here)
    assert eager_warnings and [type(w.message) for w in staged_warnings] == \
        [type(w.message) for w in eager_warnings]


def chain(x, w1, w2):
    return np.tanh(x @ w1 + 0.5) @ w2


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_a_product_of_a_product_needs_no_layout_test(layout):
    """Both np.dot and matmul return a new C-order array, and an in-place op
    keeps that buffer: the second product tests only w2's layout."""
    x = RNG.standard_normal((5, 7)).astype(np.float32)
    w1 = RNG.standard_normal((14, 6)).astype(np.float32)
    w1 = {"C": np.ascontiguousarray(w1[:7]), "F": np.asfortranarray(w1[:7]),
          "strided": w1[::2]}[layout]
    w2 = RNG.standard_normal((6, 3)).astype(np.float32)
    staged = ag.function(chain, autograph=False)
    _same_bits(staged(x, w1, w2), chain(x, w1, w2))
    last = staged.get_concrete_function(x, w1, w2).source.splitlines()[-5]
    assert "_dot(" in last and "strides" in last and last.count("strides") == 1, last
