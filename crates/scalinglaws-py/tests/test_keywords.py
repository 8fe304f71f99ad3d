"""Issue 50: every bad keyword gets a `scalinglaws` error naming the keyword. A value of the
wrong type or shape (text for a number, a string for a list or a dict, a fraction or a bool
for a whole number, a non-bool switch, an unknown keyword) raised a builtin TypeError,
ValueError or AttributeError from deep inside, or was taken with a wrong meaning
(``shared="E,alpha"`` as five one-letter names, ``calibrate="no"`` as True). Every case here
must raise SettingsError (or the named subclass of scalinglaws.Error) whose message names the
keyword, before any fit runs."""

import math
import re
from typing import Any, Callable, Dict, List, Tuple

import numpy as np
import pytest

import scalinglaws as sl
from conftest import ROOT

ISO = str(ROOT / "examples" / "isoflop" / "runs.csv")
TRACKS = str(ROOT / "examples" / "tracks" / "two_recipes.csv")
LR = str(ROOT / "examples" / "lr" / "sweep.csv")
SCHEDULE = str(ROOT / "examples" / "schedule" / "runs_400m.csv")
BASE: Dict[str, Any] = dict(law="chinchilla", target="loss")
ISOFLOP: Dict[str, Any] = dict(compute="C", size="N", target="loss")
LR_COLUMNS: Dict[str, Any] = dict(lr="peak_lr", size="params", tokens="tokens", target="loss")
GRID = "N=1e7..1e10,D=1e8..1e11"
DESIGN: Dict[str, Any] = dict(BASE, goal="optimal_loss@1e23", candidates=GRID)
PARAMS = {"E": 1.7, "A": 400.0, "alpha": 0.34, "B": 410.0, "beta": 0.28}


def fit(**keywords: Any) -> Callable[[], Any]:
    return lambda: sl.fit(ISO, **BASE, **keywords)


