from autograph.runtime import assert_stmt
from fake_backend import BACKEND, Sym


def test_python_test_is_returned_for_the_native_assert():
    marker = []
    assert assert_stmt(marker, lambda: 'never') is marker
    assert assert_stmt(0, None) == 0


def test_staged_test_becomes_a_backend_assert():
    BACKEND.log.clear()
    assert assert_stmt(Sym(False), lambda: 'msg') is True
    assert_stmt(Sym(True), None)
    assert BACKEND.log == [('assert', False, 'msg'), ('assert', True, None)]
