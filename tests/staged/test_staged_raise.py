"""A `raise` under a staged `if` raises the user's exception when the graph
takes the branch (issue 8, item 6): same type, same arguments, as Python.

The graph engine's assert op carries the exception: a builtin type by name
(so a saved graph holds it, and a loaded one raises it), a user-defined
class as the class (which save refuses, naming it).  Under jax.jit the
check is a callback: JAX reports an exception raised there as its own
JaxRuntimeError, whose text holds the user's `Type: text`.
"""

import numpy as np
import pytest

import autograph as ag


class BudgetExceeded(Exception):
    pass


class NeedsTwoArguments(Exception):
    def __init__(self, what, limit):
        super().__init__(f"{what} over {limit}")


def raise_builtin(x):
    if x < 0:
        raise ValueError("negative input", 3)
    return x + 1.0


def raise_class(x):
    if x < 0:
        raise KeyError
    return x


def raise_user_class(x):
    if x > 10:
        raise BudgetExceeded("too much")
    return x


def raise_awkward_user_class(x):
    if x > 10:
        raise NeedsTwoArguments("x", 10)
    return x


def _python_error(fn, x):
    with pytest.raises(Exception) as caught:
        fn(x)
    return caught.value


@pytest.mark.parametrize("fn, bad", [(raise_builtin, -1.0), (raise_class, -1.0),
                                     (raise_user_class, 11.0)])
def test_the_graph_raises_the_users_exception(fn, bad):
    staged = ag.function(fn)
    assert staged(np.float64(1.0)) == fn(np.float64(1.0))
    expected = _python_error(fn, np.float64(bad))
    with pytest.raises(type(expected)) as caught:
        staged(np.float64(bad))
    assert type(caught.value) is type(expected)
    assert caught.value.args == expected.args
    assert staged(np.float64(2.0)) == fn(np.float64(2.0))  # the branch not taken: no error


def test_a_class_whose_init_takes_other_arguments_raises_assertion_error_with_its_text():
    """`NeedsTwoArguments(*e.args)` cannot rebuild it: the documented fallback."""
    staged = ag.function(raise_awkward_user_class)
    with pytest.raises(AssertionError, match="^NeedsTwoArguments: x over 10"):
        staged(np.float64(11.0))


def test_a_saved_graph_raises_a_builtin_exception(tmp_path):
    staged = ag.function(raise_builtin)
    staged(np.float64(1.0))
    staged.save(str(tmp_path / "f"))
    loaded = ag.load(str(tmp_path / "f"))
    assert loaded(np.float64(1.0)) == 2.0
    with pytest.raises(ValueError) as caught:
        loaded(np.float64(-1.0))
    assert caught.value.args == ("negative input", 3)


def test_save_refuses_a_user_defined_exception_class(tmp_path):
    staged = ag.function(raise_user_class)
    staged(np.float64(1.0))
    with pytest.raises(ag.AutoGraphError, match=r"test_staged_raise\.py:\d+.*staged `raise` of "
                       r".*BudgetExceeded, an exception class that is not one of Python's "
                       r"builtins.*raise a builtin type"):
        staged.save(str(tmp_path / "g"))


def test_under_jax_the_error_names_the_users_exception():
    jax = pytest.importorskip("jax", exc_type=ImportError)
    jax.config.update("jax_enable_x64", True)
    jitted = jax.jit(ag.to_graph(raise_builtin))
    assert float(jitted(np.float64(1.0))) == 2.0
    with pytest.raises(jax.errors.JaxRuntimeError, match=r"ValueError: \('negative input', 3\)"):
        jitted(np.float64(-1.0))
        jax.effects_barrier()
