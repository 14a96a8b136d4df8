"""goodsim.sweep: the content of `goodsim sweep`'s files, whatever the jobs."""
import pandas as pd
import pytest

import goodsim
from conftest import LONG, SMALL, goodsim_cli, assert_gil_released

TEXT = {"policy": str, "type": str, "baseline": str, "metric": str, "fingerprint": str}
VARY_CLI = ["--vary", "policies.0.restart_time=2m,20m", "--vary", "cluster.chips=64,128"]
VARY = {"policies.0.restart_time": ["2m", "20m"], "cluster.chips": [64, 128]}


def read_cli_table(path):
    header = pd.read_csv(path, nrows=0).columns
    return pd.read_csv(path, dtype={c: t for c, t in TEXT.items() if c in header},
                       keep_default_na=False, na_values=[""], float_precision="round_trip")


@pytest.fixture(scope="module")
def small_sweep():
    return goodsim.sweep(SMALL, vary=VARY, seeds=3, jobs=1)


def test_frames_equal_the_cli_files(tmp_path, small_file, small_sweep):
    out = tmp_path / "sweep"
    goodsim_cli("sweep", small_file, *VARY_CLI, "--seeds", "3", "--jobs", "1", "--out",
                str(out), "--quiet")
    for name in ("results", "summary", "paired"):
        pd.testing.assert_frame_equal(getattr(small_sweep, name),
                                      read_cli_table(out / f"{name}.csv"), check_exact=True)


def test_jobs_2_equals_jobs_1(small_sweep):
    two = goodsim.sweep(SMALL, vary=VARY, seeds=3, jobs=2)
    for name in ("results", "summary", "paired"):
        pd.testing.assert_frame_equal(getattr(two, name), getattr(small_sweep, name),
                                      check_exact=True)


def test_layout_and_dtypes(small_sweep):
    results = small_sweep.results
    assert small_sweep.varied == ["policies.0.restart_time", "cluster.chips"]
    assert list(results.columns[:6]) == ["point", "policies.0.restart_time", "cluster.chips",
                                         "seed", "policy", "type"]
    assert results.columns[-1] == "fingerprint"
    assert len(results) == 4 * 3 * 2  # points x seeds x policies
    assert sorted(set(results["seed"])) == [3, 4, 5]
    assert results["fingerprint"].str.fullmatch("[0-9a-f]{16}").all()
    for column in ("point", "seed", "cluster.chips"):
        assert results[column].dtype == "int64"
    for column in ("goodput", "uptime", "final_loss", "time_to_target_s"):
        assert results[column].dtype == "float64"
    assert results["time_to_target_s"].isna().all()
    assert set(small_sweep.summary["policy"]) == {"dp", "elastic"}
    assert set(small_sweep.paired["baseline"]) == {"dp"}
    assert (small_sweep.summary.query("metric == 'goodput'")["n"] == 3).all()


def test_a_run_of_the_sweep_equals_goodsim_run(small_sweep):
    row = small_sweep.results.query("point == 3 and seed == 4 and policy == 'elastic'").iloc[0]
    scenario = goodsim.load(SMALL, overrides={"policies.0.restart_time": "20m",
                                              "cluster.chips": 128})
    summary = goodsim.run(scenario, seed=4).summary["policies"][1]
    assert (row["goodput"], row["fingerprint"]) == (summary["goodput"], summary["fingerprint"])


def test_ranges_no_grid_and_adaptive_replication():
    ranged = goodsim.sweep(SMALL, vary={"policies.0.restart_time": "lin:10m..30m:3"}, seeds=2)
    assert list(ranged.results["policies.0.restart_time"].unique()) == ["10m", "20m", "30m"]
    single = goodsim.sweep(SMALL, seeds=2)
    assert single.varied == [] and len(single.results) == 4
    adaptive = goodsim.sweep(SMALL, seeds=2, ci_target=1e-9, max_seeds=4)
    assert set(adaptive.results["seed"]) == {3, 4, 5, 6}


def test_bad_input():
    with pytest.raises(goodsim.ScenarioError) as e:
        goodsim.sweep(SMALL, vary={"cluster.chips": [64, -1]}, seeds=1)
    assert e.value.file == "--vary" and "grid point 1" in e.value.message
    with pytest.raises(goodsim.ScenarioError) as e:
        goodsim.sweep(SMALL, vary={"cluster.chips": "log:0..7:3"}, seeds=1)
    assert e.value.file == "--vary"
    with pytest.raises(goodsim.ScenarioError):
        goodsim.sweep(SMALL, seeds=0)
    with pytest.raises(ValueError):
        goodsim.sweep(SMALL, jobs=0)
    with pytest.raises(ValueError):
        goodsim.sweep(SMALL, vary={"cluster.chips": []})


def test_gil_is_released_while_sweeping():
    assert_gil_released(goodsim.sweep, LONG, jobs=1)
