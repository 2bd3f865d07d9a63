"""Watched constants broadcast at compile time (graph/widen.py): the compiled
graph of `x @ w + b` with `b` a global the call guard compares may hold `b`
broadcast to the output's shape.  Results must equal eager numpy's bit for
bit (values, dtype, warnings), the interpreted first run's too, and a `b`
changed in place must never run with the old widened copy."""

import warnings

import numpy as np
import pytest

import autograph as ag

BIAS32 = np.array([0.5, -0.0, np.inf, np.nan, 1e-45, 3.4e38], np.float32)
BIAS64 = np.array([0.1, -0.0, -np.inf, np.nan, 5e-324, 1.7e308])
INTS = np.array([np.iinfo(np.int64).max, -1, 0, 7, np.iinfo(np.int64).min, 3])
BOOLS = np.array([True, False, True, False, False, True])
ROWS = {np.float32: np.array([[1.0, -0.0, 2.0, np.nan, -1e-45, 3.4e38],
                              [np.inf, 0.0, -np.inf, 1.0, 1e-45, -3.4e38]], np.float32),
        np.float64: np.array([[1.0, -0.0, np.inf, np.nan, -5e-324, 1.7e308],
                              [-np.inf, 0.0, 2.0, 1.0, 5e-324, -1.7e308]]),
        np.int64: np.array([[1, 2, 3, 4, 5, 6], [-1, np.iinfo(np.int64).max, 0, 2, -1, 9]]),
        np.bool_: np.array([[True, True, False, False, True, False]] * 2)}
BIASES = {np.float32: BIAS32, np.float64: BIAS64, np.int64: INTS, np.bool_: BOOLS}
OPS = {"add": lambda v, b: v + b, "subtract": lambda v, b: b - v,
       "multiply": lambda v, b: v * b, "divide": lambda v, b: v / b,
       "maximum": lambda v, b: np.maximum(v, b), "minimum": lambda v, b: np.minimum(b, v)}
_current = {}


def _layer(x):
    """An op on a fresh tensor (x + x) and a watched global bias."""
    return _current["op"](x + x, BIASES[_current["dtype"]])


def _compiled_constants(staged, x):
    program = staged.get_concrete_function(x)._program
    function = program.compile()[0]
    return [v for v in function.__globals__.values() if type(v) is np.ndarray]


def _run_three(staged, x):
    """Three calls (interpreted, compiled, fast call): results and warnings."""
    runs = []
    for _ in range(3):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = staged(x)
        runs.append((out, sorted(str(w.message) for w in caught)))
    return runs


@pytest.mark.parametrize("dtype", list(ROWS), ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", list(OPS))
def test_widened_ops_equal_eager_numpy_bit_for_bit(op, dtype):
    if dtype is np.bool_ and op in ("subtract", "divide"):
        pytest.skip(f"numpy has no boolean {op} (eager raises; covered by the other dtypes)")
    _current.update(op=OPS[op], dtype=dtype)
    x = ROWS[dtype]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected = _layer(x)
    expected_warnings = sorted(str(w.message) for w in caught)
    staged = ag.function(_layer, autograph=False)
    for out, seen in _run_three(staged, x):
        assert out.dtype == expected.dtype and out.shape == expected.shape
        assert out.tobytes() == expected.tobytes()
        assert seen == expected_warnings
    assert any(c.shape == x.shape for c in _compiled_constants(staged, x))  # widened


def test_transcendental_and_complex_ops_keep_the_broadcast():
    def powers(x):
        return np.power(x + x, BIAS64) + np.arctan2(x, BIAS64)

    c_bias = BIAS64 + 1j

    def complex_product(x):
        return (x + x) * c_bias

    x = ROWS[np.float64]
    for fn in (powers, complex_product):
        staged = ag.function(fn, autograph=False)
        with np.errstate(all="ignore"):
            runs = _run_three(staged, x)
            assert runs[2][0].tobytes() == fn(x).tobytes()
        assert not any(c.shape == x.shape for c in _compiled_constants(staged, x))


def test_constants_not_watched_by_contents_are_not_widened():
    def made_inside(x):
        return (x + x) + np.arange(6.0)  # a constant no one else holds: no guard

    staged = ag.function(made_inside, autograph=False)
    x = ROWS[np.float64]
    _run_three(staged, x)
    assert [g[1] for g in staged.get_concrete_function(x).guards] == ["__code__"]  # (its own)
    assert not any(c.shape == x.shape for c in _compiled_constants(staged, x))


SHIFT = np.array([1.0, 2.0, 3.0])


def shifted(x):
    return (x + x) + SHIFT


def test_a_widened_bias_changed_in_place_traces_again():
    staged = ag.function(shifted, autograph=False)
    x = np.ones((2, 3))
    for _ in range(3):
        np.testing.assert_array_equal(staged(x), shifted(x))
    assert any(c.shape == (2, 3) for c in _compiled_constants(staged, x))
    try:
        SHIFT[1] = 20.0
        np.testing.assert_array_equal(staged(x), shifted(x))
        assert staged.experimental_get_tracing_count() == 2
    finally:
        SHIFT[:] = [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(staged(x), shifted(x))


def test_compiling_after_an_in_place_change_widens_the_traced_contents():
    """`.source` compiles whenever asked; a bias changed in place by then must
    not leak into the widened copy (it is built from the traced bytes), so
    when the bias is set back the graph still computes the traced values."""
    concrete = ag.function(shifted, autograph=False).get_concrete_function(np.ones((2, 3)))
    x = np.ones((2, 3))
    np.testing.assert_array_equal(concrete(x), shifted(x))  # (run 1: interpreted)
    try:
        SHIFT[0] = 100.0
        assert "def shifted" in concrete.source  # compiles now
        with pytest.raises(ag.errors.GraphError, match="changed in place"):
            concrete(x)
    finally:
        SHIFT[:] = [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(concrete(x), shifted(x))
    np.testing.assert_array_equal(concrete(x), shifted(x))  # (through the fast call)
    assert concrete._entry


MIXED = {"f64_bias": np.array([0.1, 0.2, -0.0], np.float64),
         "f32_bias": np.array([[0.1, np.nan, 3e38]], np.float32),  # [1, 3]: a row
         "i8_bias": np.array([127, -128, 5], np.int8)}


@pytest.mark.parametrize("x_dtype", [np.float32, np.int8, np.uint16])
@pytest.mark.parametrize("name", list(MIXED))
def test_mixed_dtypes_promote_as_eagerly(name, x_dtype):
    def mixed(x):
        return (x + x) * MIXED[name]

    x = np.array([[1, 2, 3], [4, 5, 6]], x_dtype)
    with np.errstate(all="ignore"):
        expected = mixed(x)
        staged = ag.function(mixed, autograph=False)
        for _ in range(3):
            out = staged(x)
            assert out.dtype == expected.dtype and out.tobytes() == expected.tobytes()
    assert any(c.shape == (2, 3) for c in _compiled_constants(staged, x))


LAYER_BIASES = [np.full(512, float(i)) for i in range(5)]


def five_biases(x):
    for b in LAYER_BIASES:
        x = x + b
    return x


def test_widened_constants_stay_within_the_budget(monkeypatch):
    from autograph.graph import widen
    monkeypatch.setattr(widen, "BUDGET", 2 * 64 * 512 * 8)  # two [64, 512] float64 copies
    staged = ag.function(five_biases, autograph=False)
    x = np.ones((64, 512))
    for _ in range(3):
        assert staged(x).tobytes() == five_biases(x).tobytes()
    assert sum(c.shape == (64, 512) for c in _compiled_constants(staged, x)) == 2
