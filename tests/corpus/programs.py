"""The test corpus: plain-Python functions that autograph must run exactly as
Python does (same values and types, same printed output, same exceptions and
tracebacks).

Every entry is registered with the argument tuples it is run on:

    @case((3,), (0,), (-2,))
    def classify_sign(x): ...

`call(*args, **kwargs)` stands for an argument set with keywords.  Callables
that are not plain module functions (lambdas, partials, bound methods, callable
objects) are registered with `register(entity, name, *argument_sets)`.

The functions are deterministic and, run twice, give the same result (module
state they touch is reset at their start), because the harness runs the
original and the converted function one after the other on fresh copies of the
arguments.  Keep `CASES` in definition order; ids must stay unique.
"""

import asyncio
import collections
import contextlib
import dataclasses
import functools
import io
import itertools
import logging
import os
import sys
import types
import warnings

import numpy as np


# --- the registry -------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Call:
    """One argument set: positional args and keyword args."""
    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)

    def label(self):
        parts = [_short_repr(a) for a in self.args]
        parts += [f"{k}={_short_repr(v)}" for k, v in self.kwargs.items()]
        return ",".join(parts)


def call(*args, **kwargs):
    return Call(args, kwargs)


def _short_repr(value, limit=24):
    if isinstance(value, np.ndarray):
        text = f"array{value.tolist()}:{value.dtype}"
    elif isinstance(value, np.generic):
        text = f"{type(value).__name__}({value.item()!r})"
    else:
        text = repr(value)
    text = " ".join(text.split()).replace(", ", ",").replace(": ", ":")
    return text if len(text) <= limit else text[:limit - 3] + "..."


@dataclasses.dataclass(frozen=True)
class Case:
    name: str          # the entity's name (used in test ids and skip lists)
    entity: object     # the function (or other callable) under test
    call: Call
    index: int         # position among this entity's argument sets

    @property
    def id(self):
        return f"{self.name}[{self.index}]({self.call.label()})"


CASES = []
_NAMES = set()


def register(entity, name, *argument_sets):
    """Registers `entity` to be run on each argument set (tuples or Call)."""
    assert argument_sets, f"{name}: give at least one argument set"
    assert name not in _NAMES, f"duplicate corpus name {name}"
    _NAMES.add(name)
    for index, arguments in enumerate(argument_sets):
        if not isinstance(arguments, Call):
            assert isinstance(arguments, tuple), f"{name}: argument sets are tuples or call(...)"
            arguments = Call(arguments)
        CASES.append(Case(name, entity, arguments, index))
    return entity


def case(*argument_sets):
    """Decorator: registers the function under its own name."""
    def decorator(fn):
        return register(fn, fn.__name__, *argument_sets)
    return decorator


# Constructs that autograph rejects on purpose, with a catalog error at
# conversion: case name -> (name of the class in autograph.errors, text its
# message contains with {where} = "file:line", the offending line, stripped).
# Each entry is a policy the lead has signed off; the harness checks the error.
REJECTED = {
}


# --- helpers the corpus calls (user code, converted when called) ---------------

class Log:
    """Records side effects in order, so laziness is observable."""

    def __init__(self):
        self.events = []

    def note(self, label, value):
        self.events.append(label)
        return value


def noisy(label, value):
    print("eval", label)
    return value


class CorpusError(Exception):
    """A user exception class with attributes of its own."""

    def __init__(self, message, code, payload=None):
        super().__init__(message, code)
        self.code = code
        self.payload = payload


class Recorder:
    """Not a list, but has `append`/`pop`: `rec.append(x)` must stay a method call."""

    def __init__(self):
        self.seen = []

    def append(self, item):
        self.seen.append(("append", item))
        return "appended"

    def pop(self, index=-1):
        self.seen.append(("pop", index))
        return "popped"


class Tracked:
    """A context manager that prints enter/exit; suppresses errors if asked."""

    def __init__(self, name, suppress=False):
        self.name = name
        self.suppress = suppress

    def __enter__(self):
        print("enter", self.name)
        return self.name.upper()

    def __exit__(self, exc_type, exc, tb):
        print("exit", self.name, exc_type.__name__ if exc_type else None)
        return self.suppress


class CountingIterator:
    """An iterator that counts how many items were pulled from it."""

    def __init__(self, items):
        self.items = list(items)
        self.pulled = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.pulled >= len(self.items):
            raise StopIteration
        self.pulled += 1
        return self.items[self.pulled - 1]


class Truthy:
    """Prints every truth test: `bool()` must run exactly as often as in Python."""

    def __init__(self, value, name="t"):
        self.value = value
        self.name = name

    def __bool__(self):
        print("bool", self.name, self.value)
        if self.value is None:
            raise CorpusError("no truth value", 0, payload=self.name)
        return bool(self.value)


class GuardedCounter:
    """An endless iterator that fails loudly when pulled past `limit`."""

    def __init__(self, limit=1000):
        self.limit = limit
        self.pulled = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.pulled += 1
        if self.pulled > self.limit:
            raise RuntimeError("iterated past the point where the loop broke")
        return self.pulled - 1


class ListHandler(logging.Handler):
    """Keeps (file, line, function, message) of every record."""

    def __init__(self):
        super().__init__()
        self.records = []

    def emit(self, record):
        self.records.append((record.filename, record.lineno, record.funcName, record.getMessage()))


CORPUS_LOG_HANDLER = ListHandler()
corpus_logger = logging.getLogger("autograph_corpus")
corpus_logger.addHandler(CORPUS_LOG_HANDLER)
corpus_logger.setLevel(logging.INFO)
corpus_logger.propagate = False


def who_called_me():
    caller = sys._getframe(1)
    return caller.f_code.co_name, caller.f_lineno


class Shape:
    def __init__(self, name):
        self.name = name

    def area(self):
        return 0

    def describe(self):
        return f"{self.name} with area {self.area()}"


class Square(Shape):
    def __init__(self, side):
        super().__init__("square")
        self.side = side

    def area(self):
        return self.side * self.side

    def describe(self):
        base = super().describe()
        return base + "!"

    @staticmethod
    def unit():
        return Square(1)

    @classmethod
    def of_area(cls, area):
        side = 1
        while side * side < area:
            side += 1
        return cls(side)


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Polynomial:
    """A callable object: evaluates its coefficients with Horner's rule."""

    def __init__(self, *coefficients):
        self.coefficients = coefficients

    def __call__(self, x):
        result = 0
        for c in self.coefficients:
            result = result * x + c
        return result


