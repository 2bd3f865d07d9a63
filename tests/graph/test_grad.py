"""ag.grad / ag.value_and_grad against central finite differences: every op
with a gradient rule (shapes with broadcasting drawn by hypothesis), staged
control flow (cond, while/for with break/continue/return, nested loops),
argument structures, ag.Variables, and the errors."""


import numpy as np
import pytest
from grad_check import check, numeric_grad, smooth
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograph as ag
from autograph import errors
from autograph.graph import grad_rules

# --- elementwise ops, with broadcasting ---------------------------------------------

POSITIVE = (0.3, 2.0)
ANY = (-2.0, 2.0)
UNIT = (-0.8, 0.8)

UNARY = {
    "np.exp": (np.exp, ANY), "np.exp2": (np.exp2, ANY), "np.expm1": (np.expm1, ANY),
    "np.log": (np.log, POSITIVE), "np.log2": (np.log2, POSITIVE),
    "np.log10": (np.log10, POSITIVE), "np.log1p": (np.log1p, POSITIVE),
    "np.sqrt": (np.sqrt, POSITIVE), "np.cbrt": (np.cbrt, POSITIVE),
    "np.square": (np.square, ANY), "np.reciprocal": (np.reciprocal, POSITIVE),
    "np.sin": (np.sin, ANY), "np.cos": (np.cos, ANY), "np.tan": (np.tan, UNIT),
    "np.arcsin": (np.arcsin, UNIT), "np.arccos": (np.arccos, UNIT),
    "np.arctan": (np.arctan, ANY), "np.sinh": (np.sinh, ANY), "np.cosh": (np.cosh, ANY),
    "np.tanh": (np.tanh, ANY), "np.arcsinh": (np.arcsinh, ANY),
    "np.arccosh": (np.arccosh, (1.2, 3.0)), "np.arctanh": (np.arctanh, UNIT),
    "np.absolute": (np.abs, POSITIVE), "np.fabs": (lambda x: np.fabs(-x), POSITIVE),
    "np.negative": (np.negative, ANY), "np.positive": (np.positive, ANY),
    "np.conjugate": (np.conjugate, ANY),
}

BINARY = {
    "np.add": (np.add, ANY, ANY), "np.subtract": (np.subtract, ANY, ANY),
    "np.multiply": (np.multiply, ANY, ANY), "np.divide": (np.divide, ANY, POSITIVE),
    "np.power": (np.power, POSITIVE, ANY), "np.hypot": (np.hypot, POSITIVE, POSITIVE),
    "np.logaddexp": (np.logaddexp, ANY, ANY), "np.logaddexp2": (np.logaddexp2, ANY, ANY),
    "np.arctan2": (np.arctan2, POSITIVE, POSITIVE),
    "np.remainder": (np.remainder, (0.1, 0.4), (1.0, 1.5)),
    "np.fmod": (np.fmod, (0.1, 0.4), (1.0, 1.5)),
}


def _values(rng, shape, domain):
    low, high = domain
    return rng.uniform(low, high, shape)


@pytest.mark.parametrize("name", sorted(UNARY))
@settings(max_examples=5, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=3), seed=st.integers(0, 99))
def test_unary_op_gradient(name, shape, seed):
    op, domain = UNARY[name]
    check(lambda x: smooth(op(x)), [_values(np.random.default_rng(seed), shape, domain)])


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(max_examples=5, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       seed=st.integers(0, 99))
def test_binary_op_gradient_with_broadcasting(name, shapes, seed):
    op, x_domain, y_domain = BINARY[name]
    rng = np.random.default_rng(seed)
    x = _values(rng, shapes.input_shapes[0], x_domain)
    y = _values(rng, shapes.input_shapes[1], y_domain)
    check(lambda x, y: smooth(op(x, y)), [x, y])


@pytest.mark.parametrize("op", [np.maximum, np.minimum, np.fmax, np.fmin])
@settings(max_examples=5, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       seed=st.integers(0, 99))
def test_extremum_gradient_goes_to_the_winner(op, shapes, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, shapes.input_shapes[0])
    y = rng.uniform(-2, 2, shapes.input_shapes[1])
    check(lambda x, y: smooth(op(x, y)), [x, y])


