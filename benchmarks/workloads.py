"""The workloads of issue 10, each written once in plain numpy, run eagerly and
staged (`ag.function`) side by side; shared by bench_graph.py and bench_staged.py.

    table = issue_table()      # [(name, eager s, staged s, ratio, first call s)]

Timing: eager and staged runs alternate (both see the same machine load) and
the best of many rounds counts (the least disturbed one).  First call: a new
`ag.function` (conversion cache cleared) called once -- convert + trace +
optimise + compile + run; "(graph)": the same with the conversion cache warm
(trace + optimise + compile + run).  Each is also shown minus one steady
call: what staging adds to the run (a loop of 50 training steps cannot
have a first call shorter than its 50 steps).

Training: linear regression with hand-written gradients (200 steps in one
staged loop, the same code eagerly); examples/train_mlp.py's MLP (forward,
`ag.value_and_grad`, Adam): ONE training step (`mlp_train_step`, made of the
example's functions), and its loop of 50 steps in one staged call, against
the same eagerly in numpy with hand-written gradients.
"""

import contextlib
import importlib.util
import io
import statistics
import sys
import time
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import autograph as ag
from autograph import transpiler
from examples.classic import collatz, sum_even  # the README's programs, as users write them

RNG = np.random.default_rng(0)


def _weights(shape):
    return (RNG.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)


# --- the programs ------------------------------------------------------------------

DENSE = [(_weights((784, 10)), np.zeros(10, np.float32)),
         (_weights((10, 20)), np.zeros(20, np.float32)),
         (_weights((20, 30)), np.zeros(30, np.float32))]


def dense_softmax(images):
    """The seed's dense model: [60,28,28] -> 784->10->20->30 (ReLU), softmax."""
    x = images.reshape(images.shape[0], -1)
    for i, (w, b) in enumerate(DENSE):
        x = x @ w + b
        if i < len(DENSE) - 1:
            x = np.maximum(x, 0)
    z = x - x.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def mlp_tanh_list(x, weights):
    """Ten tanh layers; `weights` is a list [w0, b0, w1, b1, ...] passed per call."""
    for i in range(0, len(weights), 2):
        x = np.tanh(x @ weights[i] + weights[i + 1])
    return x


def linear_regression(x, y, w, b, steps, lr):
    """`steps` steps of gradient descent on mean squared error, gradients by hand."""
    scale = 2.0 / x.shape[0]
    for _ in range(steps):
        err = x @ w + b - y
        w = w - lr * (scale * (x.T @ err))
        b = b - lr * (scale * err.sum())
    return w, b


def _regression_data():
    x = RNG.standard_normal((64, 4))
    y = x @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.25
    return (x, y, np.zeros(4), np.float64(0.0), np.int64(200), 0.05)


MLP_WEIGHTS = []
for _ in range(10):
    MLP_WEIGHTS += [_weights((16, 16)), np.full(16, 0.1, np.float32)]

WORKLOADS = [
    ("dense softmax [60,28,28]", dense_softmax,
     (RNG.standard_normal((60, 28, 28)).astype(np.float32),)),
    ("10-layer tanh MLP [8,16], list", mlp_tanh_list,
     (RNG.standard_normal((8, 16)).astype(np.float32), MLP_WEIGHTS)),
    ("Collatz(27) int64", collatz, (np.int64(27),)),
    ("sum_even(np.arange(1000))", sum_even, (np.arange(1000),)),
    ("linreg 200 steps (training)", linear_regression, _regression_data()),
]


