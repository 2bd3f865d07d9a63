"""The long run of the staged differential fuzzer.

    python -m tests.staged.fuzz_staged --programs 2000 [--seed 0] [--features all]

Writes random programs (fuzz_programs.py), runs each as plain Python,
converted and under `ag.function` (fuzz_harness.py), and prints how many
matched, were refused (with the distinct refusal messages, counted) and
mismatched (each mismatch with its program, up to --show of them).
"""

import argparse
import collections
import re
import sys
import tempfile
import time

import autograph as ag
from tests.staged import fuzz_harness, fuzz_programs
from tests.staged.test_fuzz import CI_FEATURES


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--features", default="ci",
                        help="'ci' (the CI slice's features), 'all', or a comma list of "
                             + ", ".join(fuzz_programs.FEATURES))
    parser.add_argument("--show", type=int, default=3, help="mismatching programs to print")
    parser.add_argument("--backend", choices=("graph", "jax"), default="graph",
                        help="graph: ag.function; jax: jax.jit(ag.to_graph(f)) (the corpus's "
                             "jax mode), with the programs' np.sin written as arithmetic")
    options = parser.parse_args(argv)
    if options.features == "ci":
        features = CI_FEATURES
    elif options.features == "all":
        features = fuzz_programs.FEATURES
    else:
        features = tuple(options.features.split(","))
        unknown = set(features) - set(fuzz_programs.FEATURES)
        if unknown:
            parser.error(f"unknown features {sorted(unknown)}")

    counts = collections.Counter()
    refusals = collections.Counter()
    mismatches_by_feature = collections.Counter()
    shown = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as directory:
        for k in range(options.programs):
            chooser = fuzz_programs.RandomChooser(options.seed * 1_000_003 + k)
            source, used = fuzz_programs.write_program(chooser, features)
            stage = ag.function
            if options.backend == "jax":
                source, stage = fuzz_harness.for_jax(source)
            verdict = fuzz_harness.run(source, used, fuzz_programs.argument_sets(chooser),
                                       directory, stage=stage)
            counts[verdict.kind] += 1
            if verdict.kind == "refused":
                # one bucket per message shape: drop file paths, lines and names
                refusals[re.sub(r"'[^']*'|\S+\.py:\d+|\d+", "_", verdict.detail)[:160]] += 1
            elif verdict.kind == "mismatch":
                mismatches_by_feature.update(used)
                if shown < options.show:
                    shown += 1
                    print(f"--- mismatch (program {k}) ---\n{verdict!r}")
    seconds = time.perf_counter() - start
    print(f"\n{options.programs} programs in {seconds:.1f} s ({options.backend}), features: "
          f"{', '.join(features)}")
    print(f"  match {counts['match']}, refused {counts['refused']}, "
          f"mismatch {counts['mismatch']}")
    for message, count in refusals.most_common():
        print(f"  refused x{count}: {message}")
    if mismatches_by_feature:
        print("  features in mismatching programs:",
              ", ".join(f"{f} {n}" for f, n in mismatches_by_feature.most_common()))
    return 1 if counts["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
