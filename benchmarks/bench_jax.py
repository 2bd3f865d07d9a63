"""The JAX backend: `jax.jit(ag.to_graph(f))` against the same program written
by hand with `jax.lax`, and against the Python function run eagerly on JAX
arrays.

Run:  python benchmarks/bench_jax.py        (about a minute; needs the jax extra)

Programs: Collatz (a `while` with an `if`), a sum_even-style loop (`for` over
an array with `if`/`continue`) and a 200-step training loop (examples/
jax_train.py: `for` over a traced step count, `jax.value_and_grad` inside,
`if loss < target: break`).  Measured in this one run, time.perf_counter
throughout:

  * steady state: one call of the compiled function (block_until_ready),
    best of REPEATS batches, for autograph's and the hand-written version,
    and their ratio (target <= 1.05);
  * compile: trace + lower + XLA compile of a fresh `jax.jit` (median of
    COMPILES), both versions and the ratio (target <= 1.2); autograph's
    conversion (`ag.to_graph`, once per function, then cached) is printed
    apart;
  * eager: the plain Python function called on JAX arrays, op by op (no jit),
    and its time over autograph's steady state;
  * the guard: with the JAX backend loaded, a converted function called on
    Python values runs its original body after one test of `ag__.tracing`
    (a list that JAX's wrapped trace switch fills while JAX traces: no call
    per test); per-call time of converted vs original on small corpus
    functions (target <= 1.1).

When TensorFlow is installed, the same programs are timed with
`tf.function` (TensorFlow's AutoGraph) too; it is not installed here, which
the output says.
"""

import contextlib
import importlib.util
import inspect
import io
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import autograph as ag  # noqa: E402
from examples import jax_train  # noqa: E402
from examples.classic import collatz, sum_even  # noqa: E402 (the README's programs)

REPEATS = 7
COMPILES = 3
GUARD_CASES = 60
GUARD_CALLS = 2000


# --- the same programs written by hand with lax -------------------------------------------

def collatz_lax(n):
    def test(state):
        return state[0] != 1

    def body(state):
        n, steps = state
        return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), steps + 1
    return lax.while_loop(test, body, (n, jnp.asarray(0, n.dtype)))[1]


def sum_even_lax(xs):
    def step(s, x):
        return s + jnp.where(x % 2 == 0, x, 0), None
    return lax.scan(step, jnp.asarray(0, xs.dtype), xs)[0]


def train_lax(params, x, y, steps, target_loss):
    def test(state):
        step, _, _, stopped = state
        return jnp.logical_and(step < steps, jnp.logical_not(stopped))

    def body(state):
        step, params, history, _ = state
        loss, grads = jax.value_and_grad(jax_train.loss_fn)(params, x, y)
        history = history.at[step].set(loss)
        stop = loss < target_loss

        def report():
            jax.debug.callback(lambda s, v: print("early stop at step", s, "with loss", v),
                               step, loss)
        lax.cond(stop, report, lambda: None)
        params = lax.cond(stop, lambda p: p, lambda p: jax.tree_util.tree_map(
            lambda a, g: a - jax_train.LEARNING_RATE * g, p, grads), params)
        return step + 1, params, history, stop

    init = (jnp.asarray(0), params, jnp.full(jax_train.MAX_STEPS, jnp.nan), jnp.asarray(False))
    _, params, history, _ = lax.while_loop(test, body, init)
    return params, history


# --- timing -----------------------------------------------------------------------------------

def _block(value):
    return jax.block_until_ready(value)


def steady_seconds(fns, args, calls):
    """Best per-call time of each of `fns`, measured in alternating batches
    (so that load from other processes hits them alike)."""
    for fn in fns:
        _block(fn(*args))
    best = [float("inf")] * len(fns)
    for _ in range(REPEATS):
        for k, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(calls):
                _block(fn(*args))
            best[k] = min(best[k], (time.perf_counter() - start) / calls)
    return best


def compile_seconds(fn, args):
    times = []
    for _ in range(COMPILES):
        start = time.perf_counter()
        jax.jit(lambda *a: fn(*a)).lower(*args).compile()  # a fresh function: no cache hit
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def conversion_seconds(fn):
    start = time.perf_counter()
    ag.to_graph(fn)
    return time.perf_counter() - start


