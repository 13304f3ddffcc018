"""Build of the Python package (`pip install .`): CMake builds the extension memplan._memplan
and the memplan CLI (bundled as memplan/bin/memplan for `python -m memplan`) from this source
tree, with only what they need (no tests, benchmarks or MLIR). Metadata is in pyproject.toml.

Environment: MEMPLAN_BUILD_JOBS (parallel jobs, default: the number of CPUs),
MEMPLAN_ONNX=OFF to leave out the ONNX front end (default: on when libonnx-dev is installed),
MEMPLAN_CMAKE_ARGS (extra arguments for the CMake configure step). ccache is used when present.
The CMake build directory is build-pip/ (kept, so a second install rebuilds only what changed).
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build import build
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version() -> str:
    """The version in CMakeLists.txt's project(memplan VERSION x.y.z): the library's version."""
    text = (ROOT / "CMakeLists.txt").read_text()
    m = re.search(r"project\(\s*memplan\s+VERSION\s+([0-9.]+)", text)
    if not m:
        raise RuntimeError("CMakeLists.txt: no 'project(memplan VERSION ...)'")
    return m.group(1)


def onnx_available() -> bool:
    """Whether the ONNX front end can be built (Debian's libonnx-dev)."""
    env = os.environ.get("MEMPLAN_ONNX", "").upper()
    if env in ("ON", "OFF"):
        return env == "ON"
    return any(Path(p).exists() for p in ("/usr/lib/x86_64-linux-gnu/cmake/ONNX",
                                          "/usr/lib/cmake/ONNX", "/usr/share/cmake/ONNX"))


class CMakeBuild(build_ext):
    """Configures and builds the CMake targets memplan_python and memplan_cli, then copies the
    extension module and the CLI into the package."""

    def build_extension(self, ext: Extension) -> None:
        # build-pip/ next to build/: the compile commands (relative to CCACHE_BASEDIR) are
        # then the main build's, so ccache serves the library from the main build's objects.
        build_dir = ROOT / "build-pip"
        build_dir.mkdir(parents=True, exist_ok=True)
        onnx = "ON" if onnx_available() else "OFF"
        args = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                "-DMEMPLAN_BUILD_TESTS=OFF", "-DMEMPLAN_BUILD_BENCH=OFF",
                "-DMEMPLAN_BUILD_MLIR=OFF", "-DMEMPLAN_BUILD_PYTHON=ON", "-DMEMPLAN_BUILD_CLI=ON",
                f"-DMEMPLAN_BUILD_ONNX={onnx}", f"-DPython_EXECUTABLE={sys.executable}"]
        if shutil.which("ccache"):
            args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        args += os.environ.get("MEMPLAN_CMAKE_ARGS", "").split()
        jobs = os.environ.get("MEMPLAN_BUILD_JOBS", str(os.cpu_count() or 2))
        env = dict(os.environ)
        env.setdefault("CCACHE_BASEDIR", str(ROOT))  # cache hits across build directories
        subprocess.run(args, check=True, env=env)
        subprocess.run(["cmake", "--build", str(build_dir), "-j", jobs,
                        "--target", "memplan_python", "memplan_cli"], check=True, env=env)

        module = next((build_dir / "python" / "memplan").glob("_memplan*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(module, target)
        cli_dir = target.parent / "bin"
        cli_dir.mkdir(exist_ok=True)
        shutil.copy2(build_dir / "memplan", cli_dir / "memplan")


class Build(build):
    """Keeps setuptools' own build files in build/pip, apart from the CMake build tree build/."""

    def initialize_options(self) -> None:
        super().initialize_options()
        self.build_base = str(Path("build") / "pip")


setup(
    version=project_version(),
    ext_modules=[Extension("memplan._memplan", sources=[])],
    cmdclass={"build": Build, "build_ext": CMakeBuild},
)
