"""`scalinglaws.lab`: each simulator's DataFrame against the CSV `scalinglaws sim NAME` writes for
the same settings (the same columns, in order, and the same numbers), seeded runs repeated
bit for bit, settings refused in Python's words (the keyword, as the command names its option),
and a simulated dataset fitted by the engine."""

import inspect
import io
import math
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Dict, Iterator, List

import pandas as pd
import pytest

import scalinglaws as sl
from scalinglaws import lab

# Each simulator at small, fast settings (well under a second each), as keywords and as the
# command's options.
CASES: Dict[str, Any] = {
    "nvfp4": (
        dict(dimensions=[16, 64], pairs=40, correlation=0.1, seed=3),
        ["--dimensions", "16,64", "--pairs", "40", "--correlation", "0.1", "--seed", "3"],
    ),
    "nvfp4_block_scaled": (
        dict(dimensions=[16, 48], pairs=30, tensor_scale=False, seed=7),
        ["--dimensions", "16,48", "--pairs", "30", "--no-tensor-scale", "--seed", "7"],
    ),
    "sgd": (
        dict(dimension=16, a=2.5, b=1.5, noise=0.3, batch=2, lr=0.1, steps=100, per_decade=3,
             seeds=20, optimizer=["sgd_exact", "signsgd_mc"], seed=5),
        ["--dimension", "16", "--a", "2.5", "--b", "1.5", "--noise", "0.3", "--batch", "2",
         "--lr", "0.1", "--steps", "100", "--per-decade", "3", "--seeds", "20",
         "--optimizer", "sgd_exact,signsgd_mc", "--seed", "5"],
    ),
    "sgd_scaling": (
        dict(a=2.0, b=1.5, dimension=32, horizons=[32, 64, 128, 256], decay=0.5, seeds=3, seed=1),
        ["--a", "2", "--b", "1.5", "--dimension", "32", "--horizons", "32,64,128,256",
         "--decay", "0.5", "--seeds", "3", "--seed", "1"],
    ),
    "editing": (
        dict(rows=8, cols=32, edits=20, feedback=2.0, tolerance=0.4, threshold=0.8, seeds=4,
             seed=2),
        ["--rows", "8", "--cols", "32", "--edits", "20", "--feedback", "2", "--tolerance", "0.4",
         "--threshold", "0.8", "--seeds", "4", "--seed", "2"],
    ),
    "multi_index": (
        dict(dimensions=[16, 32], kappas=[1.0, 4.0, 16.0], directions=2, strength_exponent=0.25,
             noise=0.1, seeds=3, seed=4),
        ["--dimensions", "16,32", "--kappas", "1,4,16", "--directions", "2",
         "--strength-exponent", "0.25", "--noise", "0.1", "--seeds", "3", "--seed", "4"],
    ),
    "recall": (
        dict(state_sizes=[8, 12], embedding=64, context=3, trials=8, delta=0.2, max_vocab=256,
             seed=6),
        ["--state-sizes", "8,12", "--embedding", "64", "--context", "3", "--trials", "8",
         "--delta", "0.2", "--max-vocab", "256", "--seed", "6"],
    ),
}


def simulator(case: str) -> str:
    """The simulator a case runs (`nvfp4_block_scaled` runs `nvfp4`)."""
    return "nvfp4" if case.startswith("nvfp4") else case


def sim(cli: pathlib.Path, name: str, args: List[str]) -> str:
    """What `scalinglaws sim NAME ARGS` writes on stdout."""
    command = [str(cli), "sim", simulator(name).replace("_", "-"), *args]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def refusal(cli: pathlib.Path, name: str, args: List[str]) -> str:
    """The message `scalinglaws sim NAME ARGS` refuses the settings with (exit code 2)."""
    command = [str(cli), "sim", simulator(name).replace("_", "-"), *args]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    return done.stderr.strip().removeprefix("error: ")


def read(text: str) -> pd.DataFrame:
    """The command's CSV as pandas reads it (the Python parser: every float exactly)."""
    return pd.read_csv(io.StringIO(text), engine="python")


@pytest.mark.parametrize("name", list(CASES))
def test_each_simulator_returns_the_command_line_s_dataset(cli: pathlib.Path, name: str) -> None:
    keywords, args = CASES[name]
    frame = getattr(lab, simulator(name))(**keywords)
    text = sim(cli, name, args)
    assert list(frame.columns) == text.splitlines()[0].split(",")
    assert len(frame) == len(text.splitlines()) - 1 > 0
    pd.testing.assert_frame_equal(frame, read(text), check_exact=True)


@pytest.mark.parametrize("name", list(CASES))
def test_a_seeded_run_repeats_bit_for_bit_and_the_seed_matters(name: str) -> None:
    keywords, _ = CASES[name]
    run = getattr(lab, simulator(name))
    first = run(**keywords)
    pd.testing.assert_frame_equal(first, run(**keywords), check_exact=True)
    other = run(**{**keywords, "seed": keywords["seed"] + 1})
    assert list(other.columns) == list(first.columns)
    assert not first.equals(other)


