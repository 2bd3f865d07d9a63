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
  checks and dispatch add above the kernels (target: <= 1 us, issue 10);
  once with the guards' array test in C (graph/leaf_check.py, when the
  extension is built) and once in pure Python, each table saying which.

First the issue-10 table (benchmarks/workloads.py: every workload of the
issue, eager and staged side by side, with ratios and first-call times), then
steady-state time per call (eager and staged runs alternate; the
best of 30 rounds counts, which filters out load from other processes), the ratio staged/eager (target: <= 1.1 on the first two), and
first-call latency (trace + optimise + compile) for chains of 10 to 10,000
ops with the time per op, which must stay flat (linear growth).
"""

import os
import sys
import time
import timeit
import types
from operator import attrgetter
from pathlib import Path

import numpy as np

# First calls here convert (workloads.first_call clears the in-memory
# conversion caches): the on-disk cache would load instead (its figures:
# bench_first_call.py).
os.environ["AUTOGRAPH_CACHE_DIR"] = "off"

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autograph.graph import function, leaf_check, signature

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads

from workloads import RNG, _weights, dense_softmax  # the one copy of the seed's model


# --- models ---------------------------------------------------------------------

MLP = [(_weights((16, 16)), np.full(16, 0.1, np.float32)) for _ in range(10)]


def mlp_tanh_10(x):
    for w, b in MLP:
        x = np.tanh(x @ w + b)
    return x


class _Dense:
    def __init__(self, w, b):
        self.w, self.b = w, b


# the dense model's weights held in layer objects of a global model object, as
# a training loop keeps them (guards.py watches MODEL.layers[i].w along the path)
DENSE_MODEL = types.SimpleNamespace(layers=[_Dense(w, b) for w, b in workloads.DENSE])


def dense_objects(images):
    x = images.reshape(images.shape[0], -1)
    for i, layer in enumerate(DENSE_MODEL.layers):
        x = x @ layer.w + layer.b
        if i < len(DENSE_MODEL.layers) - 1:
            x = np.maximum(x, 0)
    z = x - x.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


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


def _guards_made_with(leaves_ok, make):
    """make() with the call guards it makes written for `leaves_ok` (the C
    leaf check, or None: pure Python; leaf_check.py)."""
    saved, leaf_check.leaves_ok = leaf_check.leaves_ok, leaves_ok
    try:
        return make()
    finally:
        leaf_check.leaves_ok = saved


def per_call_overhead(rounds=40, number=400, leaves_ok=leaf_check.leaves_ok):
    """(label, kernel s, Function s, ConcreteFunction s) per argument form,
    with guards written for `leaves_ok` (see _guards_made_with); the three
    timings alternate, best round each."""
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
        def make():
            staged = function(fn, autograph=False)
            staged(*args)
            staged(*args)  # (the second call makes the fast call and its guard)
            concrete = staged.get_concrete_function(*args)
            concrete(*args)
            return staged, concrete
        staged, concrete = _guards_made_with(leaves_ok, make)
        kernels = concrete._fn
        leaves = []
        signature.call_key(args, {}, leaves, [])  # the graph's inputs, in order
        uses_c = leaves_ok is not None and any(type(leaf) is np.ndarray for leaf in leaves)
        for entry in (staged._entries[0], concrete._entry):  # (the path measured)
            assert ("_leaves_ok" in entry.__globals__) == uses_c, label
        timers = [timeit.Timer(lambda: kernels(*leaves)), timeit.Timer(lambda: staged(*args)),
                  timeit.Timer(lambda: concrete(*args))]
        best = [float("inf")] * 3
        for _ in range(rounds):
            for i, timer in enumerate(timers):
                best[i] = min(best[i], timer.timeit(number) / number)
        rows.append((label, *best))
    return rows


def _best_of(functions, rounds=15, number=2000):
    """Seconds per call of each zero-argument function (alternating, best round)."""
    best = [float("inf")] * len(functions)
    for _ in range(rounds):
        for i, fn in enumerate(functions):
            best[i] = min(best[i], timeit.Timer(fn).timeit(number) / number)
    return best


def _generated(body, namespace):
    """A function `f(xs)` with `body` (source lines), as the guards are built."""
    namespace = dict(namespace)
    exec("def f(xs):\n" + "".join(f"    {line}\n" for line in body), namespace)  # noqa: S102
    return namespace["f"]


def guard_floor(n=20):
    """What an exact check of n array leaves costs in this Python and numpy,
    spelled as the entry spells it and in the bulk forms that look cheaper
    (each form checked to return True here): ns per call of f(list of n)."""
    xs = [np.full(4, float(i)) for i in range(n)]
    names = [f"x{i}" for i in range(n)]
    unpack = ", ".join(names) + ", = xs"
    namespace = {"_nd": np.ndarray, "_D": xs[0].dtype, "_T": [np.ndarray] * n,
                 "_S": [(4,)] * n, "_DT": [xs[0].dtype] * n, "_shape": attrgetter("shape"),
                 "_dtype": attrgetter("dtype"), "_both": attrgetter("shape", "dtype"),
                 "_SD": [((4,), xs[0].dtype)] * n}

    def inline(test):
        return [unpack, "return " + " and ".join(test.format(x=x) for x in names)]
    forms = [
        ("unpacking alone", [unpack, "return True"]),
        ("type(x) is ndarray", inline("type({x}) is _nd")),
        ("+ x.dtype is D", inline("type({x}) is _nd and {x}.dtype is _D")),
        ("+ x.shape == S (the pure-Python entry's)",
         inline("type({x}) is _nd and {x}.shape == (4,) and {x}.dtype is _D")),
        ("x.ndim == 1 and len(x) == 4 for the shape",
         inline("type({x}) is _nd and {x}.ndim == 1 and len({x}) == 4 and {x}.dtype is _D")),
        ("[*map(type, xs)] == T", ["return [*map(type, xs)] == _T"]),
        ("[*map(attrgetter('shape'), xs)] == S", ["return [*map(_shape, xs)] == _S"]),
        ("[*map(attrgetter('dtype'), xs)] == D", ["return [*map(_dtype, xs)] == _DT"]),
        ("the three map forms", ["return [*map(type, xs)] == _T and [*map(_shape, xs)] == _S "
                                 "and [*map(_dtype, xs)] == _DT"]),
        ("[*map(attrgetter('shape', 'dtype'), xs)]", ["return [*map(_both, xs)] == _SD"]),
    ]
    if leaf_check.leaves_ok is not None:  # what the guards use when the extension is built
        namespace.update(_leaves_ok=leaf_check.leaves_ok,
                         _spec=leaf_check.spec([(4,)] * n, [xs[0].dtype] * n))
        forms.append(("one C call: leaf_check (the built entry's)",
                      [unpack, f"return _leaves_ok(_spec, {', '.join(names)})"]))
    functions = [_generated(body, namespace) for _, body in forms]
    for (label, _), fn in zip(forms, functions):
        assert fn(xs) is True, label
    times = _best_of([lambda fn=fn: fn(xs) for fn in functions])
    return [(label, t) for (label, _), t in zip(forms, times)]


def contents_floor():
    """Comparing the bytes of watched arrays with those saved at tracing:
    mlp_tanh_10's twenty (ten [16,16] float32, ten [16]) and the dense
    model's [784,10] float32 (31 kB); ns per comparison of all of them."""
    mlp = [a for pair in MLP for a in pair]
    big = [workloads.DENSE[0][0]]
    rows = []
    for label, arrays in (("mlp_tanh_10's 20 arrays", mlp), ("one [784,10] float32", big)):
        saved = [a.tobytes() for a in arrays]
        joined, snapshot = tuple(arrays), b"".join(saved)
        pairs = list(zip(arrays, saved))
        copies = [(a, a.copy()) for a in arrays]
        forms = [("a.tobytes() == saved, each", lambda: all(a.tobytes() == b for a, b in pairs)),
                 ("saved.startswith(a), each", lambda: all(b.startswith(a) for a, b in pairs)),
                 ('b"".join(arrays) == snapshot', lambda: b"".join(joined) == snapshot),
                 ("np.array_equal(a, copy), each", lambda: all(np.array_equal(a, c)
                                                                for a, c in copies)),
                 ("(a == copy).all(), each (wrong for NaN)",
                  lambda: all((a == c).all() for a, c in copies))]
        for form, fn in forms:
            assert fn(), form
        times = _best_of([fn for _, fn in forms], number=300)
        rows += [(label, form, t) for (form, _), t in zip(forms, times)]
    return rows


