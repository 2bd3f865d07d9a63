"""for_statements: golden output of the pass, and converted-vs-original behaviour."""

import textwrap

import pytest

import autograph as ag
from autograph.converters import for_statements

from cf_support import BACKEND, Sym, SymRange, assert_same, run_passes, value


def test_golden_functional_form():
    got = run_passes("""
        def f(xs):
            s = 0
            for x in xs:
                s = s + x
            return s
    """, for_statements)
    assert got == textwrap.dedent("""\
        def f(xs):
            s = 0

            def loop_body(x, s):
                s = s + x
                return (s,)
            s, = ag__.for_stmt(xs, loop_body, (s,), ('s',), target='x')
            return s""")


def test_golden_tuple_target_is_unpacked_inside():
    got = run_passes("""
        def f(d):
            n = 0
            for k, v in d.items():
                n = n + v
            return n
    """, for_statements)
    # (split by the runtime where the item is a staged row: `for a, b in rows`)
    assert "def loop_body(itr, n):\n        k, v = ag__.unpack_target(itr, (None, None))\n" in got
    assert "target=" not in got  # a tuple target has no single name


def sums(xs):
    s = 0
    for x in xs:
        s = s + x
    return s


def sums_of_generator(n):
    s = 0
    for x in (i * i for i in range(n)):
        s = s + x
    return s


def tuple_targets(d):
    out = []
    for k, (a, b) in d.items():
        out.append(f"{k}{a}{b}")
    return out


def break_and_else(xs):
    found = None
    for i, x in enumerate(xs):
        if x < 0:
            continue
        if x > 10:
            found = i
            break
        print("saw", x)
    else:
        print("no break")
    return found


def stops_generator_after_break():
    fetched = []

    def items():
        for i in range(10):
            fetched.append(i)
            yield i

    for i in items():
        if i == 2:
            break
    return fetched


def first_defined_in_loop(xs):
    for x in xs:
        last = x * 2
    return last, x


def raises_inside(xs):
    for x in xs:
        if x == 0:
            return 1 / x
    return 0


@pytest.mark.parametrize("fn, args", [
    (sums, ([1, 2, 3],)), (sums, ([],)), (sums_of_generator, (4,)),
    (tuple_targets, ({"k": (1, 2), "j": (3, 4)},)),
    (break_and_else, ([1, -1, 20, 3],)), (break_and_else, ([1, 2],)), (break_and_else, ([],)),
    (stops_generator_after_break, ()),
    (first_defined_in_loop, ([1, 2],)), (first_defined_in_loop, ([],)),
    (raises_inside, ([1, 0],)), (raises_inside, ([1],)),
])
def test_converted_matches_original(fn, args):
    assert_same(fn, *args)


def test_loops_over_strings_and_dicts():
    def f(text, d):
        out = ""
        for ch in text:
            out = out + ch.upper()
        for key in d:
            out = out + key
        return out
    assert_same(f, "abc", {"x": 1, "y": 2})


def test_staged_iterable_and_staged_range():
    BACKEND.calls.clear()
    assert value(ag.to_graph(sums)(Sym([1, 2, 3]))) == 6
    assert value(ag.to_graph(sums)(SymRange(0, Sym(4)))) == 6
    assert [c[0] for c in BACKEND.calls] == ["for_each", "for_range"]


def test_python_list_with_staged_break_flag_unrolls_guarded():
    def f(limit):
        total = 0
        for x in [1, 2, 3, 4]:
            if x > limit:
                break
            total = total + x
        return total
    assert value(ag.to_graph(f)(Sym(2))) == 3
    assert f(2) == 3


def closures_over_loop_variable(n):
    fns = []
    for i in range(n):
        fns.append(lambda: i)
    return [f() for f in fns]


def test_loop_defining_a_closure_over_its_variable_shares_the_variable():
    """The closures read the function's own `i` (cell_variables.py): every
    closure sees the last i, as in Python, in the converted body too."""
    got = ag.to_code(closures_over_loop_variable)
    assert "nonlocal i" in got and "ag__.for_stmt(" in got
    assert_same(closures_over_loop_variable, 3)
    from autograph.runtime import registry
    with registry.staging("test: the converted body"):
        assert ag.to_graph(closures_over_loop_variable)(3) == [2, 2, 2]


def test_golden_inplace_names_state_changed_by_out_argument():
    got = run_passes("""
        def f(w, xs):
            for x in xs:
                np.add(w, x, out=w)
                w = w
            return w
    """, for_statements)
    assert got == textwrap.dedent("""\
        def f(w, xs):

            def loop_body(x, w):
                np.add(w, x, out=w)
                w = w
                return (w,)
            w, = ag__.for_stmt(xs, loop_body, (w,), ('w',), target='x', inplace={'w': 0})
            return w""")
