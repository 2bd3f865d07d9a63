"""Static analysis: activity, liveness, definedness on one function."""

import textwrap

import gast

from autograph import analysis, anno

S = anno.Static


def _fn(source):
    fn = gast.parse(textwrap.dedent(source)).body[0]
    analysis.resolve(fn, None)
    return fn


def _scope(node):
    scope = anno.getanno(node, S.SCOPE)
    return set(scope.read), set(scope.modified)


def test_assignments_of_every_kind_modify():
    fn = _fn("""
        def f(a):
            b = 1
            c += 1
            d: int = 2
            e: int
            for g, (h, *i) in a: pass
            with a as j: pass
            try: pass
            except E as k: pass
            del a
            import m.n, o as p
            def q(): pass
            class R: pass
            if (s := 1): pass
    """)
    modified = set()
    for stmt in fn.body:
        modified |= _scope(stmt)[1]
    assert modified == set("abcdghijkmpqs") | {"R"}
    assert _scope(fn.body[1]) == ({"c"}, {"c"})  # augassign reads too
    assert _scope(fn.body[3]) == (set(), set())  # bare annotation binds nothing


def test_nested_function_reads_enclosing_but_keeps_its_locals():
    fn = _fn("""
        def f(x):
            def g(y, z=w):
                t = x + y
                nonlocal n
                n = t
                return u
            h = lambda v: v + x + k
            return g
    """)
    assert _scope(fn.body[0]) == ({"w", "x", "u"}, {"g", "n"})  # nonlocal write
    assert _scope(fn.body[1]) == ({"x", "k"}, {"h"})
    inner = fn.body[0].body[0]
    assert _scope(inner) == ({"x", "y"}, {"t"})  # the nested function is analysed too


def test_comprehension_scoping_and_walrus():
    fn = _fn("""
        def f(xs):
            a = [y for y in xs if (last := y) > lim]
            b = [x for x in x]
    """)
    assert _scope(fn.body[0]) == ({"xs", "lim"}, {"a", "last"})
    assert _scope(fn.body[1]) == ({"x"}, {"b"})  # the first iterable is the enclosing x


def test_global_and_nonlocal_names_are_marked():
    fn = _fn("""
        def f():
            global g
            g = 1
    """)
    assert anno.getanno(fn.body[1], S.SCOPE).declared == {"g"}


def test_liveness_temp_in_branch_is_not_live_out():
    fn = _fn("""
        def f(x):
            if x > 0:
                tmp = x * 2
                y = tmp + 1
            else:
                y = 0
            return y
    """)
    node = fn.body[0]
    assert anno.getanno(node, S.LIVE_OUT) == {"y"}
    assert anno.getanno(node, S.LIVE_IN) == {"x"}
    assert anno.getanno(node.body[0], S.LIVE_IN) == {"x"}
    assert set(anno.getanno(node, S.BODY_SCOPE).modified) == {"tmp", "y"}


def test_liveness_read_modify_write_in_branch():
    fn = _fn("""
        def f(c, y):
            if c:
                y = y + 1
            return y
    """)
    assert anno.getanno(fn.body[0], S.LIVE_IN) == {"c", "y"}


def test_liveness_loops_reach_a_fixpoint():
    fn = _fn("""
        def f(n):
            s = 0
            i = 0
            while i < n:
                t = i * 2
                s = s + t
                i += 1
            for x in range(n):
                last = x
            return s
    """)
    loop, for_loop = fn.body[2], fn.body[3]
    assert anno.getanno(loop, S.LIVE_IN) == {"i", "n", "s", "range"}
    assert "t" not in anno.getanno(loop.body[0], S.LIVE_IN)
    assert anno.getanno(for_loop, S.LIVE_OUT) == {"s"}
    assert "last" not in anno.getanno(for_loop, S.LIVE_IN)


def test_liveness_walrus_the_while_test_binds_first_is_not_live_at_the_head():
    fn = _fn("""
        def f(xs, n):
            for x in xs:
                j = 0
                while not staged((c := j < n)) and c:
                    j += 1
                else:
                    if staged(c):
                        g(c)
            while j and (d := j):
                j = d - 1
            while (e := e + 1) < n:
                pass
    """)
    outer, second, third = fn.body
    assert "c" not in anno.getanno(outer, S.LIVE_IN)
    assert "c" not in anno.getanno(outer.body[1], S.LIVE_IN)
    assert "d" in anno.getanno(second, S.LIVE_IN)  # conservative: `and` may stop first
    assert "e" in anno.getanno(third, S.LIVE_IN)  # read by the walrus that binds it


