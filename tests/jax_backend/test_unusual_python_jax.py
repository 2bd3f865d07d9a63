"""tests/staged/test_unusual_python.py's programs under `jax.jit(ag.to_graph(f))`."""

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                          exc_type=ImportError)
jax.config.update("jax_enable_x64", True)

import autograph as ag  # noqa: E402
from autograph import errors  # noqa: E402
from tests.staged import test_unusual_python as programs  # noqa: E402


@pytest.mark.parametrize("fn, marker, text, statement, fix_example", [
    (programs._checked, 'assert x > 0, f"x must be positive, got {x}"',
     'f"x must be positive, got {x}"', "assert", "assert x > 0, 'x must be positive'"),
    (programs._raising, 'raise ValueError(f"x must be positive, got {x:.2f}")',
     'f"x must be positive, got {x:.2f}"', "raise", "raise ValueError('x must be positive')"),
])
def test_a_tracer_in_an_assert_or_raise_message_is_refused_with_the_message_hint(
        fn, marker, text, statement, fix_example):
    # (the assert's message thunk got the tracer's placeholder text, silently)
    message = (f"of staged value '{text}' at "
               f"{programs._where(fn, marker)}: its text only exists when the program runs")
    hint = (f"The message of a staged `{statement}` is made once, while tracing, so it cannot "
            "hold a staged value's number. Write the message without the staged value "
            f"(`{fix_example}`)")
    with pytest.raises(errors.TensorTextError, match=re.escape(message)) as info:
        jax.jit(ag.to_graph(fn))(np.float64(1.5))
    assert hint in str(info.value)


@pytest.mark.parametrize("fn", [programs._raise_from_none, programs._caught_in_branch])
@pytest.mark.parametrize("x", [1.5, -1.5])
def test_raises_in_a_staged_branch_give_python_s_outcome_under_jax(fn, x):
    expected = programs._outcome(fn, x)
    if expected[0] == "value":
        assert float(jax.jit(ag.to_graph(fn))(np.float64(x))) == expected[1]
    else:  # (JAX wraps an exception its callback raised: its text holds Python's)
        with pytest.raises(Exception, match=re.escape(f"{expected[0].__name__}: {expected[1]}")):
            jax.jit(ag.to_graph(fn))(np.float64(x))
