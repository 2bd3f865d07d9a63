"""Pictures of graphs (autograph/graph/dot.py) and `python -m autograph graph`."""

import builtins
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import autograph as ag
from autograph.graph import dot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.basename(__file__)


def collatz(n):
    count = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        count += 1
    return count


def _line(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def _collatz_dot():
    return ag.function(collatz).get_concrete_function(np.int64(27)).to_dot()


def test_ops_carry_the_users_names_and_lines():
    text = _collatz_dot()
    assert text.startswith('digraph "collatz" {')
    assert f"n_1, count = while_loop(n, count=0)\\n{HERE}:{_line(collatz, 'while n != 1')}" in text
    assert f"n_1 = np.floor_divide(n, 2)\\n{HERE}:{_line(collatz, 'n // 2')}" in text
    assert f"count_1 = np.add(count, 1)\\n{HERE}:{_line(collatz, 'count += 1')}" in text


def test_edges_carry_shape_and_dtype():
    @ag.function
    def layer(x, w):
        return np.tanh(x @ w).sum(axis=0)

    text = layer.get_concrete_function(ag.TensorSpec([None, 16], np.float32),
                                       ag.TensorSpec([16, 4], np.float32)).to_dot()
    edges = re.findall(r'(n\d+) -> (n\d+) \[label="([^"]*)"', text)
    assert {label for _, _, label in edges} == {"float32[?, 16]", "float32[16, 4]",
                                                "float32[?, 4]", "float32[4]"}


def test_branches_and_loop_bodies_are_clusters():
    text = _collatz_dot()
    titles = re.findall(r'subgraph (cluster_n\d+) \{\n\s+label="([^"]+)"', text)
    assert [t for _, t in titles] == ["while_loop test", "while_loop body", "true branch",
                                      "false branch"]
    # the branches are inside the body: opened before the body's cluster closes
    body = text.index('label="while_loop body"')
    assert body < text.index('label="true branch"') < text.index('label="false branch"')
    # every edge is written outside the clusters (an edge inside one pulls both ends in)
    edges = [line for line in text.splitlines() if re.search(r"n\d+ -> n\d+", line)]
    assert edges and all(re.match(r"  n\d+ -> ", line) for line in edges)


def test_dot_text_is_accepted_by_graphviz_when_installed():
    if shutil.which("dot") is None:
        pytest.skip("the Graphviz `dot` program is not installed")
    result = subprocess.run(["dot", "-Tsvg"], input=_collatz_dot().encode(), capture_output=True,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert b"<svg" in result.stdout


def test_labels_are_escaped():
    assert dot.quote('say "hi"\\n\nnext') == '"say \\"hi\\"\\\\n\\nnext"'


def test_repr_svg_renders_with_graphviz():
    if shutil.which("dot") is None:
        pytest.skip("the Graphviz `dot` program is not installed")
    svg = ag.function(collatz).get_concrete_function(np.int64(27))._repr_svg_()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "while_loop(n, count=0)" in svg


def test_repr_svg_is_none_without_graphviz(monkeypatch):
    real_import = builtins.__import__

    def no_graphviz(name, *args, **kwargs):
        if name == "graphviz":
            raise ImportError("no graphviz here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_graphviz)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    concrete = ag.function(collatz).get_concrete_function(np.int64(27))
    assert concrete._repr_svg_() is None  # Jupyter then shows the text repr


USER_MODULE = textwrap.dedent("""
    import numpy as np

    def layer(x, w, scale):
        h = np.tanh(x @ w) * scale
        return h
""")


def _cli(tmp_path, *args, env=None):
    (tmp_path / "user_module.py").write_text(USER_MODULE)
    return subprocess.run([sys.executable, "-m", "autograph", "graph",
                           f"{tmp_path / 'user_module.py'}:layer", *args],
                          capture_output=True, text=True, cwd=tmp_path, check=False,
                          env={**os.environ, "PYTHONPATH": ROOT, **(env or {})})


def test_cli_prints_graphviz_text_without_output_file(tmp_path):
    result = _cli(tmp_path, "--arg", "float32[8,16]", "--arg", "float32[16,4]", "--arg", "2.0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('digraph "layer" {')
    assert '"float32[8, 16]"' in result.stdout and "user_module.py:5" in result.stdout
    assert "np.multiply(tanh, 2.0)" in result.stdout


def test_cli_writes_svg_with_graphviz(tmp_path):
    if shutil.which("dot") is None:
        pytest.skip("the Graphviz `dot` program is not installed")
    out = tmp_path / "layer.svg"
    result = _cli(tmp_path, "--arg", "float32[?,16]", "--arg", "float32[16,4]", "--arg", "1",
                  "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "<svg" in out.read_text()
    assert f"wrote {out}" in result.stderr


def test_cli_writes_dot_when_graphviz_is_absent(tmp_path):
    # a sitecustomize that hides the graphviz package and the dot program
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(textwrap.dedent("""
        import shutil, sys
        sys.modules["graphviz"] = None
        shutil.which = lambda name, *args, **kwargs: None
    """))
    out = tmp_path / "layer.svg"
    result = _cli(tmp_path, "--arg", "float32[8,16]", "--arg", "float32[16,4]", "--arg", "1",
                  "-o", str(out), env={"PYTHONPATH": f"{hide}{os.pathsep}{ROOT}"})
    assert result.returncode == 0, result.stderr
    assert not out.exists()
    assert (tmp_path / "layer.dot").read_text().startswith('digraph "layer"')
    assert "Graphviz is not installed" in result.stderr and "layer.dot" in result.stderr


def test_cli_rejects_a_bad_argument_spec(tmp_path):
    result = _cli(tmp_path, "--arg", "float32[8,")
    assert result.returncode != 0
    assert "neither DTYPE[DIMS]" in result.stderr


def test_readme_pictures_are_what_their_commands_draw(tmp_path):
    """Each docs/*.svg the README shows is the drawing of the command above it."""
    import html
    import shlex
    with open(os.path.join(ROOT, "README.md")) as f:
        blocks = re.findall(r"```sh\n(.*?)```", f.read(), re.S)
    drawn = [shlex.split(b.replace("\\\n", " ")) for b in blocks if "autograph graph" in b]
    assert {words[-1] for words in drawn} >= {"docs/collatz.svg", "docs/mlp_step.svg"}
    for words in drawn:
        assert words[:4] == ["python", "-m", "autograph", "graph"] and words[-2] == "-o"
        result = subprocess.run([sys.executable, *words[1:-2]], capture_output=True, text=True,
                                cwd=ROOT, check=False, env={**os.environ, "PYTHONPATH": ROOT})
        assert result.returncode == 0, result.stderr
        labels = re.findall(r'^ +n\d+ \[label="([^"\\]*)', result.stdout, re.M)
        with open(os.path.join(ROOT, words[-1])) as f:
            svg = f.read()
        assert svg.count('class="node"') == len(labels), words[-1]
        texts = {html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)}
        # each node's first line (up to an escape) begins one of the picture's texts
        missing = [a for a in labels if not any(t.startswith(a) for t in texts)]
        assert not missing, (words[-1], missing)
        title = re.search(r'^  label="([^"\\]*)" labelloc', result.stdout, re.M).group(1)
        assert title in texts, (words[-1], title)  # the signature: the shapes drawn for