def _load_train_mlp():
    spec = importlib.util.spec_from_file_location(
        "train_mlp", Path(__file__).resolve().parents[1] / "examples" / "train_mlp.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


TRAIN_MLP = _load_train_mlp()


def mlp_train_step(params, m, v, x, y, t):
    """ONE step of examples/train_mlp.py's loop, from the example's own
    functions: forward and loss, ag.value_and_grad, the Adam update."""
    loss, grads = ag.value_and_grad(TRAIN_MLP.loss_fn)(params, x, y)
    params, m, v = TRAIN_MLP.adam(params, grads, m, v, t)
    return params, m, v, loss


def mlp_train_step_eagerly(params, m, v, x, y, t):
    """The same step in eager numpy, gradients by hand (as train_eagerly)."""
    loss, grads = TRAIN_MLP.loss_and_grads_by_hand(params, x, y)
    params, m, v = TRAIN_MLP.adam(params, grads, m, v, t)
    return params, m, v, loss


def _mlp_training_workloads():
    """examples/train_mlp.py: one training step, and the loop of 50 steps in
    one staged call; staged with ag.value_and_grad, eagerly with hand-written
    gradients (same numbers, see the example)."""
    x, y = TRAIN_MLP.spirals()
    params = TRAIN_MLP.init_params()
    zeros = {k: np.zeros_like(p) for k, p in params.items()}
    step_args = (params, zeros, dict(zeros), x, y, np.int64(1))
    steps = 50
    return [("MLP Adam, one step (train_mlp)", mlp_train_step, step_args,
             mlp_train_step_eagerly, step_args),
            ("MLP Adam 50 steps (train_mlp)", TRAIN_MLP.train.python_function,
             (params, x, y, np.int64(steps)), TRAIN_MLP.train_eagerly, (params, x, y, steps))]


WORKLOADS.extend(_mlp_training_workloads())


# --- timing ----------------------------------------------------------------------


def per_call_pair(eager, staged, args, rounds=25, budget=1.0, eager_args=None):
    """Seconds per call of both functions (alternating runs, best round)."""
    eager_args = args if eager_args is None else eager_args
    timers = [timeit.Timer(lambda: eager(*eager_args)), timeit.Timer(lambda: staged(*args))]
    number = 1
    while timers[0].timeit(number) < budget / rounds / 8:
        number *= 2
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, timer in enumerate(timers):
            best[i] = min(best[i], timer.timeit(number) / number)
    return best


def first_call(fn, args, repeats=11):
    """Times of a fresh ag.function's first call over `repeats` tries: (best
    with conversion, median with conversion, best without it -- the
    conversion cache warm: trace + optimise + run --, best of its second
    call, which compiles a graph the first call interpreted
    (docs/GRAPH_PERFORMANCE.md) and builds the fast-call guard).  The median
    says what a typical first call costs; the best, what it costs undisturbed."""
    colds, warm, second = [], float("inf"), float("inf")
    for _ in range(repeats):
        transpiler.clear_caches()
        staged = ag.function(fn)
        start = time.perf_counter()
        staged(*args)
        colds.append(time.perf_counter() - start)
        staged = ag.function(fn)
        start = time.perf_counter()
        staged(*args)
        warm = min(warm, time.perf_counter() - start)
        start = time.perf_counter()
        staged(*args)
        second = min(second, time.perf_counter() - start)
    return min(colds), statistics.median(colds), warm, second


def _same(a, b):
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.allclose(a, b, rtol=1e-5, atol=1e-6)


def issue_table():
    rows = []
    for name, fn, args, *eager in WORKLOADS:
        eager_fn, eager_args = eager or (fn, args)
        staged = ag.function(fn)
        with contextlib.redirect_stdout(io.StringIO()):  # train_mlp prints its loss
            if not _same(staged(*args), eager_fn(*eager_args)):
                raise AssertionError(f"{name}: staged result differs from eager numpy")
            eager_t, staged_t = per_call_pair(eager_fn, staged, args, eager_args=eager_args)
            cold_warm = first_call(fn, args)
        rows.append((name, eager_t, staged_t, staged_t / eager_t, cold_warm))
    return rows


# --- the same programs in jax.jit (when jax is installed) ---------------------------


def jax_programs():
    """{workload name: (jitted function, its arguments)}: each program written
    with jax.numpy and lax loops (the same algorithm, per element/iteration),
    int64 and float64 enabled to match numpy's dtypes."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    jax.config.update("jax_enable_x64", True)
    dense = [(jnp.asarray(w), jnp.asarray(b)) for w, b in DENSE]

    def dense_jax(images):
        x = images.reshape(images.shape[0], -1)
        for i, (w, b) in enumerate(dense):
            x = x @ w + b
            if i < len(dense) - 1:
                x = jnp.maximum(x, 0)
        z = x - x.max(axis=1, keepdims=True)
        e = jnp.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def mlp_jax(x, weights):
        for i in range(0, len(weights), 2):
            x = jnp.tanh(x @ weights[i] + weights[i + 1])
        return x

    def collatz_jax(n):
        def body(state):
            n, count = state
            n = jnp.where(n % 2 == 0, n // 2, 3 * n + 1)
            return n, count + 1
        return lax.while_loop(lambda s: s[0] != 1, body, (n, jnp.int64(0)))[1]

    def sum_even_jax(items):
        def body(i, s):
            c = items[i]
            return jnp.where(c % 2 > 0, s, s + c)
        return lax.fori_loop(0, items.shape[0], body, jnp.int64(0))

    def linreg_jax(x, y, w, b, steps, lr):
        scale = 2.0 / x.shape[0]

        def body(_, state):
            w, b = state
            err = x @ w + b - y
            return w - lr * (scale * (x.T @ err)), b - lr * (scale * err.sum())
        return lax.fori_loop(0, steps, body, (w, b))

    jitted = [jax.jit(dense_jax), jax.jit(mlp_jax), jax.jit(collatz_jax),
              jax.jit(sum_even_jax), jax.jit(linreg_jax)]
    programs = {}
    for (name, _, args, *_), fn in zip(WORKLOADS, jitted):  # train_mlp has no jax twin
        jax_args = tuple(jnp.asarray(a) if isinstance(a, (np.ndarray, np.generic)) else
                         [jnp.asarray(w) for w in a] if isinstance(a, list) else a
                         for a in args)
        programs[name] = (fn, jax_args)
    return programs


def _jax_timing(name, programs):
    if name not in programs:
        return None
    fn, args = programs[name]

    def run():
        return jax_block(fn(*args))
    run()  # compile
    start = time.perf_counter()
    count = 0
    while time.perf_counter() - start < 0.3:
        run()
        count += 1
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(count):
            run()
        best = min(best, (time.perf_counter() - t) / count)
    return best


def jax_block(result):
    import jax
    return jax.block_until_ready(result)


def print_issue_table():
    have_jax = importlib.util.find_spec("jax") is not None
    rows = issue_table()  # before jax is imported (its threads share the cores)
    programs = jax_programs() if have_jax else {}
    print("Issue 10 workloads: eager numpy vs ag.function (same code, one run)")
    print(f"{'workload':<32}{'eager':>11}{'staged':>11}{'ratio':>7}{'first call':>12}"
          f"{'median':>10}{'-steady':>10}{'(graph)':>10}{'-steady':>10}{'2nd call':>10}"
          + (f"{'jax.jit':>11}{'jax/eager':>10}" if have_jax else ""))
    for name, eager_t, staged_t, ratio, (cold, median, warm, second) in rows:
        line = (f"{name:<32}{eager_t * 1e6:>9.1f}us{staged_t * 1e6:>9.1f}us{ratio:>7.2f}"
                f"{cold * 1e3:>10.2f}ms{median * 1e3:>8.2f}ms{(cold - staged_t) * 1e3:>8.2f}ms"
                f"{warm * 1e3:>8.2f}ms{(warm - staged_t) * 1e3:>8.2f}ms"
                f"{second * 1e3:>8.2f}ms")
        if have_jax:
            jax_t = _jax_timing(name, programs)
            line += (f"{jax_t * 1e6:>9.1f}us{jax_t / eager_t:>10.2f}" if jax_t is not None
                     else f"{'-':>11}{'-':>10}")
        print(line)
    print("ratio = staged / eager (target <= 1).  first call = convert + trace + optimise +")
    print("run (target <= 5 ms), best of 11 new ag.functions, and their median; (graph) = the")
    print("same without conversion; -steady = the best first call (or graph) minus one steady")
    print("call (the latency staging adds to the run).  A graph made")
    print("mostly of ops outside loops runs interpreted on its first call and compiles on")
    print("its second (2nd call = that call, with the compile and the fast-call guard);")
    print("loop-heavy graphs compile on the first call.")
    print("Training: linear regression (hand-written gradients, same code both ways);")
    print("train_mlp: staged ag.value_and_grad + Adam vs eager numpy, hand-written gradients;")
    print("one step (workloads.mlp_train_step), and 50 steps in one staged call (train).")
    if have_jax:
        print("jax.jit: same algorithms in jax.numpy/lax (float64/int64), block_until_ready "
              "per call")
    else:
        print("jax.jit: skipped (jax is not installed)")
    if importlib.util.find_spec("tensorflow") is None:
        print("tf.function: skipped (tensorflow is not installed)")
    else:
        print("tf.function: skipped (installed, but no tf.function versions written yet)")


if __name__ == "__main__":
    print_issue_table()
