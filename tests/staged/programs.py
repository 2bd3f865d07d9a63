"""Staged programs: plain Python functions whose control flow depends on
their (numpy) arguments, so `ag.function` must stage it.

Each is registered with argument sets that share one signature (same dtypes
and shapes, different values): traced once, the graph must give what the
Python function gives on every set.  `tick(name)` inside a loop body counts
how often the body runs as Python: every iteration in plain Python, a bounded
number of times (tracing only) under ag.function.
"""

import collections
import dataclasses

import numpy as np

import autograph as ag

TICKS = collections.Counter()


def tick(name):
    TICKS[name] += 1


@dataclasses.dataclass(frozen=True)
class Program:
    fn: object
    argument_sets: tuple     # tuples of numpy values, one signature
    loops: bool = True       # must the graph hold a while_loop?
    python_args: bool = True  # also run on Python scalars (int(a), ...)

    @property
    def name(self):
        return self.fn.__name__


PROGRAMS = []


def program(*argument_sets, loops=True, python_args=True):
    def register(fn):
        PROGRAMS.append(Program(fn, argument_sets, loops, python_args))
        return fn
    return register


def i64(*values):
    return tuple(np.int64(v) for v in values)


# --- classics -------------------------------------------------------------------

@program(i64(27), i64(6), i64(1))
def collatz(n):
    count = 0
    while n != 1:
        tick("collatz")
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        count += 1
    return count


@program((np.arange(10),), (np.array([1, 3, 5, 7, 9, 2, 4, 6, 8, 10]),), python_args=False)
def sum_even(items):
    s = 0
    for c in items:
        tick("sum_even")
        if c % 2 > 0:
            continue
        s += c
    return s


@program(i64(15), i64(31), i64(1))
def fizzbuzz_count(n):
    fizz = buzz = fizzbuzz = 0
    for i in range(1, n + 1):
        tick("fizzbuzz_count")
        if i % 15 == 0:
            fizzbuzz += 1
        elif i % 3 == 0:
            fizz += 1
        elif i % 5 == 0:
            buzz += 1
    return fizz, buzz, fizzbuzz


@program(i64(10), i64(3), i64(0))
def print_in_loop(n):
    i = 0
    while i < n:
        tick("print_in_loop")
        print("i =", i)
        i += 1
    return i


@program(i64(48, 18), i64(17, 5), i64(100, 75))
def gcd(a, b):
    while b != 0:
        tick("gcd")
        a, b = b, a % b
    return a


@program(i64(97), i64(91), i64(2), i64(1))
def is_prime(n):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        tick("is_prime")
        if n % d == 0:
            return False
        d += 1
    return True


@program(i64(10), i64(1), i64(25))
def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        tick("fibonacci")
        a, b = b, a + b
    return a


@program((np.float64(2.0),), (np.float64(10.0),), (np.float64(0.25),))
def newton_sqrt(x):
    guess = x
    steps = 0
    while np.abs(guess * guess - x) > 1e-12:
        tick("newton_sqrt")
        guess = (guess + x / guess) / 2
        steps += 1
    return guess, steps


@program(i64(12345), i64(7), i64(1000000))
def count_digits(n):
    digits = 1
    while n >= 10:
        tick("count_digits")
        n //= 10
        digits += 1
    return digits


# --- break, continue, return ----------------------------------------------------------

@program((np.array([3, 8, 1, 9, 4]), np.int64(5)), (np.array([1, 2, 3, 4, 5]), np.int64(9)),
         (np.array([10, 1, 1, 1, 1]), np.int64(0)), python_args=False)
def first_index_above(xs, limit):
    for i, x in enumerate(xs):
        tick("first_index_above")
        if x > limit:
            return i
    return -1


@program(i64(5, 6), i64(4, 100), i64(7, 0))
def nested_break(n, k):
    count = 0
    for i in range(n):
        for j in range(n):
            tick("nested_break")
            if i * j > k:
                break
            count += 1
    return count


@program(i64(10, 3), i64(10, 30), i64(0, 1))
def while_else(n, stop):
    i = 0
    found = -1
    while i < n:
        tick("while_else")
        if i == stop:
            found = i
            break
        i += 1
    else:
        found = 100
    return found, i


@program((np.array([1, 3, 5]),), (np.array([1, 4, 5]),), python_args=False)
def for_else(xs):
    result = 0
    for x in xs:
        tick("for_else")
        if x % 2 == 0:
            result = x
            break
    else:
        result = -1
    return result


@program(i64(10), i64(0), i64(7))
def continue_in_while(n):
    i = 0
    odd_total = 0
    while i < n:
        tick("continue_in_while")
        i += 1
        if i % 2 == 0:
            continue
        odd_total += i
    return odd_total


@program(i64(20), i64(3), i64(0))
def early_return_nested(n):
    total = 0
    i = 0
    while i < n:
        tick("early_return_nested")
        j = 0
        while j < i:
            total += j
            if total > 40:
                return total * 100 + i
            j += 1
        i += 1
    return total


@program((np.array([[1, 2], [3, 4], [5, 6]]), np.int64(7)),
         (np.array([[9, 0], [1, 1], [2, 2]]), np.int64(1)), loops=False, python_args=False)
def find_row(matrix, target):
    for r in range(matrix.shape[0]):
        for c in range(matrix.shape[1]):
            if matrix[r, c] == target:
                return r, c
    return -1, -1


