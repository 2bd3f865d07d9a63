"""autograph in one screen: plain Python control flow, converted.

Run:  python examples/demo.py
"""

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


def sum_even(items):
    total = 0
    for x in items:
        if x % 2 == 1:
            continue
        total += x
    return total


def main():
    converted = ag.to_graph(collatz)
    print("collatz(27), original :", collatz(27))
    print("collatz(27), converted:", converted(27))
    print()
    print("What ag.to_graph(collatz) runs (ag.to_code):")
    print(ag.to_code(collatz))
    print("sum_even([1, 2, 3, 4]) converted:", ag.to_graph(sum_even)([1, 2, 3, 4]))


if __name__ == "__main__":
    main()
