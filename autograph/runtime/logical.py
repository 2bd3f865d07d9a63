"""Logical operators: `and_`, `or_`, `not_`, `if_exp`, `compare_chain`.

For a Python left operand (or condition) each one is exactly the Python
expression it replaces: the right operand is a function, called only when
Python would evaluate it.  A staged left operand stages a `cond` through
`if_stmt` (which checks both sides agree), so the right operand is staged
too and only takes effect when the graph's value says so.
"""

import operator

from autograph.runtime.control_flow import if_stmt
from autograph.runtime.registry import backend_of
from autograph.runtime.tracebacks import without_thunks


def and_(a, b_fn, expr_text=None, truth_only=False):
    """Python meaning: `a and b_fn()`.  `expr_text`: the user's expression,
    for messages.  `truth_only`: the value is only tested for truth (the test
    of an `if` or `while`), so a staged `and` gives the truth of the operand
    Python returns: `if epoch and epoch % k == 0:` is int 0 or a bool, and
    that mix needs no refusal there."""
    if backend_of(a) is None:
        try:
            return a and b_fn()
        except BaseException as e:
            raise without_thunks(e)
    name = f"the value of `{expr_text}`" if expr_text else "<value of `and`>"
    if truth_only:
        return if_stmt(a, lambda: (_truth(b_fn()),), lambda: (False,), (), (name,))[0]
    return if_stmt(a, lambda: (b_fn(),), lambda: (a,), (), (name,))[0]


def or_(a, b_fn, expr_text=None, truth_only=False):
    """Python meaning: `a or b_fn()`.  `expr_text`, `truth_only`: as for `and_`."""
    if backend_of(a) is None:
        try:
            return a or b_fn()
        except BaseException as e:
            raise without_thunks(e)
    name = f"the value of `{expr_text}`" if expr_text else "<value of `or`>"
    if truth_only:
        return if_stmt(a, lambda: (True,), lambda: (_truth(b_fn()),), (), (name,))[0]
    return if_stmt(a, lambda: (a,), lambda: (b_fn(),), (), (name,))[0]


def _truth(value):
    """Python meaning: `bool(value)`, staged as `not not value` (a staged
    value's Python bool; a Python value's own)."""
    return not_(not_(value))


def not_(a):
    """Python meaning: `not a`."""
    backend = backend_of(a)
    if backend is None:
        return not a
    return backend.logical_not(a)


def if_exp(cond, if_true, if_false, expr_text):
    """Python meaning: `if_true() if cond else if_false()`.

    `expr_text` is the condition's source text, for messages.
    """
    if backend_of(cond) is None:
        try:
            return if_true() if cond else if_false()
        except BaseException as e:
            raise without_thunks(e)
    return if_stmt(cond, lambda: (if_true(),), lambda: (if_false(),), (),
                   (f"the value of `... if {expr_text} else ...`",))[0]


def contains(a, b):
    """Python meaning: `a in b`.  For a staged array `b`, numpy's meaning of
    `in`, `(b == a).any()`, staged (Python would ask for its bool at once) as
    the Python bool `in` gives (`~(t in x)` is -2, not numpy's False): the
    backend's `not` of "every item differs", the same truth value (NaN and an
    empty `b` included) through the one operator that gives Python's bool."""
    if backend_of(b) is None:
        return a in b
    return not_((b != a).all())


def not_contains(a, b):
    """Python meaning: `a not in b` (staged as `contains` is)."""
    if backend_of(b) is None:
        return a not in b
    return not_(contains(a, b))


_COMPARISONS = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
    "in": contains, "not in": not_contains,
}


def compare_chain(left, *ops_and_operands):
    """Python meaning of `compare_chain(a, '<', lambda: b, '<=', lambda: c)`:
    `a < b <= c` -- each operand evaluated once, left to right, stopping at
    the first false comparison (whose value is the result).

    A staged comparison result continues the chain with `and_`, so the rest
    is staged under it.
    """
    compare = _COMPARISONS[ops_and_operands[0]]
    try:
        right = ops_and_operands[1]()
    except BaseException as e:
        raise without_thunks(e)
    result = compare(left, right)
    if len(ops_and_operands) == 2:
        return result
    return and_(result, lambda: compare_chain(right, *ops_and_operands[2:]))
