"""Saving and loading graphs: time of `Function.save` and `ag.load` (which
checks every op, attribute and array, then compiles), and file sizes.

Run:  python benchmarks/bench_saveload.py        (a few seconds)

Graphs: chains of N tanh layers (matmul + add + tanh, 16x16 float32
weights held as constants) for N = 10, 100, 1000, so the time per op shows
whether saving and loading stay linear; and the Collatz while_loop with a
cond inside.  Best of 5 runs each.
"""

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import autograph as ag
from examples.classic import collatz  # the README's program, as users write it


def chain(layers):
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal((16, 16)).astype(np.float32) for _ in range(layers)]
    biases = [rng.standard_normal(16).astype(np.float32) for _ in range(layers)]

    def model(x):
        for w, b in zip(weights, biases):
            x = np.tanh(x @ w + b)
        return x

    return ag.function(model, autograph=False), (np.ones((8, 16), np.float32),)


def best(fn, rounds=5):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(name, function, args, ops):
    expected = function(*args)
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, name)
    save_time = best(lambda: function.save(path))
    load_time = best(lambda: ag.load(path))
    loaded = ag.load(path)
    np.testing.assert_array_equal(loaded(*args), expected)
    size = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
    print(f"{name:<16} {ops:>6} ops  save {save_time * 1e3:8.2f} ms  load {load_time * 1e3:8.2f} ms"
          f"  ({load_time / ops * 1e6:6.1f} us/op)  {size / 1024:8.1f} KiB")


def main():
    print("load = read + check every op, attribute and array + optimise + compile")
    for layers in (10, 100, 1000):
        function, args = chain(layers)
        measure(f"tanh_chain_{layers}", function, args, 3 * layers)
    staged = ag.function(collatz)
    measure("collatz", staged, (np.int64(27),), 7)


if __name__ == "__main__":
    main()
