"""Every Python block of the README and the book runs as written: each ```python block is run
as a script, in a fresh folder where `examples/` is the repository's (its paths are the
README's), and must exit 0 without a warning on stderr."""

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)


def documents() -> list:
    """The README and every page of the book (docs/, the generated references included)."""
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def python_blocks() -> list:
    blocks = []
    for path in documents():
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT).as_posix()
        blocks += [
            pytest.param(
                match.group(1), id=f"{name}:{text[: match.start()].count(chr(10)) + 1}"
            )
            for match in BLOCK.finditer(text)
        ]
    return blocks


def test_the_readme_and_the_book_have_python_blocks() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert BLOCK.search(readme), "the README has no Python example"
    assert len(python_blocks()) >= 2


@pytest.mark.parametrize("code", python_blocks())
def test_a_python_block_runs_as_written(code: str, tmp_path: pathlib.Path) -> None:
    pytest.importorskip("pandas", reason="pandas is not installed (pip install '.[test]')")
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"the block failed:\n{code}\n--- stderr:\n{done.stderr}"
    assert done.stderr == "", f"the block warned:\n{done.stderr}"
