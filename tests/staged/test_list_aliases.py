"""A staged list is a value (issue 8): a change to it rebinds the one name it
is written with.  Where Python's one list object would change under another
holder too -- a second name, a container item, an attribute, the caller's
variable -- staged mode refuses the change at trace time, naming both
holders, the line and the fix (autograph/runtime/aliases.py).  Ordinary code,
where no other holder is read afterwards, runs as Python does."""

import numpy as np
import pytest

import autograph as ag

N = np.int64(3)


def _refused(fn, changed, other, *args):
    with pytest.raises(ag.AutoGraphError, match=(
            rf"`{changed}` and `{other}` \(in \w+ at .*test_list_aliases\.py:\d+\) hold "
            r"the same list, and .* at .*test_list_aliases\.py:\d+\. A staged list is a "
            r"value.*Use one name for the list")):
        ag.function(fn)(*(args or (N,)))


# -- a Python list that a staged loop makes a staged list ------------------------------

def alias_by_assignment(n):
    items = []
    alias = items
    for i in range(n):
        items.append(i * 1.0)
    return len(alias)


def stored_in_a_dict(n):
    items = []
    d = {"k": items}
    for i in range(n):
        items.append(i * 1.0)
    return len(d["k"])


def stored_in_a_tuple(n):
    items = []
    t = (1, items)
    for i in range(n):
        items.append(i * 1.0)
    return len(t[1])


class Buffer:
    def __init__(self):
        self.items = []


def held_by_an_attribute(n):
    b = Buffer()
    items = b.items
    for i in range(n):
        items.append(i * 1.0)
    return len(b.items)


def append_in_a_loop(items, n):
    for i in range(n):
        items.append(i * 1.0)


def kept_by_the_caller_of_a_helper(n):
    items = []
    append_in_a_loop(items, n)
    return len(items)


def two_loop_variables_for_one_list(n):
    a = []
    b = a
    for i in range(n):
        a.append(i * 1.0)
        b.append(i * 2.0)
    return len(a)


@pytest.mark.parametrize("fn, changed, other", [
    (alias_by_assignment, "items", "alias"),
    (stored_in_a_dict, "items", r"d\['k'\]"),
    (stored_in_a_tuple, "items", r"t\[1\]"),
    (held_by_an_attribute, "items", r"b\.items"),
    (kept_by_the_caller_of_a_helper, "items", "items"),
])
def test_another_holder_of_a_list_a_staged_loop_appends_to_is_refused(fn, changed, other):
    assert fn(3) == 3  # what Python gives, and staged mode could not
    _refused(fn, changed, other)


def test_one_list_as_two_loop_variables_is_refused():
    assert two_loop_variables_for_one_list(3) == 6
    with pytest.raises(ag.AutoGraphError, match=r"`b` and `a` \(loop state at .*\) hold "
                                                r"the same list"):
        ag.function(two_loop_variables_for_one_list)(N)


# -- changes to a list that is already staged -------------------------------------------

