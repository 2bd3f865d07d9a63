"""A staged `while` evaluates its test once to find that it is staged, then
the backend traces it again as the loop's test: a print, assert or random
draw staged by that test would run one time too many -- a random draw
changed the numbers drawn (a wrong value).  Refused, with the fix; the fix
draws what eager numpy draws."""

import numpy as np
import pytest

import autograph as ag
from autograph import errors

RNG = np.random.default_rng(0)


def draws_in_the_test(p):
    n = p * 0
    while RNG.random() < p:
        n = n + 1
    return n


def draws_in_the_body(p):  # the fix the message gives
    n = p * 0
    while True:
        if not RNG.random() < p:
            break
        n = n + 1
    return n


def prints_in_the_test(x):
    while np.sum(x) < 10.0 and print_and_pass(x):
        x = x * 2.0
    return x


def print_and_pass(x):
    print("x is", x)
    return True


def pure_test(x):
    while np.sum(x) < 10.0:
        x = x * 2.0
    return x


@pytest.mark.parametrize("fn", [draws_in_the_test, prints_in_the_test])
def test_a_test_that_stages_an_effect_is_refused(fn):
    with pytest.raises(errors.NotStageableError) as info:
        ag.function(fn)(np.float64(0.7))
    text = str(info.value)
    assert "test of the staged `while` loop at" in text and "test_while_test_effects.py:" in text
    assert "`while True:`" in text


def test_the_fix_draws_what_numpy_draws():
    global RNG
    RNG = np.random.default_rng(0)
    expected = [draws_in_the_body(np.float64(0.7)) for _ in range(5)]
    RNG = np.random.default_rng(0)
    staged = ag.function(draws_in_the_body)
    assert [staged(np.float64(0.7)) for _ in range(5)] == expected
    RNG = np.random.default_rng(0)
    assert [draws_in_the_test(np.float64(0.7)) for _ in range(5)] == expected  # (same program)


def test_a_test_without_effects_stages(capsys):
    assert ag.function(pure_test)(np.float64(1.5)) == pure_test(np.float64(1.5))


def test_a_test_reading_a_variable_stages_and_one_writing_it_is_refused():
    counter = ag.Variable(np.int64(0))

    @ag.function
    def count_to(n):
        while counter < n:  # a read: evaluating it twice changes nothing
            counter.assign(counter + 1)
        return counter + 0

    assert count_to(np.int64(3)) == 3

    def bumps(n):
        counter.assign(counter + 1)
        return counter < n

    @ag.function
    def count_in_the_test(n):
        while bumps(n):
            pass
        return counter + 0

    with pytest.raises(errors.NotStageableError, match="variable update"):
        count_in_the_test(np.int64(9))
