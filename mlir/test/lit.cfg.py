# lit configuration of memplan's MLIR tests (run through ctest: mlir_lit).
import os

import lit.formats

config.name = "memplan-mlir"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.memplan_obj_root
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in"]
config.environment["PATH"] = os.pathsep.join(
    [config.memplan_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
