"""In-process first calls of two source trees, side by side (for a change's
before/after): each tree runs the issue-10 seed workloads' first calls
(workloads.first_call: a new ag.function, conversion caches cleared) in its
own fresh process, the trees alternating; best of every round.

Run:  python benchmarks/ab_first_call.py TREE_A TREE_B [ROUNDS]
      (e.g. a `git archive` of the base commit unpacked in /tmp, and this tree)

Columns: best first call with conversion, the median of one round's, and the
best without conversion (the graph part: trace, optimise, run), in ms.
"""

import json
import subprocess
import sys

_CHILD = r'''
import contextlib, io, json, sys
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/benchmarks")
import workloads
out = {}
with contextlib.redirect_stdout(io.StringIO()):  # train_mlp prints its loss
    for name, fn, args, *_ in workloads.WORKLOADS[:6]:
        out[name] = workloads.first_call(fn, args)[:3]
print(json.dumps(out))
'''


def main():
    trees, rounds = sys.argv[1:3], int(sys.argv[3]) if len(sys.argv) > 3 else 3
    best = {tree: {} for tree in trees}
    for _ in range(rounds):
        for tree in trees:
            done = subprocess.run([sys.executable, "-c", _CHILD, tree], capture_output=True,
                                  text=True, check=True,
                                  # (conversions measured, not loaded: no disk cache)
                                  env={"PYTHONPATH": tree, "AUTOGRAPH_CACHE_DIR": "off"})
            for name, times in json.loads(done.stdout.strip().splitlines()[-1]).items():
                old = best[tree].get(name, [float("inf")] * 3)
                best[tree][name] = [min(a, b) for a, b in zip(old, times)]
    print(f"{'workload':34s}" + "".join(f"{tree[-28:]:>30s}" for tree in trees))
    for name in best[trees[0]]:
        print(f"{name[:34]:34s}" + "".join(
            "  best %5.2f median %5.2f graph %5.2f" % tuple(1e3 * t for t in best[tree][name])
            for tree in trees))


if __name__ == "__main__":
    main()