# (case, call, the keyword its message must name as `keyword=`).
CASES: List[Tuple[str, Callable[[], Any], str]] = [
    ("bootstrap fraction", fit(bootstrap=20.5), "bootstrap"),
    ("bootstrap text", fit(bootstrap="20"), "bootstrap"),
    ("bootstrap bool", fit(bootstrap=True), "bootstrap"),
    ("bootstrap nan", fit(bootstrap=math.nan), "bootstrap"),
    ("bootstrap negative", fit(bootstrap=-1), "bootstrap"),
    ("seed fraction", fit(seed=1.5), "seed"),
    ("seed negative", fit(seed=-1), "seed"),
    ("threads fraction", fit(threads=1.5), "threads"),
    ("f_scale text", fit(f_scale="x"), "f_scale"),
    ("level text", fit(level="0.9"), "level"),
    ("law number", lambda: sl.fit(ISO, law=5, target="loss"), "law"),  # type: ignore[arg-type]
    ("target None", lambda: sl.fit(ISO, law="chinchilla", target=None), "target"),  # type: ignore[arg-type]
    ("target missing", lambda: sl.fit(ISO, law="chinchilla"), "target"),  # type: ignore[call-arg]
    ("unknown keyword", fit(bootstrapp=20), "bootstrapp"),
    ("fix text", fit(fix="E=1"), "fix"),
    ("fix nan", fit(fix={"E": math.nan}), "fix"),
    ("fix text value", fit(fix={"E": "1"}), "fix"),
    ("bounds triple", fit(bounds={"E": (0, 1, 2)}), "bounds"),
    ("bounds text", fit(bounds={"E": "0:1"}), "bounds"),
    ("bounds list", fit(bounds=[(0, 1)]), "bounds"),
    ("grid text", fit(grid={"alpha": "abc"}), "grid"),
    ("where number", fit(where=5), "where"),
    ("where list of numbers", fit(where=[5]), "where"),
    ("map list", fit(map=["N"]), "map"),
    ("derive list", fit(derive=["x=N"]), "derive"),
    ("derive number", fit(derive={"x": 5}), "derive"),
    ("weights number", fit(weights=5), "weights"),
    ("nu text", fit(family="student_t", nu="a"), "nu"),
    ("trials list", fit(family="binomial", trials=[1, 2]), "trials"),
    ("calibrate text", fit(calibrate="no"), "calibrate"),
    ("calibrate number", fit(calibrate=1), "calibrate"),
    ("delimiter without a path", lambda: sl.fit({"N": [1.0]}, **BASE, delimiter=";"), "delimiter"),
    ("shared string", lambda: sl.compare(TRACKS, **BASE, track="recipe", shared="E,alpha"), "shared"),
    ("shared number", lambda: sl.compare(TRACKS, **BASE, track="recipe", shared=5), "shared"),
    ("budget text", lambda: sl.compare(TRACKS, **BASE, track="recipe", budget="1e21"), "budget"),
    ("set text", lambda: sl.compare(TRACKS, **BASE, track="recipe", set={"U": "x"}), "set"),
    ("cell_tolerance text", lambda: sl.compare(TRACKS, **BASE, track="recipe", cell_tolerance="x"), "cell_tolerance"),
    ("isoflop tolerance text", lambda: sl.isoflop(ISO, **ISOFLOP, tolerance="x"), "tolerance"),
    ("isoflop group number", lambda: sl.isoflop(ISO, **ISOFLOP, group=5), "group"),
    ("isoflop budget text", lambda: sl.isoflop(ISO, **ISOFLOP, budget="1e22"), "budget"),
    ("isoflop backtest negative", lambda: sl.isoflop(ISO, **ISOFLOP, backtest=-1), "backtest"),
    ("design tokens_per_param one", lambda: sl.design(ISO, **DESIGN, tokens_per_param=(5,)), "tokens_per_param"),
    ("design tokens_per_param text", lambda: sl.design(ISO, **DESIGN, tokens_per_param="all"), "tokens_per_param"),
    ("design runs fraction", lambda: sl.design(ISO, **DESIGN, runs=2.5), "runs"),
    ("design goal number", lambda: sl.design(ISO, **dict(DESIGN, goal=5)), "goal"),
    ("design prior text", lambda: sl.design(law="chinchilla", goal="optimal_loss@1e23", candidates=GRID, prior={"E": "x"}), "prior"),
    ("backtest holdout_top fraction", lambda: sl.backtest(ISO, **BASE, by="C", holdout_top=1.5), "holdout_top"),
    ("backtest rollout bool", lambda: sl.backtest(ISO, **BASE, by="C", rollout=True), "rollout"),
    ("select laws number", lambda: sl.select(ISO, laws=3, target="loss"), "laws"),  # type: ignore[arg-type]
    ("select at text", lambda: sl.select(ISO, laws=["chinchilla"], target="loss", at={"N": "x"}), "at"),
    ("select fix flat", lambda: sl.select(ISO, laws=["chinchilla"], target="loss", fix={"E": 1.0}), "fix"),
    ("lr predict single", lambda: sl.lr(LR, **LR_COLUMNS, predict=[(1,)]), "predict"),
    ("lr predict dict", lambda: sl.lr(LR, **LR_COLUMNS, predict={"N": 1e9}), "predict"),
    ("lr window fraction", lambda: sl.lr(LR, **LR_COLUMNS, window=1.5), "window"),
    ("schedule_fit warmup fraction", lambda: sl.schedule_fit(SCHEDULE, run="run", warmup=2.5), "warmup"),
    ("schedule_fit train number", lambda: sl.schedule_fit(SCHEDULE, run="run", train=5), "train"),
    ("schedule_predict fit path", lambda: sl.schedule_predict("sch.json", "constant"), "fit"),  # type: ignore[arg-type]
    ("schedule_predict every negative", lambda: sl.schedule_predict({}, "constant", every=-1), "every"),
    ("schedule_optimize peak text", lambda: sl.schedule_optimize({}, steps=1000, peak="x"), "peak"),
    ("schedule_optimize steps negative", lambda: sl.schedule_optimize({}, steps=-1, peak=3e-4), "steps"),
    ("optimal params text", lambda: sl.optimal(law="chinchilla", params={"E": "x"}, budget=1e22), "params"),
    ("optimal budget text", lambda: sl.optimal(law="chinchilla", params=PARAMS, budget="1e22"), "budget"),
    ("downstream at text", lambda: sl.downstream(ISO, target="loss", size="N", tokens="D", at=[{"N": "x", "D": 1e9}]), "at[0].N"),
    ("fit_groups group number", lambda: sl.fit_groups(TRACKS, **BASE, group=5), "group"),
    ("set_max_work text", lambda: sl.set_max_work("a"), "seconds"),  # type: ignore[arg-type]
    # Out of range: refused by the library, whose message names the keyword.
    ("level out of (0, 1)", fit(level=1.5), "level"),
    ("optimal level out of (0, 1)", lambda: sl.optimal(law="chinchilla", params=PARAMS, budget=1e22, level=2), "level"),
    ("cell_tolerance negative", lambda: sl.compare(TRACKS, **BASE, track="recipe", cell_tolerance=-1), "cell_tolerance"),
    ("lr window 0", lambda: sl.lr(LR, **LR_COLUMNS, window=0), "window"),
    ("lr holdout 2", lambda: sl.lr(LR, **LR_COLUMNS, holdout=2.0), "holdout"),
    ("lr max_rise negative", lambda: sl.lr(LR, **LR_COLUMNS, max_rise=-1), "max_rise"),
    ("lr noise negative", lambda: sl.lr(LR, **LR_COLUMNS, noise=-1), "noise"),
]