def alias_then_item_assignment(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    alias = items
    items[0] = 5.0
    return alias[0]


def alias_then_append(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    kept = {"all": items}
    items.append(9.0)
    return len(kept["all"])


def alias_then_pop_in_an_expression(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    alias = items
    total = items.pop() + 1.0
    return total + len(alias)


def append_one(items):
    items.append(7.0)


def staged_list_changed_by_a_helper(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    append_one(items)
    return len(items)


@pytest.mark.parametrize("fn, changed, other", [
    (alias_then_item_assignment, "items", "alias"),
    (alias_then_append, "items", r"kept\['all'\]"),
    (alias_then_pop_in_an_expression, "items", "alias"),
    (staged_list_changed_by_a_helper, "items", "items"),
])
def test_another_holder_of_a_staged_list_that_changes_is_refused(fn, changed, other):
    fn(3)
    _refused(fn, changed, other)


# -- ordinary code is not refused ----------------------------------------------------

def alias_after_the_last_change(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    alias = items
    return ag.stack(alias), len(alias)


def appended_and_returned(items, n):
    for i in range(n):
        items.append(i * 2.0)
    return items


def helper_result_rebinds_the_callers_name(n):
    items = []
    items = appended_and_returned(items, n)
    items.append(1.0)
    return len(items), np.sum(ag.stack(items))


def fresh_list_per_outer_iteration(n):
    total = 0.0
    for i in range(n):
        row = []
        for j in range(n):
            row.append(i * 1.0 + j)
        total += np.sum(ag.stack(row)) if len(row) > 0 else 0.0
    return total


def appended_in_both_branches(n, x):
    items = []
    if x > 0:
        for i in range(n):
            items.append(i * 1.0)
    else:
        for i in range(n):
            items.append(i * -1.0)
    return np.sum(ag.stack(items)), len(items)


def pops_without_an_alias(n):
    items = _helper_list(n)
    total = 0.0
    while len(items) > 0:
        total += items.pop()
    items.append(2.0)
    items[0] = 3.0
    return total, len(items)


def _helper_list(n):
    items = []
    for i in range(n):
        items.append(i * 1.0)
    return items


def python_list_aliases_stay_python(x):
    items = [x]
    alias = items
    items.append(x * 2)
    alias.append(x * 3)
    items[0] = x * 4
    return len(alias), alias[0], items[2]


@pytest.mark.parametrize("n", [0, 1, 3])
def test_ordinary_list_code_is_not_refused(n):
    n = np.int64(n)
    for fn, args in ((alias_after_the_last_change, (n,)) if n else (None, None),
                     (helper_result_rebinds_the_callers_name, (n,)),
                     (fresh_list_per_outer_iteration, (n,)),
                     (appended_in_both_branches, (n, np.float64(1.0))),
                     (appended_in_both_branches, (n, np.float64(-1.0))),
                     (pops_without_an_alias, (n,)) if n else (None, None),
                     (python_list_aliases_stay_python, (np.float64(2.0),))):
        if fn is None:
            continue
        expected = fn(*args)
        staged = ag.function(fn)(*args)
        if not isinstance(expected, tuple):
            expected, staged = (expected,), (staged,)
        for e, s in zip(expected, staged, strict=True):
            np.testing.assert_array_equal(s, e)


# -- an append in one branch of a staged `if` ----------------------------------------
# The branches leave the list with different lengths (or a staged list on one
# side): the graph backend makes it a staged list on both sides, recorded in
# each branch's sub-graph, when its items share one dtype and rank.

def append_in_one_branch(x):
    items = []
    if x > 0:
        items.append(x)
    return len(items), np.sum(ag.stack(items)) if len(items) > 0 else 0.0


def pop_in_one_branch(x):
    items = [x, x * 2.0]
    if x > 0:
        items.pop()
    else:
        items.append(x * 3.0)
    return len(items), items[0], items[-1]


def append_in_one_branch_of_a_staged_list(x):
    items = []
    ag.set_element_type(items, np.float64, ())
    if x > 0:
        items.append(x)
    items.append(x * 2)
    return len(items), np.sum(ag.stack(items))


def staged_loop_in_one_branch(x, n):
    items = []
    if x > 0:
        for i in range(n):
            items.append(x * i)
    items.append(x)
    return len(items), np.sum(ag.stack(items))


def append_in_one_branch_inside_a_staged_loop(xs):
    items = []
    for x in xs:
        if x > 0:
            items.append(x)
    return len(items), np.sum(ag.stack(items)) if len(items) > 0 else 0.0


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_a_list_whose_length_a_staged_if_decides_is_staged(x):
    for fn, args in ((append_in_one_branch, (np.float64(x),)),
                     (pop_in_one_branch, (np.float64(x),)),
                     (append_in_one_branch_of_a_staged_list, (np.float64(x),)),
                     (staged_loop_in_one_branch, (np.float64(x), np.int64(3))),
                     (append_in_one_branch_inside_a_staged_loop, (np.array([x, -2.0, 3.0]),))):
        expected, staged = fn(*args), ag.function(fn)(*args)
        for e, s in zip(expected, staged, strict=True):
            np.testing.assert_array_equal(s, e)


def mixed_items_in_one_branch(x):
    items = [1]
    if x > 0:
        items.append(x)
    return len(items)


def test_a_list_of_mixed_items_whose_length_a_staged_if_decides_is_refused():
    with pytest.raises(ag.AutoGraphError, match=(
            r"variable 'items' is a Python list that the staged `if` at "
            r".*test_list_aliases\.py:\d+ leaves with a length only known at run time "
            r"\(true branch: length 2; false branch: length 1\).*"
            r"ag\.set_element_type\(items, dtype, shape\)")):
        ag.function(mixed_items_in_one_branch)(np.float64(1.0))


def alias_before_set_element_type(n):
    items = []
    alias = items
    ag.set_element_type(items, np.float64, ())
    for i in range(n):
        items.append(i * 1.0)
    return len(alias)


def test_an_alias_of_a_list_that_set_element_type_stages_is_refused():
    assert alias_before_set_element_type(3) == 3
    _refused(alias_before_set_element_type, "items", "alias")


# -- a Python list a staged `if` changes in place --------------------------------------
# The backend traces each branch on a copy of the state: the list object the
# variable held before gets the `if`'s items written back when both branches
# give it back as a Python list, so an alias sees what Python shows.

def changed_in_both_branches_with_an_alias(x):
    items = []
    alias = items
    if x > 0:
        items.append(x)
    else:
        items.append(-x)
    items.append(x * 3.0)
    return len(alias), alias[0], alias[1]


def changed_in_place_and_returned(x):
    items = [x]
    if x > 0:
        items[0] = x * 2.0
    return items[0], len(items)


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_a_list_a_staged_if_changes_in_place_is_written_back(x):
    for fn in (changed_in_both_branches_with_an_alias, changed_in_place_and_returned):
        expected, staged = fn(x), ag.function(fn)(np.float64(x))
        for e, s in zip(expected, staged, strict=True):
            np.testing.assert_array_equal(s, e)


def alias_read_after_a_staged_if_that_changes_the_list(x):
    items = []
    alias = items
    if x > 0:
        items.append(x)
    else:
        items.append(-x)
    return len(alias)  # `items` itself is not read after the `if`


def alias_of_a_list_a_staged_if_makes_staged(x):
    items = []
    alias = items
    if x > 0:
        items.append(x)
    return len(alias), len(items)


@pytest.mark.parametrize("fn", [alias_read_after_a_staged_if_that_changes_the_list,
                                alias_of_a_list_a_staged_if_makes_staged])
def test_an_alias_a_staged_if_cannot_keep_right_is_refused(fn):
    fn(1.0)
    _refused(fn, "items", "alias", np.float64(1.0))


def helper_result_rebinds_an_attribute_and_an_item(n):
    b = Buffer()
    b.items = appended_and_returned(b.items, n)
    d = {"k": []}
    d["k"] = appended_and_returned(d["k"], n)
    return len(b.items), len(d["k"])


def helper_result_returned(n):
    items = []
    return appended_and_returned(items, n)


def test_a_helper_result_that_rebinds_the_holder_is_not_refused():
    expected = helper_result_rebinds_an_attribute_and_an_item(3)
    staged = ag.function(helper_result_rebinds_an_attribute_and_an_item)(N)
    assert tuple(int(s) for s in staged) == expected == (3, 3)
    np.testing.assert_array_equal(ag.function(helper_result_returned)(N),
                                  helper_result_returned(3))


def helper_changes_an_attribute_list(n):
    b = Buffer()
    append_in_a_loop(b.items, n)
    return len(b.items)


def test_a_helper_changing_an_attribute_list_is_refused():
    assert helper_changes_an_attribute_list(3) == 3
    _refused(helper_changes_an_attribute_list, "items", r"b\.items")
