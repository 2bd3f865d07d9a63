"""if_statements: golden output of the pass, and converted-vs-original behaviour."""

import contextlib
import re
import textwrap
import traceback

import pytest

import autograph as ag
from autograph import errors
from autograph.converters import if_statements

from cf_support import BACKEND, Sym, assert_same, run_passes, value


def test_golden_functional_form():
    got = run_passes("""
        def f(x):
            if x > 0:
                tmp = x * 2
                y = tmp + 1
            else:
                y = -x
            return y
    """, if_statements)
    assert got == textwrap.dedent("""\
        def f(x):

            def if_true():
                tmp = x * 2
                y = tmp + 1
                return (y,)

            def if_false():
                y = -x
                return (y,)
            y, = ag__.if_stmt(x > 0, if_true, if_false, (), ('y',))
            return y""")


def test_golden_nested_if_appears_once():
    got = run_passes("""
        def f(c, d, y):
            if c:
                if d:
                    y = y + 1
            return y
    """, if_statements)
    assert got == textwrap.dedent("""\
        def f(c, d, y):

            def if_true(y):

                def if_true_1(y):
                    y = y + 1
                    return (y,)
                y, = ag__.if_stmt(d, if_true_1, None, (y,), ('y',))
                return (y,)
            y, = ag__.if_stmt(c, if_true, None, (y,), ('y',))
            return y""")


def test_golden_elif_chain_grows_linearly():
    def chain(arms):
        lines = ["def f(x):", "    if x == 0:", "        y = 0"]
        for arm in range(1, arms):
            lines += [f"    elif x == {arm}:", f"        y = {arm}"]
        return "\n".join(lines + ["    else:", "        y = -1", "    return y"])
    sizes = [len(run_passes(chain(arms), if_statements).splitlines()) for arms in (5, 10, 20)]
    assert sizes[1] - sizes[0] == (sizes[2] - sizes[1]) // 2  # lines per arm are constant
    assert sizes[2] < 12 * 20


def test_golden_undefined_state_and_unstageable():
    got = run_passes("""
        def f(c):
            if c:
                y = 1
            else:
                y = y + 1
            return y
    """, if_statements)
    assert "(ag__.Undefined('y'),), ('y',))" in got
    got = run_passes("""
        def g(c):
            if c:
                yield 1
    """, if_statements)
    assert "if ag__.python_only(c, 'an `if` statement containing `yield`'):" in got


def branches(x):
    if x > 0:
        tmp = x * 2
        y = tmp + 1
    elif x < -5:
        y = -x
    elif x == -1:
        print("minus one")
        y = 0
    else:
        y = x
    return y


def read_modify_write(c, y):
    if c:
        y = y + 1
    return y


def maybe_unbound(c):
    if c:
        y = 1
    return y


def raises_in_branch(x):
    if x > 0:
        return {}[x]
    return x


def if_without_outputs(x, out):
    if x:
        out.append(x)
        print("appended", x)
    return out


@pytest.mark.parametrize("fn, args", [
    (branches, (3,)), (branches, (-7,)), (branches, (-1,)), (branches, (-3,)),
    (read_modify_write, (True, 1)), (read_modify_write, (False, 1)),
    (maybe_unbound, (True,)), (maybe_unbound, (False,)),
    (raises_in_branch, (2,)), (raises_in_branch, (-2,)),
    (if_without_outputs, (0, [])), (if_without_outputs, (5, [1])),
])
def test_converted_matches_original(fn, args):
    assert_same(fn, *args)


def test_traceback_points_at_user_line_and_function():
    converted = ag.to_graph(raises_in_branch)
    with pytest.raises(KeyError) as info:
        converted(2)
    frame = traceback.extract_tb(info.tb)[-1]
    assert (frame.filename, frame.name) == (__file__, "raises_in_branch")
    assert frame.lineno == raises_in_branch.__code__.co_firstlineno + 2


def test_staged_if_uses_backend_and_plumbs_state():
    BACKEND.calls.clear()
    assert value(ag.to_graph(read_modify_write)(Sym(True), 1)) == 2
    assert value(ag.to_graph(branches)(Sym(3))) == 7
    assert BACKEND.calls[0] == ("cond", ("y",))