def shout(fn):
    """A user decorator (with functools.wraps)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        print("calling", fn.__name__)
        result = fn(*args, **kwargs)
        print("done", fn.__name__)
        return result
    return wrapper


def repeat(times):
    """A decorator factory."""
    def decorator(fn):
        def wrapper(x):
            for _ in range(times):
                x = fn(x)
            return x
        return wrapper
    return decorator


def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


def squares_up_to(n):
    for i in range(n):
        yield i * i


def fails_deep(level):
    if level == 0:
        raise CorpusError("bottom reached", 7, payload={"level": level})
    return fails_deep(level - 1) + 1


# --- if / elif / else ------------------------------------------------------------

@case((3,), (0,), (-2,))
def classify_sign(x):
    if x > 0:
        return "positive"
    elif x < 0:
        return "negative"
    else:
        return "zero"


@case((5, 3), (-1, 3), (2, -7), (-4, -4))
def nested_if_early_return(a, b):
    if a > 0:
        if b > 0:
            return a + b
        result = a - b
    else:
        if b < 0:
            return a * b
        result = b - a
    result *= 2
    return result


@case((4,), (-4,))
def if_without_else(x):
    y = 0
    if x > 0:
        y = x * 10
    return y


@case((95,), (85,), (75,), (65,), (10,))
def grade_of_score(score):
    if score >= 90:
        grade = "A"
    elif score >= 80:
        grade = "B"
    elif score >= 70:
        grade = "C"
    elif score >= 60:
        grade = "D"
    else:
        grade = "F"
    return grade


@case((1,), (-1,))
def variable_defined_in_one_branch(x):
    if x > 0:
        y = x + 1
    return y


@case((True,), (False,))
def variable_deleted_in_branch(flag):
    value = 10
    if flag:
        del value
    return value


@case((5,), (-5,))
def implicit_none_return(x):
    if x > 0:
        return x


@case(([1, 2],), ([],), ({},), ("",), ("text",), (None,), (0.0,))
def truthiness_of_values(value):
    if value:
        return "truthy", value
    return "falsy", value


@case((2, 3), (3, 2), (1, 1))
def if_swaps_several_variables(a, b):
    low, high, swapped = a, b, False
    if a > b:
        low, high = b, a
        swapped = True
    elif a == b:
        pass
    return low, high, swapped


@case((7,), (12,), (30,))
def deeply_nested_conditions(n):
    if n > 5:
        if n > 10:
            if n > 20:
                label = "huge"
            else:
                if n % 2 == 0:
                    label = "big-even"
                else:
                    label = "big-odd"
        else:
            label = "medium"
    else:
        label = "small"
    return label


@case((3,), (-3,))
def if_branch_prints(x):
    if x > 0:
        print("positive branch", x)
        x = x - 1
    else:
        print("negative branch", x, sep="|")
    print("after", x)
    return x


@case((0,), (4,), (-1,))
def if_with_augmented_assignments(n):
    total = 1
    if n:
        total += n
        total *= 3
    if n < 0:
        total -= 100
    return total


# --- conditional expressions -----------------------------------------------------------

@case((3,), (-3,))
def conditional_expression_abs(x):
    return x if x >= 0 else -x


@case((15,), (9,), (10,), (7,))
def nested_conditional_expressions(n):
    return "fizzbuzz" if n % 15 == 0 else "fizz" if n % 3 == 0 else "buzz" if n % 5 == 0 else n


@case((True,), (False,))
def conditional_expression_evaluates_one_side(flag):
    return noisy("left", 1) if flag else noisy("right", 2)


@case((0,), (2,))
def conditional_expression_guards_division(d):
    return 10 // d if d else "no division"


# --- while loops -------------------------------------------------------------------------

@case((6,), (1,), (27,))
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@case(([4, 8, 15, 16], 15), ([4, 8], 3), ([], 1))
def while_else_search(items, target):
    i = 0
    while i < len(items):
        if items[i] == target:
            print("found at", i)
            break
        i += 1
    else:
        print("not found")
        return -1
    return i


@case((10,), (0,))
def while_with_continue_and_break(limit):
    i = 0
    odds = []
    while True:
        i += 1
        if i > limit:
            break
        if i % 2 == 0:
            continue
        odds.append(i)
    return odds


@case((3, 4), (0, 5), (4, 0))
def nested_while_inner_break(rows, cols):
    pairs = []
    r = 0
    while r < rows:
        c = 0
        while c < cols:
            if c > r:
                break
            pairs.append((r, c))
            c += 1
        r += 1
    return pairs


@case((3,), (0,))
def while_defines_variable_used_after(n):
    while n > 0:
        last = n
        n -= 1
    return last


@case((5,), (40,))
def while_with_return_in_nested_if(limit):
    n = 1
    while n < 100:
        if n > limit:
            if n % 2 == 0:
                return "even", n
            return "odd", n
        n += 7
    return "none", n


@case(("abcdefg",), ("",))
def while_walrus_chunks(text):
    chunks = []
    i = 0
    while chunk := text[i:i + 3]:
        chunks.append(chunk)
        i += 3
    return chunks, chunk


@case((5,),)
def while_else_runs_without_break(n):
    while n > 0:
        n -= 2
    else:
        print("loop ended normally", n)
    return n


@case((np.int64(10),), (np.int32(3),))
def while_on_numpy_scalar(n):
    total = n - n
    while n > 0:
        total += n
        n -= 1
    return total, n


@case((1000,),)
def while_counts_down_by_halving(n):
    halvings = 0
    while n:
        n >>= 1
        halvings += 1
    return halvings


# --- for loops ---------------------------------------------------------------------------

@case((10, 0, -3), (0, 10, 4), (5, 5, 1))
def sum_range_with_step(start, stop, step):
    total = 0
    for i in range(start, stop, step):
        total += i
    return total


@case(([3, 9, 12], 9), ([3, 5], 9))
def for_else_search(items, target):
    for index, item in enumerate(items):
        if item == target:
            result = index
            break
    else:
        result = None
    return result


@case(({"b": 2, "a": 1, "c": 3},), ({},))
def loop_over_dict_items(mapping):
    keys = []
    total = 0
    for key, value in mapping.items():
        keys.append(key)
        total += value
    for key in mapping:
        keys.append(key * 2)
    return keys, total


@case(("Hello, World",),)
def loop_over_string(text):
    upper = 0
    others = ""
    for ch in text:
        if ch.isupper():
            upper += 1
            continue
        others += ch
    return upper, others


@case(([1, 2, 3], "abc"), ([1, 2], "wxyz"))
def loop_over_zip_and_enumerate(numbers, letters):
    out = []
    for i, (n, letter) in enumerate(zip(numbers, letters), start=1):
        out.append(f"{i}:{letter * n}")
    return out


@case((4,),)
def nested_for_break_and_continue(n):
    found = []
    for i in range(n):
        if i == 1:
            continue
        for j in range(n):
            if j > i:
                break
            if (i + j) % 2:
                continue
            found.append((i, j))
    return found


@case(([5, -1, 7],), ([1, 2],))
def for_with_return_inside(values):
    for v in values:
        if v < 0:
            return "negative found", v
    return "all non-negative", len(values)


@case(([1, 2, 3],), ([],))
def loop_variable_after_loop(items):
    for item in items:
        pass
    return item


@case((5,),)
def for_over_generator_expression(n):
    total = 0
    for square in (i * i for i in range(n) if i % 2):
        total += square
    return total


@case((8, 3), (4, 9))
def for_break_stops_iterator(n, stop_at):
    it = CountingIterator(range(n))
    seen = []
    for x in it:
        if x == stop_at:
            break
        seen.append(x)
    return seen, it.pulled


@case((np.array([[1, 2], [3, 4]], dtype=np.int32),), (np.arange(4.0, dtype=np.float32),))
def for_over_numpy_array(arr):
    rows = []
    acc = arr[0] - arr[0]
    for row in arr:
        rows.append(row)
        acc = acc + row
    return rows, acc


@case(([3, 1, 2],),)
def for_index_assignment(values):
    values = list(values)
    for i in range(len(values)):
        values[i] = values[i] * 10 + i
    return values


@case((3,),)
def for_targets_attribute_and_subscript(n):
    point = Point(0, 0)
    store = {}
    for point.x in range(n):
        store[point.x] = point.x * point.x
    for store["last"] in "xy":
        pass
    return point, store


@case((5,), (0,))
def for_range_negative_step_list(n):
    return [i for i in range(n, -n, -2)]


@case(([[1, 2], [3], []],),)
def flatten_with_nested_loops(nested):
    flat = []
    for inner in nested:
        for x in inner:
            flat.append(x)
    return flat


@case((5,),)
def for_loop_mutates_other_list(n):
    evens, odds = [], []
    for i in range(n):
        target = evens if i % 2 == 0 else odds
        target.append(i)
    return evens, odds


# --- jumps inside with / try --------------------------------------------------------------

@case((1,), (-1,))
def return_inside_with(x):
    with Tracked("ctx") as name:
        if x > 0:
            return name
        print("inside", name)
    return "after"


@case((True,), (False,))
def return_inside_try_with_finally(flag):
    try:
        if flag:
            return "from try"
        print("no early return")
    finally:
        print("finally runs")
    return "after try"


@case((True,), (False,))
def return_overridden_by_finally(flag):
    try:
        return "from try"
    finally:
        print("finally runs")
        if flag:
            return "from finally"


@case((1,), (4,), (7,))
def return_in_finally_discards_the_exception(n):
    try:
        if n > 3:
            raise ValueError("from the try body")
        return n
    finally:
        print("finally runs")
        if n > 5:
            return -1


@case(([1.0, 2.0, 3.0],), ([1.0, 20.0, 3.0],), ([],))
def return_in_finally_after_a_break(values):
    total = 0.0
    for v in values:
        try:
            if v > 2:
                break
            total += v
        finally:
            if v > 10:
                return total * 1000
    return total


@case((5, 2), (5, 9))
def break_inside_try_finally(n, stop):
    done = []
    for i in range(n):
        try:
            if i == stop:
                break
            done.append(i)
        finally:
            print("finally", i)
    return done


@case(([1, 0, 2, "x", 4],),)
def continue_inside_try_except(values):
    results = []
    for v in values:
        try:
            results.append(12 // v)
        except ZeroDivisionError:
            print("skip zero")
            continue
        except TypeError as e:
            results.append(str(e))
            continue
        print("ok", v)
    return results


@case((3,), (8,))
def break_inside_with_in_loop(limit):
    count = 0
    while True:
        with Tracked("loop"):
            count += 3
            if count > limit:
                break
    return count


@case(("7",), ("x",))
def return_inside_except(text):
    try:
        value = int(text)
    except ValueError:
        return "invalid"
    else:
        print("parsed", value)
    finally:
        print("cleanup")
    return value


@case((True,), (False,))
def with_suppresses_exception(suppress):
    with Tracked("guard", suppress=suppress):
        raise KeyError("inside with")
    return "suppressed"


@case(([1, 2, 3, 4],),)
def continue_in_with_in_for(values):
    kept = []
    for v in values:
        with Tracked(f"v{v}"):
            if v % 2:
                continue
            kept.append(v)
    return kept


# --- logical expressions and comparisons -------------------------------------------------

@case((0, 5), (3, 0), (3, 5))
def lazy_and_or_with_side_effects(a, b):
    log = Log()
    first = log.note("a", a) and log.note("b", b)
    second = log.note("a", a) or log.note("b", b)
    return first, second, log.events


@case((None, "default"), ("given", "default"), (0, 0))
def or_returns_operand(value, default):
    return value or default, value and default


@case((0,), (1,))
def not_with_side_effect(x):
    return not noisy("x", x)


@case((1, 2, 3), (3, 2, 1), (1, 5, 3))
def chained_comparison_side_effect_middle(a, b, c):
    log = Log()
    result = a < log.note("middle", b) < c
    return result, log.events


@case((5,), (50,))
def chained_comparison_short_circuits(x):
    return 0 <= x < noisy("upper bound", 10) <= 100


@case((2, [1, 2, 3]), (5, [1, 2]), (None, [None]))
def comparisons_in_is_not_in(x, items):
    return (x in items, x not in items, x is None, x is not None,
            1 < 2 in items, x == x is not None)


@case((np.array([True]),), (np.array([1, 2]),), (np.float64(0.0),))
def numpy_truthiness_in_and(value):
    return value and "has truth"


@case((np.bool_(True), np.bool_(False)),)
def numpy_bools_logical_ops(a, b):
    return a and b, a or b, not a, (a and b) is b


@case((3,), (0,))
def logical_in_if_and_while_tests(n):
    log = Log()
    steps = 0
    while n > 0 and log.note(f"check{n}", True):
        n -= 1
        steps += 1
    if steps or log.note("no steps", False):
        label = "stepped"
    else:
        label = "idle"
    return label, log.events


# --- calls: recursion, closures, methods, objects -------------------------------------------

@case((0,), (5,), (10,))
def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


@case((7,), (0,))
def fibonacci_memo(n, memo=None):
    if memo is None:
        memo = {}
    if n < 2:
        return n
    if n not in memo:
        memo[n] = fibonacci_memo(n - 1, memo) + fibonacci_memo(n - 2, memo)
    return memo[n]


@case((10,), (7,))
def mutual_recursion_parity(n):
    return is_even(n), is_odd(n)


@case((3,),)
def closure_adder(n):
    def make_adder(k):
        def add(x):
            return x + k
        return add
    adders = [make_adder(i) for i in range(n)]
    return [adder(100) for adder in adders]


@case((4,),)
def nonlocal_counter(n):
    count = 0

    def bump(by):
        nonlocal count
        count += by
        return count

    history = []
    for i in range(n):
        history.append(bump(i))
    return count, history


@case((3,),)
def closure_late_binding(n):
    funcs = [lambda: i for i in range(n)]
    return [f() for f in funcs]


@case((4,), (9,))
def methods_static_class_and_super(area):
    sq = Square.of_area(area)
    unit = Square.unit()
    return sq.side, sq.describe(), unit.area(), Shape("blob").describe()


@case((2,), (-1,))
def callable_object_call(x):
    poly = Polynomial(1, -3, 2)
    return poly(x), [poly(v) for v in range(3)]


@case((5,),)
def partial_and_lambda_calls(n):
    power = functools.partial(pow, 2)
    scale = functools.partial(lambda factor, x: factor * x, 3)
    key = lambda pair: (pair[1], -pair[0])
    pairs = sorted([(i, i % 3) for i in range(n)], key=key)
    return power(n), scale(n), pairs, list(map(lambda v: v + 1, range(n)))


@case((3,),)
def decorated_inner_function(x):
    @shout
    def double(v):
        return v * 2

    @repeat(3)
    def increment(v):
        return v + 1

    return double(x), increment(x), double.__name__


@case((1, 2), call(1, 2, 3, 4, scale=10, verbose=True))
def star_args_and_kwargs(a, b, *rest, scale=1, **options):
    total = (a + b + sum(rest)) * scale
    if options.get("verbose"):
        print("options:", sorted(options))
    return total, rest, options


@case((1,), call(1, 2), call(a=5, c=7))
def defaults_and_keywords(a, b=10, *, c=100):
    def inner(x, y=b, /, z=c):
        return x + y + z
    return inner(a), inner(a, 1), inner(a, 1, z=2)


@case(([3, 1, 2], {"k": 5}),)
def call_with_unpacking(values, options):
    def combine(*xs, k=0):
        return sum(xs) + k
    return combine(*values, **options), combine(*values), max(*values), min(values, default=0)


@case((3,),)
def calls_user_generator(n):
    return sum(squares_up_to(n)), list(squares_up_to(n))


@case((4,),)
def calls_decorated_module_function(n):
    return greet_twice(n)


@shout
def greet_twice(n):
    return "hi " * n


@case((3,), (0,))
def exception_from_deep_recursion(level):
    return fails_deep(level)


@case(([3, -1, 2],),)
def builtins_called_on_values(values):
    return (len(values), sorted(values), max(values), min(values), sum(values),
            abs(values[1]), isinstance(values, list), list(reversed(values)),
            getattr(values, "count")(3), any(v < 0 for v in values), all(values))


@case((2,),)
def super_in_local_class(x):
    class Base:
        def value(self):
            return x

    class Child(Base):
        def value(self):
            return super().value() * 10

    return Child().value()


@case((1,), (-1,))
def locals_see_only_user_names(x):
    if x > 0:
        y = x
    else:
        z = -x
    return sorted(locals())


@case((4,),)
def eval_sees_local_names(x):
    y = x * 2  # noqa: F841 - read by eval
    return eval("x + y")


# --- print -------------------------------------------------------------------------------

@case((3,),)
def print_with_sep_end_and_file(n):
    print("a", "b", n, sep="-", end="!\n")
    print()
    print("to stderr", n, file=sys.stderr)
    buffer = io.StringIO()
    print("into buffer", [n, n], end="", file=buffer)
    print(*range(n), sep=", ")
    return buffer.getvalue()


@case((np.arange(3, dtype=np.int16), np.float32(1.5)),)
def print_numpy_values(arr, scalar):
    print(arr, scalar, arr.dtype)
    print(repr(scalar), arr * scalar)
    return None


@case((2,),)
def print_user_object(n):
    print(Point(n, -n), Square(n).describe())
    return n


# --- assert ------------------------------------------------------------------------------

@case((5,), (-5,))
def assert_with_message(x):
    assert x > 0, f"x must be positive, got {x}"
    return x * 2


@case((1,), (0,))
def assert_without_message(x):
    assert x
    return "passed"


@case((1,), (0,))
def assert_message_evaluated_lazily(x):
    assert x, noisy("message", "lazy message")
    return "ok"


@case(([1, 2, 3],), ([1, 2, 2],))
def assert_inside_loop(values):
    for a, b in zip(values, values[1:]):
        assert a < b, (a, b)
    return True


# --- lists: append / pop --------------------------------------------------------------------

@case((5,),)
def list_append_in_loop(n):
    squares = []
    for i in range(n):
        squares.append(i * i)
    return squares


@case(([1, 2, 3, 4],), ([],))
def list_pop_variants(values):
    values = list(values)
    popped = []
    while values:
        popped.append(values.pop())
        if values:
            popped.append(values.pop(0))
    return popped, values


@case(([],), ([7],))
def pop_from_empty_list(values):
    first = values.pop()
    second = values.pop()
    return first, second


@case((3,),)
def append_on_non_list_object(n):
    rec = Recorder()
    results = []
    for i in range(n):
        results.append(rec.append(i))
    results.append(rec.pop())
    results.append(rec.pop(0))
    return results, rec.seen


@case((3,),)
def append_to_attribute_and_dict_entry(n):
    groups = collections.defaultdict(list)
    holder = Recorder()
    queue = collections.deque()
    for i in range(n):
        groups[i % 2].append(i)
        holder.seen.append(i)
        queue.append(i)
        queue.appendleft(-i)
    return dict(groups), holder.seen, list(queue), queue.pop(), {"k": 1}.pop("k")


@case(([1, 2],),)
def append_mutates_argument(values):
    values.append(len(values))
    alias = values
    alias.append("alias")
    return values is alias


# --- try / except / finally and exceptions ----------------------------------------------------

@case((4, 2), (1, 0), (None, 1))
def try_except_else_finally(a, b):
    try:
        result = a / b
    except ZeroDivisionError as e:
        print("zero:", e)
        result = float("inf")
    except TypeError:
        print("type error")
        raise
    else:
        print("no error")
    finally:
        print("finally")
    return result


@case((True,), (False,))
def except_variable_is_deleted(fail):
    try:
        if fail:
            raise ValueError("boom")
        e = "never failed"
    except ValueError as e:
        print("caught", e)
    return e


@case(("a",), ("z",))
def raise_from_cause(key):
    table = {"a": 1}
    try:
        return table[key]
    except KeyError as e:
        raise CorpusError(f"missing {key}", 404, payload=key) from e


@case((0,), (1,))
def raise_in_except_sets_context(x):
    try:
        return 1 / x
    except ZeroDivisionError:
        return undefined_name_in_handler  # noqa: F821


@case((3,),)
def except_star_group(n):
    try:
        raise ExceptionGroup("many", [ValueError(n), TypeError("t")])
    except* ValueError as group:
        print("values:", [str(e) for e in group.exceptions])
    except* TypeError as group:
        print("types:", len(group.exceptions))
    return "handled"


@case(([1, 2, 0],),)
def zero_division_inside_loop(divisors):
    out = []
    for d in divisors:
        out.append(100 // d)
    return out


@case(({"x": 1}, "x"), ({"x": 1}, "y"), ({}, ("a", 1)))
def key_error_on_lookup(mapping, key):
    return mapping[key]


@case((2,), (-1,))
def custom_exception_with_attributes(code):
    if code < 0:
        raise CorpusError("negative code", code, payload=[code, "data"])
    return code


@case(("abc", 1), ("abc", 10))
def index_error_and_type_error(text, i):
    ch = text[i]
    return ch + i


@case((Point(1, 2),), (None,))
def attribute_error_has_name(obj):
    return obj.x + obj.z


@case((0,),)
def name_error_for_missing_global(x):
    return x + not_defined_anywhere  # noqa: F821


@case((True,),)
def free_variable_before_assignment(early):
    def read():
        return late
    if early:
        result = read()
    late = 1
    return result


@case(([],), ([1],))
def stop_iteration_from_next(values):
    return next(iter(values))


@case(("12",), ("1x",))
def value_error_from_int(text):
    total = 0
    for ch in text:
        total = total * 10 + int(ch)
    return total


@case((1,), (2,))
def exception_with_notes(n):
    error = ValueError("with notes")
    error.add_note(f"note {n}")
    if n > 1:
        raise error
    return error.__notes__


# --- with ---------------------------------------------------------------------------------

@case((2,),)
def nested_and_multiple_with(n):
    with Tracked("outer") as a, Tracked("inner") as b:
        with Tracked("innermost"):
            total = n * len(a + b)
    return total


@contextlib.contextmanager
def tagged(tag):
    print("<" + tag + ">")
    try:
        yield tag * 2
    finally:
        print("</" + tag + ">")


@case(("p",),)
def generator_context_manager(tag):
    with tagged(tag) as doubled:
        print("body", doubled)
    return doubled


# --- comprehensions ------------------------------------------------------------------------

@case((6,),)
def comprehensions_of_every_kind(n):
    squares = [i * i for i in range(n)]
    evens = {i for i in range(n) if i % 2 == 0}
    index = {str(i): i for i in range(n)}
    pairs = [(i, j) for i in range(n) for j in range(i) if (i + j) % 3 == 0]
    total = sum(i for i in range(n))
    return squares, evens, index, pairs, total


@case((5,),)
def comprehension_with_walrus_and_closure(n):
    offset = 100
    values = [y for x in range(n) if (y := x * 3) % 2 == 0]
    shifted = [v + offset for v in values]
    return values, shifted, y


@case((3,),)
def nested_comprehension_matrix(n):
    return [[row * n + col for col in range(n)] for row in range(n)]


# --- generators (converted functions containing yield) ---------------------------------------

@case((5,), (0,))
def generator_with_control_flow(n):
    for i in range(n):
        if i % 2:
            continue
        yield i
        if i > 2:
            return
    yield "exhausted"


@case((3,),)
def generator_with_yield_from(n):
    result = yield from delegate(n)
    yield ("delegate returned", result)


def delegate(n):
    i = 0
    while i < n:
        yield i
        i += 1
    return i * 10


@case((2,), (-1,))
def generator_raises_midway(n):
    yield "start"
    if n < 0:
        raise CorpusError("negative in generator", n)
    while n:
        yield n
        n -= 1


@case((4,),)
def drives_generator_with_send(n):
    def accumulator():
        total = 0
        while True:
            value = yield total
            if value is None:
                return total
            total += value
    gen = accumulator()
    next(gen)
    results = [gen.send(i) for i in range(n)]
    try:
        gen.send(None)
    except StopIteration as stop:
        results.append(("returned", stop.value))
    return results


# --- global / nonlocal / walrus ----------------------------------------------------------------

counter = 0


@case((3,),)
def global_counter(n):
    global counter
    counter = 0
    for _ in range(n):
        counter += 2
    return counter


@case((2,),)
def nonlocal_in_nested_loops(n):
    state = []

    def add_pairs():
        nonlocal state
        for i in range(n):
            for j in range(n):
                state = state + [(i, j)]

    add_pairs()
    return state


@case(([1, 5, 2, 8],), ([],))
def walrus_in_if(values):
    if (count := len(values)) > 2:
        return count, max(values)
    return count, None


# --- match --------------------------------------------------------------------------------

@case((0,), (1,), ("hello",), ([1, 2],), ([1, 2, 3, 4],), ({"kind": "circle", "r": 2},),
      (Point(0, 5),), (Point(3, 3),), (3.5,))
def match_many_patterns(subject):
    match subject:
        case 0:
            return "zero"
        case int(n) if n > 0:
            return f"positive int {n}"
        case str() as s:
            return "string " + s
        case [a, b]:
            return ("pair", a, b)
        case [first, *rest]:
            return ("list", first, rest)
        case {"kind": "circle", "r": r}:
            return ("circle", 3 * r * r)
        case Point(x=0, y=y):
            return ("on y axis", y)
        case Point(x=x, y=y) if x == y:
            return ("diagonal", x)
    return "no match"


@case(("go north",), ("look",), ("quit now",), ("dance",))
def match_command_with_loop(command):
    log = []
    for word in command.split():
        match word:
            case "go" | "walk":
                log.append("move")
            case "north" | "south":
                log.append("dir")
            case "quit":
                log.append("bye")
                break
            case _:
                log.append("?" + word)
    return log


# --- async ----------------------------------------------------------------------------------

async def async_double(x):
    await asyncio.sleep(0)
    return x * 2


async def async_ticks(n):
    for i in range(n):
        await asyncio.sleep(0)
        yield i


class AsyncTracked:
    async def __aenter__(self):
        print("async enter")
        return self

    async def __aexit__(self, *exc):
        print("async exit")
        return False


@case((3,), (-1,))
async def async_control_flow(n):
    if n < 0:
        raise CorpusError("negative async", n)
    total = 0
    for i in range(n):
        total += await async_double(i)
    async for tick in async_ticks(n):
        print("tick", tick)
    async with AsyncTracked():
        while total > 5:
            total -= 5
    return total


# --- loops over misc iterables -----------------------------------------------------------------

@case((3,),)
def loop_over_itertools_and_sets(n):
    out = []
    for a, b in itertools.product(range(n), "ab"):
        out.append(f"{a}{b}")
    for x in sorted({3, 1, 2}):
        out.append(x)
    for i, ch in enumerate(reversed("xyz")):
        out.append((i, ch))
    return out


@case((4,),)
def builtin_iterators_are_python_objects(n):
    return range(n, 0, -1), enumerate("ab"), zip([1, 2], "xy"), len(range(n))


@case((5,), (3,))
def len_of_objects(n):
    sizes = [len(list(range(n))), len({"a": 1}), len("abc")]
    if n == 5:
        sizes.append(len(n))
    return sizes


# --- numpy values --------------------------------------------------------------------------------

@case((np.array([1, 2]),), (np.array([-1, 2]),))
def if_on_array_comparison(arr):
    if arr > 0:
        return "all positive"
    return "not all"


@case((np.array([5]),), (np.array([0]),), (np.array([], dtype=np.int8),))
def if_on_single_element_array(arr):
    if arr:
        return arr * 2
    return arr


@case((np.arange(5, dtype=np.int64),), (np.arange(3, dtype=np.uint8),))
def numpy_sum_in_loop_keeps_dtype(arr):
    total = arr[0]
    for value in arr[1:]:
        total = total + value
    return total


@case((np.float32(0.1), 10),)
def numpy_float32_accumulation(step, n):
    acc = np.float32(0)
    i = 0
    while i < n:
        acc += step
        i += 1
    return acc, type(acc)


@case((np.array([1.0, -2.0, 3.0]),),)
def numpy_where_and_conditional_expression(arr):
    clipped = np.where(arr > 0, arr, 0.0)
    biggest = arr.max() if arr.size else None
    first = arr[0] if arr[0] > arr[1] else arr[1]
    return clipped, biggest, first


@case((np.float64(0.0),), (np.float64(2.5),), (np.int8(-3),))
def numpy_scalar_branches(x):
    if x:
        y = x * 2
    else:
        y = x - 1
    return y, y.dtype


@case((3,),)
def numpy_stack_of_appended_rows(n):
    rows = []
    for i in range(n):
        rows.append(np.full(2, i, dtype=np.int16))
    return np.stack(rows)


@case((np.array([3, 1, 2]),),)
def numpy_array_in_while_with_index(arr):
    i = 0
    while i < len(arr) and arr[i] != 1:
        i += 1
    return i, arr[i]


@case((np.array([[1, 2], [3, 4]]),),)
def numpy_iteration_and_any_all(matrix):
    flags = []
    for row in matrix:
        flags.append(bool((row > 1).any()))
        if (row > 2).all():
            flags.append("all>2")
    return flags, matrix.T @ matrix


@case((np.array([1, 2, 3]),), (np.array([1, -2, 3]),), (np.array([0.0]),))
def numpy_in_assert_not_and_while(arr):
    flag = np.all(arr > 0)
    steps = 0
    while flag:
        flag = np.bool_(False)
        steps += 1
    negated = not arr.sum()
    assert np.all(arr != 0), f"zero in {arr}"
    x = np.int32(5)
    x += 1
    return steps, negated, type(negated), flag, x, x.dtype


# --- larger functions (several constructs together) --------------------------------------------

@case(([5, 3, 8, 1, 9, 2],), ([],), ([1],))
def bubble_sort_with_swaps(values):
    values = list(values)
    swaps = 0
    n = len(values)
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if values[j] > values[j + 1]:
                values[j], values[j + 1] = values[j + 1], values[j]
                swaps += 1
                swapped = True
        if not swapped:
            break
    return values, swaps


@case((30,), (2,), (1,))
def primes_sieve(limit):
    if limit < 2:
        return []
    is_prime = [True] * (limit + 1)
    is_prime[0] = is_prime[1] = False
    p = 2
    while p * p <= limit:
        if is_prime[p]:
            for multiple in range(p * p, limit + 1, p):
                is_prime[multiple] = False
        p += 1
    primes = []
    for number, flag in enumerate(is_prime):
        if flag:
            primes.append(number)
    return primes


@case(([1, 3, 5, 7, 9, 11], 7), ([1, 3, 5, 7, 9, 11], 4), ([], 1))
def binary_search(items, target):
    low, high = 0, len(items) - 1
    steps = 0
    while low <= high:
        steps += 1
        mid = (low + high) // 2
        if items[mid] == target:
            return mid, steps
        elif items[mid] < target:
            low = mid + 1
        else:
            high = mid - 1
    return -1, steps


@case(("3 4 + 2 *",), ("1 0 /",), ("5 +",), ("2 3 x",))
def rpn_calculator(expression):
    stack = []
    for token in expression.split():
        if token.isdigit():
            stack.append(int(token))
            continue
        if len(stack) < 2:
            raise CorpusError(f"stack underflow at {token!r}", len(stack))
        right = stack.pop()
        left = stack.pop()
        if token == "+":
            stack.append(left + right)
        elif token == "*":
            stack.append(left * right)
        elif token == "/":
            stack.append(left // right)
        else:
            raise ValueError(f"unknown token {token!r}")
    return stack.pop()


@case(("hello world hello",), ("",))
def word_frequencies(text):
    counts = {}
    order = []
    for word in text.split():
        if word not in counts:
            counts[word] = 0
            order.append(word)
        counts[word] += 1
    best = None
    for word in order:
        if best is None or counts[word] > counts[best]:
            best = word
    summary = ", ".join(f"{w}={counts[w]}" for w in order)
    print("summary:", summary or "<empty>")
    return counts, best


@case((12,), (7,), (1,))
def prime_factors_with_while_else(n):
    factors = []
    d = 2
    while n > 1:
        while n % d == 0:
            factors.append(d)
            n //= d
        d += 1
        if d * d > n:
            if n > 1:
                factors.append(n)
            break
    else:
        print("n reduced to one inside the loop")
    return factors


@case(([[0, 1, 0], [0, 0, 0], [1, 1, 0]], (0, 0), (2, 2)), ([[0, 1], [1, 0]], (0, 0), (1, 1)))
def grid_shortest_path(grid, start, goal):
    rows, cols = len(grid), len(grid[0])
    queue = collections.deque([(start, 0)])
    seen = {start}
    while queue:
        (r, c), dist = queue.popleft()
        if (r, c) == goal:
            return dist
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nr, nc = r + dr, c + dc
            if not (0 <= nr < rows and 0 <= nc < cols):
                continue
            if grid[nr][nc] or (nr, nc) in seen:
                continue
            seen.add((nr, nc))
            queue.append(((nr, nc), dist + 1))
    return None


@case((np.array([1.0, 2.0, 4.0, 8.0]), 0.5), (np.array([0.0, 0.0], dtype=np.float32), 0.1))
def numpy_moving_average(signal, alpha):
    smoothed = []
    current = None
    for value in signal:
        if current is None:
            current = value
        else:
            current = alpha * value + (1 - alpha) * current
        smoothed.append(current)
    result = np.array(smoothed)
    if result.size and result.max() > 5:
        print("peak", result.max())
    return result, result.dtype


@case(({"a": [1, 2], "b": [], "c": [3]},),)
def inventory_report(stock):
    report = []
    empty = 0
    for name, batches in sorted(stock.items()):
        if not batches:
            empty += 1
            report.append(f"{name}: none")
            continue
        total = 0
        for amount in batches:
            try:
                total += amount
            finally:
                pass
        status = "low" if total < 3 else "ok"
        report.append(f"{name}: {total} ({status})")
    print(*report, sep="\n")
    assert empty <= len(stock), "more empty items than items"
    return report, empty


@case((10, 3), (4, 0))
def state_machine_tokens(n, k):
    state = "start"
    out = []
    i = 0
    while True:
        if state == "start":
            state = "count" if n > 0 else "end"
        elif state == "count":
            out.append(i)
            i += 1
            if k and i % k == 0:
                state = "pause"
            elif i >= n:
                state = "end"
        elif state == "pause":
            out.append("|")
            state = "count" if i < n else "end"
        else:
            break
    return out


# --- exceptions raised inside expressions the converters rewrite -----------------------

@case((2,), (0,), (None,))
def logical_operand_raises(d):
    return d is not None and 10 // d


@case((3, 5), (3, "a"), (0, 5))
def chained_comparison_raises(x, y):
    return 0 < 10 // x < y


@case((True, 0), (False, 0), (True, 5))
def conditional_expression_branch_raises(flag, d):
    return 10 // d if flag else -1


@case((1,), (0,))
def assert_message_raises(x):
    assert x, "bad value " + x
    return x


@case(([4, 8], 2), ([4, 8], 0), ([], 0))
def exception_in_multiline_condition(values, d):
    if (len(values) > 0 and
            values[0] // d > 1):
        return "big"
    return "small"


@case(([3, 2, 1, 0],),)
def exception_in_while_test(values):
    i = 0
    while 6 // values[i] > 1:
        i += 1
    return i


@case(({"a": 1, "b": 2},),)
def dict_changed_during_iteration(mapping):
    for key in mapping:
        mapping[key + key] = 0
    return mapping


@case(([1, 2, 3], "ab"), ([1, 2], "ab"))
def zip_strict_mismatch(numbers, letters):
    pairs = []
    for n, letter in zip(numbers, letters, strict=True):
        pairs.append(letter * n)
    return pairs


@case((np.array([1, 2]), "if"), (np.array([1, 2]), "while"), (np.array([1, 2]), "not"),
      (np.array([1, 2]), "ifexp"), (np.array([1, 2]), "assert"), (np.array([1, 2]), "chain"),
      (np.array([3]), "chain"), (np.array([3]), "while"))
def numpy_truthiness_errors(arr, construct):
    if construct == "if":
        if arr:
            return "truthy"
        return "falsy"
    if construct == "while":
        steps = 0
        while arr:
            arr = arr - 1
            steps += 1
        return steps
    if construct == "not":
        return not arr
    if construct == "ifexp":
        return "yes" if arr > 1 else "no"
    if construct == "assert":
        assert arr > 1
        return "asserted"
    return 0 < arr < 5


# --- names, shadowing and scoping --------------------------------------------------------

@case((3, "given"),)
def user_names_like_generated(if_cond, retval_):
    do_return = []
    break_ = 0
    loop_cond = True
    while loop_cond:
        break_ += 1
        if break_ >= if_cond:
            loop_cond = False
        do_return.append(retval_)
    if_true = len(do_return)
    return if_cond, retval_, do_return, break_, if_true


@case((4,),)
def user_variable_named_fscope(n):
    fscope = n * 2
    return abs(fscope), fscope


@case(([1, 2, 3],),)
def shadowed_builtins(items):
    len = lambda values: 42  # noqa: E731
    range = lambda n: [n, n]  # noqa: E731
    print = functools.partial(sorted, reverse=True)
    out = []
    for i in range(len(items)):
        out.append(i)
    return out, print(items)


def _module_range(*args):
    return ["module range", args]


def module_global_shadows_builtin(n):
    out = []
    for x in range(n):
        out.append(x)
    return out


# Its globals hold a user function named `range` (as if the module defined
# one); the rest of this module keeps the builtin.
module_global_shadows_builtin = register(
    types.FunctionType(module_global_shadows_builtin.__code__,
                       dict(globals(), range=_module_range), "module_global_shadows_builtin"),
    "module_global_shadows_builtin", (3,))


@case((3,),)
def closures_capture_loop_variable(n):
    fns = []
    for i in range(n):
        fns.append(lambda: i)
    j = 0
    while j < n:
        fns.append(lambda: j * 10)
        j += 1
    return [f() for f in fns]


@case((True,), (False,))
def inner_function_sees_later_assignment(flag):
    if flag:
        def get():
            return value
    else:
        def get():
            return -value
    value = 10
    return get()


@case(([1, 2, 3, 4],), ([],))
def starred_and_annotated_assignments(values):
    count: int = 0
    if values:
        first, *rest = values
        label: str = f"first={first}"
    else:
        first, rest, label = None, [], "empty"
    for x in values:
        count += x
    return first, rest, label, count


@case((5,),)
def append_and_pop_used_as_expressions(n):
    stack = []
    returned = stack.append(n)
    stack.append(n + 1)
    total = stack.pop() * 2 + stack.pop()
    return returned, total, stack


@case((20,),)
def calls_lru_cached_recursion(n):
    return cached_fibonacci(n)


@functools.lru_cache(maxsize=None)
def cached_fibonacci(n):
    return n if n < 2 else cached_fibonacci(n - 1) + cached_fibonacci(n - 2)


@case((np.int64(5), np.int32(-1)),)
def range_with_numpy_bounds(stop, step):
    out = []
    for i in range(stop, 0, step):
        out.append(i)
    return out, len(range(stop)), type(out[0])


@case(([1, 2, 3],),)
def print_with_star_args_and_flush(items):
    options = {"sep": ";", "end": "$\n"}
    print(*items, **options)
    print("flushed", flush=True)
    print("defaults", sep=None, end=None, file=None)
    return len(items)


@case((4,),)
def break_in_finally(n):
    seen = []
    for i in range(n):
        try:
            if i == 1:
                raise ValueError(i)
        finally:
            seen.append(i)
            if i >= 1:
                break
    return seen


@case((4,),)
def continue_in_finally(n):
    seen = []
    for i in range(n):
        try:
            if i == 1:
                raise ValueError(i)
        except ValueError:
            seen.append("caught")
        finally:
            seen.append(i)
            continue
    return seen


@case((3,), (-1,))
def generator_with_break_in_while(n):
    i = 0
    while True:
        if i >= n:
            break
        with Tracked(f"g{i}"):
            yield i
        i += 1
    if n < 0:
        raise CorpusError("negative", n)
    yield "end"


@case((3,),)
async def async_generator_entry(n):
    for i in range(n):
        if i == 1:
            continue
        await asyncio.sleep(0)
        yield i * 2


@case((True,), (False,))
def enter_raises_in_with(fail):
    class Failing:
        def __enter__(self):
            if fail:
                raise RuntimeError("cannot enter")
            return "entered"

        def __exit__(self, *exc):
            print("exit")

    with Failing() as value:
        print(value)
    return value


@case((3,), (-2,))
def local_class_with_control_flow_methods(n):
    class Counter:
        start = 0 if n > 0 else -1

        def __init__(self, limit):
            self.limit = limit

        def values(self):
            out = []
            i = self.start
            while True:
                if i >= self.limit:
                    return out
                out.append(i)
                i += 1

        def first_even(self):
            for v in self.values():
                if v % 2 == 0:
                    return v
            return None

    counter = Counter(n)
    return counter.values(), counter.first_even(), Counter.start


@case((True,), (False,))
def imports_inside_branches(flag):
    if flag:
        import json as codec
        text = codec.dumps([1, 2])
    else:
        import math
        text = str(math.floor(2.5))
    return text


@case(([1, [2, [3, []]], [4]],),)
def nested_recursive_closure(tree):
    depths = []

    def walk(node, depth):
        if isinstance(node, list):
            for child in node:
                walk(child, depth + 1)
            return
        depths.append((node, depth))

    walk(tree, 0)
    return depths


@case(([1, 4, 6, 9], 10), ([1, 2], 10))
def return_from_nested_loops(values, target):
    i = 0
    while i < len(values):
        for j in range(i + 1, len(values)):
            for k in range(j, len(values)):
                if values[i] + values[k] == target:
                    return i, k
        i += 1
    return None


@case(([1, 2],),)
def for_over_growing_list(items):
    for x in items:
        if x < 6:
            items.append(x + 3)
    return items


@case((3,), (0,))
def fstring_with_expressions(x):
    return f"{'pos' if x else 'zero'}:{x > 1 and 'big' or 'small'}:{[i for i in range(x)]!r}"


@case((2,),)
def returns_closure_and_lambda_defaults(n):
    def make_counter():
        count = 0

        def tick():
            nonlocal count
            count += 1 if n > 0 else -1
            return count
        return tick

    tick = make_counter()
    defaults = [lambda i=i: i * 10 for i in range(n)]
    return tick(), tick(), [f() for f in defaults], tick


@case((np.array(3),), (np.array(0.0),))
def numpy_zero_d_array_loop(value):
    steps = 0
    while value > 0:
        value = value - 1
        steps += 1
    if value:
        steps = -steps
    return steps, value, type(value)


@case(("range_float",), ("enumerate_int",), ("zip_int",), ("print_keyword",), ("len_two",),
      ("range_zero_step",), ("len_not_int",))
def builtin_argument_errors(kind):
    if kind == "range_float":
        return list(range(1.5))
    if kind == "enumerate_int":
        return list(enumerate(5))
    if kind == "zip_int":
        return list(zip([1], 1))
    if kind == "print_keyword":
        print("x", bad=2)
    if kind == "len_two":
        return len([1], [2])
    if kind == "len_not_int":
        class BadLength:
            def __len__(self):
                return "three"
        return len(BadLength())
    return range(0, 5, 0)


@case((4,),)
def generator_expression_returned(n):
    return (x if x % 2 else -x for x in range(n))


@case((7,), (4,), (1,))
def elif_tests_evaluated_lazily(x):
    if noisy("first test", x > 5):
        return "big"
    elif noisy("second test", x > 2):
        return "medium"
    elif noisy("third test", x > 0):
        result = "small"
    else:
        result = "none"
    return result


@case((3,),)
def for_iterable_evaluated_once(n):
    total = 0
    for x in noisy("iterable", list(range(n))):
        total += x
    while noisy("while test", total) > 0:
        total -= 2
    return total


@case(([1, 2, 3], 2), ([1], 5))
def return_inside_with_inside_loop(values, stop):
    for v in values:
        try:
            with Tracked(f"item{v}"):
                if v == stop:
                    return "stopped at", v
                print("processed", v)
        finally:
            print("finally", v)
    return "all processed", len(values)


async def async_is_positive(x):
    await asyncio.sleep(0)
    return x > 0


@case((3,), (0,))
async def async_await_in_conditions(n):
    steps = []
    while await async_is_positive(n):
        if await async_is_positive(n - 2):
            steps.append("big")
        else:
            steps.append("small")
        n -= 1
    return steps if steps else await async_double(n)


@case((4,), (0,))
def conditional_expression_with_walrus(x):
    return y if (y := x * 2) else "zero", [z for v in range(x) if (z := v % 3)]


@case((10,),)
def builtin_aliases_and_range_operations(n):
    printer = print
    printer("via alias", n, sep="")
    measure = len
    r = range(n)
    return measure(r), 5 in r, r[2:5], r[-1], list(reversed(r))[:2], dict(zip("ab", r)), r.index(3)


@case((1,), (0,))
def custom_bool_called_once(v):
    t = Truthy(v)
    if t:
        print("if taken")
    label = "yes" if Truthy(v, "ifexp") else "no"
    both = Truthy(v, "left") and Truthy(1, "right")
    negated = not Truthy(v, "not")
    count = 0
    while Truthy(2 - count > 0 and v, "while"):
        count += 1
    assert Truthy(1, "assert")
    return label, both.name, negated, count


@case((None,),)
def custom_bool_raises(v):
    if Truthy(v, "test"):
        return "taken"
    return "not taken"


@case((3,),)
def break_from_infinite_iterator(stop):
    counter = GuardedCounter()
    seen = []
    for i in counter:
        if i >= stop:
            break
        seen.append(i)
    for j in GuardedCounter():
        if j == stop:
            found = j
            break
    return seen, counter.pulled, found


@case(([1, 2, -3],), ([1, 2],))
def falls_off_end_after_loop(values):
    for v in values:
        if v < 0:
            return v
    print("no negative value")


def noisy_endless(tag):
    try:
        i = 0
        while True:
            yield (tag, i)
            i += 1
    finally:
        print("generator closed", tag)


@case((2,),)
def generator_closed_early(n):
    pairs = list(zip(range(n), noisy_endless("a")))
    gen = noisy_endless("b")
    first = next(gen)
    gen.close()
    return pairs, first


@case((2,),)
def inner_defaults_and_decorators_evaluated_once(n):
    def tag(label):
        print("decorating with", label)
        def decorator(fn):
            fn.label = label
            return fn
        return decorator

    @tag(noisy("label", "L"))
    def inner(x, offset=noisy("default", 100)):
        return x + offset

    return [inner(i) for i in range(n)], inner.label


@case((3,),)
def class_body_with_loops_and_conditions(n):
    class Table:
        rows = []
        for i in range(n):
            if i % 2:
                rows.append(i)
        kind = "odd" if rows else "none"
        while len(rows) < 3:
            rows.append(-1)
    return Table.rows, Table.kind, sorted(k for k in vars(Table) if not k.startswith("__"))


@case((6, 3),)
def calls_via_containers(a, b):
    ops = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "div": divmod}
    pipeline = [abs, str, len]
    results = {name: op(a, b) for name, op in ops.items()}
    value = -12345
    for step in pipeline:
        value = step(value)
    method = "hello".upper
    return results, value, method(), getattr(ops["add"], "__name__")


@case(("shadowed",), ("unpack",), ("undefined_total",), ("deleted",), ("global_target",),
      ("nonlocal_target",))
def loop_variable_edge_cases(kind):
    global counter
    if kind == "shadowed":
        for i in range(2):
            for i in range(3):
                pass
        return i
    if kind == "unpack":
        pairs = []
        for a, b in [(1, 2), (3,)]:
            pairs.append(a + b)
        return pairs
    if kind == "undefined_total":
        for x in [1, 2]:
            total += x  # noqa: F821
        return total
    if kind == "deleted":
        for x in [1, 2, 3]:
            if x == 2:
                del x
        return x
    if kind == "global_target":
        for counter in range(4):
            pass
        return counter

    def inner():
        nonlocal kind
        for kind in "xyz":
            pass
    inner()
    return kind


@case((5,), (-5,), ((1, 2),), ([3, 4, 5],))
def match_guards_with_side_effects(subject):
    log = Log()
    while True:
        match subject:
            case int(n) if log.note("guard positive", n > 0) and n < 10:
                result = ("small positive", n)
            case int(n) if log.note("guard negative", n < 0):
                subject = -n
                continue
            case (a, b):
                result = ("pair", a + b)
            case [first, *others] if others:
                result = ("list", first, len(others))
            case _:
                result = None
        break
    return result, log.events


@case((600,), (10,))
def recursion_depth(n):
    if n == 0:
        return 0
    return recursion_depth(n - 1) + 1


@case((2,),)
def warnings_point_at_user_line(n):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(n):
            warnings.warn(f"careful {i}", UserWarning)
    return [(os.path.basename(w.filename), w.lineno, str(w.message)) for w in caught]


@case((3,),)
def logging_records_user_location(x):
    CORPUS_LOG_HANDLER.records.clear()
    corpus_logger.info("value is %s", x)
    if x > 1:
        corpus_logger.warning("big value")
    return list(CORPUS_LOG_HANDLER.records)


@case((1,),)
def caller_introspection(x):
    return who_called_me(), sys._getframe().f_code.co_name, x


@case((5,),)
def calling_errors(x):
    def takes_one(a):
        return a

    try:
        takes_one(x, x)
    except TypeError as e:
        first = str(e)
    return first, x()


# --- more larger functions ------------------------------------------------------------------

@case(("aaabccddddde",), ("",), ("x",))
def run_length_encode(text):
    if not text:
        return []
    runs = []
    current = text[0]
    count = 1
    for ch in text[1:]:
        if ch == current:
            count += 1
            continue
        runs.append((current, count))
        current = ch
        count = 1
    runs.append((current, count))
    longest = max(runs, key=lambda run: run[1])
    print("longest run:", longest)
    return runs


@case(([[1, 2], [3, 4]], [[5, 6], [7, 8]]), ([[1, 2, 3]], [[1], [2]]))
def matrix_multiply_loops(a, b):
    rows, inner, cols = len(a), len(b), len(b[0])
    if len(a[0]) != inner:
        raise ValueError(f"shapes {rows}x{len(a[0])} and {inner}x{cols} do not align")
    result = []
    for i in range(rows):
        row = []
        for j in range(cols):
            total = 0
            k = 0
            while k < inner:
                total += a[i][k] * b[k][j]
                k += 1
            row.append(total)
        result.append(row)
    return result


@case(("push 3; push 4; add; print; push 10; mul; print",), ("pop",), ("push 1; jump",))
def tiny_stack_machine(program):
    stack = []
    output = []
    for number, instruction in enumerate(program.split(";"), start=1):
        op, _, arg = instruction.strip().partition(" ")
        match op:
            case "push":
                stack.append(int(arg))
            case "add" | "mul":
                if len(stack) < 2:
                    raise CorpusError(f"{op} needs two values", number)
                b, a = stack.pop(), stack.pop()
                stack.append(a + b if op == "add" else a * b)
            case "print":
                output.append(stack[-1])
                print("out:", stack[-1])
            case "pop":
                stack.pop()
            case _:
                raise CorpusError(f"unknown op {op!r}", number, payload=instruction)
    return output, stack


@case((0,), (13,), (23,), (99,))
def long_elif_chain(code):
    if code == 0:
        name = "zero"
    elif code == 1:
        name = "code1"
    elif code == 2:
        name = "code2"
    elif code == 3:
        name = "code3"
    elif code == 4:
        name = "code4"
    elif code == 5:
        name = "code5"
    elif code == 6:
        name = "code6"
    elif code == 7:
        name = "code7"
    elif code == 8:
        name = "code8"
    elif code == 9:
        name = "code9"
    elif code == 10:
        name = "code10"
    elif code == 11:
        name = "code11"
    elif code == 12:
        name = "code12"
    elif code == 13:
        name = "code13"
    elif code == 14:
        name = "code14"
    elif code == 15:
        name = "code15"
    elif code == 16:
        name = "code16"
    elif code == 17:
        name = "code17"
    elif code == 18:
        name = "code18"
    elif code == 19:
        name = "code19"
    elif code == 20:
        name = "code20"
    elif code == 21:
        name = "code21"
    elif code == 22:
        name = "code22"
    elif code == 23:
        name = "code23"
    else:
        name = "unknown"
    return name


@case((2,),)
def deeply_nested_loops(n):
    total = 0
    for a in range(n):
        for b in range(n):
            i = 0
            while i < n:
                for c in range(n):
                    if (a + b + c + i) % 3 == 0:
                        continue
                    for d in range(n):
                        if d > c:
                            break
                        total += a * b + c * d + i
                i += 1
    return total


@case((100,), (7,))
def number_to_words_loop(n):
    ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    words = []
    digits = str(n)
    i = 0
    while i < len(digits):
        digit = int(digits[i])
        if digit == 0 and words and i == len(digits) - 1:
            words.append("(zero)")
        elif digit == 0:
            words.append("nought")
        else:
            words.append(ones[digit])
        i += 1
    else:
        words.append(f"[{len(digits)} digits]")
    joined = " ".join(words)
    assert joined, "no words"
    return joined


# --- entries that are not plain functions -----------------------------------------------------

register(lambda x, y=2: x ** y if x > 0 else -x, "lambda_entry", (3,), (-3,), (2, 3))
register(functools.partial(nested_if_early_return, 4), "partial_entry", (2,), (-2,))
register(Polynomial(2, 0, -1), "callable_object_entry", (3,), (0,))
register(Square(3).describe, "bound_method_entry", ())
register(Square.of_area, "classmethod_entry", (10,))
register(greet_twice, "decorated_entry", (2,))


# --- staged statements in `with`/`except` bodies; possibly-defined state; free `print` ---------

@case((np.float64(2.0),), (np.float64(-1.0),))
def staged_if_inside_with(x):
    with np.errstate(all="ignore"):
        if x > 0:
            y = np.log(x)
        else:
            y = x
    return y


@case((np.float64(2.0),), (np.float64(-1.0),))
def staged_if_inside_except_handler(x):
    try:
        {}["missing"]
    except KeyError:
        if x > 0:
            y = x * 2
        else:
            y = -x
    return y


@case((np.int64(3), True), (np.int64(-3), 1))
def staged_if_on_possibly_defined_name(x, c):
    if c:
        y = 1
    if x > 0:
        y = 2
    return y


def _make_reporter(print):
    def reporter(x):
        print("value", x)
        return x + 1
    return reporter


register(_make_reporter(print), "closure_print_is_the_builtin", (1,))
register(_make_reporter(lambda *a: sys.stdout.write(f"custom {a}\n")),
         "closure_print_is_not_the_builtin", (2,))
