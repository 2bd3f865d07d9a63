"""Where the layers meet (docs/ARCHITECTURE.md, "Layers").

The runtime, the transpiler and the graph engine do not import each other
upwards; each offers a hook, and this module, imported by `autograph`, sets
them:

- the graph engine enters the runtime's `staging` around every trace, so a
  converted function runs its staged body while `ag.function` traces it;
- `ag.function(autograph=True)` converts with `autograph.api.to_graph`;
- the runtime's registry learns which backend module serves which library.

(The API hands the runtime the transpiler itself: see autograph/api.py.)
"""

from autograph import api, backends
from autograph.graph import core
from autograph.graph.function import set_converter
from autograph.runtime import registry

core.trace_hook = registry.staging
set_converter(api.to_graph)
for _library, _module in backends.BY_LIBRARY.items():
    registry.register_backend_module(_library, _module)