def test_staged_if_undefined_in_one_branch_is_a_clear_error():
    with pytest.raises(errors.StagingError, match=re.escape(
            "variable 'y' is undefined in a branch of the staged `if` at "
            f"{__file__}:{maybe_unbound.__code__.co_firstlineno + 1} (true branch: 1; "
            "false branch: undefined). Assign y before the if, or in both branches.")):
        ag.to_graph(maybe_unbound)(Sym(True))


def test_python_if_in_staged_copy_runs_exactly():
    def f(x, flag):
        s = 0
        if x > 0:
            if flag:
                s = 1
            else:
                s = 2
        return s
    assert value(ag.to_graph(f)(Sym(1), False)) == 2


def test_golden_state_possibly_defined_is_loaded_as_undefined_when_unbound():
    got = run_passes("""
        def f(x, c, cm):
            if c:
                y = 1
            if x > 0:
                y = 2
            with cm:
                if x > 0:
                    z = 1
                else:
                    z = 2
            return y, z
    """, if_statements)
    assert "(locals().get('y', ag__.Undefined('y')),), ('y',))" in got
    # Before a `with` body ran, what it assigns is surely undefined.
    assert "(ag__.Undefined('z'),), ('z',))" in got
    got = run_passes("""
        def g(x, y):
            if x > 0:
                y = 2
            return y
    """, if_statements)
    assert "ag__.if_stmt(x > 0, if_true, None, (y,), ('y',))" in got


def possibly_defined(x, c):
    if c:
        y = 1
    if x > 0:
        y = 2
    return y


def staged_if_in_with(x):
    with contextlib.nullcontext():
        if x > 0:
            y = x + 1
        else:
            y = x
    return y


def staged_if_in_handler(x):
    try:
        {}["missing"]
    except KeyError:
        if x > 0:
            y = x + 1
        else:
            y = x
    return y


@pytest.mark.parametrize("fn", [staged_if_in_with, staged_if_in_handler])
def test_staged_if_in_with_or_handler_carries_state_never_assigned_before(fn):
    assert value(ag.to_graph(fn)(Sym(3))) == 4
    assert_same(fn, 3)
    assert_same(fn, -3)


def test_staged_if_on_a_possibly_defined_name():
    assert value(ag.to_graph(possibly_defined)(Sym(-3), True)) == 1
    assert value(ag.to_graph(possibly_defined)(Sym(3), True)) == 2
    with pytest.raises(errors.StagingError, match=re.escape(
            "variable 'y' is undefined in a branch of the staged `if` at "
            f"{__file__}:{possibly_defined.__code__.co_firstlineno + 3} (true branch: 2; "
            "false branch: undefined). Assign y before the if, or in both branches.")):
        ag.to_graph(possibly_defined)(Sym(3), False)
    for args in [(3, True), (-3, True), (3, False), (-3, False)]:
        assert_same(possibly_defined, *args)


def deletes_in_branch(flag):
    value = 10
    if flag:
        del value
    return value


def test_if_deleting_a_variable_stays_native():
    got = run_passes("""
        def f(flag, value):
            if flag:
                del value
            return value
    """, if_statements)
    assert "if ag__.python_only(flag, \"an `if` statement deleting the variable 'value'\"):" in got
    assert_same(deletes_in_branch, True)
    assert_same(deletes_in_branch, False)
    with pytest.raises(errors.NotStageableError, match="deleting the variable 'value'"):
        ag.to_graph(deletes_in_branch)(Sym(True))


def test_golden_inplace_names_state_changed_by_item_assignment():
    got = run_passes("""
        def f(w, x, n):
            if n > 0:
                w[0] = x
                w = w * 2
            return w
    """, if_statements)
    assert got == textwrap.dedent("""\
        def f(w, x, n):

            def if_true(w):
                w[0] = x
                w = w * 2
                return (w,)
            w, = ag__.if_stmt(n > 0, if_true, None, (w,), ('w',), inplace={'w': 0})
            return w""")
