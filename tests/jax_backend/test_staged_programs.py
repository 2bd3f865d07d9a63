"""The staged programs (tests/staged/programs.py) under `jax.jit(ag.to_graph(f))`.

The programs call numpy (`np.abs`, `np.zeros`); JAX traces only jax.numpy,
so each runs here as written but with its global `np` bound to `jax.numpy`
(what a JAX user writes). Each program is jitted once; every argument set (numpy values, as jax
arrays) must give what plain Python gives, and what the program prints when
it runs (jax.debug.callback) must be what Python prints. float64/int64 are
enabled (x64) so dtypes match numpy's.
"""

import types

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed (pip install -e .[jax])",
                              exc_type=ImportError)
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import autograph as ag  # noqa: E402
from autograph import errors  # noqa: E402
from tests.staged.programs import PROGRAMS  # noqa: E402
from tests.staged.test_staged import _same  # noqa: E402

# Programs JAX cannot stage: why, and the error they must raise instead
# (autograph's catalog error where autograph can tell; JAX's own where JAX
# rejects an operation on a traced value).
CANNOT_STAGE = {
    "list_and_stack": ("`for i in range(n)` with a traced n has no trip count known while "
                       "tracing, so appended items cannot be stacked outputs",
                       errors.StagingError, "trip count is not known"),
    "growing_array": ("XLA arrays have static shapes: a loop variable cannot grow "
                      "(shape_invariants)", errors.StagingError, "shape"),
    "count_inversions": ("`xs[i + 1:]` with a traced i has a shape known only at run time",
                         IndexError, "Slice entries must be static"),
}

# Programs whose printed output differs under jax.jit, and why (results are still checked).
OUTPUT_DIFFERS = {
    "print_python_and_staged": "its Python print('tracing') runs once, when jax.jit traces",
    "lazy_and_or": "a staged `or` traces both operands, so the right operand's Python "
                   "print runs also when Python skips it",
}

_JITTED = {}


def with_jnp(fn):
    """`fn` with its global `np` bound to jax.numpy (the same code object)."""
    copy = types.FunctionType(fn.__code__, {**fn.__globals__, "np": jnp}, fn.__name__,
                              fn.__defaults__, fn.__closure__)
    copy.__qualname__ = fn.__qualname__
    return copy


def _jitted(program):
    if program.name not in _JITTED:
        _JITTED[program.name] = jax.jit(ag.to_graph(with_jnp(program.fn)))
    return _JITTED[program.name]


def _result(value):
    if isinstance(value, tuple):
        return tuple(_result(v) for v in value)
    return np.asarray(value)


@pytest.mark.parametrize("program", [p for p in PROGRAMS if p.name not in CANNOT_STAGE],
                         ids=lambda p: p.name)
def test_program_under_jax_jit_matches_plain_python(program, capsys):
    for args in program.argument_sets:
        capsys.readouterr()
        expected = program.fn(*args)
        expected_out = capsys.readouterr().out
        actual = _result(_jitted(program)(*[jnp.asarray(a) for a in args]))
        jax.effects_barrier()
        actual_out = capsys.readouterr().out
        _same(expected, actual)
        if program.name not in OUTPUT_DIFFERS:
            assert actual_out == expected_out


@pytest.mark.parametrize("name", sorted(CANNOT_STAGE))
def test_program_jax_cannot_stage_raises_the_catalog_error(name):
    program = next(p for p in PROGRAMS if p.name == name)
    _, error, match = CANNOT_STAGE[name]
    with pytest.raises(error, match=match):
        jax.jit(ag.to_graph(with_jnp(program.fn)))(*[jnp.asarray(a) for a in program.argument_sets[0]])
