import io
import sys

import pytest

import autograph.runtime as rt
from autograph import errors
from autograph.runtime import control_flow
from fake_backend import BACKEND, Sym


def test_print_is_builtin_print_for_python_values(capsys):
    rt.print_('a', 1, sep='-', end='!\n')
    rt.print_()
    buffer = io.StringIO()
    rt.print_('x', 'y', sep='', end='', file=buffer, flush=True)
    assert capsys.readouterr().out == 'a-1!\n\n' and buffer.getvalue() == 'xy'
    with pytest.raises(TypeError) as ours:
        rt.print_('a', bogus=1)
    with pytest.raises(TypeError) as theirs:
        print('a', bogus=1)
    assert str(ours.value) == str(theirs.value)


def test_staged_print_goes_to_the_backend(capsys):
    BACKEND.log.clear()
    rt.print_('value', Sym(3), sep=None, end=';')
    assert BACKEND.log == [('print', ('value', 3), ' ', ';')]
    assert capsys.readouterr().out == ''
    with pytest.raises(errors.StagingError, match="file="):
        rt.print_(Sym(1), file=sys.stderr)


def test_len_range_enumerate_zip_for_python_values():
    assert rt.len_([1, 2]) == 2
    assert rt.range_(5) == range(5) and rt.range_(1, 9, 2) == range(1, 9, 2)
    assert list(rt.enumerate_('ab', 1)) == [(1, 'a'), (2, 'b')]
    assert list(rt.zip_('ab', [1, 2, 3])) == [('a', 1), ('b', 2)]
    with pytest.raises(ValueError):
        list(rt.zip_('ab', [1], strict=True))
    with pytest.raises(TypeError, match="has no len"):
        rt.len_(5)
    for call, original in [(lambda: rt.range_(1.5), lambda: range(1.5)),
                           (lambda: rt.range_(stop=3), lambda: range(stop=3)),
                           (lambda: rt.len_([1], [2]), lambda: len([1], [2])),
                           (lambda: rt.len_(), lambda: len()),
                           (lambda: rt.zip_(1), lambda: zip(1)),
                           (lambda: rt.enumerate_(), lambda: enumerate())]:
        with pytest.raises(TypeError) as ours:
            call()
        with pytest.raises(TypeError) as theirs:
            original()
        assert str(ours.value) == str(theirs.value)


def test_staged_range_is_owned_and_looped_by_the_bounds_backend():
    r = rt.range_(Sym(4))
    assert type(r) is rt.StagedRange and rt.is_staged(r)
    assert rt.len_(r).value == 4

    def body(i, total):
        return (total + i,)
    BACKEND.log.clear()
    (total,) = control_flow.for_stmt(r, body, (0,), ('total',))
    assert BACKEND.log[0] == ('for_range', 0, 4, 1) and total.value == 6


def test_staged_len_and_missing_backend_operations():
    assert rt.len_(Sym([1, 2, 3])).value == 3
    with pytest.raises(errors.StagingError, match="enumerate"):
        rt.enumerate_(Sym([1]))


def test_user_locals_hides_generated_names():
    # (internal_names: the generated names, the cells' included)
    fscope = rt.FunctionScope('f', None, frozenset({'do_return', 'if_true', 'ag__', 'fscope'}))
    local_vars = {'x': 1, 'do_return': False, 'if_true': None, 'ag__': rt, 'fscope': fscope,
                  'y': rt.Undefined('y')}
    assert rt.user_locals(local_vars, fscope) == {'x': 1}
    # a user's variable `fscope`: the cell is `fscope_1`, the user's shows
    scope = rt.FunctionScope('f', None, frozenset({'ag__', 'fscope_1'}))
    local_vars = {'x': 1, 'ag__': rt, 'fscope_1': scope, 'fscope': 2}
    assert rt.user_locals(local_vars, scope) == {'x': 1, 'fscope': 2}
