"""Transpiler benchmark over the test corpus (tests/corpus/programs.py).

    python benchmarks/bench_transpiler.py [--quick] [--no-malt]

Measures, in this one run (time.perf_counter_ns throughout):
  1. cold conversion time per corpus function: `ag.to_graph(f)` with the
     conversion cache (autograph.transpiler._cache and its set of converted
     code ids) and the converted_call caches cleared before every
     measurement; each function is converted COLD_REPEATS times, min and
     median reported (garbage collection paused inside each sample).  Source text stays cached by linecache, as it is after
     the first import of a module.
  2. the same with diastatic-malt (`malt.to_graph`, its transpiler cache and
     allowlist cache cleared) when it is installed, and the ratio malt/ours;
  3. the added cost of a cached call of a converted function, in the form
     generated code uses, `ag__.converted(g, fscope)(x)`, and in the
     functional form `ag__.converted_call(g, (x,), None, fscope)`
     over a direct call, for a converted user function and for a builtin;
  4. per-call time of the converted vs the original function on the corpus's
     plain-Python arguments (min over repeats of a calibrated loop), and the
     median ratio; malt's too when installed;
  5. the size of the generated code: `to_code` lines over source lines
     (decorators excluded) per corpus function, and the median;
  6. growth with nesting: lines of `to_code` and cold conversion time (ours,
     and malt's when installed) for functions with nested `if`s of depth 1-6
     and `elif` chains of 5-40 arms, written to a temporary module; the lines
     and milliseconds each added level/arm costs show whether growth is linear.
Targets are printed next to the figures with PASS/MISS; nothing is asserted.
"""

import contextlib
import copy
import gc
import importlib.util
import inspect
import io
import os
import importlib
import statistics
import sys
import tempfile
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ["AUTOGRAPH_CACHE_DIR"] = "off"  # cold conversions: converted, not loaded from disk

import autograph as ag  # noqa: E402
from autograph import transpiler  # noqa: E402
from autograph.context import ConversionOptions  # noqa: E402
from autograph.runtime.scope import FunctionScope  # noqa: E402
from tests.corpus import programs  # noqa: E402

QUICK = "--quick" in sys.argv
COLD_REPEATS = 2 if QUICK else 3
CALL_REPEATS = 3 if QUICK else 5
CALL_BATCH_NS = 300_000 if QUICK else 1_000_000   # one timed batch of calls takes about this long
SMALL_MAX_LINES = 5
LARGE_MIN_LINES = 15

TARGET_COLD_SPEEDUP = 10.0      # malt cold time / ours
TARGET_CALL_OVERHEAD_NS = 1000  # converted_call over a direct call
TARGET_CALL_RATIO = 1.1         # converted / original per call (plain Python)
TARGET_CODE_RATIO = 3.0         # to_code lines / source lines, median
NESTED_DEPTHS = (1, 2, 3, 4, 5, 6)
ELIF_ARMS = (5, 10, 20, 40)


def _load_malt():
    if "--no-malt" in sys.argv or importlib.util.find_spec("malt") is None:
        return None
    try:
        import malt
        from malt.impl import api as malt_api  # noqa: F401
        from malt.pyct import cache as malt_cache  # noqa: F401
    except Exception as e:  # noqa: BLE001 - an unusable install is reported, not fatal
        print(f"malt is installed but cannot be imported ({type(e).__name__}: {e}); skipping it")
        return None
    return malt


MALT = _load_malt()


# --- cache control ----------------------------------------------------------------

def clear_autograph_caches():
    transpiler.clear_caches()


def clear_malt_caches():
    from malt.impl import api as malt_api
    from malt.impl import conversion as malt_conversion
    from malt.pyct import cache as malt_cache
    malt_api._TRANSPILER._cache = malt_cache.CodeObjectCache()
    malt_conversion._ALLOWLIST_CACHE = malt_cache.UnboundInstanceCache()


# --- the functions measured ---------------------------------------------------------

def body_lines(fn):
    """Source lines of the definition, from the `def` line on (decorators excluded)."""
    lines, _ = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("def ", "async def ")):
            return len(lines) - i
    return len(lines)


def corpus_functions():
    """(name, function, first argument set that returns normally or None)."""
    chosen = {}
    for case in programs.CASES:
        fn = case.entity
        if type(fn) is not types.FunctionType or fn.__name__ == "<lambda>":
            continue
        entry = chosen.setdefault(case.name, [fn, None])
        if entry[1] is None and _returns_normally(fn, case.call):
            entry[1] = case.call
    return [(name, fn, call) for name, (fn, call) in chosen.items()]


