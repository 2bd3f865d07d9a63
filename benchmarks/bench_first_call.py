"""First call of each issue-10 seed example in a FRESH Python process (issue 10,
item 4: <= 5 ms, growing linearly with the graph).

Run:  python benchmarks/bench_first_call.py [--repeats N] [--source-only]
      python benchmarks/bench_first_call.py --instructions   (needs valgrind)

What a user waits for the first time a script calls an `ag.function`: the
conversion of its Python functions (transpiler), the trace, the optimiser
and the first run (interpreted, or compiled for loop-heavy graphs).  Every
figure comes from its own new process (`python -c`), after `import autograph`
and the example's module -- nothing converted, traced or parsed before: the
median of N processes (and the fastest).  "convert" is the part spent in the
transpiler (all functions the call converted), "rest" the trace, optimiser
and run (graph part).

Conversion cache (autograph/conversion_cache.py, on by default in
~/.cache/autograph): the first table runs each workload three ways -- "no
cache" (AUTOGRAPH_CACHE_DIR=off: what converting costs), "cold" (a new empty
cache directory per process: converting plus hashing and writing the entry,
a script's first run) and "warm" (a directory filled by one process first:
loading the entries, every later run of the script).  "convert" is the time
in transpiler._compile either way (loading included).  The second table runs
without the cache (it measures conversion growing with the source).

Bytecode: an installed package has .pyc files, so the child processes use
a bytecode cache in a temporary directory, filled by one process first
(--source-only runs the children as this process's environment says, e.g.
with PYTHONDONTWRITEBYTECODE=1 and no caches: every lazily imported module is
then compiled from source during the first call).

--instructions: instead of times, the machine instructions of each first
call, counted by valgrind (cachegrind without cache simulation) as the
difference between a process that calls the function and one that only
imports and decorates it: a deterministic figure (hash seed fixed, one BLAS
thread), immune to the load of a shared machine, for comparing two versions
of the code.  It also counts the same first call made after another
workload's in the same process: the difference is the process's one-time
work (lazy tables, template parses, the first collections of the imports'
objects) that the very first call pays.

The second table is first call vs graph size, each in a fresh process: an
N-layer tanh MLP written out layer by layer (source and graph both grow with
N) and the same MLP as a loop over a list of weights (the source stays, the
graph grows), N = 10, 20, 40, 80.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# One first call in this (fresh) process; prints JSON {total, convert}.
_PRELUDE = r"""
import contextlib, io, json, sys, time
sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
import autograph as ag
from autograph import transpiler
_spent = [0.0]
_compile = transpiler._compile
def _timed_compile(*args):
    start = time.perf_counter()
    try:
        return _compile(*args)
    finally:
        _spent[0] += time.perf_counter() - start
transpiler._compile = _timed_compile
"""

_EXAMPLE_CHILD = _PRELUDE + r"""
import workloads
name, fn, args, *_ = workloads.WORKLOADS[{index}]
staged = ag.function(fn)
with contextlib.redirect_stdout(io.StringIO()):  # train_mlp prints its loss
    start = time.perf_counter()
    staged(*args)
    total = time.perf_counter() - start
from autograph import conversion_cache
start = time.perf_counter()
conversion_cache.flush()  # (the entries a cold cache writes at exit)
write = time.perf_counter() - start
print(json.dumps({{"total": total, "convert": _spent[0], "write": write}}))
"""

_SIZE_CHILD = _PRELUDE + r"""
import numpy as np
sys.path.insert(0, {folder!r})
import {module} as generated
rng = np.random.default_rng(0)
weights = []
for _ in range({layers}):
    weights += [rng.standard_normal((16, 16)).astype(np.float32) / 4, np.zeros(16, np.float32)]