def test_the_defaults_are_the_command_line_s(cli: pathlib.Path) -> None:
    """Keywords left out take the simulator's defaults, as the command's options do (here
    those that keep a run short are given; every default is taken the same way)."""
    recall = lab.recall(state_sizes=[8, 16], trials=4)
    expected = read(sim(cli, "recall", ["--state-sizes", "8,16", "--trials", "4"]))
    pd.testing.assert_frame_equal(recall, expected, check_exact=True)
    assert set(recall["embedding"]) == {1024} and set(recall["context"]) == {2}
    partial = lab.sgd(steps=50, seeds=10)
    expected = read(sim(cli, "sgd", ["--steps", "50", "--seeds", "10"]))
    pd.testing.assert_frame_equal(partial, expected, check_exact=True)
    assert set(partial["optimizer"]) == {"sgd_exact", "sgd_mc", "signsgd_mc"}


# A bad setting per simulator (the lab's own refusals and the command's caps), as keywords and
# as options, and the keyword the message must name.
BAD = [
    ("nvfp4", dict(dimensions=[0]), ["--dimensions", "0"], "dimensions"),
    ("nvfp4", dict(correlation=1.0), ["--correlation", "1"], "correlation"),
    ("sgd", dict(steps=0), ["--steps", "0"], "steps"),
    ("sgd", dict(per_decade=0), ["--per-decade", "0"], "per_decade"),
    ("sgd", dict(optimizer="nope"), ["--optimizer", "nope"], "optimizer"),
    ("sgd", dict(a=0.5), ["--a", "0.5"], "a"),
    ("sgd_scaling", dict(horizons=[64, 32, 128]), ["--horizons", "64,32,128"], "horizons"),
    ("sgd_scaling", dict(horizons=[1, 2, 20_000_000]), ["--horizons", "1,2,20000000"], "horizons"),
    ("sgd_scaling", dict(decay=2.0), ["--decay", "2"], "decay"),
    ("editing", dict(seeds=1), ["--seeds", "1"], "seeds"),
    ("editing", dict(threshold=1.5), ["--threshold", "1.5"], "threshold"),
    ("multi_index", dict(kappas=[4.0, 1.0]), ["--kappas", "4,1"], "kappas"),
    ("multi_index", dict(strength_exponent=9.0), ["--strength-exponent", "9"], "strength_exponent"),
    ("recall", dict(delta=0.0), ["--delta", "0"], "delta"),
    ("recall", dict(max_vocab=1), ["--max-vocab", "1"], "max_vocab"),
]


@pytest.mark.parametrize("name, keywords, args, keyword", BAD)
def test_a_bad_setting_is_refused_naming_the_keyword(
    cli: pathlib.Path, name: str, keywords: Dict[str, Any], args: List[str], keyword: str
) -> None:
    with pytest.raises(sl.SettingsError) as raised:
        getattr(lab, name)(**keywords)
    message = str(raised.value)
    assert message.startswith(f"{keyword}=: "), message
    assert "--" not in message
    # The command's message, its option worded as the keyword.
    option = "--" + keyword.replace("_", "-")
    assert message == refusal(cli, name, args).replace(option, f"{keyword}=", 1)


def test_a_setting_made_from_other_keywords_is_named_by_them(cli: pathlib.Path) -> None:
    """The lab's per-step learning rates come from ``lr=`` and ``steps=``, as the command's from
    ``--lr`` and ``--steps``."""
    with pytest.raises(sl.SettingsError) as raised:
        lab.sgd(lr=-1.0, steps=10)
    message = str(raised.value)
    assert message.startswith("lr=/steps=: the learning rate at step 0 is -1"), message
    expected = refusal(cli, "sgd", ["--lr=-1", "--steps", "10"])
    assert message == expected.replace("--lr/--steps", "lr=/steps=")


@pytest.mark.parametrize(
    "call, keyword",
    [
        (lambda: lab.nvfp4(dimensions=[16, -1]), "dimensions"),
        (lambda: lab.nvfp4(pairs=2.5), "pairs"),
        (lambda: lab.nvfp4(tensor_scale=1), "tensor_scale"),
        (lambda: lab.sgd(seeds=True), "seeds"),
        (lambda: lab.sgd(lr="0.1"), "lr"),
        (lambda: lab.sgd(optimizer=[1]), "optimizer"),
        (lambda: lab.multi_index(kappas="1,2"), "kappas"),
        (lambda: lab.recall(state_sizes=[8, None]), "state_sizes"),
        (lambda: lab.editing(seed=-1), "seed"),
        (lambda: lab.sgd_scaling(horizons=[64, 2**70]), "horizons"),
    ],
)
def test_a_value_of_the_wrong_kind_is_refused_naming_the_keyword(call: Any, keyword: str) -> None:
    with pytest.raises(sl.SettingsError, match=f"^{keyword}=: ") as raised:
        call()
    assert "--" not in str(raised.value)


