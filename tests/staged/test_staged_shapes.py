"""`.shape` and `.size` of a tensor whose dims are only known at run time
(issue 8): user code sees Python's numbers -- a staged size for each such dim
-- while the engine keeps reading the static shape (`static_shape`, None
there).  Each function runs plain, converted and under `ag.function`."""

import numpy as np
import pytest

import autograph as ag
from autograph.graph.ops.shaping import StagedShape


def _three_ways(fn, *args):
    return fn(*args), ag.to_graph(fn)(*args), ag.function(fn)(*args)


def _assert_same(expected, actual):
    assert type(actual) is type(expected) or not isinstance(expected, (tuple, list)), actual
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected), actual
        for e, a in zip(expected, actual):
            _assert_same(e, a)
        return
    assert not hasattr(actual, "graph"), f"a graph tensor came back: {actual!r}"
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))


def _check(fn, *args):
    expected, converted, staged = _three_ways(fn, *args)
    _assert_same(expected, converted)
    _assert_same(expected, staged)


def shape_parts(n):
    a = np.zeros((n, 3))
    return (a.shape[0], a.shape[1], a.shape[-2], a.size, a.ndim, len(a.shape),
            np.shape(a)[0], np.size(a), np.size(a, 0))


def shape_of_a_scalar_and_of_known_dims(x):
    return np.sum(x).shape, np.sum(x).size, x.shape, x.size


def shape_compared(n):
    a = np.zeros(n)
    if a.shape == (3,):
        kind = 1
    elif a.shape != (4,):
        kind = 2
    else:
        kind = 3
    return kind, a.shape == (3, 1), a.shape == [3], (3,) == a.shape


def shape_compared_with_two_staged_dims(n):
    a = np.zeros((n, n + 1))
    return (a.shape == (2, 3), a.shape != (2, 3), a.shape == (2, 4), a.shape[::-1] == (3, 2),
            a.shape + (1,) == (2, 3, 1), (1,) + a.shape == (1, 2, 3), a.shape[1:] == (3,))


def shape_used_to_make_arrays(n):
    a = np.ones((n, 2))
    rows, cols = a.shape
    b = np.zeros(a.shape) + 1.0
    return b, np.full((cols, rows), 2.0), rows * cols, np.arange(a.shape[0])


def shape_read_in_a_staged_loop(n):
    a = np.zeros(n)
    total = 0
    i = 0
    while i < a.shape[0]:
        total += a.shape[0]
        i += 1
    return total


def size_in_a_staged_branch(n, x):
    a = np.ones((n, 2))
    if x > 0:
        s = a.size + 1
    else:
        s = a.size - 1
    return s


@pytest.mark.parametrize("n", [0, 1, 3, 4])
def test_shape_size_and_np_shape_of_a_staged_size_are_pythons(n):
    for fn, args in ((shape_parts, (np.int64(n),)), (shape_compared, (np.int64(n),)),
                     (shape_compared_with_two_staged_dims, (np.int64(n),)),
                     (shape_used_to_make_arrays, (np.int64(n),)),
                     (shape_read_in_a_staged_loop, (np.int64(n),)),
                     (size_in_a_staged_branch, (np.int64(n), np.float64(1.0))),
                     (size_in_a_staged_branch, (np.int64(n), np.float64(-1.0)))):
        _check(fn, *args)


def test_known_dims_stay_python_ints():
    _check(shape_of_a_scalar_and_of_known_dims, np.ones((2, 3)))

    def types(x, n):
        a = np.zeros((n, 3))
        seen.append((type(x.shape), type(x.shape[0]), type(x.size), type(a.shape),
                     type(a.shape[1])))
        return x

    seen = []
    ag.function(types)(np.ones(2), np.int64(3))
    assert seen == [(tuple, int, int, StagedShape, int)]


def test_the_engine_still_sees_unknown_dims():
    concrete = ag.function(shape_parts).get_concrete_function(np.int64(3))
    assert concrete(np.int64(5))[0] == 5
    f = ag.function(lambda n: np.zeros((n, 3)))
    out = f.get_concrete_function(np.int64(2)).outputs[0]
    assert out.shape == (None, 3) and out.static_shape == (None, 3)  # outside tracing


def test_a_staged_shape_as_a_dict_key_is_refused():
    def keyed(n):
        return {np.zeros(n).shape: 1}

    with pytest.raises(ag.AutoGraphError, match=r"hash\(\) of a shape with a dim only known "
                                                r"at run time.*test_staged_shapes\.py:\d+"):
        ag.function(keyed)(np.int64(3))


def test_a_staged_shape_compared_unconverted_says_to_convert():
    def compared(x):
        return bool(x.shape == (3,))

    f = ag.function(compared, input_signature=[ag.TensorSpec((None,))], autograph=False)
    with pytest.raises(ag.AutoGraphError, match=r"bool\(\)"):
        f(np.ones(3))


def test_jax_backend_shapes_are_unchanged():
    jax = pytest.importorskip("jax")
    from autograph.backends import jax as jax_backend  # noqa: F401 (registers it)

    def parts(x):
        return x.shape[0] * 2, x.size

    assert jax.jit(ag.to_graph(parts))(np.ones((3, 2))) == (6, 6)


def masked_shapes(a):
    picked = a[:, a[0, :, 0] > -10]  # (2, staged, 4)
    by_tail = {picked.shape[2:]: 1}  # only known dims: hashed as Python does
    return a[a > 10].shape, picked.shape, picked.shape[2:], by_tail


def test_a_returned_shape_is_a_tuple_and_its_known_dims_hash():
    a = np.arange(24.0).reshape(2, 3, 4) - 7.5
    expected, staged = masked_shapes(a), ag.function(masked_shapes)(a)
    assert staged == expected
    assert [type(s) for s in staged[:3]] == [tuple] * 3


def shape_returned_and_compared(x):
    kept = x[x > 0]
    return kept.shape, kept.shape == (2,), kept.shape != (2,)


def test_a_staged_shape_returned_is_a_tuple_and_compares_to_a_python_bool():
    # (it came back as a StagedShape, and its comparisons as numpy bools)
    x = np.array([1.0, -2.0, 3.0])
    expected, staged = shape_returned_and_compared(x), ag.function(shape_returned_and_compared)(x)
    assert staged == expected
    assert [type(v) for v in staged] == [tuple, bool, bool]