def test_extremum_tie_shares_the_gradient():
    gx, gy = ag.grad(lambda x, y: np.sum(np.maximum(x, y)), argnums=(0, 1))(
        np.array([1.0, 2.0]), np.array([1.0, 0.0]))
    np.testing.assert_array_equal(gx, [0.5, 1.0])
    np.testing.assert_array_equal(gy, [0.5, 0.0])


@settings(max_examples=8, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3),
       seed=st.integers(0, 99))
def test_where_gradient(shapes, seed):
    rng = np.random.default_rng(seed)
    c, x, y = (rng.uniform(-1, 1, s) for s in shapes.input_shapes)
    check(lambda c, x, y: smooth(np.where(c > 0, x * 2.0, y ** 2)), [c, x, y],
          argnums=(1, 2))


def test_clip_gradient_passes_inside_the_bounds():
    x = np.array([-2.0, -0.5, 0.25, 0.9, 3.0])
    check(lambda x: smooth(np.clip(x, -1.0, 1.0)), [x])
    check(lambda x: smooth(x.clip(None, 0.5)), [x])
    low, high = np.array(-1.0), np.array([0.0, 0.0, 0.5, 0.5, 2.0])
    check(lambda x, low, high: smooth(np.clip(x, low, high)), [x, low, high])


# --- reductions ---------------------------------------------------------------------------

REDUCTIONS = {
    "np.sum": np.sum, "np.mean": np.mean, "np.max": np.max, "np.min": np.min,
    "np.amax": np.amax, "np.amin": np.amin, "np.prod": np.prod, "np.var": np.var,
    "np.std": np.std,
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_gradient(name, axis, keepdims):
    x = np.random.default_rng(3).uniform(0.5, 2.0, (2, 3, 4))
    reduce = REDUCTIONS[name]
    check(lambda x: smooth(reduce(x, axis=axis, keepdims=keepdims)), [x])


@pytest.mark.filterwarnings("error")  # (no 0/0 or 0 ** -1 on the way either)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_prod_and_power_gradients_at_zero(axis):
    """The gradient of a product at a zero element is the product of the
    others (it was y / x: nan), and so is a cumulative product's; of x ** 0
    it is 0 (it was 0 * x ** -1: nan)."""
    x = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5], [1.0, -2.0, 0.5]])
    check(lambda x: smooth(np.prod(x, axis=axis, keepdims=axis == 1)), [x])
    check(lambda x: smooth(np.multiply.reduce(x, axis=axis)), [x])
    check(lambda x, k: smooth(x ** 0 + x ** k + x ** np.array([0.0, 1.0, 2.0])),
          [x, np.int64(0)])
    check(lambda x, k: smooth(x ** k), [x, np.array(2.0)], argnums=(0,))
    check(lambda x: smooth(np.cumprod(x, axis=axis)), [x])  # (zeros: 0/0 before)
    check(lambda x: smooth(np.cumprod(x[::-1], axis=axis)), [x])


@pytest.mark.filterwarnings("ignore:Degrees of freedom")  # the engine's ddof shape probe
def test_reduction_methods_ddof_and_add_reduce():
    x = np.random.default_rng(4).uniform(0.5, 2.0, (3, 4))
    check(lambda x: smooth(x.sum(axis=1)) + x.mean() + x.max(axis=0).sum(), [x])
    check(lambda x: smooth(np.std(x, axis=0, ddof=1)) + np.var(x, ddof=1), [x])
    check(lambda x: smooth(np.add.reduce(x)), [x])


def test_norm_and_cumsum_gradients():
    x = np.random.default_rng(5).uniform(-2.0, 2.0, (3, 4))
    check(lambda x: np.linalg.norm(x), [x])
    check(lambda x: smooth(np.linalg.norm(x, axis=1)), [x])
    check(lambda x: smooth(np.cumsum(x, axis=1)), [x])
    check(lambda x: smooth(np.cumsum(x)), [x])


# --- products --------------------------------------------------------------------------------