@contextlib.contextmanager
def quiet():
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield


def _drive(fn, args, kwargs):
    result = fn(*args, **kwargs)
    if inspect.isgenerator(result):
        result = list(result)
    elif inspect.iscoroutine(result):
        result.close()
        raise TypeError("coroutines are not timed per call")
    return result


def _returns_normally(fn, call):
    if inspect.iscoroutinefunction(fn):
        return False
    args = copy.deepcopy(call.args)
    kwargs = copy.deepcopy(call.kwargs)
    before = repr((args, kwargs))
    try:
        with quiet():
            _drive(fn, args, kwargs)
    except Exception:  # noqa: BLE001
        return False
    return repr((args, kwargs)) == before  # calls that mutate their arguments are not timed


# --- 1 + 2: cold conversion ------------------------------------------------------------

def cold_times_ms(convert, clear, fn):
    """COLD_REPEATS cold conversions of fn: (min ms, median ms) or the error."""
    samples = []
    for _ in range(COLD_REPEATS):
        clear()
        gc.disable()  # a collection landing inside one sample is noise, not conversion cost
        try:
            started = time.perf_counter_ns()
            convert(fn)
            samples.append((time.perf_counter_ns() - started) / 1e6)
        except Exception as e:  # noqa: BLE001
            return f"{type(e).__name__}"
        finally:
            gc.enable()
    return min(samples), statistics.median(samples)


def ours_convert(fn):
    return ag.to_graph(fn)


def malt_convert(fn):
    with quiet():
        return MALT.to_graph(fn)


# --- 3: converted_call overhead --------------------------------------------------------

def user_increment(x):
    return x + 1


def _loop_ns(body, number):
    best = None
    for _ in range(CALL_REPEATS):
        started = time.perf_counter_ns()
        body(number)
        elapsed = time.perf_counter_ns() - started
        best = elapsed if best is None else min(best, elapsed)
    return best / number


def converted_call_overhead():
    """Added ns per call, for the two call forms: generated code calls
    `ag__.converted(g, fscope)(x)` (the callee is resolved, then called from
    the caller's frame); `ag__.converted_call(g, (x,), None, fscope)` is the
    functional form of the runtime API."""
    clear_autograph_caches()
    from autograph import runtime as ag__
    fscope = FunctionScope("bench", ConversionOptions(), frozenset())
    number = 20_000 if QUICK else 100_000
    converted, converted_call = ag__.converted, ag__.converted_call
    rows = []
    for label, g in (("user function", user_increment), ("builtin abs", abs)):
        try:
            converted_call(g, (1,), None, fscope)  # warm the decision cache
        except Exception as e:  # noqa: BLE001 - reported in the summary
            rows.append((label, "", None, None, f"{type(e).__name__}: {e}"))
            continue

        def direct(n, g=g):
            for _ in range(n):
                g(1)

        def through_converted(n, g=g):
            for _ in range(n):
                converted(g, fscope)(1)

        def through_converted_call(n, g=g):
            for _ in range(n):
                converted_call(g, (1,), None, fscope)

        direct_ns = _loop_ns(direct, number)
        for form, run in (("converted(g, fscope)(x)", through_converted),
                          ("converted_call(g, (x,), None, fscope)", through_converted_call)):
            through_ns = _loop_ns(run, number)
            rows.append((label, form, direct_ns, through_ns, through_ns - direct_ns))
    return rows


# --- 4: per-call time ---------------------------------------------------------------------

def _batch_ns(fn, args, kwargs, number):
    """Wall time of `number` calls; generators are drained, nothing else wraps the call."""
    if inspect.isgeneratorfunction(getattr(fn, "__func__", fn)):
        started = time.perf_counter_ns()
        for _ in range(number):
            list(fn(*args, **kwargs))
    elif kwargs:
        started = time.perf_counter_ns()
        for _ in range(number):
            fn(*args, **kwargs)
    else:
        started = time.perf_counter_ns()
        for _ in range(number):
            fn(*args)
    return time.perf_counter_ns() - started


