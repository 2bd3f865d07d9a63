"""The README stays true: its example runs, and the to_code it shows is real."""

import linecache
import pathlib
import re

import autograph as ag

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def _python_blocks(text):
    return re.findall(r"```python\n(.*?)```", text, re.S)


def _run_example():
    example = _python_blocks(README.read_text())[0]
    filename = "<README example>"
    linecache.cache[filename] = (len(example), None, example.splitlines(True), filename)
    namespace = {}
    exec(compile(example, filename, "exec"), namespace)
    return namespace


def test_readme_example_runs_and_gives_what_it_says():
    namespace = _run_example()
    np = namespace["np"]
    assert ag.to_graph(namespace["clip"])(5, 3) == 3
    assert namespace["staged"](np.float64(5.0), np.float64(3.0)) == 3.0
    assert namespace["staged"](np.float64(1.0), np.float64(3.0)) == 1.0
    assert namespace["staged"].experimental_get_tracing_count() == 1


def test_readme_shows_the_real_to_code_output():
    shown = _python_blocks(README.read_text())[1]
    assert shown == ag.to_code(_run_example()["clip"])


def test_readme_has_the_two_setup_commands():
    commands = re.findall(r"```bash\n(.*?)```", README.read_text(), re.S)
    assert commands[0].strip().endswith("python examples/demo.py")
    assert commands[1].strip().endswith("python -m pytest -q")


def test_package_docstring_tour_runs_and_shows_what_it_says():
    import doctest

    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = doctest.DocTestFinder(recurse=False).find(ag)
    assert tests and tests[0].examples, "autograph's docstring has no tour"
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, "the tour in autograph/__init__.py's docstring is not true"
