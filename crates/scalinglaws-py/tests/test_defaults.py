"""The keywords' defaults are the library's: every public function whose keyword is a level, a
loss scale or a tolerance shows the value the compiled module exports, the one the Rust library
and the CLI use, not a copy written in Python."""

import inspect
import pathlib
import re
import subprocess

import pytest

import scalinglaws as sl
from scalinglaws import _scalinglaws

# Keyword name -> the library's default for it. `tolerance` is IsoFLOP's budget tolerance; the
# lab's simulators have their own `tolerance` (None: the simulator's default), skipped below.
LIBRARY_DEFAULTS = {
    "level": _scalinglaws.DEFAULT_LEVEL,
    "f_scale": _scalinglaws.DEFAULT_F_SCALE,
    "tolerance": _scalinglaws.DEFAULT_TOLERANCE,
    "cell_tolerance": _scalinglaws.DEFAULT_CELL_TOLERANCE,
}


def public_functions() -> list:
    return [
        (name, value)
        for name in sl.__all__
        for value in [getattr(sl, name)]
        if inspect.isfunction(value)
    ]


@pytest.mark.parametrize(
    "command, flag, key",
    [
        ("fit", "--level", "level"),
        ("fit", "--f-scale", "f_scale"),
        ("isoflop", "--tolerance", "tolerance"),
        ("compare", "--cell-tolerance", "cell_tolerance"),
    ],
)
def test_the_cli_shows_the_same_defaults(cli: pathlib.Path, command: str, flag: str, key: str) -> None:
    """`scalinglaws COMMAND --help` shows the default the compiled module exports."""
    help_text = subprocess.run(
        [str(cli), command, "--help"], check=True, capture_output=True, text=True
    ).stdout
    # The option's own line (the flag may also appear in other options' help).
    entry = re.search(rf"^ *(-\w, )?{flag} .*$", help_text, flags=re.M)
    assert entry is not None, f"{command} --help has no {flag}"
    shown = re.search(r"\[default: ([^\]]+)\]", entry.group(0))
    assert shown is not None, f"{command} --help shows no default for {flag}"
    assert float(shown.group(1)) == pytest.approx(LIBRARY_DEFAULTS[key], rel=1e-12)


def test_every_keyword_default_is_the_librarys() -> None:
    seen = {key: 0 for key in LIBRARY_DEFAULTS}
    for name, function in public_functions():
        for keyword, parameter in inspect.signature(function).parameters.items():
            if keyword not in LIBRARY_DEFAULTS or parameter.default in (None, inspect.Parameter.empty):
                continue
            assert parameter.default == pytest.approx(LIBRARY_DEFAULTS[keyword], rel=1e-12), (
                f"{name}({keyword}=...) defaults to {parameter.default!r}, "
                f"the library's is {LIBRARY_DEFAULTS[keyword]!r}"
            )
            seen[keyword] += 1
    # Each default is shown by at least one function (a renamed keyword fails here).
    assert all(count > 0 for count in seen.values()), seen