def per_call_ns(fns, call):
    """Per-call ns of each function in `fns` on `call`'s arguments.

    Each function gets a batch size calibrated to about CALL_BATCH_NS; the
    batches of the functions are interleaved, CALL_REPEATS rounds, so load
    changes on the machine hit all of them alike; min over rounds.
    """
    args, kwargs = call.args, call.kwargs
    numbers = []
    with quiet():
        for fn in fns:
            _drive(fn, copy.deepcopy(args), copy.deepcopy(kwargs))  # warm-up (callee conversions)
            single = max(_batch_ns(fn, args, kwargs, 1), 1)
            numbers.append(max(1, min(20_000, CALL_BATCH_NS // single)))
        best = [None] * len(fns)
        for _ in range(CALL_REPEATS):
            for i, (fn, number) in enumerate(zip(fns, numbers)):
                elapsed = _batch_ns(fn, args, kwargs, number) / number
                best[i] = elapsed if best[i] is None else min(best[i], elapsed)
    return best


def _converted_or_error(convert, fn, call):
    try:
        converted = convert(fn)
        with quiet():
            _drive(converted, copy.deepcopy(call.args), copy.deepcopy(call.kwargs))
    except Exception as e:  # noqa: BLE001
        return None, type(e).__name__
    return converted, None


# --- 5: generated code size -----------------------------------------------------------------

def code_ratio(fn):
    """to_code lines / source lines (both from the `def` line on), or None."""
    try:
        generated = ag.to_code(fn)
    except Exception:  # noqa: BLE001 - rejected on purpose; reported with conversion
        return None
    return len(generated.splitlines()) / body_lines(fn)


# --- 6: growth with nesting ---------------------------------------------------------------

def nested_ifs_source(depth):
    lines = ["def f(x, y):"]
    for level in range(depth):
        lines.append("    " * (level + 1) + f"if x > {level}:")
        lines.append("    " * (level + 2) + f"y = y + {level}")
    return "\n".join(lines + ["    return y", ""])


def elif_chain_source(arms):
    lines = ["def f(x):", "    if x == 0:", "        y = 0"]
    for arm in range(1, arms):
        lines += [f"    elif x == {arm}:", f"        y = {arm} * x"]
    return "\n".join(lines + ["    else:", "        y = -1", "    return y", ""])


def load_shape(directory, name, source):
    """`f` of a module written to `directory` (inspect needs a real file)."""
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as file:
        file.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def growth_rows():
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        for kind, make, sizes in (("nested ifs, depth", nested_ifs_source, NESTED_DEPTHS),
                                  ("elif chain, arms", elif_chain_source, ELIF_ARMS)):
            for size in sizes:
                name = f"bench_{kind.split()[0]}_{size}"
                fn = load_shape(directory, name, make(size))
                ours = cold_times_ms(ours_convert, clear_autograph_caches, fn)
                malt = cold_times_ms(malt_convert, clear_malt_caches, fn) if MALT else None
                clear_autograph_caches()
                rows.append((kind, size, body_lines(fn), len(ag.to_code(fn).splitlines()),
                             ours, malt))
    return rows


def print_growth(rows):
    print()
    print("growth with nesting: to_code lines and cold conversion (ms, min/median)")
    header = (f"{'shape':18} {'size':>4} {'source':>6} {'to_code':>7} {'lines/src':>9} | "
              f"{'ours ms':>15} {'malt ms':>15}")
    print(header)
    print("-" * len(header))
    for kind, size, source, generated, ours, malt in rows:
        ours_txt = ours if isinstance(ours, str) else f"{ours[0]:7.2f}/{ours[1]:<7.2f}"
        malt_txt = "-" if malt is None else malt if isinstance(malt, str) \
            else f"{malt[0]:7.2f}/{malt[1]:<7.2f}"
        print(f"{kind:18} {size:4d} {source:6d} {generated:7d} {generated / source:9.2f} | "
              f"{ours_txt:>15} {malt_txt:>15}")
    for kind in dict.fromkeys(row[0] for row in rows):
        selected = [row for row in rows if row[0] == kind]
        steps = list(zip(selected, selected[1:]))
        line_steps = [(b[3] - a[3]) / (b[1] - a[1]) for a, b in steps]
        time_steps = [(b[4][0] - a[4][0]) / (b[1] - a[1]) for a, b in steps
                      if isinstance(a[4], tuple) and isinstance(b[4], tuple)]
        linear = max(line_steps) <= 1.25 * min(line_steps)
        print(f"  {kind:18}: to_code lines added per level/arm "
              + ", ".join(f"{v:.1f}" for v in line_steps)
              + f" [linear: {_mark(linear)}]; ms added per level/arm (min) "
              + ", ".join(f"{v:.2f}" for v in time_steps))


# --- report --------------------------------------------------------------------------------

def _fmt(value, spec):
    if value is None:
        return "-"
    if isinstance(value, str):
        return value[:12]
    return format(value, spec)


def _mark(ok):
    return "PASS" if ok else "MISS"


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    started_all = time.perf_counter_ns()
    functions = corpus_functions()
    print(f"autograph transpiler benchmark: {len(functions)} corpus functions, "
          f"{len(transpiler.converters_pkg.PIPELINE)} passes in PIPELINE, "
          f"malt {'installed' if MALT else 'not installed'}"
          + (" (--quick)" if QUICK else ""))

    # Warm-up: imports and lazily built tables on both sides are not "cold conversion".
    ours_convert(user_increment)
    if MALT:
        malt_convert(user_increment)

    rows = []
    for name, fn, call in functions:
        row = {"name": name, "lines": body_lines(fn)}
        row["ours"] = cold_times_ms(ours_convert, clear_autograph_caches, fn)
        row["malt"] = cold_times_ms(malt_convert, clear_malt_caches, fn) if MALT else None
        rows.append(row)
    clear_autograph_caches()
    if MALT:
        clear_malt_caches()
    cold_seconds = (time.perf_counter_ns() - started_all) / 1e9

    for row, (name, fn, call) in zip(rows, functions):
        row["orig_ns"] = row["ours_ns"] = row["malt_ns"] = None
        row["call_note"] = "raises/mutates" if call is None else ""
        if call is None:
            continue
        candidates = [fn]
        converted, error = _converted_or_error(ours_convert, fn, call)
        row["ours_ns"] = error
        if converted:
            candidates.append(converted)
        malt_converted = None
        if MALT:
            malt_converted, malt_error = _converted_or_error(malt_convert, fn, call)
            row["malt_ns"] = malt_error
            if malt_converted:
                candidates.append(malt_converted)
        timings = per_call_ns(candidates, call)
        row["orig_ns"] = timings[0]
        if converted:
            row["ours_ns"] = timings[1]
        if malt_converted:
            row["malt_ns"] = timings[-1]

    header = (f"{'function':40} {'lines':>5} | {'ours ms min/med':>15} {'malt ms min/med':>15} "
              f"{'malt/ours':>9} | {'orig ns':>8} {'ours ns':>8} {'ratio':>6} {'malt ns':>8} {'ratio':>6}")
    print()
    print("cold conversion (ms) and per-call time (ns) per corpus function")
    print(header)
    print("-" * len(header))
    for row in rows:
        ours, malt = row["ours"], row["malt"]
        ours_txt = ours if isinstance(ours, str) else f"{ours[0]:7.2f}/{ours[1]:<7.2f}"
        malt_txt = "-" if malt is None else malt if isinstance(malt, str) else f"{malt[0]:7.2f}/{malt[1]:<7.2f}"
        speedup = None
        if isinstance(ours, tuple) and isinstance(malt, tuple):
            speedup = malt[1] / ours[1]
        row["speedup"] = speedup
        orig, mine, theirs = row["orig_ns"], row["ours_ns"], row["malt_ns"]
        row["ratio"] = mine / orig if isinstance(mine, float) and orig else None
        row["malt_ratio"] = theirs / orig if isinstance(theirs, float) and orig else None
        print(f"{row['name'][:40]:40} {row['lines']:5d} | {ours_txt:>15} {malt_txt:>15} "
              f"{_fmt(speedup, '8.1f') + 'x' if speedup else '-':>9} | "
              f"{_fmt(orig, '8.0f'):>8} "
              f"{_fmt(mine, '8.0f'):>8} "
              f"{_fmt(row['ratio'], '6.2f'):>6} "
              f"{_fmt(theirs, '8.0f'):>8} "
              f"{_fmt(row['malt_ratio'], '6.2f'):>6} {row['call_note']}")

    overhead = converted_call_overhead()
    for row, (_, fn, _) in zip(rows, functions):
        row["code_ratio"] = code_ratio(fn)
    clear_autograph_caches()
    growth = growth_rows()
    print_growth(growth)

    print()
    print("summary (medians over the corpus, this run)")
    ours_ok = [r for r in rows if isinstance(r["ours"], tuple)]
    failed = [f"{r['name']} ({r['ours']}{', rejected on purpose' if r['name'] in programs.REJECTED else ''})"
              for r in rows if isinstance(r["ours"], str)]
    for label, selected in (("small (<= %d lines)" % SMALL_MAX_LINES,
                             [r for r in ours_ok if r["lines"] <= SMALL_MAX_LINES]),
                            ("larger (>= %d lines)" % LARGE_MIN_LINES,
                             [r for r in ours_ok if r["lines"] >= LARGE_MIN_LINES]),
                            ("all", ours_ok)):
        ours_med = _median([r["ours"][1] for r in selected])
        line = f"  cold conversion, {label:22} n={len(selected):3d}: ours {_fmt(ours_med, '.2f')} ms"
        if MALT:
            malt_med = _median([r["malt"][1] for r in selected if isinstance(r["malt"], tuple)])
            speedup = _median([r["speedup"] for r in selected])
            line += (f", malt {_fmt(malt_med, '.2f')} ms, median malt/ours {_fmt(speedup, '.1f')}x "
                     f"[target >= {TARGET_COLD_SPEEDUP:.0f}x: "
                     f"{_mark(speedup is not None and speedup >= TARGET_COLD_SPEEDUP)}]")
        else:
            line += " (malt not installed: no comparison)"
        print(line)
    if failed:
        print(f"  conversion failed for {len(failed)}: {', '.join(failed)}")
    if MALT:
        malt_failed = [f"{r['name']} ({r['malt']})" for r in rows if isinstance(r["malt"], str)]
        if malt_failed:
            print(f"  malt could not convert {len(malt_failed)}: {', '.join(malt_failed)}")

    for label, form, direct_ns, through_ns, added in overhead:
        if isinstance(added, str):
            print(f"  call overhead, {label:14}: failed, {added}")
            continue
        print(f"  call overhead, {label:14}: direct {direct_ns:5.0f} ns, {form:38} "
              f"{through_ns:5.0f} ns, added {added:5.0f} ns/call "
              f"[target < {TARGET_CALL_OVERHEAD_NS} ns: {_mark(added < TARGET_CALL_OVERHEAD_NS)}]")

    code_ratios = sorted((r["code_ratio"], r["name"]) for r in rows if r["code_ratio"] is not None)
    median_code = _median([ratio for ratio, _ in code_ratios])
    print(f"  to_code lines / source lines, n={len(code_ratios)}: median {_fmt(median_code, '.2f')}, "
          f"max {_fmt(code_ratios[-1][0] if code_ratios else None, '.2f')} "
          f"({code_ratios[-1][1] if code_ratios else '-'}) "
          f"[target median <= {TARGET_CODE_RATIO:.0f}: "
          f"{_mark(median_code is not None and median_code <= TARGET_CODE_RATIO)}]")
    biggest = code_ratios[::-1][:5]
    print("    largest to_code ratios: " + ", ".join(f"{n} {r:.1f}" for r, n in biggest))
    ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
    median_ratio = _median(ratios)
    print(f"  per-call converted/original, n={len(ratios)}: median {_fmt(median_ratio, '.2f')}x, "
          f"max {_fmt(max(ratios) if ratios else None, '.2f')}x "
          f"[target <= {TARGET_CALL_RATIO}x: "
          f"{_mark(median_ratio is not None and median_ratio <= TARGET_CALL_RATIO)}]")
    worst = sorted((r for r in rows if r["ratio"] is not None), key=lambda r: -r["ratio"])[:5]
    print("    highest per-call ratios: " + ", ".join(f"{r['name']} {r['ratio']:.2f}x" for r in worst))
    slowest = sorted(ours_ok, key=lambda r: -r["ours"][1])[:5]
    print("    slowest cold conversions: " + ", ".join(
        f"{r['name']} ({r['lines']} lines) {r['ours'][1]:.1f} ms" for r in slowest))
    if MALT:
        malt_ratios = [r["malt_ratio"] for r in rows if r["malt_ratio"] is not None]
        print(f"  per-call malt/original,      n={len(malt_ratios)}: median "
              f"{_fmt(_median(malt_ratios), '.2f')}x")
    not_timed = [r["name"] for r in rows if r["call_note"]]
    print(f"  not timed per call ({len(not_timed)}, every argument set raises, is async or "
          f"mutates its arguments): {', '.join(not_timed)}")
    errors = [f"{r['name']} ({r['ours_ns']})" for r in rows
              if isinstance(r["ours_ns"], str) and r["name"] not in programs.REJECTED]
    if errors:
        print(f"  converted run failed for {len(errors)}: {', '.join(errors)}")
    print(f"  total benchmark time {(time.perf_counter_ns() - started_all) / 1e9:.1f} s "
          f"(cold conversions {cold_seconds:.1f} s)")


if __name__ == "__main__":
    main()
