import pytest

import autograph.runtime as rt
from fake_backend import BACKEND, Sym


def test_list_append_and_pop_on_python_lists():
    lst = [1]
    assert rt.list_append(lst, 2) is lst and lst == [1, 2]
    assert rt.list_pop(lst) == (lst, 2) and lst == [1]
    assert rt.list_pop([5, 6, 7], 0)[1] == 5
    with pytest.raises(IndexError, match="pop from empty list"):
        rt.list_pop([])


def test_non_lists_use_their_own_methods():
    class Log:
        def __init__(self):
            self.seen = []

        def append(self, x):
            self.seen.append(x)
            return 'dropped'

    log = Log()
    assert rt.list_append(log, 3) is log and log.seen == [3]
    assert rt.list_pop({'k': 1}, 'k')[1] == 1
    with pytest.raises(AttributeError, match="'int' object has no attribute 'append'"):
        rt.list_append(5, 1)


def test_stack_and_set_element_type():
    lst = [1, 2]
    assert rt.stack(lst) is lst
    assert rt.set_element_type(lst, int) is lst
    BACKEND.log.clear()
    stacked = rt.stack([Sym(1), Sym(2)])
    assert stacked.value == [1, 2] and BACKEND.log == [('stack',)]
