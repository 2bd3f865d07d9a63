"""The classic AutoGraph programs, staged into graphs by `ag.function`.

Run it:  python examples/classic.py

For each program: its generated code (`ag.to_code`), the graph traced for one
signature (`fn.get_concrete_function(...).graph`), and calls with several
values -- traced once, run as a graph after that.
"""

import numpy as np

import autograph as ag


def collatz(n):
    """Steps of the Collatz sequence from n down to 1."""
    count = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        count += 1
    return count


def sum_even(items):
    """Sum of the even items, skipping odd ones with `continue`."""
    s = 0
    for c in items:
        if c % 2 > 0:
            continue
        s += c
    return s


def fizzbuzz_count(n):
    """How many of 1..n FizzBuzz would call Fizz, Buzz and FizzBuzz."""
    fizz = buzz = fizzbuzz = 0
    for i in range(1, n + 1):
        if i % 15 == 0:
            fizzbuzz += 1
        elif i % 3 == 0:
            fizz += 1
        elif i % 5 == 0:
            buzz += 1
    return fizz, buzz, fizzbuzz


def count_to(n):
    """A staged print runs on every call; Python's print only while tracing."""
    print("tracing")
    for i in range(n):
        print(i)
    return n


def show(title, fn, example, calls):
    print("=" * 72)
    print(title)
    print("=" * 72)
    print("--- ag.to_code ---")
    print(ag.to_code(fn))
    staged = ag.function(fn)
    print("--- graph ---")
    print(staged.get_concrete_function(*example).graph)
    print("--- calls ---")
    for args in calls:
        result = staged(*args)
        print(f"{fn.__name__}{tuple(args)!r} = {result!r}   (plain Python: {fn(*args)!r})")
    print(f"traced {staged.experimental_get_tracing_count()} time(s)\n")


def main():
    show("Collatz step count", collatz, (np.int64(27),),
         [(np.int64(27),), (np.int64(97),), (np.int64(1),)])
    show("sum_even with continue", sum_even, (np.arange(10),),
         [(np.arange(10),), (np.array([2, 2, 3, 3, 4, 4, 5, 5, 6, 7]),)])
    show("FizzBuzz counting", fizzbuzz_count, (np.int64(15),),
         [(np.int64(15),), (np.int64(100),)])

    print("=" * 72)
    print("print inside a staged loop")
    print("=" * 72)
    print("--- ag.to_code ---")
    print(ag.to_code(count_to))
    staged = ag.function(count_to)
    for call in range(1, 4):
        print(f"--- call {call}: count_to(3) ---")
        staged(np.int64(3))
    print("--- graph ---")
    print(staged.get_concrete_function(np.int64(3)).graph)
    print(f"traced {staged.experimental_get_tracing_count()} time(s)")


if __name__ == "__main__":
    main()