@pytest.mark.parametrize("a_shape, b_shape", [
    ((3, 4), (4, 2)), ((2, 3, 4), (4, 2)), ((3, 4), (2, 4, 5)), ((4,), (4, 3)),
    ((3, 4), (4,)), ((4,), (4,)), ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul_gradient(a_shape, b_shape):
    rng = np.random.default_rng(6)
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    check(lambda a, b: smooth(a @ b), [a, b])


def test_dot_outer_einsum_gradients():
    rng = np.random.default_rng(7)
    a, b, v = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=4)
    check(lambda a, b: smooth(np.dot(a, b)), [a, b])
    check(lambda a, v: smooth(a.dot(v)), [a, v])
    check(lambda v, b: smooth(np.outer(v, b)), [v, b])
    check(lambda a, b: smooth(np.einsum("ij,jk->ik", a, b)), [a, b])
    check(lambda a, v: smooth(np.einsum("ij,j->i", a, v)), [a, v])
    check(lambda a, b: smooth(np.einsum("ij,kl->ik", a, b)), [a, b])  # summed in one only


# --- indexing and shapes ------------------------------------------------------------------------

def test_indexing_gradients():
    x = np.random.default_rng(8).normal(size=(4, 5))
    check(lambda x: smooth(x[1:3, ::2]), [x])
    check(lambda x: smooth(x[2]) + smooth(x[:, -1]), [x])
    check(lambda x: smooth(x[None, ..., 1]), [x])
    index = np.array([0, 2, 2, 3])  # a repeated row adds up
    check(lambda x: smooth(x[index]), [x])
    check(lambda x: smooth(x[x > 0]), [x])
    check(lambda x: smooth(np.take(x, index, axis=1)), [x])
    check(lambda x: smooth(np.take(x, index)), [x])


def test_tensor_index_gradient():
    def pick(x, i):
        return smooth(x[i])
    x = np.random.default_rng(9).normal(size=5)
    check(pick, [x, np.array([4, 0, 4])], argnums=(0,))


def test_shape_op_gradients():
    rng = np.random.default_rng(10)
    x, y = rng.normal(size=(2, 3)), rng.normal(size=(2, 4))
    check(lambda x: smooth(x.reshape(3, 2) * np.arange(6.0).reshape(3, 2)), [x])
    check(lambda x: smooth(np.reshape(x, (-1,)) * np.arange(6.0)), [x])
    check(lambda x: smooth(x.T @ np.ones((2, 2))), [x])
    check(lambda x: smooth(np.transpose(x[None], (2, 0, 1)) * np.arange(6.0).reshape(3, 1, 2)),
          [x])
    check(lambda x: smooth(np.expand_dims(x, 1) * np.arange(3.0)), [x])
    check(lambda x: smooth(np.squeeze(x[:, None, :], axis=1) * np.arange(3.0)), [x])
    check(lambda x: smooth(np.flip(x, 1) * np.arange(3.0)), [x])
    check(lambda x, y: smooth(np.concatenate([x, y, x], axis=1) * np.arange(10.0)), [x, y])
    check(lambda x, y: smooth(np.stack([x[:, :2], y[:, 1:3]], axis=1) * np.arange(2.0)),
          [x, y])
    check(lambda x: smooth(np.broadcast_to(x, (4, 2, 3)) * np.arange(3.0)), [x])
    check(lambda x: smooth(np.triu(x) + np.tril(x, -1) * 3.0), [x])
    check(lambda x: smooth(x.astype(np.float64) + np.copy(x)), [x])
    check(lambda x: smooth(np.full_like(x, x[0, 1]) * np.arange(3.0)), [x])
    check(lambda x: smooth(np.hstack([x, x]) + np.vstack([x, x]).sum(axis=0).sum()), [x])


def test_float32_gradients_stay_float32():
    x = np.array([0.5, -1.0, 2.0], np.float32)
    g = ag.grad(lambda x: np.sum(np.sin(x.astype(np.float64)) * 2.0))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2.0 * np.cos(x.astype(np.float64)), rtol=1e-6)
    g = ag.grad(lambda x: np.sum(x * x * 0.5))(x)
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g, x)


