"""sl.schedule_compare, sl.schedule_optimize and sl.schedule_cooldown: the documents
`scalinglaws schedule compare`, `schedule optimize` and `schedule cooldown --json` write for
the same saved fit, and their reports."""

import json
import subprocess
from pathlib import Path

import pytest

import scalinglaws as sl
from conftest import undeclared

ROOT = Path(__file__).resolve().parents[3]
RUNS = ROOT / "examples" / "schedule" / "runs_400m.csv"
SCHEDULES = ["constant", "wsd:decay_start=20000,final=3e-5"]


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    fit = sl.schedule_fit(RUNS, run="run", warmup=2160, train=["cosine_24000"])
    path = tmp_path_factory.mktemp("schedule") / "fit.json"
    path.write_text(json.dumps(fit.to_dict()), encoding="utf-8")
    return path


def cli_document(cli: Path, *args: str) -> dict:
    done = subprocess.run([str(cli), "schedule", *args, "--json", "-"], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def test_schedule_fit_is_the_commands_document_byte_for_byte(
    saved: Path, cli: Path, tmp_path: Path
) -> None:
    """The fit of the same logs by both faces, with its filter; a file without a run column
    is one run named by the file, as each file is on the command line."""
    fit = sl.schedule_fit(RUNS, run="run", warmup=2160, train=["cosine_24000"], where="step >= 500")
    assert isinstance(fit, sl.ScheduleFit) and not undeclared(fit)
    assert fit.data == [str(RUNS)] and fit.to_frame()["run"].iloc[0] == fit.runs[0].run
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "schedule", "fit", str(RUNS), "--run", "run", "--warmup", "2160", "--train",
         "cosine_24000", "--where", "step >= 500", "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    fit.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    assert str(fit) == shown
    one = tmp_path / "cosine.csv"
    rows = RUNS.read_text(encoding="utf-8").splitlines()
    one.write_text("\n".join(r for r in rows if "cosine_24000" in r or r == rows[0]) + "\n")
    single = sl.schedule_fit(one, warmup=2160)
    assert [r.run for r in single.runs] == ["cosine"]


def test_schedule_compare_is_the_commands_document(saved: Path, cli: Path) -> None:
    fit = json.loads(saved.read_text(encoding="utf-8"))
    result = sl.schedule_compare(fit, SCHEDULES)
    assert isinstance(result, sl.ScheduleComparison) and not undeclared(result)
    assert result.best == SCHEDULES[1] and result.final_gap[1] == 0.0
    assert list(result.to_frame()["schedule"]) == SCHEDULES
    assert str(result).startswith("[[")
    args = ["compare", str(saved)] + [a for s in SCHEDULES for a in ("--schedule", s)]
    assert result.to_dict() == cli_document(cli, *args)


def test_schedule_optimize_is_the_commands_document_byte_for_byte(
    saved: Path, cli: Path, tmp_path: Path
) -> None:
    """The whole schedule is in the document when asked for: `whole_schedule=True` in Python,
    `--schedule-csv FILE` on the command line (which also writes it as a CSV)."""
    fit = json.loads(saved.read_text(encoding="utf-8"))
    result = sl.schedule_optimize(fit, steps=6000, max_iterations=30, whole_schedule=True)
    assert isinstance(result, sl.OptimizedSchedule) and not undeclared(result)
    assert result.lr is not None and len(result.lr) == 6000
    written, schedule = tmp_path / "cli.json", tmp_path / "schedule.csv"
    subprocess.run(
        [str(cli), "schedule", "optimize", str(saved), "--steps", "6000", "--max-iterations",
         "30", "--schedule-csv", str(schedule), "--json", str(written)],
        check=True, capture_output=True, text=True,
    )
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    rows = schedule.read_text(encoding="utf-8").splitlines()
    assert rows[0] == "step,lr" and len(rows) == 6001
    assert float(rows[-1].split(",")[1]) == result.lr[-1]
    # Refused before the search: these steps and iterations are over the search's own limit.
    with pytest.raises(sl.SettingsError, match=r"^whole_schedule: .*leave out whole_schedule="):
        sl.schedule_optimize(fit, steps=2_000_000, max_iterations=1000, whole_schedule=True)


def test_schedule_cooldown_is_the_commands_document(saved: Path, cli: Path) -> None:
    fit = json.loads(saved.read_text(encoding="utf-8"))
    result = sl.schedule_cooldown(fit, at=[8000, 16000], lengths=[1000, 4000])
    assert isinstance(result, sl.CooldownTable) and not undeclared(result)
    assert len(result.rows) == 4 and all(r.gain > 0 for r in result.rows)
    assert str(result).startswith("[[")
    expected = cli_document(cli, "cooldown", str(saved), "--at", "8000,16000", "--len", "1000,4000")
    assert result.to_dict() == expected
    cosine = sl.schedule_cooldown(fit, at=[8000], lengths=[1000], decay="cosine")
    assert cosine.rows[0].loss != result.rows[0].loss
    # The document names the cooldown's shape, which the report once took beside it.
    assert (result.decay, cosine.decay) == ("linear", "cosine")
    assert len(result.to_frame()) == 4 and "gain" in result.to_frame().columns


def test_schedule_faces_refuse_bad_requests(saved: Path) -> None:
    fit = json.loads(saved.read_text(encoding="utf-8"))
    with pytest.raises(sl.SettingsError):
        sl.schedule_cooldown(fit, at=[8000], lengths=[1000], decay="square")
    with pytest.raises(sl.Error):
        sl.schedule_compare(fit, ["nonsense:peak=1"])


def test_cooldown_study_is_the_commands_document_byte_for_byte(
    saved: Path, cli: Path, tmp_path: Path
) -> None:
    fit = json.loads(saved.read_text(encoding="utf-8"))
    result = sl.cooldown_study(fit, steps=[12000, 24000], bootstrap=20, seed=3)
    assert isinstance(result, sl.CooldownStudy) and not undeclared(result)
    assert [r.steps for r in result.rows] == [12000, 24000]
    assert result.replicates + result.dropped == 20
    assert all(r.difference_interval is not None for r in result.rows)
    written = tmp_path / "cli.json"
    shown = subprocess.run(
        [str(cli), "schedule", "cooldown-study", str(saved), "--steps", "12000,24000",
         "--bootstrap", "20", "--seed", "3", "--json", str(written)],
        check=True, capture_output=True, text=True,
    ).stdout
    result.save(tmp_path / "python.json")
    assert (tmp_path / "python.json").read_bytes() == written.read_bytes()
    assert str(result) == shown


def test_cooldown_study_refuses_what_the_library_refuses(saved: Path) -> None:
    fit = json.loads(saved.read_text(encoding="utf-8"))
    with pytest.raises(sl.SettingsError, match="level sets the bootstrap intervals' level: give bootstrap=K"):
        sl.cooldown_study(fit, level=0.9)
    with pytest.raises(sl.SettingsError, match="fraction=1.5"):
        sl.cooldown_study(fit, fraction=1.5)
    with pytest.raises(sl.SettingsError, match="steps=1: each training length"):
        sl.cooldown_study(fit, steps=[1])
    with pytest.raises(sl.SettingsError, match="decay="):
        sl.cooldown_study(fit, decay="square")  # type: ignore[arg-type]
