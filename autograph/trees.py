"""Fast copies of gast trees.

`copy.deepcopy` is generic and slow (slower than parsing the source again);
converters copy subtrees often (staged copies, templates), so this copy knows
the shape of gast nodes: fields, locations and the annotation dict (copied
one level deep: annotation values are shared, facts about the same code).
"""

import gast

from autograph import anno

_AST = gast.AST


def clone(node):
    """A deep copy of a gast node, a list of nodes, or a leaf value."""
    if isinstance(node, list):
        return [clone(item) for item in node]
    if not isinstance(node, _AST):
        return node  # str, int, None, ...: immutable leaves
    attrs = dict(node.__dict__)  # fields, locations and annotations at once
    for field in node._fields:
        value = attrs.get(field)
        if isinstance(value, list):
            attrs[field] = [clone(item) if isinstance(item, _AST) else item for item in value]
        elif isinstance(value, _AST):
            attrs[field] = clone(value)
    annotations = attrs.get(_ANNO)
    if annotations is not None:
        attrs[_ANNO] = dict(annotations)
    cls = node.__class__
    new = cls.__new__(cls)
    new.__dict__.update(attrs)
    return new


_ANNO = anno.FIELD