def test_more_numpy_gradients():
    rng = np.random.default_rng(14)
    x, y = rng.uniform(0.2, 1.0, (3, 4)), rng.uniform(1.2, 2.0, (3, 4))
    check(lambda x: smooth(np.deg2rad(x) + np.rad2deg(x) * 0.01 + np.radians(x)), [x])
    check(lambda x, y: smooth(np.float_power(x, y)), [x, y])
    check(lambda x: smooth(np.copysign(x, -1.0) + np.ldexp(x, 3)), [x])
    check(lambda x, y: smooth(np.divmod(x, y)[1] + np.modf(x * 3.0)[0]), [x, y])
    check(lambda x: smooth(np.sort(x, axis=1) * np.arange(4.0)), [x])
    check(lambda x: smooth(np.sort(x, axis=None) * np.arange(12.0)), [x])
    check(lambda x: smooth(np.tile(x, (2, 1, 2)) * np.arange(8.0)), [x])
    check(lambda x: smooth(np.repeat(x, 2, axis=1) * np.arange(8.0)), [x])
    check(lambda x: smooth(np.repeat(x, 3) * np.arange(36.0)), [x])
    check(lambda x, y: smooth(np.tensordot(x, y, axes=([1], [1]))), [x, y])
    check(lambda x: smooth(np.tensordot(x, x.T * 2.0, axes=1)), [x])
    check(lambda x: smooth(np.cumprod(x, axis=0)) + smooth(np.cumprod(x)), [x])
    check(lambda x: smooth(np.add.accumulate(x)) + smooth(np.ptp(x, axis=1)), [x])
    check(lambda x: smooth(np.maximum.reduce(x) + np.minimum.reduce(x, axis=1).sum()
                           + np.multiply.reduce(x)), [x])


def test_softmax_and_log_sum_exp_compositions():
    rng = np.random.default_rng(11)
    logits, labels = rng.normal(size=(5, 3)), np.eye(3)[[0, 2, 1, 1, 0]]

    def cross_entropy(z):
        z = z - np.max(z, axis=1, keepdims=True)
        log_softmax = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
        return -np.mean(np.sum(labels * log_softmax, axis=1))
    check(cross_entropy, [logits])
    expected = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(ag.grad(cross_entropy)(logits), (expected - labels) / 5,
                               atol=1e-12)


def test_non_differentiable_ops_give_zero_gradient():
    x = np.array([-1.5, 0.5, 2.0, -0.25])
    g = ag.grad(lambda x: np.sum(x * (x > 0)) + np.sum(np.floor(x)) + np.sum(np.sign(x)))(x)
    np.testing.assert_array_equal(g, [0.0, 1.0, 1.0, 0.0])
    g = ag.grad(lambda x: x[np.argmax(x)] * 3.0)(x)
    np.testing.assert_array_equal(g, [0.0, 0.0, 3.0, 0.0])
    g = ag.grad(lambda x: np.sum(np.zeros_like(x) + np.round(x)))(x)
    np.testing.assert_array_equal(g, np.zeros(4))


def test_every_rule_is_tested_here():
    tested = set(UNARY) | set(BINARY) | set(REDUCTIONS) | {
        "np.maximum", "np.minimum", "np.fmax", "np.fmin", "np.where", "np.clip",
        "np.add.reduce", "np.linalg.norm", "np.cumsum", "np.matmul", "np.dot", "np.outer",
        "np.einsum", "getitem", "np.take", "np.reshape", "np.squeeze", "np.expand_dims",
        "np.transpose", ".T", "np.flip", "np.concatenate", "np.stack", "np.broadcast_to",
        "np.triu", "np.tril", "astype", "np.copy", "np.full_like", "grad.watch",
        # the gradient ops: second-order and unknown-dims tests below
        "grad.spread", "grad.sum_to", "grad.reshape_like", "grad.scatter",
        "grad.take_scatter", "grad.count", "grad.tape_get",
        # test_more_numpy_gradients
        "np.deg2rad", "np.radians", "np.rad2deg", "np.degrees", "np.float_power",
        "np.copysign", "np.ldexp", "np.modf", "np.divmod", "np.sort", "np.tile", "np.repeat",
        "np.tensordot", "np.cumprod", "np.add.accumulate", "np.ptp", "np.maximum.reduce",
        "np.minimum.reduce", "np.fmax.reduce", "np.fmin.reduce", "np.multiply.reduce",
        # test_grad_flow.py::test_gradient_through_staged_lists, ...through_list_pop
        "list_stack", "list_append", "list_pop",
        # test_positions.py::test_gradient_through_item_assignment_on_a_staged_list
        "list_set_at",
        # tests/staged/test_weak_scalars.py::test_gradient_through_a_python_number_loop_var
        "weak_cast",
        # test_pad_full_and_arange_gradients_with_unknown_dims
        "np.full", "np.arange",
        # test_grad_sweep.py::test_second_derivatives_through_sort_tile_and_repeat
        "grad.unsort", "grad.resort", "grad.untile", "grad.unrepeat",
        # test_grad_sweep.py::test_heaviside_value_at_zero_has_a_gradient
        "np.heaviside",
        # test_grad_sweep.py::test_python_float_arithmetic_and_math_functions
        "python_float.divide", "python_float.floor_divide", "python_float.remainder",
        "python_float.power", "python_float.math",
        # test_zero_d_aliases.py::test_gradient_through_the_python_start_check
        "python_path.check"}
    zero = set(grad_rules.ZERO)
    assert set(grad_rules.RULES) - zero <= tested, set(grad_rules.RULES) - zero - tested