@program(i64(3), i64(-2), i64(0), loops=False)
def if_elif_else(x):
    if x > 0:
        y = x * 10
    elif x < 0:
        y = -x
    else:
        y = 42
    return y


@program(i64(3), i64(-3), loops=False)
def conditional_expression(x):
    sign = 1 if x > 0 else -1
    return sign * (x * x if x > 1 else x)


@program((np.float64(2.0),), (np.float64(0.0),), (np.float64(-1.0),), loops=False)
def lazy_and_or(x):
    safe = x != 0 and 1 / x > 0.25
    either = x < 0 or noisy_positive(x)
    return safe, either, not safe


def noisy_positive(x):
    print("evaluating the right operand of", x)
    return x > 0


@program(i64(5), i64(0), i64(2), loops=False)
def return_in_branches(x):
    if x > 3:
        return x * 2
    elif x > 1:
        return x + 100
    return -x


# --- lists, print, assert --------------------------------------------------------------

@program(i64(4), i64(1), i64(6))
def list_and_stack(n):
    squares = []
    for i in range(n):
        tick("list_and_stack")
        squares.append(i * i)
    return ag.stack(squares)


@program((np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),),
         (np.array([[0.5, 0.5], [1.0, -1.0], [2.0, 2.0]]),), python_args=False)
def rows_scaled(matrix):
    rows = []
    ag.set_element_type(rows, np.float64, (2,))
    for row in matrix:
        tick("rows_scaled")
        rows.append(row * row.sum())
    return ag.stack(rows)


@program(i64(5), i64(2))
def assert_in_loop(n):
    total = 0
    for i in range(n):
        tick("assert_in_loop")
        assert i >= 0, "i must be non-negative"
        total += i
    return total


@program(i64(3), i64(5))
def print_python_and_staged(n):
    print("tracing")
    for i in range(n):
        tick("print_python_and_staged")
        print(i)
    return n


# --- tensors as iterables, shapes, loop options ----------------------------------------------

@program((np.array([[1, 2, 3], [4, 5, 6]]),), (np.array([[0, 0, 1], [7, 7, 7]]),),
         python_args=False)
def row_sums(matrix):
    total = np.zeros(3, dtype=matrix.dtype)
    for row in matrix:
        tick("row_sums")
        total = total + row
    return total


@program((np.array([4, 9, 2, 7]),), (np.array([1, 1, 8, 8]),), python_args=False)
def argmax_loop(xs):
    best, best_i = xs[0], 0
    for i, x in enumerate(xs):
        tick("argmax_loop")
        if x > best:
            best, best_i = x, i
    return best_i, best


@program((np.array([1, 2, 3]), np.array([4, 5, 6])), (np.array([0, 0, 0]), np.array([1, 2, 3])),
         python_args=False)
def dot_by_zip(xs, ys):
    total = 0
    for x, y in zip(xs, ys):
        tick("dot_by_zip")
        total += x * y
    return total


@program((np.ones((2, 3)),), (np.full((2, 3), 2.0),), loops=False, python_args=False)
def cond_on_shape(x):
    if x.shape[0] > 3:  # a Python condition: decided while tracing
        return x.sum()
    if x.shape[1] == 3 and x.sum() > 6:  # Python `and` a tensor: staged
        return x.max()
    return -x.sum()


@program(i64(8), i64(3))
def maximum_iterations(n):
    i = 0
    while i < n:
        ag.set_loop_options(maximum_iterations=10)
        tick("maximum_iterations")
        i += 1
    return i


@program(i64(3), i64(1), i64(0))
def growing_array(n):
    x = np.ones(1)
    i = 0
    while i < n:
        ag.set_loop_options(shape_invariants=[(x, (None,))])
        tick("growing_array")
        x = np.concatenate([x, x * 2])
        i += 1
    return x.sum(), len(x)


@program((np.float32(1.5), np.int64(4)), (np.float32(-0.5), np.int64(2)))
def scalar_promotion(step, n):
    s = 0
    for _ in range(n):
        tick("scalar_promotion")
        s += step
    return s


@program(i64(3), i64(-1), loops=False)
def python_range_unrolled(x):
    total = 0
    for i in range(3):
        if x > i:
            total += i
        else:
            total -= 1
    return total


@program(i64(6, 4), i64(2, 9))
def nested_while(n, m):
    total = 0
    i = 0
    while i < n:
        j = 0
        while j < m:
            tick("nested_while")
            total += i * j
            j += 1
        i += 1
    return total


@program((np.array([5, 1, 4, 2, 3]),), (np.array([9, 8, 7, 6, 5]),), python_args=False)
def count_inversions(xs):
    swaps = 0
    for i, a in enumerate(xs):
        for b in xs[i + 1:]:
            tick("count_inversions")
            if a > b:
                swaps += 1
    return swaps


@program((np.array([1, 3, 5, 7, 9, 11]), np.int64(7)), (np.array([1, 3, 5, 7, 9, 11]), np.int64(4)),
         python_args=False)
def binary_search(xs, target):
    lo, hi = 0, len(xs) - 1
    while lo <= hi:
        tick("binary_search")
        mid = (lo + hi) // 2
        if xs[mid] == target:
            return mid
        if xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


@program(i64(6), i64(0))
def break_in_for_with_else(n):
    hits = 0
    for i in range(n):
        tick("break_in_for_with_else")
        hits += 1
        if i == 4:
            break
    else:
        hits = -hits
    return hits
