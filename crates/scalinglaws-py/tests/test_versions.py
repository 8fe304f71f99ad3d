"""The minimum Python version the README states (pyproject.toml's requires-python) is the one
the code needs. This machine has one Python, so the promise is checked by reading the code:
vermin (a static analyser of the language and standard-library features each file uses, from
PyPI, in the `test` extra) must find nothing newer than requires-python in the package, its
tests, the examples and the Python of bench/ and scripts/. Without vermin the test skips, saying so."""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def promised() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^requires-python\s*=\s*">=\s*(\d+\.\d+)"', text, re.M)
    assert match, "pyproject.toml states requires-python as >=X.Y"
    return match.group(1)


def test_no_python_file_needs_a_newer_python_than_requires_python() -> None:
    pytest.importorskip("vermin", reason="vermin is not installed (pip install '.[test]')")
    folders = [
        ROOT / "crates" / "scalinglaws-py" / "python",
        ROOT / "crates" / "scalinglaws-py" / "tests",
        ROOT / "examples",
        ROOT / "bench",
        ROOT / "scripts",
    ]
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from vermin.main import main; sys.exit(main())",
         f"-t={promised()}-", "--no-tips", "--violations",
         "--eval-annotations", *[str(f) for f in folders]],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, (
        f"code that needs a newer Python than requires-python >={promised()}:\n{done.stdout}{done.stderr}"
    )
