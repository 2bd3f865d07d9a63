"""while_statements: golden output of the pass, and converted-vs-original behaviour."""

import inspect
import re
import textwrap

import pytest

import autograph as ag
from autograph import errors
from autograph.converters import while_statements

from cf_support import BACKEND, Sym, assert_same, run_passes, value


def test_golden_functional_form():
    got = run_passes("""
        def f(n):
            count = 0
            while n != 1:
                count += 1
                n = n // 2
            return count
    """, while_statements)
    assert got == textwrap.dedent("""\
        def f(n):
            count = 0

            def loop_test(n, count):
                return n != 1

            def loop_body(n, count):
                count += 1
                n = n // 2
                return (n, count)
            n, count = ag__.while_stmt(loop_test, loop_body, (n, count), ('n', 'count'))
            return count""")


def test_golden_native_jump_keeps_python_path_only():
    got = run_passes("""
        def f(xs):
            while xs:
                if xs.pop():
                    break
    """, while_statements)
    assert "while ag__.python_only(xs, 'a `while` loop containing `break`'):" in got


def collatz(n):
    count = 0
    while n != 1:
        count += 1
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
    return count


def while_else_with_jumps(xs):
    s = 0
    while xs:
        x = xs.pop()
        if x < 0:
            continue
        if x > 100:
            break
        s += x
    else:
        s = -s
    return s


def defined_in_loop(n):
    while n > 0:
        last = n
        n -= 1
    return last


def raises_in_body(n):
    while n < 5:
        n += 1
        if n == 3:
            raise ValueError(f"bad {n}")
    return n


def nested(rows, cols):
    pairs = []
    r = 0
    while r < rows:
        c = 0
        while c < cols:
            pairs.append((r, c))
            c += 1
        r += 1
    return pairs


@pytest.mark.parametrize("fn, args", [
    (collatz, (27,)), (collatz, (1,)),
    (while_else_with_jumps, ([1, 2, -3, 4],)), (while_else_with_jumps, ([1, 200, 4],)),
    (while_else_with_jumps, ([],)),
    (defined_in_loop, (3,)), (defined_in_loop, (0,)),
    (raises_in_body, (0,)), (raises_in_body, (4,)),
    (nested, (3, 2)), (nested, (0, 2)),
])
def test_converted_matches_original(fn, args):
    assert_same(fn, *args)


def test_staged_while_plumbs_state():
    BACKEND.calls.clear()
    assert value(ag.to_graph(collatz)(Sym(6))) == 8
    assert BACKEND.calls[0] == ("while", ("n", "count"), None)


def test_test_becoming_staged_hands_over_remaining_iterations():
    def f(x):
        i = 0
        while i < 10:
            i = i + x
        return i
    BACKEND.calls.clear()
    assert value(ag.to_graph(f)(Sym(3))) == 12
    assert [c[0] for c in BACKEND.calls] == ["while"]


def read_before_assigned_in_loop(n):
    while n > 0:
        n = n - last  # noqa: F821 - unbound in the first iteration, on purpose
        last = 1  # noqa: F841 - read by the next iteration
    return n


def test_staged_loop_state_read_before_assigned_and_undefined_before_loop():
    with pytest.raises(errors.StagingError, match=re.escape(
            "variable 'last' is carried by the staged `while` loop at ")):
        ag.to_graph(read_before_assigned_in_loop)(Sym(3))


def counter_possibly_started(n, c):
    if c:
        i = 0
    while i < n:
        i += 1
    return i


def test_staged_while_on_a_possibly_defined_name():
    got = run_passes(textwrap.dedent(inspect.getsource(counter_possibly_started)),
                     while_statements)
    assert "(locals().get('i', ag__.Undefined('i')),), ('i',))" in got
    assert value(ag.to_graph(counter_possibly_started)(Sym(3), True)) == 3
    assert_same(counter_possibly_started, 3, True)
    assert_same(counter_possibly_started, 3, False)


def test_golden_inplace_names_state_changed_in_place():
    # `w += ...` and the part `d['k'] += ...` change their arrays in place;
    # `count` only ever holds number constants, so it is not named.
    got = run_passes("""
        def f(w, n, d):
            count = 0
            while count < n:
                w += 1.0
                d['k'] += 1.0
                count += 1
            return w, count
    """, while_statements)
    assert got == textwrap.dedent("""\
        def f(w, n, d):
            count = 0

            def loop_test(w, count, d_k):
                ag__.store_part(d, 'item', 'k', d_k)
                return count < n

            def loop_body(w, count, d_k):
                ag__.store_part(d, 'item', 'k', d_k)
                w += 1.0
                d['k'] += 1.0
                count += 1
                return (w, count, ag__.load_part(d, 'item', 'k', "d['k']"))
            w, count, d_k = ag__.while_stmt(loop_test, loop_body, (w, count, ag__.load_part(d, 'item', 'k', "d['k']")), ('w', 'count', "d['k']"), inplace={'w': 0, "d['k']": 2})
            ag__.store_part(d, 'item', 'k', d_k)
            del d_k
            return (w, count)""")
