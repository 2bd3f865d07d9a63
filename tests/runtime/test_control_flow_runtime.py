"""if_stmt / while_stmt / for_stmt: exact Python meaning, staged dispatch, checks."""

import re

import pytest

from autograph import errors
from autograph.runtime import control_flow as cf
from autograph.runtime.special_values import Undefined, UndefinedReturnValue, ld

from cf_fake_backend import BACKEND, Sym, SymRange, value


@pytest.fixture(autouse=True)
def _fresh_calls():
    BACKEND.calls.clear()


# --- Python values: exactly the statement ------------------------------------

@pytest.mark.parametrize("cond", [True, False, 0, 1, [], [0], "", "x", None])
def test_if_stmt_python_truthiness(cond):
    out = cf.if_stmt(cond, lambda a: (a + 1,), lambda a: (a - 1,), (10,), ("a",))
    assert out == ((11,) if cond else (9,))
    assert BACKEND.calls == []


def test_if_stmt_calls_only_the_chosen_branch():
    seen = []
    cf.if_stmt(True, lambda: seen.append("t") or (), lambda: seen.append("f") or (), (), ())
    assert seen == ["t"]


def test_while_stmt_python():
    state = cf.while_stmt(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), (0, 0), ("i", "s"))
    assert state == (5, 10)


def test_for_stmt_python_iterables():
    body = lambda item, acc: (acc + [item],)  # noqa: E731
    assert cf.for_stmt("abc", body, ([],), ("acc",)) == (["a", "b", "c"],)
    assert cf.for_stmt({"k": 1, "j": 2}, body, ([],), ("acc",)) == (["k", "j"],)
    assert cf.for_stmt((x * x for x in range(3)), body, ([],), ("acc",)) == ([0, 1, 4],)


def test_for_stmt_extra_test_stops_before_fetching_next_item():
    fetched = []

    def items():
        for i in range(10):
            fetched.append(i)
            yield i

    state = cf.for_stmt(items(), lambda i, stop, s: (i >= 2, s + i), (False, 0), ("stop", "s"),
                        extra_test=lambda stop, s: not stop)
    assert state == (True, 3)
    assert fetched == [0, 1, 2]


def test_for_stmt_extra_test_false_at_start_fetches_nothing():
    it = iter([1, 2])
    cf.for_stmt(it, lambda i, s: (s + i,), (0,), ("s",), extra_test=lambda s: False)
    assert next(it) == 1


def test_body_exceptions_propagate_unchanged():
    def body(i, s):
        raise KeyError("boom")
    with pytest.raises(KeyError, match="boom"):
        cf.for_stmt([1], body, (0,), ("s",))


# --- staged dispatch ------------------------------------------------------------

def test_if_stmt_staged_goes_to_backend_cond():
    out = cf.if_stmt(Sym(True), lambda a: (a + 1,), lambda a: (a - 1,), (Sym(10),), ("a",))
    assert value(out) == (11,)
    assert BACKEND.calls == [("cond", ("a",))]


def test_while_stmt_staged_test():
    state = cf.while_stmt(lambda i: i < Sym(3), lambda i: (i + 1,), (0,), ("i",), {"x": 1})
    assert value(state) == (3,)
    assert BACKEND.calls == [("while", ("i",), {"x": 1})]


def test_while_stmt_test_becoming_staged_hands_over_to_backend():
    state = cf.while_stmt(lambda i: i < 4, lambda i: (Sym(i + 1),), (0,), ("i",))
    assert value(state) == (4,)
    assert [c[0] for c in BACKEND.calls] == ["while"]


def test_for_stmt_staged_iterable_and_range():
    body = lambda item, s: (s + item,)  # noqa: E731
    assert value(cf.for_stmt(Sym([1, 2, 3]), body, (0,), ("s",))) == (6,)
    assert value(cf.for_stmt(SymRange(Sym(0), Sym(4)), body, (0,), ("s",))) == (6,)
    assert [c[0] for c in BACKEND.calls] == ["for_each", "for_range"]