@pytest.mark.parametrize("case, call, keyword", CASES, ids=[c[0] for c in CASES])
def test_a_bad_keyword_raises_a_scalinglaws_error_naming_it(
    case: str, call: Callable[[], Any], keyword: str
) -> None:
    with pytest.raises(sl.SettingsError, match=rf"\b{re.escape(keyword)}="):
        call()


def test_the_message_says_what_to_pass_and_what_was_wrong() -> None:
    with pytest.raises(sl.SettingsError) as raised:
        sl.compare(TRACKS, **BASE, track="recipe", shared="E,alpha")
    assert str(raised.value) == "shared=: give a list of strings or None, not 'E,alpha'"
    with pytest.raises(sl.SettingsError) as raised:
        sl.fit(ISO, **BASE, bounds={"E": (0, 1, 2)})
    assert "bounds['E'] is (0, 1, 2), not a pair (a number or None, a number or None)" in str(
        raised.value
    )
    with pytest.raises(sl.SettingsError, match=r"bootstrapp=: .*did you mean bootstrap=\?"):
        sl.fit(ISO, **BASE, bootstrapp=20)  # type: ignore[call-arg]


def test_keywords_handed_on_are_checked_where_the_user_called() -> None:
    # scalinglaws.ray hands fit_groups' keywords, which are fit's, to Ray tasks: they are
    # checked on the driver, by fit's annotations.
    from scalinglaws._keywords import check_keywords

    given = {"target": "loss", "bootstrap": np.int64(3)}
    assert check_keywords(sl.fit, given) == {"target": "loss", "bootstrap": 3}
    with pytest.raises(sl.SettingsError, match="bootstrap=: give a whole number"):
        check_keywords(sl.fit, {"target": "loss", "bootstrap": 1.5})
    # A required keyword left out is named, as a call would name it.
    with pytest.raises(sl.SettingsError, match=r"^target=: fit\(\) needs it"):
        check_keywords(sl.fit, {"law": "power"})
    with pytest.raises(sl.SettingsError, match=r"^target=: fit\(\) needs it"):
        sl.fit_groups(TRACKS, law="chinchilla", group="recipe")
    with pytest.raises(sl.SettingsError, match="shard=: fit\\(\\) has no such keyword"):
        check_keywords(sl.fit, {"shard": 2})
    # fit_groups itself refuses a keyword fit does not take, and checks the rest as fit does.
    with pytest.raises(sl.SettingsError, match="shard=: fit\\(\\) has no such keyword"):
        sl.fit_groups(TRACKS, **BASE, group="recipe", shard=2)
    with pytest.raises(sl.SettingsError, match="bootstrap=: give a whole number"):
        sl.fit_groups(TRACKS, **BASE, group="recipe", bootstrap=1.5)


def test_data_of_a_wrong_kind_is_a_data_error_naming_the_column() -> None:
    # Dates were read as their nanoseconds, a 2-D column and a number as data raised builtins.
    with pytest.raises(sl.DataError, match="column 'N': dates and durations are not numbers"):
        dates = np.array(["2020-01-01", "2021-01-01"], dtype="datetime64[ns]")
        sl.fit({"N": dates, "D": [1e9, 2e9], "loss": [3.0, 2.9]}, **BASE)
    with pytest.raises(sl.DataError, match="column 'N': give one value per row"):
        sl.fit({"N": np.ones((2, 2)), "D": [1e9, 2e9], "loss": [3.0, 2.9]}, **BASE)
    with pytest.raises(sl.DataError, match="data: give a pandas or polars DataFrame"):
        sl.fit(5, **BASE)  # type: ignore[arg-type]


def test_numpy_values_and_sequences_of_the_right_type_are_taken() -> None:
    # numpy scalars and arrays and tuples pass the check as the plain values they hold.
    frontier = sl.optimal(
        law="chinchilla",
        params={k: np.float64(v) for k, v in PARAMS.items()},
        budget=np.array([1e21, 1e22]),
        level=np.float32(0.9),
    )
    assert len(frontier.allocations) == 2
    comparison = sl.compare(
        TRACKS, **BASE, track="recipe", shared=("E",), bootstrap=np.int64(0), calibrate=np.bool_(False)
    )
    assert comparison.to_dict()
