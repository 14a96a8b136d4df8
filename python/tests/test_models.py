"""goodsim.models: the catalogue `goodsim list-models` prints, as data."""
import goodsim
from conftest import goodsim_cli


def test_models_match_list_models():
    catalogue = goodsim.models()
    text = goodsim_cli("list-models", "--width", "100000")  # one line per model
    kinds = [m["kind"] for m in catalogue]
    assert kinds == sorted(kinds, key=["failure", "straggler", "policy", "loss"].index)
    for m in catalogue:
        assert f"  {m['type']}: {m['help']}\n" in text
        for p in m["params"]:
            assert f"    {p['key']}: {p['kind']}" in text, (m["type"], p["key"])
    types = {(m["kind"], m["type"]) for m in catalogue}
    for expected in [("failure", "exponential_failures"), ("straggler", "transient_stragglers"),
                     ("policy", "data_parallel"), ("policy", "decoupled_diloco"),
                     ("loss", "scaling_law"), ("loss", "nqm")]:
        assert expected in types
    keys = {m["kind"]: m["scenario_key"] for m in catalogue}
    assert keys == {"failure": "failures", "straggler": "stragglers", "policy": "policies",
                    "loss": "loss"}


def test_parameters_are_described():
    dp = next(m for m in goodsim.models() if m["type"] == "data_parallel")
    restart = next(p for p in dp["params"] if p["key"] == "restart_time")
    assert set(restart) == {"key", "kind", "unit", "required", "default", "range", "help"}
    assert restart["kind"] == "duration" and restart["required"] is False
    assert restart["default"] and restart["help"]
    assert restart["unit"] == "s"  # durations are in seconds when given as plain numbers
    expo = next(m for m in goodsim.models() if m["type"] == "exponential_failures")
    mtbf = next(p for p in expo["params"] if p["key"] == "mtbf")
    assert (mtbf["kind"], mtbf["default"], mtbf["required"]) == ("duration", "1y", False)
