"""Ops recorded from plain numpy code give what eager numpy gives: values,
dtypes (numpy's promotion rules) and shapes (checked at trace time)."""

import re

import numpy as np
import pytest

from autograph import errors
from autograph.graph import function

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5)).astype(np.float32)
Y = RNG.standard_normal((5, 3))
I = np.array([3, 0, 2])
B = RNG.standard_normal((2, 4, 5))


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want), (type(got), type(want))
    assert np.shape(got) == np.shape(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def check(fn, *args):
    """Staged result == eager result, and the graph's static types agree."""
    want = fn(*args)
    staged = function(fn, autograph=False)
    _same(staged(*args), want)
    outputs = staged.get_concrete_function(*args).graph.outputs
    flat = want if isinstance(want, tuple) else (want,)
    for tensor, value in zip(outputs, flat):
        assert tensor.dtype == np.asarray(value).dtype
        assert len(tensor.shape) == np.ndim(value)
        assert all(s in (None, d) for s, d in zip(tensor.shape, np.shape(value)))


CASES = {
    "operators": lambda x: (x + 1, 2 - x, x * x, x / 3, x // 2, x % 2, x ** 2, -x, abs(x)),
    "comparisons": lambda x: (x < 0, x <= 0, x > 0, x >= 0, x == 0, x != 0),
    "python_float_is_weak": lambda x: x * 2.5,
    "numpy_scalar_is_strong": lambda x: x * np.float64(2.5),
    "int_promotion": lambda i: (i + 1, i / 2, i * 1.5, i.astype(np.int8) + np.int16(1)),
    "ufuncs": lambda x: (np.exp(x), np.log(np.abs(x) + 1), np.tanh(x), np.sqrt(np.abs(x)),
                         np.maximum(x, 0), np.minimum(x, 0.5), np.arctan2(x, 1.0),
                         np.logaddexp(x, x), np.square(x), np.sign(x)),
    "multi_output_ufunc": lambda x: np.divmod(x, 0.7),
    "ufunc_methods": lambda x: (np.add.reduce(x, axis=1), np.multiply.accumulate(x, axis=0),
                                np.subtract.outer(x[0], x[1])),
    "ufunc_reduce_every_axis": lambda x: (np.add.reduce(x, axis=None),  # (not axis 0)
                                          np.maximum.reduce(x, None, keepdims=True),
                                          np.add.accumulate(x[0], axis=None)),
    "reductions": lambda x: (x.sum(), np.mean(x, axis=0), np.max(x, axis=1, keepdims=True),
                             x.min(axis=(0, 1)), np.prod(x, 0), np.argmax(x, axis=1),
                             np.argmin(x), np.std(x, axis=0), np.var(x), np.any(x > 1),
                             np.all(x > -5, axis=0), np.sum(x, dtype=np.float64)),
    "int_reductions": lambda i: (np.mean(i), np.sum(i > 1), np.cumsum(i), np.cumprod(i)),
    "matmul": lambda x, y: (x @ y.astype(np.float32), np.matmul(x, y), np.dot(x, y),
                            x.dot(y)),
    "matmul_vectors": lambda x, y: (x[0] @ y, x @ y[:, 0], y[:, 0] @ y[:, 0]),
    "tensordot_einsum": lambda x, y: (np.tensordot(x, y, axes=1),
                                      np.tensordot(x, y, axes=([1], [0])),
                                      np.einsum("ij,jk->ik", x, y), np.einsum("ij->j", x),
                                      np.einsum("ij,ij", x, x), np.einsum("...j,jk", x, y)),
    "shapes": lambda b: (b.T, b.reshape(2, -1), np.reshape(b, (8, 5)), b.transpose(1, 0, 2),
                         np.transpose(b, (2, 0, 1)), np.expand_dims(b, 1),
                         np.squeeze(b[:, :1], axis=1), b.flatten(), np.ravel(b),
                         np.swapaxes(b, 0, 2), np.moveaxis(b, 0, -1),
                         np.broadcast_to(b[0, 0], (3, 5)), np.flip(b, 1)),
    "joining": lambda x: (np.concatenate([x, x], axis=1), np.concatenate((x, X)),
                          np.stack([x, x]), np.stack([x, x], axis=-1), np.vstack([x, x]),
                          np.hstack([x, x])),
    "joining_flattened": lambda x: (np.concatenate([x, x[0], x], axis=None),),  # (sizes add up)
    "hstack_of_scalars": lambda x: (np.hstack([x[0, 0], x[1, 1]]), np.hstack([x[0, 0], x[0]])),
    "nonzero_of_1d": lambda x: (np.nonzero(x[0] > 0)[0] * 2, np.where(x[0] > 0)[0] + 1),
    "where_clip": lambda x: (np.where(x > 0, x, 0.0), np.where(x > 0, x, np.zeros(5)),
                             np.clip(x, -0.5, 0.5), x.clip(0, None)),
    "like": lambda x: (np.zeros_like(x), np.ones_like(x, dtype=np.int32),
                       np.full_like(x, 7), np.linspace(x[0, 0], x[0, 1], 5)),
    "indexing": lambda b, i: (b[0], b[:, 1:3], b[..., ::2], b[1, 2, 3], b[:, None, 0],
                              b[:, i], b[0, i, 1:], b[0][i][:, i], b[-1, -2:], b[b > 0],
                              b[0, b[0, :, 0] > 0], b[np.arange(2), 0]),
    "take_sort": lambda x, i: (np.take(x, i, axis=1), np.take(x, i), np.sort(x),
                               np.argsort(x, axis=0), np.sort(x, axis=None)),
    "one_hot": lambda i: (i[:, None] == np.arange(4)).astype(np.float32),
    "ndarray_on_left": lambda x: (np.ones(5) + x, np.ones((3, 4)) @ x, Y.T @ x.T),
    "misc": lambda x: (np.round(x, 2), np.tile(x, 2), np.repeat(x, 2, axis=0), np.triu(x),
                       np.outer(x[0], x[1]), np.linalg.norm(x), np.linalg.norm(x, axis=1),
                       np.isclose(x, x), np.shape(x), x.ndim),
    "softmax": lambda x: np.exp(x - x.max(axis=1, keepdims=True)) /
    np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True),
}

ARGS = {"int_promotion": (I,), "int_reductions": (I,), "matmul": (X, Y),
        "matmul_vectors": (X, Y), "tensordot_einsum": (X, Y), "shapes": (B,),
        "indexing": (B, np.array([0, 3, 1])), "take_sort": (X, np.array([4, 0])),
        "one_hot": (I,)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_staged_equals_eager(name):
    check(CASES[name], *ARGS.get(name, (X,)))


def test_zero_d_results_are_what_numpy_gives():
    f = function(lambda x: (x.sum(), x[0, 0], np.float32(2) * x.mean()), autograph=False)
    total, item, scaled = f(X)
    assert type(total) is np.float32 and type(item) is np.float32
    assert type(scaled) is type(np.float32(2) * X.mean())


def test_shape_mismatch_is_a_trace_time_error_naming_op_shapes_and_line():
    def f(x, y):
        return x @ y  # the line

    line = f.__code__.co_firstlineno + 1
    text = "np.matmul: shapes (4, 5) and (3, 5)"
    with pytest.raises(errors.GraphError, match=re.escape(text)) as e:
        function(f, autograph=False)(X, Y.T)
    assert f"test_ops.py:{line}" in str(e.value)


@pytest.mark.parametrize("fn,text", [
    (lambda x: x + np.ones(3), "cannot be broadcast"),
    (lambda x: x.reshape(3, 3), "cannot reshape a tensor of shape (4, 5) into shape (3, 3)"),
    (lambda x: x[7], "index 7 is out of bounds for axis 0 with size 4"),
    (lambda x: np.concatenate([x, x.T]), "input shapes differ"),
    (lambda x: np.concatenate([x[0, 0], x[0, 1]]), "zero-dimensional arrays cannot be"),
    (lambda x: x.sum(axis=2), "axis 2 is out of bounds"),
    (lambda x: np.einsum("ij,jk", x, x), "operands disagree on 'j'"),
])
def test_bad_shapes_raise_graph_error(fn, text):
    with pytest.raises(errors.GraphError, match=re.escape(text)):
        function(fn, autograph=False)(X)


def test_unsupported_numpy_function_names_it_and_the_line():
    def f(x):
        return np.fft.fft(x)

    line = f.__code__.co_firstlineno + 1
    with pytest.raises(errors.UnsupportedNumpyFunctionError,
                       match=re.escape("np.fft.fft is not supported on graph tensors")) as e:
        function(f, autograph=False)(X)
    assert f"test_ops.py:{line}" in str(e.value)
    assert isinstance(e.value, errors.AutoGraphError)


def test_ufunc_out_argument_is_rejected():
    with pytest.raises(errors.UnsupportedNumpyFunctionError, match="out="):
        function(lambda x: np.add(x, 1, out=x), autograph=False)(X)


def test_tensor_indices_keep_unknown_dims():
    f = function(lambda x, i: x[i], autograph=False)
    cf = f.get_concrete_function(B, np.array([True, False]))
    assert cf.outputs[0].shape == (None, 4, 5)


def test_unknown_dims_propagate():
    from autograph.graph import TensorSpec
    f = function(lambda x, w: np.tanh(x @ w).sum(axis=1), autograph=False)
    cf = f.get_concrete_function(TensorSpec((None, 5), np.float32), TensorSpec((5, 3), np.float32))
    assert cf.outputs[0].shape == (None,)
    _same(cf(X, Y.astype(np.float32)), np.tanh(X @ Y.astype(np.float32)).sum(axis=1))
    _same(cf(X[:2], Y.astype(np.float32)), np.tanh(X[:2] @ Y.astype(np.float32)).sum(axis=1))


def test_numpy_array_indexed_by_tensor_explains_the_alternative():
    def f(i):
        return np.eye(4)[i]

    line = f.__code__.co_firstlineno + 1
    with pytest.raises(errors.TensorUsageError, match=re.escape("t[:, None] == np.arange(k)")) as e:
        function(f, autograph=False)(I)
    assert f"test_ops.py:{line}" in str(e.value)


# --- trace-time errors keep numpy's builtin type (a catalog subclass of it) --------


def _line(marker):
    with open(__file__) as source:
        found = [i for i, line in enumerate(source, 1) if line.rstrip().endswith(marker)]
    assert len(found) == 1, found
    return f"{__file__}:{found[0]}"


@pytest.mark.parametrize("fn, catalog, builtin, message", [
    (lambda x: np.reshape(x, (7,)), errors.GraphValueError, ValueError,  # reshape-line
     "np.reshape: cannot reshape a tensor of shape (4, 5) into shape (7,) (at {reshape-line})"),
    (lambda x: x.sum(axis=4), errors.GraphAxisError, (ValueError, IndexError),  # axis-line
     "np.sum: axis 4 is out of bounds for a tensor of rank 2 (at {axis-line})"),
    (lambda x: x[9], errors.GraphIndexError, IndexError,  # index-line
     "getitem: index 9 is out of bounds for axis 0 with size 4 (at {index-line})"),
    (lambda x: x.sum(axis=1.5), errors.GraphTypeError, TypeError,  # type-line
     "np.sum: axis must be a Python int, got 1.5 (at {type-line})"),
    # (checked before any op is recorded: the rule's RuleError escaped as it was)
    (lambda x: np.swapaxes(x, 0, 5), errors.GraphAxisError, (ValueError, IndexError),  # swap-line
     "np.swapaxes: axis 5 is out of bounds for a tensor of rank 2 (at {swap-line})"),
])
def test_shape_errors_derive_from_the_builtin_numpy_raises(fn, catalog, builtin, message):
    builtins = builtin if isinstance(builtin, tuple) else (builtin,)
    with pytest.raises(builtins) as eager:
        fn(X)
    assert all(isinstance(eager.value, b) for b in builtins)
    with pytest.raises(catalog) as staged:
        function(fn, autograph=False)(X)
    assert all(isinstance(staged.value, b) for b in builtins)
    assert type(staged.value) is catalog and issubclass(catalog, errors.GraphError)
    for marker in ("reshape-line", "axis-line", "index-line", "type-line", "swap-line"):
        message = message.replace("{%s}" % marker, _line("# " + marker))
    assert str(staged.value) == message, eager.value


def test_numpy_errors_in_a_rule_keep_their_type_and_message():
    from autograph.graph import core
    from autograph.graph.ops import base

    def rule(x):
        raise IndexError("numpy says no")

    op = core.register("test.raises_index_error", lambda x: x, rule)
    try:
        with pytest.raises(IndexError) as e:
            function(lambda x: base.record1(op, (x,)), autograph=False)(X)  # rule-line
    finally:
        del core.REGISTRY["test.raises_index_error"]
    assert type(e.value) is errors.GraphIndexError
    assert str(e.value) == ("test.raises_index_error: IndexError: numpy says no "
                            f"(at {_line('# rule-line')})")


@pytest.mark.parametrize("fn, what, hint", [
    (lambda x: np.zeros_like(x, order="F"), "np.zeros_like() with order= or subok=",  # like
     "Pass only dtype= and shape=, or call it outside the ag.function."),
    (lambda x: np.linspace(x[0, 0], x[0, 1], retstep=True), "np.linspace(retstep=True)",  # ls
     "Compute the step as (stop - start) / (num - 1) instead."),
    (lambda x: np.sort(x, order="a"), "sorting by field (order=...)",  # sort
     "Graph tensors have no fields: drop order=, or sort outside the ag.function."),
])
def test_unsupported_arguments_are_catalog_type_errors(fn, what, hint):
    marker = {"np.zeros_like": "# like", "np.linspace": "# ls", "sorting": "# sort"}[
        what.split("(")[0].split(" ")[0]]
    with pytest.raises(errors.UnsupportedNumpyArgumentError, match="^" + re.escape(
            f"{what} is not supported on graph tensors (at {_line(marker)}). {hint}")
            + r"(\n\(autograph's own frames are hidden.*)?$"):  # pytest matches notes too
        function(fn, autograph=False)(X)
    assert issubclass(errors.UnsupportedNumpyArgumentError, TypeError)


@pytest.mark.parametrize("fn", [
    lambda x: x.round(2), lambda x: x.cumprod(axis=1), lambda x: x.repeat(2, axis=0),
    lambda x: x.take(I, axis=1), lambda x: x.swapaxes(0, 1), lambda x: x.nonzero(),
], ids=["round", "cumprod", "repeat", "take", "swapaxes", "nonzero"])
def test_array_methods_of_supported_numpy_functions(fn):
    # (x.round(2) raised AttributeError: 'Tensor' object has no attribute 'round')
    _same(function(fn)(X), fn(X))


@pytest.mark.parametrize("attribute", ["real", "imag", "flat", "diagonal", "view"])
def test_other_array_attributes_are_catalog_errors_naming_them(attribute):
    def reads(x):
        return getattr(x, attribute)

    with pytest.raises(errors.UnsupportedArrayAttributeError,
                       match=rf"`x\.{attribute}` at .*test_ops\.py"):
        function(reads)(X)


def _copies(x):
    import copy
    shallow, deep = copy.copy(x), copy.deepcopy({"w": x * 2, "rows": [x[0]]})
    shallow += 1  # (a new array: x is unchanged)
    deep["w"] += 1
    return x, shallow, deep["w"], deep["rows"][0]


def test_copy_and_deepcopy_of_a_tensor_are_new_arrays():
    # copy.copy crashed with a KeyError; copy.deepcopy copied the graph, and
    # the copy was refused as "used outside the graph that made it"
    _same(function(_copies)(X), _copies(X.copy()))
