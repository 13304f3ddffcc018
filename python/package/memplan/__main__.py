"""`python -m memplan ...` runs the memplan command-line tool bundled in the package
(memplan/bin/memplan, built by `pip install .`) with the same arguments, so every subcommand,
option, output and exit code is the CLI's own."""
import os
import sys
from pathlib import Path
from typing import List, Optional


def cli_path() -> Path:
    """Path of the bundled memplan CLI (raises FileNotFoundError when the package was not
    installed with it, e.g. the build-tree module of a plain CMake build)."""
    exe = Path(__file__).resolve().parent / "bin" / "memplan"
    if not exe.is_file():
        raise FileNotFoundError(
            f"{exe}: the memplan CLI is not bundled in this copy of the package "
            "(install it with `pip install .`, or run the CLI of a CMake build)")
    return exe


def main(argv: Optional[List[str]] = None) -> None:
    """Replaces this process with the bundled CLI run on argv (default: sys.argv[1:])."""
    args = sys.argv[1:] if argv is None else argv
    try:
        exe = cli_path()
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(str(exe), ["memplan", *args])


if __name__ == "__main__":
    main()