x = rng.standard_normal((8, 16)).astype(np.float32)
staged = ag.function(generated.mlp)
start = time.perf_counter()
staged(x, weights)
total = time.perf_counter() - start
nodes = len(staged.get_concrete_function(x, weights).graph.nodes)
print(json.dumps({{"total": total, "convert": _spent[0], "nodes": nodes}}))
"""


# One process for --instructions: the workloads named on the command line are
# decorated, and called when "call" is the first argument.
_COUNT_CHILD = r"""
import contextlib, io, sys
sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
import autograph as ag
import workloads
call, *indices = sys.argv[1:]
for index in indices:
    name, fn, args, *_ = workloads.WORKLOADS[int(index)]
    staged = ag.function(fn)
    if call == "call" or index != indices[-1]:
        with contextlib.redirect_stdout(io.StringIO()):
            staged(*args)
"""


def _instructions(code, env, *arguments):
    """Machine instructions of `python -c code *arguments` under valgrind."""
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                           "--cachegrind-out-file=/dev/null", sys.executable, "-c", code,
                           *arguments], capture_output=True, text=True, env=env, check=False)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode or not found:
        raise RuntimeError(done.stderr)
    return int(found.group(1).replace(",", ""))


def _count_instructions(env, fill, workloads):
    env = dict(env, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    code = _COUNT_CHILD.format(**fill)
    print("Instructions of each first call in a fresh process (valgrind; no conversion cache)")
    print(f"{'workload':<32}{'first call':>12}{'after another':>15}{'one-time':>10}")
    other = 1  # (the other workload run first: the small MLP, or the dense model for it)
    for index, (name, *_) in enumerate(workloads.WORKLOADS):
        before = str(0 if index == other else other)
        fresh = (_instructions(code, env, "call", str(index))
                 - _instructions(code, env, "none", str(index)))
        after = (_instructions(code, env, "call", before, str(index))
                 - _instructions(code, env, "none", before, str(index)))
        print(f"{name:<32}{fresh / 1e6:>11.1f}M{after / 1e6:>14.1f}M"
              f"{(fresh - after) / 1e6:>9.1f}M")
    print("first call = instructions of the call (convert + trace + optimise + run);")
    print("after another = the same first call made after another workload's first call")
    print("in the same process; one-time = the difference (what only a new process pays).")


def _unrolled_source(layers):
    lines = ["import numpy as np", "", "", "def mlp(x, weights):"]
    lines += [f"    x = np.tanh(x @ weights[{2 * i}] + weights[{2 * i + 1}])"
              for i in range(layers)]
    return "\n".join(lines + ["    return x", ""])


_LOOP_SOURCE = '''import numpy as np


def mlp(x, weights):
    for i in range(0, len(weights), 2):
        x = np.tanh(x @ weights[i] + weights[i + 1])
    return x
'''


def _run(code, env):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=False)
    if done.returncode:
        raise RuntimeError(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median_of(code, env, repeats, cache="off", folder=None):
    """Median figures of `repeats` fresh processes; `cache`: "off", "cold" (a
    new empty conversion cache per process, in `folder`) or "warm" (one
    cache in `folder`, filled by a process first)."""
    envs = [dict(env, AUTOGRAPH_CACHE_DIR="off") for _ in range(repeats)]
    if cache != "off":
        envs = [dict(env, AUTOGRAPH_CACHE_DIR=os.path.join(
            folder, f"{cache}-{i}" if cache == "cold" else cache)) for i in range(repeats)]
    if cache == "warm":
        _run(code, envs[0])
    runs = [_run(code, run_env) for run_env in envs]
    total = [r["total"] for r in runs]
    convert = [r["convert"] for r in runs]
    return {"total": statistics.median(total), "fastest": min(total),
            "convert": statistics.median(convert), "nodes": runs[0].get("nodes"),
            "rest": statistics.median([r["total"] - r["convert"] for r in runs]),
            "write": statistics.median([r.get("write", 0.0) for r in runs])}


def _environment(source_only, folder):
    env = dict(os.environ)
    env["AUTOGRAPH_CACHE_DIR"] = "off"  # (never the user's cache: _median_of says which)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]]
                                                       if env.get("PYTHONPATH") else []))
    if not source_only:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(folder, "pycache")
    return env


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--source-only", action="store_true")
    parser.add_argument("--instructions", action="store_true")
    options = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import workloads  # (for the names; the children import it again)

    with tempfile.TemporaryDirectory() as folder:
        env = _environment(options.source_only, folder)
        fill = dict(root=str(ROOT), bench=str(ROOT / "benchmarks"))
        _run(_EXAMPLE_CHILD.format(index=0, **fill), env)  # fills the bytecode cache
        if options.instructions:
            # (every workload first: a module only another workload imports
            # would be compiled from source inside the first count that runs it)
            subprocess.run([sys.executable, "-c", _COUNT_CHILD.format(**fill), "call",
                            *map(str, range(len(workloads.WORKLOADS)))],
                           env=env, check=True, capture_output=True)
            _count_instructions(env, fill, workloads)
            return
        print(f"First call in a fresh process (median of {options.repeats} processes; "
              + ("no bytecode cache" if options.source_only else "bytecode cached") + ")")
        print(f"{'':<32}{'no conversion cache':>36}{'cold cache (first run)':>44}"
              f"{'warm cache (later runs)':>36}")
        columns = f"{'first call':>12}{'best':>8}{'convert':>8}{'rest':>8}"
        print(f"{'workload':<32}{columns}{columns}{'at exit':>8}{columns}")
        for index, (name, *_) in enumerate(workloads.WORKLOADS):
            code = _EXAMPLE_CHILD.format(index=index, **fill)
            line = f"{name:<32}"
            for cache in ("off", "cold", "warm"):
                cache_folder = os.path.join(folder, f"cache-{index}")
                row = _median_of(code, env, options.repeats, cache, cache_folder)
                line += (f"{row['total'] * 1e3:>10.2f}ms{row['fastest'] * 1e3:>6.2f}ms"
                         f"{row['convert'] * 1e3:>6.2f}ms{row['rest'] * 1e3:>6.2f}ms")
                if cache == "cold":
                    line += f"{row['write'] * 1e3:>6.2f}ms"
            print(line)
        print("first call = convert + trace + optimise + run (target <= 5 ms), median (best);")
        print("convert = time in the transpiler (a warm cache: loading the entries), rest =")
        print("trace, optimise, run (medians each: they need not add up to the first call's);")
        print("the loop of 50 steps runs ~9 ms.  cold - no cache = what a cache miss adds to")
        print("the first call; at exit = writing its entries, when the process exits.")
        print()
        print(f"First call vs graph size, fresh process each (median of {options.repeats}; "
              "no conversion cache)")
        print(f"{'tanh MLP':<26}{'layers':>7}{'nodes':>7}{'first call':>12}{'convert':>10}"
              f"{'rest':>10}{'rest/node':>11}")
        sources = [("written out (source grows)", _unrolled_source), ("loop over a list",
                                                                      lambda n: _LOOP_SOURCE)]
        for kind, (label, source_of) in enumerate(sources):
            for layers in (10, 20, 40, 80):
                module = f"ag_first_call_{kind}_{layers}"
                Path(folder, module + ".py").write_text(source_of(layers))
                row = _median_of(_SIZE_CHILD.format(folder=folder, module=module,
                                                    layers=layers, **fill),
                                 env, options.repeats)  # (no conversion cache)
                print(f"{label:<26}{layers:>7}{row['nodes']:>7}{row['total'] * 1e3:>10.2f}ms"
                      f"{row['convert'] * 1e3:>8.2f}ms{row['rest'] * 1e3:>8.2f}ms"
                      f"{row['rest'] / row['nodes'] * 1e6:>9.1f}us")
        print("linear growth: a flat rest/node column (small graphs carry the fixed costs);")
        print("the written-out MLP's convert grows with its source (2 lines more per layer).")


if __name__ == "__main__":
    main()