def _fmt(seconds):
    if seconds < 1e-6:
        return f"{seconds * 1e9:7.0f} ns"
    if seconds >= 1:
        return f"{seconds:7.2f} s "
    if seconds >= 1e-3:
        return f"{seconds * 1e3:7.2f} ms"
    return f"{seconds * 1e6:7.1f} us"


def _mark(ratio, target):
    return "PASS" if ratio <= target else "MISS"


def bench_program(label, fn, hand, args, eager_args, calls, eager_calls):
    convert = conversion_seconds(fn)
    ours = jax.jit(ag.to_graph(fn))
    theirs = jax.jit(hand)
    ours_steady, hand_steady = steady_seconds([ours, theirs], args, calls)
    ours_compile = compile_seconds(ag.to_graph(fn), args)
    hand_compile = compile_seconds(hand, args)
    (eager,) = steady_seconds([fn], eager_args, eager_calls)
    steady_ratio, compile_ratio = ours_steady / hand_steady, ours_compile / hand_compile
    print(f"{label}")
    print(f"  steady state : autograph {_fmt(ours_steady)}  lax by hand {_fmt(hand_steady)}  "
          f"ratio {steady_ratio:5.2f}  (target <= 1.05: {_mark(steady_ratio, 1.05)})")
    print(f"  compile      : autograph {_fmt(ours_compile)}  lax by hand {_fmt(hand_compile)}  "
          f"ratio {compile_ratio:5.2f}  (target <= 1.20: {_mark(compile_ratio, 1.2)}); "
          f"ag.to_graph once: {_fmt(convert)}")
    print(f"  eager JAX    : {_fmt(eager)} per call, {eager / ours_steady:7.1f}x autograph's "
          "steady state")


def _per_call(fn, args, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    return (time.perf_counter() - start) / calls


def bench_guard():
    """Plain-Python calls of converted functions with the JAX backend loaded."""
    from autograph.backends import jax as jax_backend  # noqa: F401 (loaded: JAX's switch reports)
    from tests.corpus import programs

    immutable = (int, float, str, bool, tuple, type(None))  # repeated calls stay the same
    chosen = [c for c in programs.CASES if c.index == 0 and not c.call.kwargs
              and type(c.entity).__name__ == "function"
              and all(type(a) in immutable for a in c.call.args)][:GUARD_CASES]
    ratios, shown = [], 0
    for case in chosen:
        fn, args = case.entity, case.call.args
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                converted = ag.to_graph(fn)
                result = fn(*args)
            except Exception:  # noqa: BLE001 - cases that raise on purpose are not timed
                continue
            if inspect.isgenerator(result) or inspect.iscoroutine(result):
                result.close()
                continue
            original = min(_per_call(fn, args, GUARD_CALLS) for _ in range(REPEATS))
            ours = min(_per_call(converted, args, GUARD_CALLS) for _ in range(REPEATS))
        ratios.append(ours / original)
        if shown < 4:
            shown += 1
            print(f"  {case.name:30} original {_fmt(original)}  converted {_fmt(ours)}")
    if ratios:
        median = statistics.median(ratios)
        print(f"  over {len(ratios)} corpus functions: converted/original median "
              f"{median:5.2f} (target <= 1.10: {_mark(median, 1.1)}), max {max(ratios):5.2f}")


def main():
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}, "
          f"{len(jax.devices())} device(s)")
    n = jnp.asarray(27)
    bench_program("Collatz(27) (while + if)", collatz, collatz_lax, (n,), (n,), 2000, 3)
    xs = jnp.arange(1000)
    bench_program("sum_even over 1000 items (for + if/continue)", sum_even, sum_even_lax,
                  (xs,), (xs[:100],), 2000, 2)
    print("  (eager JAX timed on the first 100 items only; x10 for the same work)")
    x, y = jax_train.spirals()
    params = jax_train.init_params()
    args = (params, jnp.asarray(x), jnp.asarray(y), 200, 0.0)
    bench_program("training loop, 200 steps (for + value_and_grad + if/break)",
                  jax_train.train, train_lax, args, args, 5, 1)
    print("guard: plain-Python calls of converted functions, JAX backend loaded")
    bench_guard()
    if importlib.util.find_spec("tensorflow") is None:
        print("TensorFlow is not installed: no tf.function comparison in this run")
    else:
        print("TensorFlow is installed, but the tf.function comparison is not written yet")


if __name__ == "__main__":
    main()