def guard_share():
    """(model, eager s, kernels s, guard alone s, staged s): the staged call
    split into the compiled graph alone and its entry with the graph
    replaced by a no-op (the guard: argument and watched-global checks)."""
    rows = []
    for name, fn, x in [("dense_softmax", dense_softmax,
                         RNG.standard_normal((60, 28, 28)).astype(np.float32)),
                        ("dense_objects", dense_objects,
                         RNG.standard_normal((60, 28, 28)).astype(np.float32)),
                        ("mlp_tanh_10", mlp_tanh_10,
                         RNG.standard_normal((8, 16)).astype(np.float32))]:
        staged = function(fn, autograph=False)
        for _ in range(3):
            staged(x)
        kernels, entry = staged.get_concrete_function(x)._fn, staged._entries[0]
        namespace = entry.__globals__
        eager_t, kernels_t, staged_t = _best_of(
            [lambda: fn(x), lambda: kernels(x), lambda: staged(x)], rounds=20, number=200)
        namespace["_fn"] = lambda *leaves: (None,)
        try:
            guard_t, = _best_of([lambda: entry((x,))], number=2000)
        finally:
            namespace["_fn"] = kernels
        rows.append((name, eager_t, kernels_t, guard_t, staged_t))
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
    paths = [(leaf_check.status, leaf_check.leaves_ok)]
    if leaf_check.leaves_ok is not None:  # (the guards as they were without the extension)
        paths.append(("pure Python (forced)", None))
    for status, leaves_ok in paths:
        print(f"guards: {status}")
        print(f"{'arguments':<20}{'kernels':>10}{'Function':>12}{'Concrete':>12}")
        for label, kernel_t, function_t, concrete_t in per_call_overhead(leaves_ok=leaves_ok):
            print(f"{label:<20}{kernel_t * 1e6:>8.2f}us"
                  f"{(function_t - kernel_t) * 1e6:>+10.2f}us"
                  f"{(concrete_t - kernel_t) * 1e6:>+10.2f}us")
    print("(x + each array; Function/Concrete columns: time above the compiled graph alone)")
    print()
    print("Exact checks of 20 array leaves (list of float64[4]), ns per call; the floor")
    for label, t in guard_floor():
        print(f"  {label:<44}{t * 1e9:>8.0f} ns")
    print("Contents of watched arrays vs the bytes saved at tracing, ns")
    for label, form, t in contents_floor():
        print(f"  {label:<26}{form:<42}{t * 1e9:>8.0f} ns")
    print("Where a staged call of the models reading global weights goes")
    print(f"{'model':<18}{'eager':>10}{'kernels':>10}{'guard':>10}{'staged':>10}")
    for name, eager_t, kernels_t, guard_t, staged_t in guard_share():
        print(f"{name:<18}{eager_t * 1e6:>8.2f}us{kernels_t * 1e6:>8.2f}us"
              f"{guard_t * 1e6:>8.2f}us{staged_t * 1e6:>8.2f}us")
    print("(guard = the entry with the compiled graph replaced by a no-op)")
    print()
    print("First-call latency (trace + optimise + compile) vs graph size")
    print(f"{'ops':>8}{'nodes':>8}{'first call':>14}{'per op':>12}")
    for n, nodes, total, per_op in first_call_latency():
        print(f"{n:>8}{nodes:>8}{total * 1e3:>12.2f}ms{per_op * 1e6:>10.1f}us")
    print("linear growth means a flat 'per op' column (small graphs carry fixed costs)")
    print(f"\n(benchmark ran in {time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