def test_one_value_stands_for_a_list_and_numpy_numbers_are_taken(cli: pathlib.Path) -> None:
    np = pytest.importorskip("numpy")
    frame = lab.nvfp4(dimensions=np.int64(32), pairs=np.int32(20), correlation=np.float64(0.1))
    expected = read(sim(cli, "nvfp4", ["--dimensions", "32", "--pairs", "20", "--correlation", "0.1"]))
    pd.testing.assert_frame_equal(frame, expected, check_exact=True)
    many = lab.multi_index(dimensions=np.array([16, 32]), kappas=np.array([1.0, 4.0]), seeds=2)
    assert sorted(set(many["dimension"])) == [16, 32]


def test_importing_scalinglaws_imports_no_pandas() -> None:
    """The lab is a submodule of the package, and pandas is imported only when a simulator
    returns."""
    code = "import sys, scalinglaws; scalinglaws.lab.nvfp4; assert 'pandas' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_simulated_scaling_curve_is_fitted_by_the_engine() -> None:
    """The end-to-end path the lab exists for: simulate SGD's and signSGD's tuned excess risk
    against the training length, fit a power law per optimizer, and recover the slopes the
    simulated points follow."""
    points = lab.sgd_scaling(dimension=64, horizons=[64, 128, 256, 512, 1024], seeds=4)
    fits = sl.fit_groups(
        points, group="optimizer", law="power", map={"x": "horizon"}, target="excess_risk",
        loss="linear",
    )
    assert sorted(fits.fits) == ["sgd_exact", "signsgd_mc"]
    for optimizer, fit in fits.fits.items():
        mine = points[points["optimizer"] == optimizer]
        slope = _log_slope(list(mine["horizon"]), list(mine["excess_risk"]))
        # A pure power law fitted in log space by least squares is the line of ln y on ln x.
        assert fit.params["alpha"] == pytest.approx(-slope, rel=1e-6), (optimizer, fit.params)
        assert fit.params["alpha"] > 0  # the excess risk falls with more data


def _log_slope(x: List[float], y: List[float]) -> float:
    """The least-squares slope of ln y on ln x."""
    lx = [math.log(v) for v in x]
    ly = [math.log(v) for v in y]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def test_the_keywords_are_the_command_s_options(cli: pathlib.Path) -> None:
    """Every keyword of a simulator is an option of its command (in snake_case), and back;
    ``tensor_scale=False`` is ``--no-tensor-scale``."""
    for name in sorted({simulator(case) for case in CASES}):
        keywords = set(inspect.signature(getattr(lab, name)).parameters)
        command = [str(cli), "sim", name.replace("_", "-"), "--help"]
        help_text = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        options = set(re.findall(r"^ +(?:-[a-z], )?--([a-z][a-z-]*)", help_text, re.M)) - WRITING
        assert keywords == {o.removeprefix("no-").replace("-", "_") for o in options}, name


# The command's options that choose how and where it writes (a file, a figure, a format), which
# a DataFrame has no use for.
WRITING = {"help", "output", "plot", "format", "json", "version"}


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler, as a notebook has it (see test_notebook.py)."""
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, inherited)


def test_ctrl_c_stops_a_long_simulation(ctrl_c: None) -> None:
    # About a second of signSGD Monte Carlo on any number of cores (100 seeds a core, a few
    # milliseconds each); the interrupt lands after 0.3 s and KeyboardInterrupt comes at once,
    # the run winding down in the background.
    sent: List[float] = []

    def send() -> None:
        time.sleep(0.3)
        sent.append(time.perf_counter())
        signal.raise_signal(signal.SIGINT)

    cores = os.cpu_count() or 2
    threading.Thread(target=send, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        lab.sgd(dimension=64, steps=20_000, seeds=100 * cores, optimizer="signsgd_mc")
    stopped = time.perf_counter()
    assert sent, "the simulation ended before the interrupt was sent"
    assert stopped - sent[0] < 0.5, f"KeyboardInterrupt came {stopped - sent[0]:.3f} s after SIGINT"
    # The next run is whole and unchanged (the token was the interrupted run's own).
    keywords, _ = CASES["sgd"]
    pd.testing.assert_frame_equal(lab.sgd(**keywords), lab.sgd(**keywords), check_exact=True)
    assert _idle_within(60.0), "the interrupted simulation still works after a minute"


def _idle_within(seconds: float) -> bool:
    """Waits until this process uses no CPU (an interrupted run's background threads have
    stopped), so that the tests after this one run on quiet cores; False after ``seconds``."""
    last = time.process_time()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        time.sleep(0.25)
        now = time.process_time()
        if now - last < 0.01:
            return True
        last = now
    return False