# --- unknown dims (input_signature) and gradients of gradients --------------------------


def test_gradients_with_dims_known_only_at_run_time():
    rng = np.random.default_rng(12)

    def f(x, y):
        z = x[:, None] * y  # (n, 1) against (n, 3): broadcast back by grad.sum_to
        parts = np.concatenate([x, x[1:] * 2.0])  # split by grad.part
        return (np.mean(np.sin(z)) + np.sum(np.reshape(y, (-1,)) ** 2)
                + np.sum(parts ** 3) + np.max(y, axis=0).sum())

    @ag.function(input_signature=[ag.TensorSpec((None,)), ag.TensorSpec((None, 3))])
    def staged(x, y):
        return ag.grad(f, argnums=(0, 1))(x, y)
    for n in (2, 5):
        x, y = rng.normal(size=n), rng.normal(size=(n, 3))
        gx, gy = staged(x, y)
        np.testing.assert_allclose(gx, numeric_grad(f, [x, y], 0), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(gy, numeric_grad(f, [x, y], 1), rtol=1e-5, atol=1e-7)
    assert staged.experimental_get_tracing_count() == 1


def test_hessian_vector_products():
    def f(x):
        return (np.sum(np.tanh(x) ** 2 * np.arange(1.0, 5.0)) + np.mean(x[1:] ** 3)
                + np.max(x) * np.sum(np.take(x, [0, 2, 2]) ** 2))
    x, v = np.array([0.3, -0.5, 0.8, 0.1]), np.array([1.0, 0.5, -2.0, 0.25])
    first = ag.grad(f)
    hvp = ag.grad(lambda x, v: np.sum(ag.grad(f)(x) * v))(x, v)
    eps = 1e-5
    np.testing.assert_allclose(hvp, (first(x + eps * v) - first(x - eps * v)) / (2 * eps),
                               rtol=1e-6, atol=1e-8)


def test_hessian_vector_product_with_unknown_dims():
    def f(x, y):
        return np.sum(np.sin(x[:, None] * y) ** 2)

    @ag.function(input_signature=[ag.TensorSpec((None,)), ag.TensorSpec((None, 2))])
    def hvp(x, y):
        return ag.grad(lambda x: np.sum(ag.grad(f)(x, y) * np.cos(x)))(x)
    rng = np.random.default_rng(13)
    x, y = rng.normal(size=3), rng.normal(size=(3, 2))
    first = ag.grad(f)
    expected = numeric_grad(lambda x: np.sum(first(x, y) * np.cos(x)), [x], 0)
    np.testing.assert_allclose(hvp(x, y), expected, rtol=1e-5, atol=1e-7)


def test_gradient_of_a_gradient_through_a_staged_loop_is_an_error():
    def f(x, n):
        for i in range(n):
            x = np.sin(x)
        return np.sum(x)
    with pytest.raises(errors.GradientError, match="gradient of a gradient through a staged"):
        ag.grad(lambda x, n: np.sum(ag.grad(f)(x, n)))(np.ones(2), np.int64(2))


def test_pad_full_and_arange_gradients_with_unknown_dims():
    """np.pad of an array whose size is known at run time builds np.full
    pieces sized by its shape (read off the differentiated x): the fill value
    has a gradient, the sizes none (it was refused: no rule for np.full)."""
    x = np.random.default_rng(7).normal(size=(2, 3, 4))

    def unknown_rows(x):
        return x[x[:, 0, 0] > -100]  # (rows known only at run time)

    check(lambda x: smooth(np.pad(unknown_rows(x), 1, constant_values=0.5)), [x])
    check(lambda x: smooth(np.full((len(unknown_rows(x)), 2), x[0, 0, 0])), [x])
    check(lambda x: smooth(np.arange(x[0, 0, 0], 10.0, x[0, 0, 1] + 3.0)), [x])