def test_liveness_native_break_and_continue():
    fn = _fn("""
        def f(xs):
            r = 0
            for x in xs:
                if x:
                    break
                r = x
                continue
            return r
    """)
    loop = fn.body[1]
    assert anno.getanno(loop.body[0], S.LIVE_OUT) == {"x"}  # `r = x` comes first
    assert anno.getanno(loop.body[0].body[0], S.LIVE_IN) == {"r"}


def test_liveness_try_keeps_handler_reads_live_in_body():
    fn = _fn("""
        def f():
            a = 1
            try:
                a = 2
                b = g()
            except E:
                return a
            return b
    """)
    body = fn.body[1].body
    assert "a" in anno.getanno(body[1], S.LIVE_IN)


def test_definedness():
    fn = _fn("""
        def f(p):
            if p:
                a = 1
            b = 2
            while p:
                c = a
                d = 1
            return c
    """)
    assert anno.getanno(fn.body[0], S.DEFINED_IN) == {"p"}
    assert anno.getanno(fn.body[1], S.DEFINED_IN) == {"p", "a"}
    loop = fn.body[2]
    assert anno.getanno(loop, S.DEFINED_IN) == {"p", "a", "b"}
    assert anno.getanno(loop.body[0], S.DEFINED_IN) == {"p", "a", "b", "c", "d"}


def test_resolve_handles_lambdas_and_marks_analyzed():
    node = gast.parse("lambda x: x + 1").body[0].value
    analysis.resolve(node, None)
    assert anno.getanno(node, S.ANALYZED)
    assert anno.getanno(node, S.SCOPE).read == set()  # x is its parameter


def test_definedness_with_try_match_bodies_see_only_what_ran_before():
    fn = _fn("""
        def f(p, cm):
            with cm as v:
                a = 1
            try:
                b = 1
            except E as e:
                c = b
            else:
                d = b
            finally:
                g = 1
            match p:
                case [h]:
                    k = h
            return a
    """)
    with_, try_, match = fn.body[:3]
    assert anno.getanno(with_.body[0], S.DEFINED_IN) == {"p", "cm", "v"}
    assert anno.getanno(try_.handlers[0].body[0], S.DEFINED_IN) == {"p", "cm", "v", "a", "b", "e"}
    assert anno.getanno(try_.orelse[0], S.DEFINED_IN) == {"p", "cm", "v", "a", "b"}
    assert "k" not in anno.getanno(match.cases[0].body[0], S.DEFINED_IN)
    assert "h" in anno.getanno(match.cases[0].body[0], S.DEFINED_IN)


def test_surely_defined_is_what_every_path_assigned():
    from autograph.analysis.definedness import surely_defined
    fn = _fn("""
        def f(p, cm):
            if p:
                a = 1
                b = 1
            else:
                b = 2
            for i in p:
                c = 1
            with cm as v:
                d = 1
            try:
                e = 1
                h = 1
            except E:
                e = 2
            finally:
                g = 1
            del b
            return a
    """)
    if_, for_, with_, try_, del_, return_ = fn.body
    assert surely_defined(if_) == {"p", "cm"}
    assert surely_defined(if_.body[1]) == {"p", "cm", "a"}
    assert surely_defined(for_) == {"p", "cm", "b"}
    assert surely_defined(for_.body[0]) == {"p", "cm", "b", "i"}
    assert surely_defined(with_) == {"p", "cm", "b"}  # the loop may not run
    assert surely_defined(with_.body[0]) == {"p", "cm", "b", "v"}
    assert surely_defined(try_) == {"p", "cm", "b", "v"}  # the `with` may suppress
    assert surely_defined(try_.handlers[0].body[0]) == {"p", "cm", "b", "v"}
    assert surely_defined(del_) == {"p", "cm", "b", "v", "e", "g"}
    assert surely_defined(return_) == {"p", "cm", "v", "e", "g"}
