"""AUTOGRAPH_VERBOSITY controls what autograph logs (through the "autograph" logger)."""

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import autograph as ag

    def double(x):
        if x > 0:
            return x * 2
        return 0

    assert ag.to_graph(double)(3) == 6
""")


def run_with_verbosity(tmp_path, level):
    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, AUTOGRAPH_VERBOSITY=str(level))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=env, check=True)
    return result.stderr


def test_verbosity_0_logs_nothing(tmp_path):
    assert run_with_verbosity(tmp_path, 0) == ""


def test_verbosity_1_logs_each_conversion_with_its_location(tmp_path):
    log = run_with_verbosity(tmp_path, 1)
    assert f"autograph: converted double ({tmp_path / 'user_script.py'}:4) in " in log
    assert "ag__" not in log


def test_verbosity_3_also_logs_the_generated_code(tmp_path):
    log = run_with_verbosity(tmp_path, 3)
    assert "generated code for double:" in log
    assert "ag__.if_stmt(" in log
