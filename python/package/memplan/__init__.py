"""memplan: static memory planning for ML compilers (offsets for buffers with known lifetimes).

The solvers, checker and graph layer are the C++ extension `memplan._memplan`, re-exported
here. Front ends: `memplan.torch` (PyTorch models through torch.fx / AOT autograd).
"""
from ._memplan import *  # noqa: F401,F403
from ._memplan import __doc__, _graph_order, _lower_graph, _schedule_graph  # noqa: F401
