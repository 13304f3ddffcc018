"""memplan: static memory planning for ML compilers (offsets for buffers with known lifetimes).

The solvers, checker and graph layer are the C++ extension `memplan._memplan`, re-exported
here (typed by _memplan.pyi). Front ends: `memplan.torch` (PyTorch models through torch.fx /
AOT autograd). `python -m memplan` runs the memplan CLI bundled with the installed package.
"""
from ._memplan import *  # noqa: F401,F403
from ._memplan import __doc__, _graph_order, _lower_graph, _schedule_graph  # noqa: F401
from ._memplan import __version__ as __version__  # the library's version (explicit re-export)
