"""Per-iteration cost of a staged `while` loop (ag.function) against the same
loop run eagerly (the plain Python function on numpy values, and on Python
floats where that makes sense).

Run:  python benchmarks/bench_staged.py        (well under a minute)

First the issue-10 table (benchmarks/workloads.py: every workload of the
issue side by side with eager numpy, with ratios and first-call times); then
one row per loop: microseconds per iteration for each way of running
it, and the eager/staged ratio.  Tracing is excluded (the function is called
once before timing); every timing is the best of several repeats.
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads

import autograph as ag

REPEATS = 5


def scalar_loop(x, n):
    i = 0
    while i < n:
        x = x * 0.5 + 1.0
        i += 1
    return x


def scalar_branchy_loop(x, n):
    i = 0
    while i < n:
        if x > 1.5:
            x = x * 0.5
        else:
            x = x + 1.0
        i += 1
    return x


def array_loop(x, n):
    i = 0
    while i < n:
        x = np.tanh(x) * 0.5 + 0.1
        i += 1
    return x


def best_time(fn, *args):
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def measure(label, fn, x, iterations, python_x=None):
    staged = ag.function(fn)
    n = np.int64(iterations)
    staged(x, n)  # trace and compile once
    assert staged.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(staged(x, n), fn(x, n))
    row = {
        "loop": label,
        "iterations": iterations,
        "staged": best_time(staged, x, n) / iterations * 1e6,
        "eager numpy": best_time(fn, x, n) / iterations * 1e6,
    }
    if python_x is not None:
        row["eager Python"] = best_time(fn, python_x, iterations) / iterations * 1e6
    return row


def sum_items(items):
    s = items[0] * 0
    for c in items:
        s += c
    return s


def measure_elements(label, items):
    """A loop over the elements of a 1-d array (the element loop)."""
    staged = ag.function(sum_items)
    staged(items)
    assert np.asarray(staged(items)).tobytes() == np.asarray(sum_items(items)).tobytes()
    n = len(items)
    return {"loop": label, "iterations": n,
            "staged": best_time(staged, items) / n * 1e6,
            "eager numpy": best_time(sum_items, items) / n * 1e6,
            "eager Python": best_time(sum_items, items.tolist()) / n * 1e6}


def main():
    workloads.print_issue_table()
    print()
    rows = [
        measure("scalar x*0.5+1 (float64)", scalar_loop, np.float64(1.0), 100000, 1.0),
        measure("scalar with if/else", scalar_branchy_loop, np.float64(1.0), 100000, 1.0),
        measure("array tanh, size 4", array_loop, np.ones(4), 50000),
        measure("array tanh, size 64", array_loop, np.ones(64), 50000),
        measure("array tanh, size 1024", array_loop, np.ones(1024), 10000),
        measure_elements("for c in int64[10000]", np.arange(10000)),
        measure_elements("for c in float32[10000]", np.linspace(0, 1, 10000, dtype=np.float32)),
    ]
    header = f"{'loop':28} {'iters':>6} {'staged us/it':>13} {'eager numpy':>12} " \
             f"{'eager Python':>13} {'numpy/staged':>13}"
    print(header)
    print("-" * len(header))
    for row in rows:
        python = f"{row['eager Python']:13.3f}" if "eager Python" in row else f"{'-':>13}"
        print(f"{row['loop']:28} {row['iterations']:6d} {row['staged']:13.3f} "
              f"{row['eager numpy']:12.3f} {python} "
              f"{row['eager numpy'] / row['staged']:12.2f}x")


if __name__ == "__main__":
    main()
