import collections

import autograph as ag
from autograph.converters import lists
from test_return_harness import check, dedent, to_source

LISTS = (lists,)
GLOBAL_LIST = []


class Log:
    """Not a list: its own append must run (and its return value is dropped)."""

    def __init__(self):
        self.items = []

    def append(self, x):
        print('custom append', x)
        self.items.append(x)
        return 'ignored'

    def pop(self, i=-1):
        print('custom pop', i)
        return self.items.pop(i)

    def __eq__(self, other):
        return type(other) is Log and other.items == self.items


def appends(n, log):
    lst = []
    d = collections.deque()
    for i in range(n):
        lst.append(i)
        d.append(i * 2)
        log.append(i)
    GLOBAL_LIST.append(n)
    y = lst.pop()
    lst.pop(0)
    z = log.pop(0)
    a, b = d.pop(), d.pop()
    return lst, list(d), log, y, z, a, b


def test_golden_local_receivers_are_rebound():
    assert to_source(appends, LISTS) == dedent('''
        def appends(n, log):
            lst = []
            d = collections.deque()
            for i in range(n):
                lst = ag__.list_append(lst, i)
                d = ag__.list_append(d, i * 2)
                log = ag__.list_append(log, i)
            GLOBAL_LIST.append(n)
            lst, y = ag__.list_pop(lst)
            lst = ag__.list_pop(lst, 0)[0]
            log, z = ag__.list_pop(log, 0)
            a, b = ([((d := popped[0]), popped[1])[1] for popped in (ag__.list_pop(d),)][0], [((d := popped_1[0]), popped_1[1])[1] for popped_1 in (ag__.list_pop(d),)][0])
            return (lst, list(d), log, y, z, a, b)
    ''')


def test_lists_deques_and_custom_classes_behave_as_before():
    GLOBAL_LIST.clear()
    check(appends, 4, Log(), passes=LISTS)
    assert GLOBAL_LIST == [4, 4]
    check(appends, 0, Log(), passes=LISTS)  # pop from empty list: IndexError


def identity(lst):
    alias = lst
    lst.append(1)
    return alias is lst, alias


def test_the_same_list_object_is_mutated():
    check(identity, [0], passes=LISTS)


def make_closure():
    outer = []

    def inner(x):
        outer.append(x)
        self_list = [outer]
        self_list[0].append(x)
        return outer
    return inner


def test_closure_and_non_name_receivers_are_left_alone():
    source = to_source(make_closure(), LISTS)
    assert "list_append" not in source
    check(make_closure(), 3, passes=LISTS)


def unbound(x):
    if x:
        lst = []
    lst.append(1)
    return lst


def test_unbound_receiver_raises_python_error():
    check(unbound, 1, passes=LISTS)
    check(unbound, 0, passes=LISTS)


def pop_targets(lst, d):
    d['k'] = lst.pop()
    first, *rest = lst.pop(0)
    return d, first, rest


def test_pop_into_subscript_and_unpacking_targets():
    check(pop_targets, [(1, 2, 3), 'v'], {}, passes=LISTS)


def test_end_to_end_append_in_loop():
    def build(n):
        out = []
        for i in range(n):
            if i % 2:
                out.append(i)
        return out
    assert ag.to_graph(build)(6) == [1, 3, 5]


def item_assignments(n, d):
    lst = []
    for i in range(n):
        lst.append(i)
    lst[0] = -1
    d["k"] = n  # never appended to: keeps its item assignment (a part of loop state)
    lst[n - 1] = d["k"]
    return lst, d


def test_golden_item_assignment_rebinds_only_lists_the_function_appends_to():
    assert to_source(item_assignments, LISTS) == dedent('''
        def item_assignments(n, d):
            lst = []
            for i in range(n):
                lst = ag__.list_append(lst, i)
            lst = ag__.list_setitem(-1, lst, 0)
            d['k'] = n
            lst = ag__.list_setitem(d['k'], lst, n - 1)
            return (lst, d)
    ''')


def test_item_assignment_behaves_as_before():
    check(item_assignments, 3, {}, passes=LISTS)
    check(item_assignments, 0, {}, passes=LISTS)  # IndexError: list assignment out of range


def held_lists(n, given):
    hist = {"loss": [], 0: []}
    again = dict(steps=[])
    for i in range(n):
        hist["loss"].append(i)
        hist[0].append(-i)
        again["steps"].append(i)
        given["loss"].append(i)  # (a parameter: maybe a user's mapping)
    return hist, again, given


def test_golden_lists_at_constant_keys_of_local_dicts_are_rebound():
    assert to_source(held_lists, LISTS) == dedent('''
        def held_lists(n, given):
            hist = {'loss': [], 0: []}
            again = dict(steps=[])
            for i in range(n):
                hist['loss'] = ag__.list_append(hist['loss'], i)
                hist[0] = ag__.list_append(hist[0], -i)
                again['steps'] = ag__.list_append(again['steps'], i)
                given['loss'].append(i)
            return (hist, again, given)
    ''')
    check(held_lists, 3, {"loss": [7]}, passes=LISTS)
