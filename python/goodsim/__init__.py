"""goodsim from Python: load a scenario, run it, sweep it, as pandas frames.

    import goodsim
    result = goodsim.run(goodsim.load("scenarios/demo.json", overrides={"horizon": "3d"}))
    print(result.to_dataframe()[["policy", "goodput", "uptime"]])

The same engine, scenarios and numbers as the goodsim command line: a run's summary
equals the summary.json `goodsim run` writes for the same scenario and seed, and a
sweep's tables hold what `goodsim sweep` writes to results.csv, summary.csv and
paired.csv. Simulations run without the GIL; Ctrl-C stops them and raises
KeyboardInterrupt. Bad input raises ScenarioError, with the message the command line
prints. See docs/python.md.
"""
import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

import pandas as pd

from . import _core, _frames
from ._core import Scenario, ScenarioError

__all__ = ["Result", "Scenario", "ScenarioError", "Sweep", "load", "models", "run", "sweep"]
__version__ = _core.version

PathLike = Union[str, "os.PathLike[str]"]
ScenarioLike = Union[Scenario, PathLike, Mapping[str, Any]]


def _json_text(value: Any, what: str) -> str:
    """JSON text of a Python value (numpy scalars included); TypeError/ValueError if none."""
    def plain(v: Any) -> Any:
        if hasattr(v, "item"):  # numpy scalars
            return v.item()
        raise TypeError(f"{what}: {type(v).__name__} is not a JSON value")
    try:
        return json.dumps(value, allow_nan=False, default=plain)
    except ValueError as e:
        raise ValueError(f"{what}: {e}") from e


def load(source: Optional[ScenarioLike] = None,
         overrides: Optional[Mapping[str, Any]] = None) -> Scenario:
    """Loads and validates a scenario.

    source: a scenario file (str or path), a scenario document (a dict, as the JSON
        file would hold it), an existing Scenario (to derive a variant of it), or None
        for the built-in demo (scenarios/demo.json).
    overrides: {"path.to.key": value} applied in order before validation, as
        `goodsim run --set` does: list elements by index ("policies.1.learners"),
        values as Python values ({"cluster.chips": 1.2e6, "horizon": "30d"}); None
        restores a key's default.

    Raises ScenarioError (with .file, .path and .message) on anything invalid; an
    error in an override has file "overrides". Relative paths inside a scenario file
    (trace_replay's "file") are relative to that file; inside a dict, to the current
    directory.
    """
    sets = [f"{path}={_json_text(value, f'overrides: {path}')}"
            for path, value in (overrides or {}).items()]
    if source is None:
        return _core.load(_core.demo_scenario(), False, "<demo>", sets)
    if isinstance(source, Scenario):
        return _core.load(json.dumps(source.to_dict()), False, source.file, sets)
    if isinstance(source, Mapping):
        return _core.load(_json_text(dict(source), "scenario"), False, "<dict>", sets)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        return _core.load(path, True, path, sets)
    raise TypeError(f"load: expected a path, a dict or a Scenario, got {type(source).__name__}")


def _scenario(scenario: ScenarioLike) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else load(scenario)


class Result:
    """One run: every policy of a scenario for one seed, on the same failure history.

    summary: a dict equal to the summary.json that `goodsim run` writes (scenario,
        seed, version, horizon_s, chips, and per policy goodput, uptime, badput,
        fingerprint, ...; see docs/scenario.md).
    timeseries: a DataFrame with the columns of timeseries.csv (policy, time_s,
        healthy_chips, active_chips, training, steps, tokens, goodput, downtime_s,
        loss), one row per policy per sample, at full precision: policy is str,
        training bool, the counts int64, the rest float64 (loss NaN without a loss
        model).
    """

    def __init__(self, summary: Dict[str, Any], timeseries: pd.DataFrame):
        self.summary = summary
        self.timeseries = timeseries

    @property
    def seed(self) -> int:
        """The seed this run used."""
        return self.summary["seed"]

    def to_dataframe(self) -> pd.DataFrame:
        """One row per policy: scenario, seed, policy, type, goodput, uptime, downtime_s,
        outages, longest_outage_s, failures, tokens, steps, final_loss,
        time_to_target_s (NaN where the summary has null), fingerprint, then one
        badput_<category> column per chip-time category (chip-seconds)."""
        return _frames.policy_frame(self.summary)

    def __repr__(self) -> str:
        policies = ", ".join(f"{p['name']} {p['goodput']:.4f}" for p in self.summary["policies"])
        return f"<goodsim.Result '{self.summary['scenario']}' seed {self.seed}: goodput {policies}>"


