"""Graph engine benchmark: eager numpy vs `ag.function` on the same numpy code.

Run:  python benchmarks/bench_graph.py        (about 30-60 s)

Models (each written once, in plain numpy; weights are numpy arrays the
function closes over, so the graph holds them as constants):

* dense_softmax: a [60, 28, 28] float32 batch, flattened to [60, 784], then
  dense layers of widths 10, 20 and 30 (784->10->20->30, ReLU between) and a
  softmax over the 30 outputs.  (Our reading of "the dense 10->20->30
  softmax model": the three widths are the layer outputs.)
* mlp_tanh_10: ten tanh layers of 16x16 weights plus bias on an [8, 16] batch
  (many small ops: where per-op Python overhead dominates).
* repeated_subexpr: a function that recomputes the same matmul/tanh several
  times, as code written for readability does; CSE computes it once.
* per-call overhead: `x + sum of the leaves` for arguments that are one array,
  a numpy scalar, or a list/tuple/dict of 1 or 20 arrays (4 float64 each):
  time per call of the Function and of its ConcreteFunction minus the time of
  the compiled graph alone (`concrete._fn(*leaves)`), i.e. what signature
  checks and dispatch add above the kernels (target: <= 1 us, issue 10).

First the issue-10 table (benchmarks/workloads.py: every workload of the
issue, eager and staged side by side, with ratios and first-call times), then
steady-state time per call (eager and staged runs alternate; the
best of 30 rounds counts, which filters out load from other processes), the ratio staged/eager (target: <= 1.1 on the first two), and
first-call latency (trace + optimise + compile) for chains of 10 to 10,000
ops with the time per op, which must stay flat (linear growth).
"""

import sys
import time
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autograph.graph import function, signature

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads

from workloads import RNG, _weights, dense_softmax  # the one copy of the seed's model


# --- models ---------------------------------------------------------------------

MLP = [(_weights((16, 16)), np.full(16, 0.1, np.float32)) for _ in range(10)]


def mlp_tanh_10(x):
    for w, b in MLP:
        x = np.tanh(x @ w + b)
    return x


W_REP = _weights((64, 64))


def repeated_subexpr(x):
    hidden = np.tanh(x @ W_REP)
    gate = 1 / (1 + np.exp(-(x @ W_REP)))
    score = np.tanh(x @ W_REP).sum(axis=1, keepdims=True)
    norm = np.sqrt((np.tanh(x @ W_REP) ** 2).sum(axis=1, keepdims=True))
    return hidden * gate + score / (norm + 1e-6) + np.tanh(x @ W_REP)


# --- timing ---------------------------------------------------------------------


def steady_state():
    cases = [
        ("dense_softmax", dense_softmax, (RNG.standard_normal((60, 28, 28)).astype(np.float32),)),
        ("mlp_tanh_10", mlp_tanh_10, (RNG.standard_normal((8, 16)).astype(np.float32),)),
        ("repeated_subexpr", repeated_subexpr, (RNG.standard_normal((32, 64)).astype(np.float32),)),
    ]
    rows = []
    for name, fn, args in cases:
        staged = function(fn, autograph=False)
        np.testing.assert_allclose(staged(*args), fn(*args), rtol=1e-5, atol=1e-6)
        eager_t, staged_t = workloads.per_call_pair(fn, staged, args, rounds=30, budget=1.5)
        report = staged.get_concrete_function(*args).report
        nodes = len(staged.get_concrete_function(*args).graph.nodes)
        rows.append((name, eager_t, staged_t, staged_t / eager_t, nodes, report))
    return rows


def _add_all(x, leaves):
    for leaf in leaves:
        x = x + leaf
    return x


def _add_values(x, leaves):
    return _add_all(x, [leaves[k] for k in sorted(leaves)])


def per_call_overhead(rounds=40, number=400):
    """(label, kernel s, Function s, ConcreteFunction s) per argument form; the
    three timings alternate, best round each."""
    x = np.ones(4)
    forms = [("one array", lambda x: x + 1.0, (x,)),
             ("np.float64 scalar", lambda x: x + 1.0, (np.float64(2.0),))]
    for n in (1, 20):
        arrays = [np.full(4, float(i)) for i in range(n)]
        forms += [(f"list of {n}", _add_all, (x, arrays)),
                  (f"tuple of {n}", _add_all, (x, tuple(arrays))),
                  (f"dict of {n}", _add_values, (x, {f"k{i}": a for i, a in enumerate(arrays)}))]
    rows = []
    for label, fn, args in forms:
        staged = function(fn, autograph=False)
        staged(*args)
        concrete = staged.get_concrete_function(*args)
        concrete(*args)
        kernels = concrete._fn
        leaves = []
        signature.call_key(args, {}, leaves, [])  # the graph's inputs, in order
        timers = [timeit.Timer(lambda: kernels(*leaves)), timeit.Timer(lambda: staged(*args)),
                  timeit.Timer(lambda: concrete(*args))]
        best = [float("inf")] * 3
        for _ in range(rounds):
            for i, timer in enumerate(timers):
                best[i] = min(best[i], timer.timeit(number) / number)
        rows.append((label, *best))
    return rows


def chain(n_ops):
    def fn(x):
        for i in range(n_ops // 2):
            x = x * 1.0001 + (i % 7)
        return x
    return fn


def first_call_latency(sizes=(10, 100, 1000, 10000)):
    rows = []
    x = np.ones(4)
    for n in sizes:
        best = None
        for _ in range(5 if n <= 1000 else 3):
            staged = function(chain(n), autograph=False)
            start = time.perf_counter()
            staged(x)
            elapsed = time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
        nodes = len(staged.get_concrete_function(x).graph.nodes)
        rows.append((n, nodes, best, best / n))
    return rows


def main():
    start = time.perf_counter()
    workloads.print_issue_table()
    print()
    print("Steady-state time per call (eager numpy vs ag.function, same numpy code)")
    print(f"{'model':<18}{'eager':>12}{'ag.function':>14}{'ratio':>8}  {'graph':>7}  optimiser")
    for name, eager_t, staged_t, ratio, nodes, report in steady_state():
        print(f"{name:<18}{eager_t * 1e6:>10.1f}us{staged_t * 1e6:>12.1f}us{ratio:>8.2f}  "
              f"{nodes:>5} n  merged={report.merged} folded={report.folded} "
              f"removed={report.removed}")
    print("target: ratio <= 1.10 for dense_softmax and mlp_tanh_10; < 1 where CSE applies")
    print()
    print("Per-call overhead above the kernels (issue 10, item 3; target <= 1 us)")
    print(f"{'arguments':<20}{'kernels':>10}{'Function':>12}{'Concrete':>12}")
    for label, kernel_t, function_t, concrete_t in per_call_overhead():
        print(f"{label:<20}{kernel_t * 1e6:>8.2f}us{(function_t - kernel_t) * 1e6:>+10.2f}us"
              f"{(concrete_t - kernel_t) * 1e6:>+10.2f}us")
    print("(x + each array; Function/Concrete columns: time above the compiled graph alone)")
    print()
    print("First-call latency (trace + optimise + compile) vs graph size")
    print(f"{'ops':>8}{'nodes':>8}{'first call':>14}{'per op':>12}")
    for n, nodes, total, per_op in first_call_latency():
        print(f"{n:>8}{nodes:>8}{total * 1e3:>12.2f}ms{per_op * 1e6:>10.1f}us")
    print("linear growth means a flat 'per op' column (small graphs carry fixed costs)")
    print(f"\n(benchmark ran in {time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
