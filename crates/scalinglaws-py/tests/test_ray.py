"""scalinglaws.ray on a real local Ray cluster (``ray.init(num_cpus=2)``, not the removed
local mode): the grouped fit spread over Ray tasks equals the local one, for a DataFrame and a
``ray.data.Dataset``; a failing task names its groups; and importing scalinglaws never imports
Ray. Skipped, with the reason, where Ray is not installed (scripts/test-all.sh installs it)."""

import math
import subprocess
import sys
from typing import Any, Iterator

import pytest

import scalinglaws as sl

pd = pytest.importorskip("pandas")


def curves(n: int = 24) -> Any:
    """`n` learning curves of 20 points of E + A·x^−α with a deterministic 1 % wiggle."""
    rows = []
    for c in range(n):
        e, a, alpha = 1.5 + 0.05 * c, 5.0 + c, 0.3 + 0.01 * c
        for i in range(20):
            x = 10 ** (2 + 3 * i / 19)
            y = (e + a * x ** -alpha) * (1 + 0.01 * math.sin(7 * i + 3 * c))
            rows.append({"curve": f"run-{c:02d}", "x": x, "loss": y})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def ray() -> Iterator[Any]:
    try:
        import ray
    except ImportError as error:
        pytest.skip(f"the Ray tests skipped: Ray cannot be imported ({error}); pip install ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


OPTIONS = dict(target="loss", law="power_offset")


def test_the_ray_result_equals_the_local_one(ray: Any) -> None:
    from scalinglaws import ray as sl_ray

    data = curves()
    local = sl.fit_groups(data, group="curve", **OPTIONS)
    remote = sl_ray.fit_groups(data, group="curve", groups_per_task=5, **OPTIONS)
    pd.testing.assert_frame_equal(remote.to_frame(), local.to_frame())
    assert remote.to_dicts() == local.to_dicts()
    dataset = ray.data.from_pandas(data)
    table = sl_ray.fit_groups(dataset, group="curve", **OPTIONS)
    pd.testing.assert_frame_equal(table.to_pandas(), local.to_frame())


def test_a_failing_task_names_its_groups(ray: Any) -> None:
    from scalinglaws import ray as sl_ray

    with pytest.raises(sl.Error):
        sl_ray.fit_groups(curves(4), group="curve", law="no_such_law", target="loss")
    with pytest.raises(sl.SettingsError, match="group=: no column 'nope'"):
        sl_ray.fit_groups(curves(4), group="nope", **OPTIONS)
    with pytest.raises(sl.SettingsError, match="where=: filter the DataFrame"):
        sl_ray.fit_groups(curves(4), group="curve", where="x > 1000", **OPTIONS)
    with pytest.raises(sl.SettingsError, match="threads="):
        sl_ray.fit_groups(curves(4), group="curve", threads=2, **OPTIONS)


def test_importing_scalinglaws_does_not_import_ray() -> None:
    code = "import sys, scalinglaws, scalinglaws.ray; assert 'ray' not in sys.modules, 'ray imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
