"""The staged programs (programs.py) run on a second backend, the eager one
of eager_backend.py, written only against the runtime's protocol
(autograph.runtime.backend.Backend, staging.LoopState, structure): every
argument is a staged `Eager` value, so each `if`/`while`/`for` on it reaches
the backend through the runtime, and the results and printed output must be
what plain Python gives."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors
from .eager_backend import BACKEND, Eager, EagerList, value_of
from .programs import PROGRAMS
from .test_staged import _same

# Programs whose output differs on this backend, and why (the result is still checked).
OUTPUT_DIFFERS = {
    "lazy_and_or": "a staged `or` runs both operands (as the graph backend traces both), "
                   "so the right operand's Python print runs also when Python skips it",
}


def _unwrap(v):
    if type(v) in (tuple, list):
        return type(v)(_unwrap(x) for x in v)
    if isinstance(v, EagerList):
        return [value_of(x) for x in v.items]
    return value_of(v)


def _staged_args(args):
    return tuple(Eager(a) for a in args)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_program_on_the_eager_backend_matches_plain_python(program, capsys):
    converted = ag.to_graph(program.fn)
    for args in program.argument_sets:
        capsys.readouterr()
        expected = program.fn(*args)
        expected_out = capsys.readouterr().out
        with BACKEND.run():
            actual = _unwrap(converted(*_staged_args(args)))
        actual_out = capsys.readouterr().out
        _same(expected, actual)
        if program.name not in OUTPUT_DIFFERS:
            assert actual_out == expected_out


def test_control_flow_on_eager_values_reaches_the_backend():
    def f(x):
        if x > 0:
            y = x * 2
        else:
            y = -x
        return y

    with BACKEND.run():
        with pytest.raises(TypeError, match="should have been staged"):
            f(Eager(3))  # unconverted: Python asks for bool()
        assert value_of(ag.to_graph(f)(Eager(3))) == 6


def test_eager_backend_gets_the_runtimes_checks_and_messages():
    def f(x):
        s = 0
        while x > 0:
            s = "text"
            x -= 1
        return s

    with BACKEND.run(), pytest.raises(errors.StagingError, match="'s'"):
        ag.to_graph(f)(Eager(np.int64(2)))


def test_for_loop_target_reaches_the_eager_backend(monkeypatch):
    seen = []
    for_range = type(BACKEND).for_range

    def spy(self, start, stop, step, body_fn, state, names, opts, target=None,
            extra_test=None):
        seen.append(target)
        return for_range(self, start, stop, step, body_fn, state, names, opts, target,
                         extra_test)

    monkeypatch.setattr(type(BACKEND), "for_range", spy)

    def f(n):
        total = 0
        for k in range(n):
            total += k
        return total

    with BACKEND.run():
        assert value_of(ag.to_graph(f)(Eager(np.int64(4)))) == 6
    assert "k" in seen


def test_default_for_range_handles_a_staged_step_of_either_sign():
    def f(start, stop, step):
        total = 0
        for k in range(start, stop, step):
            total += k
        return total

    converted = ag.to_graph(f)
    for args in [(0, 7, 2), (7, 0, -2), (3, 3, 1)]:
        with BACKEND.run():
            actual = value_of(converted(*(Eager(np.int64(a)) for a in args)))
        assert actual == f(*args), args
