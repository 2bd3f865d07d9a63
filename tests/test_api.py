"""The public API is small and frozen: names and signatures are pinned."""

import inspect
import subprocess
import sys
import textwrap

import autograph as ag

EXPECTED_SIGNATURES = {
    "to_graph": "(entity, *, recursive=True)",
    "to_code": "(entity, *, recursive=True)",
    "convert": "(recursive=True, strict=None)",
    "do_not_convert": "(fn)",
    "function": "(fn=None, *, input_signature=None, autograph=True, reduce_retracing=False)",
    "TensorSpec": "(shape, dtype=<class 'numpy.float64'>, name=None)",
    "Variable": "(value, dtype=None, name=None)",
    "run_functions_eagerly": "(run_eagerly)",
    "set_loop_options": "(*, maximum_iterations=None, shape_invariants=None)",
    "set_element_type": "(target, dtype, shape=None)",
    "stack": "(items)",
    "load": "(path)",
    "grad": "(fn, argnums=0, has_aux=False, *, wrt=None)",
    "value_and_grad": "(fn, argnums=0, has_aux=False, *, wrt=None)",
}


def test_public_names_are_pinned():
    assert set(ag.__all__) == set(EXPECTED_SIGNATURES) | {"AutoGraphError", "Function"}
    for name in ag.__all__:
        assert hasattr(ag, name), name


def test_signatures_are_pinned():
    for name, signature in EXPECTED_SIGNATURES.items():
        assert str(inspect.signature(getattr(ag, name))) == signature, name


def test_autograph_error_is_the_base_of_our_errors():
    from autograph import errors
    for value in vars(errors).values():
        if isinstance(value, type) and issubclass(value, Exception) and not issubclass(value, Warning):
            assert issubclass(value, ag.AutoGraphError), value


def test_cli_show_prints_converted_code(tmp_path):
    module = tmp_path / "user_module.py"
    module.write_text(textwrap.dedent("""
        def double(x):
            return x * 2
    """))
    out = subprocess.run([sys.executable, "-m", "autograph", "show", f"{module}:double"],
                         capture_output=True, text=True, check=True).stdout
    compile(out, "<show>", "exec")
    assert out.startswith("def double(x):")


def test_cli_show_names_a_missing_function(tmp_path):
    module = tmp_path / "user_module.py"
    module.write_text("x = 1\n")
    result = subprocess.run([sys.executable, "-m", "autograph", "show", f"{module}:nope"],
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert f"{module} has no 'nope'" in result.stderr
