"""goodsim.load: files, documents, the demo, overrides, and ScenarioError."""
import glob
import json
import os

import pytest

import goodsim
from conftest import SMALL, scenario_path


def test_file_is_loaded_and_validated():
    s = goodsim.load(scenario_path("demo.json"))
    assert isinstance(s, goodsim.Scenario)
    assert (s.name, s.seed, s.chips, s.horizon_s) == ("demo", 1, 16384, 7 * 86400.0)
    assert s.policies == ["dp-30m", "dp-daly", "elastic"]
    assert s.policy_types == ["data_parallel", "data_parallel", "elastic_data_parallel"]
    assert s.file == scenario_path("demo.json")
    with open(scenario_path("demo.json"), encoding="utf-8") as f:
        assert s.to_dict() == json.load(f)


def test_path_objects_documents_and_the_demo():
    from pathlib import Path
    assert goodsim.load(Path(scenario_path("demo.json"))).name == "demo"
    s = goodsim.load(SMALL)
    assert (s.name, s.file, s.chips) == ("python-small", "<dict>", 64)
    demo = goodsim.load()
    assert (demo.name, demo.file) == ("demo", "<demo>")
    assert demo.to_dict() == goodsim.load(scenario_path("demo.json")).to_dict()


def test_overrides_apply_in_order_before_validation():
    s = goodsim.load(SMALL, overrides={"cluster.chips": 128, "horizon": "1d",
                                       "policies.1.name": "grow", "seed": 9})
    assert (s.chips, s.horizon_s, s.seed) == (128, 86400.0, 9)
    assert s.policies == ["dp", "grow"]
    assert s.to_dict()["cluster"]["chips"] == 128
    assert goodsim.load(SMALL, overrides={"cluster.chips": 1.28e2}).chips == 128
    # A derived scenario keeps the original's file name and overrides on top.
    derived = goodsim.load(s, overrides={"horizon": "2d"})
    assert (derived.chips, derived.horizon_s, derived.file) == (128, 2 * 86400.0, "<dict>")
    # null restores a key's default (sample_interval: 1h).
    assert goodsim.load(SMALL, overrides={"outputs.sample_interval": None}).to_dict()[
        "outputs"]["sample_interval"] is None


def test_numpy_values_are_accepted():
    np = pytest.importorskip("numpy")
    assert goodsim.load(SMALL, overrides={"cluster.chips": np.int64(256)}).chips == 256


def test_bad_override_names_overrides_path_and_message():
    # A path that cannot be set at all fails in the override itself...
    with pytest.raises(goodsim.ScenarioError) as e:
        goodsim.load(SMALL, overrides={"clustr.chips": 128})
    assert (e.value.file, e.value.path) == ("overrides", "clustr")
    assert 'did you mean "cluster"' in e.value.message
    assert str(e.value).startswith("overrides: clustr: ")
    assert isinstance(e.value, ValueError)
    # ...a new key in an existing object fails validation, as with --set, and the error
    # names the override that made it, not the document.
    with pytest.raises(goodsim.ScenarioError) as e:
        goodsim.load(SMALL, overrides={"cluster.chps": 128})
    assert (e.value.file, e.value.path) == ("overrides", "cluster.chps")
    assert 'did you mean "chips"' in e.value.message


def test_invalid_value_names_the_json_path():
    with pytest.raises(goodsim.ScenarioError) as e:
        goodsim.load(SMALL, overrides={"cluster.chips": -5})
    assert (e.value.file, e.value.path) == ("overrides", "cluster.chips")
    assert "expected a count" in e.value.message


def test_every_invalid_scenario_fails_with_its_recorded_message():
    files = sorted(glob.glob(os.path.join(scenario_path("invalid"), "*.json")))
    assert files
    for path in files:
        with open(path[:-len(".json")] + ".expected", encoding="utf-8") as f:
            expected = [line for line in f.read().splitlines() if line]  # one per error
        with pytest.raises(goodsim.ScenarioError) as e:
            goodsim.load(path)
        for fragment in expected:
            assert fragment in str(e.value), path
        assert e.value.file.startswith(scenario_path("invalid")), path  # or its trace file


def test_missing_file_and_wrong_arguments():
    with pytest.raises(goodsim.ScenarioError) as e:
        goodsim.load("no/such/scenario.json")
    assert e.value.file == "no/such/scenario.json" and e.value.path is None
    with pytest.raises(TypeError):
        goodsim.load(42)
    with pytest.raises(ValueError, match="overrides: horizon"):
        goodsim.load(SMALL, overrides={"horizon": float("nan")})
    with pytest.raises(TypeError, match="not a JSON value"):
        goodsim.load(SMALL, overrides={"horizon": object()})


def test_repr_and_docstrings():
    assert "16384 chips, 3 policies, horizon 7d" in repr(goodsim.load())
    for item in (goodsim, goodsim.load, goodsim.run, goodsim.sweep, goodsim.models,
                 goodsim.Result, goodsim.Sweep, goodsim.Scenario, goodsim.ScenarioError,
                 goodsim.Result.to_dataframe):
        assert item.__doc__ and len(item.__doc__) > 40, item
