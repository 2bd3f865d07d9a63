"""tests/staged/test_container_entries.py's programs (a dict's or list's
entries assigned at keys the staged statement computes) under
`jax.jit(ag.to_graph(f))`: the entries are carried as loop or branch state,
and the results are Python's (x64, so dtypes match numpy's)."""

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)

import autograph as ag  # noqa: E402
from autograph import errors  # noqa: E402
from tests.staged import test_container_entries as programs  # noqa: E402

CASES = [(fn, args) for fn, args in programs.CASES
         if fn not in (programs.momentum, programs.alias_sees_changes)]  # (numpy calls on
# tracers, and a result returning the caller's own object: not about the entries)


def _leaves(value):
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _leaves(value[key])]  # (jit sorts)
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{fn.__name__}-{i}"
                                                 for i, (fn, _) in enumerate(CASES)])
def test_jitted_like_python(fn, args):
    expected = _leaves(fn(*args))
    got = _leaves(jax.jit(ag.to_graph(fn))(*args))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(np.asarray(g), np.asarray(e))


def _log_over_array(x):
    log = {"v": []}
    for v in x:
        log["v"].append(v * 2.0)
    return len(log["v"])


def _log_over_count(x, n):
    log = {"v": []}
    for _ in range(n):
        log["v"].append(x[0])
    return len(log["v"])


def test_dict_held_list_appended_in_a_jitted_loop():
    """A list held in a dict and appended to in a staged loop: jax traces the
    loop body under its own frames, which are no caller of the function (the
    change was refused as `log['v']` aliasing `log['v']`)."""
    x = np.array([1.0, 2.0, 3.0])
    assert jax.jit(ag.to_graph(_log_over_array))(x) == _log_over_array(x)
    # a trip count known only at run time: JAX's refusal for any list, not an alias
    with pytest.raises(errors.StagingError, match=re.escape(
            "list 'log['v']' gets items appended at ") + ".*" + re.escape(
            "in a staged `for` loop whose trip count is not known when the function is "
            "traced")):
        jax.jit(ag.to_graph(_log_over_count))(x, np.int64(2))