def run(scenario: ScenarioLike, seed: Optional[int] = None,
        seeds: Optional[Union[int, Iterable[int]]] = None,
        trace: Optional[PathLike] = None) -> Union[Result, List[Result]]:
    """Runs every policy of a scenario, as `goodsim run` does.

    scenario: a Scenario, or anything load() takes.
    seed: the seed (default: the scenario's "seed"); the same scenario and seed give
        the same numbers and fingerprints as `goodsim run --seed`.
    seeds: instead of seed, several runs: a count n (the scenario's seed and the n-1
        after it, as a sweep's seeds) or an iterable of seeds; returns a list of Result.
    trace: a path to write the run's Perfetto / Chrome timeline to (gzip-compressed when
        it ends in .gz).

    Ctrl-C stops after the policy in progress and raises KeyboardInterrupt.
    """
    s = _scenario(scenario)
    if seeds is None:
        return _run_one(s, seed, trace)
    if seed is not None or trace is not None:
        raise ValueError("run: seeds= cannot be combined with seed= or trace=")
    chosen = range(s.seed, s.seed + seeds) if isinstance(seeds, int) else list(seeds)
    return [_run_one(s, k, None) for k in chosen]


def _run_one(s: Scenario, seed: Optional[int], trace: Optional[PathLike]) -> Result:
    out = _core.run(s, seed, None if trace is None else os.fspath(trace))
    return Result(json.loads(out["summary"]), _frames.timeseries_frame(out["timeseries"]))


class Sweep:
    """A sweep's tables, as `goodsim sweep` writes them (see docs/sweep.md).

    results: results.csv, one row per (grid point, seed, policy): point, one column
        per varied path, seed, policy, type, the metrics, fingerprint.
    summary: summary.csv, per (point, policy, metric): n, mean, sd, ci95, ci95_lo,
        ci95_hi.
    paired: paired.csv, per (point, policy other than the first, metric): the
        difference to the first policy over the same seeds, with its 95% CI.
    varied: the varied paths (the columns between point and seed/policy).
    Text columns (policy, type, baseline, metric, fingerprint) are str; an empty cell
    of a file is NaN here.
    """

    def __init__(self, results: pd.DataFrame, summary: pd.DataFrame, paired: pd.DataFrame,
                 varied: List[str]):
        self.results = results
        self.summary = summary
        self.paired = paired
        self.varied = varied

    def __repr__(self) -> str:
        points = self.results["point"].nunique() if len(self.results) else 0
        return f"<goodsim.Sweep {points} grid points x {self.varied}: {len(self.results)} rows>"


def _vary_spec(path: str, values: Union[str, Iterable[Any]]) -> str:
    """--vary PATH=VALUES from a spec string ("log:1e3..1e5:5:int") or a list of values."""
    if isinstance(values, str):
        return f"{path}={values}"
    texts = [_json_text(v, f"vary: {path}") for v in values]
    if not texts:
        raise ValueError(f"sweep: vary: {path}: no values")
    return f"{path}={','.join(texts)}"


def sweep(scenario: ScenarioLike, vary: Optional[Mapping[str, Union[str, Iterable[Any]]]] = None,
          seeds: int = 10, jobs: Optional[int] = None, ci_target: Optional[float] = None,
          max_seeds: Optional[int] = None) -> Sweep:
    """Runs a scenario over a grid of values x seeds, as `goodsim sweep` does, in memory.

    vary: {path: values}; values a list ([1.5e5, 3e5], ["1h", "2h"]) or a --vary
        range string ("lin:1h..4h:4", "log:1024..65536:7:int"). The first path is the
        outermost axis. None: one grid point.
    seeds: seeds per grid point (the scenario's seed and those after it).
    jobs: worker threads (default: one per core); results do not depend on it.
    ci_target, max_seeds: adaptive replication, as --ci-target and --max-seeds.

    Returns a Sweep whose frames hold the content of results.csv, summary.csv and
    paired.csv. Simulations run without the GIL; Ctrl-C stops starting runs, waits
    for those in progress and raises KeyboardInterrupt. Raises ScenarioError on bad
    input (file "--vary" for a grid value that makes an invalid scenario).
    """
    s = _scenario(scenario)
    if jobs is not None and jobs < 1:
        raise ValueError(f"sweep: jobs must be at least 1, got {jobs}")
    specs = [_vary_spec(path, values) for path, values in (vary or {}).items()]
    results, summary, paired = _core.sweep(s, specs, seeds, jobs or 0, ci_target, max_seeds)
    return Sweep(_frames.csv_frame(results), _frames.csv_frame(summary),
                 _frames.csv_frame(paired), list((vary or {}).keys()))


def models() -> List[Dict[str, Any]]:
    """The model catalogue, what `goodsim list-models` prints, as data.

    One dict per model: kind ("failure", "straggler", "policy", "loss"),
    scenario_key (where its entries go: "failures", ...), type, help, and params: a
    list of dicts with key (dotted, list elements as "*"), kind ("duration",
    "count", ...), unit, required, default (as text), range and help; unit, default
    and range are None where list-models prints "-".
    """
    return _core.models()
