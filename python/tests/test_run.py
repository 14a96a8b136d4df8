"""goodsim.run: the same numbers as `goodsim run`, and the frames' layout."""
import gzip
import json
import os

import numpy as np
import pandas as pd
import pytest

import goodsim
from conftest import LONG, SMALL, goodsim_cli, assert_gil_released, scenario_path

TIMESERIES_DTYPES = {"policy": "object", "time_s": "float64", "healthy_chips": "int64",
                     "active_chips": "int64", "training": "bool", "steps": "int64",
                     "tokens": "float64", "goodput": "float64", "downtime_s": "float64",
                     "loss": "float64"}


def cli_run(tmp_path, scenario, seed):
    out = tmp_path / f"cli-{seed}"
    goodsim_cli("run", scenario, "--seed", str(seed), "--out", str(out), "--quiet")
    with open(out / "summary.json", encoding="utf-8") as f:
        summary = json.load(f)
    return summary, pd.read_csv(out / "timeseries.csv", keep_default_na=False, na_values=[""])


@pytest.mark.parametrize("name,seed", [("demo.json", 1), ("demo.json", 7),
                                       ("chaos-site-outage.json", 2), ("trace-replay.json", 1),
                                       ("multi-datacenter.json", 4)])
def test_summary_equals_the_cli_summary(tmp_path, name, seed):
    path = scenario_path(name)
    expected, series = cli_run(tmp_path, path, seed)
    result = goodsim.run(path, seed=seed)
    assert result.summary == expected
    assert [p["fingerprint"] for p in result.summary["policies"]] == \
        [p["fingerprint"] for p in expected["policies"]]
    # The time series holds the file's values at full precision (the file has 9 digits).
    frame = result.timeseries
    assert list(frame.columns) == list(series.columns)
    assert list(frame["policy"]) == list(series["policy"])
    for column in ("healthy_chips", "active_chips", "steps"):
        assert (frame[column].to_numpy() == series[column].to_numpy()).all()
    assert (frame["training"].to_numpy() == series["training"].to_numpy().astype(bool)).all()
    for column in ("time_s", "tokens", "goodput", "downtime_s", "loss"):
        np.testing.assert_allclose(frame[column], series[column].astype(float), rtol=1e-8,
                                   atol=1e-300, equal_nan=True)


def test_default_seed_is_the_scenarios(small_file):
    assert goodsim.run(small_file).seed == 3
    assert goodsim.run(small_file).summary == goodsim.run(small_file, seed=3).summary


def test_timeseries_dtypes_and_rows():
    result = goodsim.run(SMALL)
    frame = result.timeseries
    assert {c: str(t) for c, t in frame.dtypes.items()} == TIMESERIES_DTYPES
    # Samples every 6h from 0 to 3d: 13 per policy.
    assert list(frame.groupby("policy", sort=False).size()) == [13, 13]
    assert frame["loss"].notna().all()
    no_loss = goodsim.run(goodsim.load(SMALL, overrides={"loss": None}))
    assert no_loss.timeseries["loss"].isna().all()


def test_to_dataframe_is_one_row_per_policy():
    result = goodsim.run(SMALL)
    frame = result.to_dataframe()
    assert list(frame["policy"]) == ["dp", "elastic"]
    head = ["scenario", "seed", "policy", "type", "goodput", "uptime", "downtime_s", "outages",
            "longest_outage_s", "failures", "tokens", "steps", "final_loss", "time_to_target_s",
            "fingerprint"]
    badput = [f"badput_{k}" for k in result.summary["policies"][0]["badput"]]
    assert list(frame.columns) == head + badput
    assert "badput_down" in badput
    for column in ("seed", "outages", "failures", "steps"):
        assert frame[column].dtype == np.int64
    for column in ["goodput", "uptime", "tokens", "final_loss", "time_to_target_s"] + badput:
        assert frame[column].dtype == np.float64
    assert frame["time_to_target_s"].isna().all()  # no target in SMALL
    for row, p in zip(frame.itertuples(), result.summary["policies"]):
        assert (row.goodput, row.fingerprint, row.failures) == \
            (p["goodput"], p["fingerprint"], p["failures"])


def test_seeds_give_one_result_per_seed():
    results = goodsim.run(SMALL, seeds=3)
    assert [r.seed for r in results] == [3, 4, 5]
    assert results[1].summary == goodsim.run(SMALL, seed=4).summary
    assert [r.seed for r in goodsim.run(SMALL, seeds=[11, 2])] == [11, 2]
    # Same failures for every policy of a run (common random numbers), not across seeds.
    assert len({p["failures"] for p in results[0].summary["policies"]}) == 1
    with pytest.raises(ValueError):
        goodsim.run(SMALL, seed=1, seeds=2)


def test_trace_is_written_and_changes_nothing(tmp_path):
    path = tmp_path / "trace.json"
    traced = goodsim.run(SMALL, trace=path)
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    assert trace["traceEvents"]
    assert traced.summary == goodsim.run(SMALL).summary
    assert not [n for n in os.listdir(tmp_path) if n != "trace.json"]  # no temporary left


def test_trace_is_compressed_when_its_name_ends_in_gz(tmp_path):
    path = tmp_path / "trace.json.gz"
    goodsim.run(SMALL, trace=path)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        trace = json.load(f)
    assert trace["metadata"]["generator"] == "goodsim"


def test_gil_is_released_while_simulating():
    assert_gil_released(goodsim.run, LONG)