def test_for_stmt_staged_extra_test_guards_the_body():
    body = lambda i, stop, s: (i >= Sym(2), s + i)  # noqa: E731
    state = cf.for_stmt(Sym([0, 1, 2, 3, 4]), body, (Sym(False), 0), ("stop", "s"),
                        extra_test=lambda stop, s: ~stop)
    assert value(state) == (True, 3)


def test_for_stmt_python_iterable_staged_flag_keeps_unrolling_guarded():
    body = lambda i, stop, s: (Sym(i >= 1), s + i)  # noqa: E731
    state = cf.for_stmt([0, 1, 2, 3], body, (False, 0), ("stop", "s"),
                        extra_test=lambda stop, s: ~stop if type(stop) is Sym else not stop)
    assert value(state) == (True, 1)
    assert [c[0] for c in BACKEND.calls] == ["cond", "cond", "cond"]


# --- checks before staging ---------------------------------------------------------

def test_undefined_in_one_branch_names_variable_and_line():
    with pytest.raises(errors.StagingError) as info:
        cf.if_stmt(Sym(True), lambda: (1,), lambda: (Undefined("y"),), (), ("y",))
    message = str(info.value)
    assert re.search(r"variable 'y' is undefined in a branch of the staged `if` at "
                     r".*test_control_flow_runtime\.py:\d+ \(true branch: 1; false branch: "
                     r"undefined\)\. Assign y before the if, or in both branches\.", message)


def test_branch_structure_mismatch():
    with pytest.raises(errors.StagingError, match=re.escape(
            "(true branch: tuple of length 1; false branch: tuple of length 2)")):
        cf.if_stmt(Sym(False), lambda: ((1,),), lambda: ((1, 2),), (), ("xs",))
    with pytest.raises(errors.StagingError, match=re.escape(
            "(true branch: length 1; false branch: length 2)")):
        cf.if_stmt(Sym(False), lambda: ([1],), lambda: ([1, 2],), (), ("xs",))


def test_loop_state_undefined_before_staged_loop():
    with pytest.raises(errors.StagingError, match=re.escape(
            "variable 'z' is carried by the staged `while` loop")):
        cf.while_stmt(lambda z: Sym(True), lambda z: (1,), (Undefined("z"),), ("z",))


def test_loop_state_changing_structure():
    with pytest.raises(errors.StagingError, match=re.escape(
            "(before the loop: tuple of length 1; after one iteration: tuple of length 2)")):
        cf.for_stmt(Sym([1]), lambda i, t: ((1, 2),), ((1,),), ("t",))


def test_python_only_raises_for_staged_values():
    assert cf.python_only(3, "an `if` statement containing `yield`") == 3
    with pytest.raises(errors.NotStageableError, match=re.escape(
            "an `if` statement containing `yield` at ")):
        cf.python_only(Sym(1), "an `if` statement containing `yield`")


# --- special values -------------------------------------------------------------------

UNBOUND = "cannot access local variable 'y' where it is not associated with a value"


@pytest.mark.parametrize("use", [
    lambda u: u + 1, lambda u: 1 + u, lambda u: u.attr, lambda u: u(), lambda u: bool(u),
    lambda u: u[0], lambda u: len(u), lambda u: iter(u), lambda u: u == 1, lambda u: -u,
    lambda u: ld(u),
])
def test_undefined_any_use_raises_python_unbound_error(use):
    with pytest.raises(UnboundLocalError, match=f"^{re.escape(UNBOUND)}$"):
        use(Undefined("y"))


def test_undefined_repr_and_ld_passthrough():
    assert repr(Undefined("y")) == "Undefined('y')"
    assert repr(UndefinedReturnValue()) == "UndefinedReturnValue()"
    marker = object()
    assert ld(marker) is marker


def test_python_unbound_message_matches():
    def f():
        y = y + 1  # noqa: F821, F841
    with pytest.raises(UnboundLocalError) as info:
        f()
    assert str(info.value) == UNBOUND
