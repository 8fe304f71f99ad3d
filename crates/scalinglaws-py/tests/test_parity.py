"""Every workflow the command line has, Python has: each command of `scalinglaws --help`
(and of its `schedule`, `plot` and `sim` groups) maps to the Python function or method that does
the same work, and the ones Python lacks are listed here with the reason, so that the list can
only shrink (a command that gains a Python face must move from GAPS to PYTHON)."""

import pathlib
import re
import subprocess
from typing import Dict, List

import scalinglaws as sl
import scalinglaws.lab

# CLI command -> what does its work in Python (a name under `scalinglaws`, dotted for methods),
# for the commands that are not workflows (those are found below).
PYTHON = {
    "laws": "laws",
    "report": "Fit.report_html",
    "plot fit": "Fit.plot",
    "plot residuals": "Fit.plot",
    "plot frontier": "Fit.plot",
    "plot bootstrap": "Fit.plot",
    "plot tracks": "plot_tracks",
    "plot isoflop": "plot_isoflop",
    "sim nvfp4": "lab.nvfp4",
    "sim sgd": "lab.sgd",
    "sim sgd-scaling": "lab.sgd_scaling",
    "sim editing": "lab.editing",
    "sim multi-index": "lab.multi_index",
    "sim recall": "lab.recall",
}

# The workflows of `scalinglaws::workflow` have generated Python functions, each named as its
# command's last word (`sensitivity`, `schedule cooldown-study`) or as its whole command
# (`schedule predict`: `schedule_predict`).
WORKFLOWS = [name for name in sl._workflows.__all__ if name[0].islower()]

# CLI commands Python does not have yet, and why (issue 49: every workflow in both faces).
GAPS: Dict[str, str] = {}


def commands(cli: pathlib.Path, *group: str) -> List[str]:
    """The subcommands `scalinglaws [GROUP] --help` lists (without `help`)."""
    text = subprocess.run(
        [str(cli), *group, "--help"], check=True, capture_output=True, text=True
    ).stdout
    listed = text.split("Commands:", 1)[1].split("\n\n", 1)[0]
    names = re.findall(r"^  ([a-z][a-z0-9-]*)  ", listed, re.M)
    return [" ".join([*group, n]) for n in names if n != "help"]


def test_every_command_has_a_python_face_or_a_stated_gap(cli: pathlib.Path) -> None:
    found = []
    for command in commands(cli):
        if command in ("schedule", "plot", "sim"):
            found += commands(cli, command)
        else:
            found.append(command)
    assert len(found) >= 25, found
    faces = dict(PYTHON)
    for name in WORKFLOWS:
        # The command of the whole name (`isoflop`, not `plot isoflop`), else of its last word.
        exact = [c for c in found if c.replace(" ", "_").replace("-", "_") == name]
        runs = exact or [
            c
            for c in found
            if c.split()[-1] == name.replace("_", "-") or c.replace(" ", "_") == name
        ]
        assert len(runs) == 1, f"{name}: no one command of its name: {runs}"
        faces[runs[0]] = name
    unmapped = [c for c in found if c not in faces and c not in GAPS]
    assert not unmapped, f"commands with no Python face and no stated gap: {unmapped}"
    both = set(faces) & set(GAPS)
    assert not both, f"listed as done and as a gap: {both}"
    stale = [c for c in [*faces, *GAPS] if c not in found]
    assert not stale, f"listed here but not commands of the CLI: {stale}"


def test_every_python_face_exists() -> None:
    for command, name in PYTHON.items():
        target: object = scalinglaws.lab if name.startswith("lab.") else sl
        for part in name.removeprefix("lab.").split("."):
            assert hasattr(target, part), f"{command}: scalinglaws.{name} does not exist"
            target = getattr(target, part)
        assert callable(target), f"{command}: scalinglaws.{name} is not callable"
