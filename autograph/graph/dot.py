"""Pictures of graphs: `ConcreteFunction.to_dot()` as Graphviz text, and SVG
when Graphviz is installed.

    digraph "collatz" {
      n0 [label="n\\nint64[]" shape=ellipse]                 # an input
      n1 [label="n_1, count = while_loop\\nclassic.py:18"]   # an op: the user's
      n0 -> n1 [label="int64[]"]                             # names, file:line;
      subgraph cluster_2 { label="while_loop test" ... }      # edges: shape/dtype
      ...
    }

Ops are boxes labelled with the names of the values they make (the user's
variable names where the tracer knew them, as in the text listing) and the
user's file:line; inputs are ellipses, constants small plain text.  The
branches of a `cond` and the test and body of a `while_loop` are clusters
beside their node: a captured outer value is drawn as an edge from where it
is made, and the values a branch or body gives back as dashed edges into
the node.  Rendering needs the `graphviz` package (pip install autograph[viz])
or the `dot` program; without both, `render_svg` returns None.
"""

import os
import shutil
import subprocess

from autograph.graph import core
from autograph.graph.listing import _call, _inline_const, _name, _value, type_string

_GRAPH_STYLE = ('  graph [fontname="Helvetica" fontsize=11 rankdir=TB]\n'
                '  node [shape=box style="rounded,filled" fillcolor="#eef3fb" color="#5b7db1" '
                'fontname="Helvetica" fontsize=11]\n'
                '  edge [fontname="Helvetica" fontsize=9 color="#555555"]')
_CONTROL_STYLE = 'shape=hexagon fillcolor="#fdf2d0" color="#b58a1b"'
_LABEL_WIDTH = 48
_CLUSTER_TITLES = {"cond": ("true branch", "false branch"),
                   "while_loop": ("while_loop test", "while_loop body")}


def quote(text):
    """`text` as a DOT string literal (newlines become DOT's centred \\n)."""
    escaped = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


class _Drawing:
    def __init__(self):
        self.lines = []
        # edges go after every node: an edge written inside a cluster would
        # pull both of its ends into that cluster
        self.edges = []
        self.ids = {}  # id(canonical tensor) -> DOT node id making it
        self.count = 0

    def fresh(self):
        self.count += 1
        return f"n{self.count}"

    def source(self, tensor):
        """The DOT node a tensor comes from (captures resolve to the outer maker)."""
        return self.ids.get(id(tensor.node.outputs[tensor.index]))

    def edge(self, tensor, target, style=""):
        source = self.source(tensor)
        if source is not None:
            self.edges.append(f"  {source} -> {target} [label={quote(type_string(tensor))}"
                              f"{style}]")

    def graph(self, graph, pad, captured_from=()):
        for outer, inner in captured_from:
            source = self.source(outer)
            if source is not None:
                self.ids[id(inner.node.outputs[inner.index])] = source
        for tensor in graph.inputs:
            node_id = self.fresh()
            self.ids[id(tensor.node.outputs[tensor.index])] = node_id
            self.lines.append(f"{pad}{node_id} [label={quote(_name(tensor) + chr(10) + type_string(tensor))} "
                              "shape=ellipse fillcolor=white]")
        for node in graph.nodes:
            if node.op is core.PLACEHOLDER:
                continue
            self.node(node, pad)
        return [t for t in graph.outputs if hasattr(t, "node")]

    def node(self, node, pad):
        if node.op is core.CONST and _inline_const(node.outputs[0]) is not None:
            return  # a scalar: written into the labels of the ops using it
        node_id = self.fresh()
        for tensor in node.outputs:
            self.ids[id(tensor)] = node_id
        if node.op is core.CONST:
            self.lines.append(f"{pad}{node_id} [label={quote(_value(node.outputs[0]))} "
                              "shape=plaintext "
                              "style=\"\" fontsize=10]")
            return
        names = ", ".join(_name(t) for t in node.outputs)
        call = _call(node)
        call = call if len(call) <= _LABEL_WIDTH else call[:_LABEL_WIDTH - 3] + "..."
        label = f"{names} = {call}" if names else call
        if node.location:
            label += f"\n{os.path.basename(node.location[0])}:{node.location[1]}"
        style = f" {_CONTROL_STYLE}" if node.subgraphs else (
            ' fillcolor="#fbe9e7" color="#b0524a"' if node.stateful else "")
        self.lines.append(f"{pad}{node_id} [label={quote(label)}{style}]")
        explicit = node.attrs.get("explicit_args", len(node.args)) if node.subgraphs \
            else len(node.args)
        for arg in node.args[:explicit]:
            if hasattr(arg, "node"):
                self.edge(arg, node_id)
        titles = _CLUSTER_TITLES.get(node.op.name, ())
        for i, sub in enumerate(node.subgraphs):
            cluster = self.fresh()
            title = titles[i] if i < len(titles) else sub.name
            self.lines.append(f"{pad}subgraph cluster_{cluster} {{")
            self.lines.append(f'{pad}  label={quote(title)} style="rounded,dashed" '
                              'color="#999999" fontcolor="#555555"')
            results = self.graph(sub, pad + "  ", sub.captured)
            self.lines.append(f"{pad}}}")
            for tensor in sub.inputs:  # loop variables enter the test and the body
                self.edges.append(f"  {node_id} -> {self.source(tensor)} [style=dotted]")
            back = " constraint=false" if sub.inputs else ""
            for tensor in results:
                self.edge(tensor, node_id, f" style=dashed{back}")

    def outputs(self, graph):
        node_id = self.fresh()
        self.lines.append(f'  {node_id} [label="return" shape=ellipse fillcolor=white]')
        for tensor in graph.outputs:
            if hasattr(tensor, "node"):
                self.edge(tensor, node_id)


def to_dot(function):
    """Graphviz text of a ConcreteFunction's graph (see module doc)."""
    graph = function.graph
    drawing = _Drawing()
    drawing.lines.append(f"digraph {quote(graph.name)} {{")
    drawing.lines.append(_GRAPH_STYLE)
    drawing.lines.append(f"  label={quote(function.pretty_signature())} labelloc=t")
    drawing.graph(graph, "  ")
    drawing.outputs(graph)
    drawing.lines.extend(drawing.edges)
    drawing.lines.append("}")
    return "\n".join(drawing.lines) + "\n"


def render_svg(dot_text):
    """SVG text for `dot_text`, or None when Graphviz is not installed (the
    `graphviz` package, else the `dot` program)."""
    try:
        import graphviz
    except ImportError:
        graphviz = None
    if graphviz is not None:
        try:
            return graphviz.Source(dot_text).pipe(format="svg").decode("utf-8")
        except graphviz.ExecutableNotFound:
            return None
    program = shutil.which("dot")
    if program is None:
        return None
    result = subprocess.run([program, "-Tsvg"], input=dot_text.encode(), capture_output=True,
                            check=True)
    return result.stdout.decode("utf-8")
