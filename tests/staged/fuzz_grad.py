"""The gradient fuzzer: random programs (fuzz_programs.py) differentiated.

    python -m tests.staged.fuzz_grad --programs 300 [--seed 0] [--features all]

Each program `f(x, n, a)` becomes a loss -- a weighted sum of the float
numbers it returns -- whose gradient with respect to `x` and `a`, computed
by `ag.grad` (the program's control flow staged and differentiated), must
match central finite differences of the plain Python loss.  The arguments
are the fuzzer's, moved off its grid by a little noise, so that a branch
test (`x[i] > a`) is not decided by a tie that a finite difference would
cross.  A difference that changes with the step size is a kink or a jump
of the program (a branch, `abs`, `//`), not a wrong gradient, and is
counted apart ("unsmooth").  A refusal (a catalog error) is counted with
its message; a wrong gradient prints its program.
"""

import argparse
import collections
import contextlib
import io
import re
import sys
import tempfile
import time

import numpy as np

import autograph as ag
from autograph import errors
from tests.staged import fuzz_harness, fuzz_programs


@ag.do_not_convert  # (it sorts the result's leaves by kind: Python, not staged)
def _float_leaves(value, found):
    """The float numbers and arrays of a program's result, in order."""
    if isinstance(value, (tuple, list)):
        for item in value:
            _float_leaves(item, found)
    elif isinstance(value, dict):
        for key in sorted(value):
            _float_leaves(value[key], found)
    elif getattr(getattr(value, "dtype", None), "kind", None) == "f" or type(value) is float:
        found.append(value)
    return found


def loss_of(program):
    """The program's float results summed with weights 1, 2, 3, ... (each a
    different direction: two wrong gradients cannot cancel)."""
    def loss(x, a, n):
        total = a * 0.0
        for weight, leaf in enumerate(_float_leaves(program(x, n, a), []), 1):
            total = total + leaf.sum() * weight if hasattr(leaf, "sum") else \
                total + leaf * weight
        return total
    return loss


def jax_grad(loss, argnums):
    """`ag.grad`'s twin under JAX: jax.grad of the converted loss, jitted."""
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)  # numpy's float64, as the plain run
    converted = ag.to_graph(loss)

    def run(x, a, n):
        gx, ga = jax.jit(jax.grad(converted, argnums=argnums))(jnp.asarray(x), jnp.asarray(a), n)
        return np.asarray(gx), np.float64(ga)
    return run


def _finite_differences(loss, x, a, n, eps):
    def value(x_, a_):
        with contextlib.redirect_stdout(io.StringIO()):
            return float(loss(x_, a_, n))
    gx = np.zeros_like(x)
    for i in range(x.size):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        gx[i] = (value(plus, a) - value(minus, a)) / (2 * eps)
    ga = (value(x, a + eps) - value(x, a - eps)) / (2 * eps)
    return gx, ga


def _close(g, expected):
    return np.allclose(g, expected, rtol=1e-4, atol=1e-5)


def check(source, arguments, directory, grad=ag.grad):
    """(kind, detail): kind is match, refused, unsmooth or mismatch."""
    module, _ = fuzz_harness.load(source, directory)
    loss = loss_of(module.f)
    for x, n, a in arguments:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                gx, ga = grad(loss, argnums=(0, 1))(x, a, n)
        except errors.AutoGraphError as e:
            return "refused", f"{type(e).__name__}: {e}"
        except Exception as e:  # noqa: BLE001 - JAX's own refusals (reverse mode through
            # a while loop, a concrete value of a tracer: documented limits)
            if grad is ag.grad:
                raise
            return "refused", f"{type(e).__name__}: {str(e).splitlines()[0]}"
        expected = _finite_differences(loss, x, a, n, 1e-6)
        if _close(gx, expected[0]) and _close(ga, expected[1]):
            continue
        other = _finite_differences(loss, x, a, n, 1e-4)
        if not (_close(expected[0], other[0]) and _close(expected[1], other[1])):
            return "unsmooth", ""
        return "mismatch", (f"arguments x={x!r}, n={n!r}, a={a!r}: ag.grad gives "
                            f"{gx!r}, {ga!r}; finite differences {expected[0]!r}, "
                            f"{expected[1]!r}")
    return "match", ""


def arguments_off_the_grid(chooser, rng):
    """The fuzzer's arguments with noise, in float64 (finite differences need
    its precision)."""
    return [(x.astype(np.float64) + rng.uniform(-0.1, 0.1, x.shape), n,
             np.float64(a) + rng.uniform(-0.1, 0.1))
            for x, n, a in fuzz_programs.argument_sets(chooser)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--features", default="all",
                        help="'all' or a comma list of " + ", ".join(fuzz_programs.FEATURES))
    parser.add_argument("--show", type=int, default=3, help="mismatching programs to print")
    parser.add_argument("--backend", choices=("graph", "jax"), default="graph",
                        help="graph: ag.grad; jax: jax.jit(jax.grad(ag.to_graph(loss))), "
                             "with the programs' np.sin written as arithmetic")
    options = parser.parse_args(argv)
    features = fuzz_programs.FEATURES if options.features == "all" else \
        tuple(options.features.split(","))
    counts, refusals = collections.Counter(), collections.Counter()
    shown = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as directory:
        for k in range(options.programs):
            chooser = fuzz_programs.RandomChooser(options.seed * 1_000_003 + k)
            source, _ = fuzz_programs.write_program(chooser, features)
            rng = np.random.default_rng(options.seed * 1_000_003 + k)
            grad = ag.grad
            if options.backend == "jax":
                source, grad = fuzz_harness.for_jax(source)[0], jax_grad
            kind, detail = check(source, arguments_off_the_grid(chooser, rng), directory, grad)
            counts[kind] += 1
            if kind == "refused":
                refusals[re.sub(r"'[^']*'|\S+\.py:\d+|\d+", "_", detail)[:160]] += 1
            elif kind == "mismatch" and shown < options.show:
                shown += 1
                print(f"--- wrong gradient (program {k}) ---\n{detail}\n{source}")
    seconds = time.perf_counter() - start
    print(f"\n{options.programs} programs in {seconds:.1f} s, features: {', '.join(features)}")
    print(f"  match {counts['match']}, refused {counts['refused']}, "
          f"unsmooth {counts['unsmooth']}, mismatch {counts['mismatch']}")
    for message, count in refusals.most_common():
        print(f"  refused x{count}: {message}")
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
