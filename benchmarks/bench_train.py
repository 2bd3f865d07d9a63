"""Steps per second of the staged training loop of examples/train_mlp.py
(the whole loop is one ag.function call: forward, ag.value_and_grad, Adam)
against the same loop run eagerly in numpy with hand-written gradients, and
the first-call time (conversion, tracing, differentiation, optimisation and
compilation, plus the run).  A third row runs the same Python loop unstaged
(ag.run_functions_eagerly), calling the compiled gradient once per step.

Run:  python benchmarks/bench_train.py        (a few seconds)

Both loops run STEPS steps (fewer than the example needs to reach its early
stop, so both run all of them); each figure is the best of REPEATS runs.
With TensorFlow installed the same loop would be timed with tf.function and
tf.GradientTape; without it, that row says it was skipped.
"""

import contextlib
import importlib.util
import io
import os
import time

import numpy as np

import autograph as ag

STEPS = 100
REPEATS = 9

_EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                        "train_mlp.py")


def load_example():
    spec = importlib.util.spec_from_file_location("train_mlp", _EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(fn, *args):
    with contextlib.redirect_stdout(io.StringIO()):  # the staged loss prints
        start = time.perf_counter()
        result = fn(*args)
        return time.perf_counter() - start, result


def main():
    example = load_example()
    x, y = example.spirals()
    params = example.init_params()
    steps = np.int64(STEPS)

    first_call, (_, losses) = timed(example.train, params, x, y, steps)
    assert len(losses) == STEPS, "the loop stopped early; lower STEPS"

    staged = eager = float("inf")
    for _ in range(REPEATS):  # interleaved, so a busy moment hits both
        seconds, (_, staged_losses) = timed(example.train, params, x, y, steps)
        staged = min(staged, seconds)
        seconds, (_, eager_losses) = timed(example.train_eagerly, params, x, y, STEPS)
        eager = min(eager, seconds)
    difference = np.max(np.abs(np.array(staged_losses) - np.array(eager_losses)))
    # the same Python loop, not staged: each step calls the compiled gradient
    ag.run_functions_eagerly(True)
    try:
        python_loop = min(timed(example.train, params, x, y, STEPS)[0] for _ in range(3))
    finally:
        ag.run_functions_eagerly(False)

    print(f"training loop of examples/train_mlp.py: {len(x)} points, MLP 2-32-32-1, "
          f"Adam, {STEPS} steps, best of {REPEATS}")
    print(f"  {'staged (one ag.function call)':<44} {STEPS / staged:9.0f} steps/s "
          f"({staged / STEPS * 1e6:7.1f} us/step)")
    print(f"  {'eager numpy, hand-written gradients':<44} {STEPS / eager:9.0f} steps/s "
          f"({eager / STEPS * 1e6:7.1f} us/step)")
    print(f"  {'Python loop, compiled ag.value_and_grad per step':<44} "
          f"{STEPS / python_loop:9.0f} steps/s ({python_loop / STEPS * 1e6:7.1f} us/step)")
    print(f"  staged / eager speed: {eager / staged:.2f}x")
    print(f"  first call (convert + trace + grad + optimise + compile + run): "
          f"{first_call * 1e3:.0f} ms")
    print(f"  largest loss difference staged vs eager: {difference:.1e}")
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        print("  tf.function + tf.GradientTape: skipped (TensorFlow is not installed)")
    else:
        print("  tf.function + tf.GradientTape: not timed (no TensorFlow variant of "
              "this loop is written yet)")


if __name__ == "__main__":
    main()
