"""autograph in one screen: plain Python control flow, converted and staged.

Run:  python examples/demo.py
"""

import numpy as np

import autograph as ag


def collatz(n):
    """Number of Collatz steps from n down to 1."""
    count = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        count += 1
    return count


def count_up(n):
    print("tracing count_up")          # a Python print: runs while tracing only
    for i in range(n):                 # n is a graph tensor: one staged loop
        print("step", i)               # prints on every call, from the graph
    return n


def section(title):
    print()
    print(f"== {title} " + "=" * (60 - len(title)))


def main():
    section("1. Plain Python: the converted function is the function")
    converted = ag.to_graph(collatz)
    print("collatz(27)            ->", collatz(27))
    print("to_graph(collatz)(27)  ->", converted(27))

    section("2. What runs: ag.to_code(collatz)")
    print(ag.to_code(collatz))

    section("3. Staged: ag.function traces once, then runs the graph")
    staged = ag.function(collatz)
    for n in (27, 97, 871):
        print(f"staged(np.int64({n})) ->", staged(np.int64(n)))
    print("traces:", staged.experimental_get_tracing_count())
    print(staged.get_concrete_function(np.int64(27)).graph)

    section("4. Side effects: Python print at trace time, graph print every call")
    looped = ag.function(count_up)
    looped(np.int64(3))
    looped(np.int64(2))
    print("traces:", looped.experimental_get_tracing_count())


if __name__ == "__main__":
    main()
