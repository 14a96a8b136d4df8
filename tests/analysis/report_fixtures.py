"""Output directories of every kind goodsim report reads, made with a goodsim binary (small
runs: a few seconds in all). Shared by test_report.py and the browser test."""
import json
import os
import subprocess


def small_scenario(name, policies, spare_slices=0):
    """64 chips in 4 slices of 16, a 1B-parameter job of 1 s steps, exponential failures
    (per-chip MTBF 20 days, 1-hour repairs), 3 days: the analysis tests' scenario."""
    cluster = {"chips": 64, "chips_per_host": 4, "hosts_per_slice": 4}
    if spare_slices:
        cluster["spare_slices"] = spare_slices
    return {"name": name, "horizon": "3d", "cluster": cluster,
            "job": {"params": 1e9, "tokens_per_step": 1e6, "step_time": "1s"},
            "failures": [{"type": "exponential_failures", "mtbf": "20d", "repair_time": "1h"}],
            "policies": policies}


SCENARIO = dict(small_scenario("report-test",
                               [{"name": "dp", "type": "data_parallel", "restart_time": "10m"},
                                {"name": "elastic", "type": "elastic_data_parallel"}],
                               spare_slices=1),
                loss={"type": "scaling_law"})
KINDS = ("run", "runs", "sweep", "calibrate", "diff", "solve")


def run(args, **kw):
    """Runs a command; its CompletedProcess with text output, whatever its exit status."""
    return subprocess.run(args, capture_output=True, text=True, check=False, **kw)


def write_json(path, doc):
    """Writes doc to path as JSON; returns path."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def goodsim(binary, *args):
    result = run([binary, *args])
    if result.returncode not in (0, 1):
        raise RuntimeError(f"goodsim {' '.join(args)}: exit {result.returncode}: {result.stderr}")
    return result


def write_solve(directory):
    """A solve directory in the format of docs/solve.md (solve.json, evaluations.csv: one
    row per value and requirement), written here so the report of a solve is tested
    whether or not this tree has `goodsim solve`."""
    os.makedirs(directory, exist_ok=True)
    answer = {"value": 3, "text": "3", "seeds": 16, "feasible": True}
    with open(os.path.join(directory, "solve.json"), "w", encoding="utf-8") as f:
        json.dump({"format": "goodsim-solve/1", "scenario_file": "s.json", "sets": [],
                   "policy": "dp", "knob": {"path": "cluster.spare_slices", "lo": 0, "hi": 8,
                                            "integer": True, "unit": ""},
                   "objective": "minimize",
                   "requirements": [{"text": "goodput>=0.9", "metric": "goodput", "op": ">=",
                                     "threshold": 0.9}],
                   "confidence": 0.95, "answer": answer, "below": None, "above": None,
                   "monotone": True, "scanned": False, "simulations": 40, "wall_s": 1.5,
                   "verdict": "smallest cluster.spare_slices = 3 meets goodput>=0.9"}, f)
    with open(os.path.join(directory, "evaluations.csv"), "w", encoding="utf-8") as f:
        f.write("order,value,seeds,requirement,metric,mean,sd,lower,upper,missing,verdict,"
                "feasible\n"
                "0,0,8,goodput>=0.9,goodput,0.71,0.02,0.697,0.723,0,failed,false\n"
                "1,8,8,goodput>=0.9,goodput,0.93,0.01,0.923,0.937,0,met,true\n"
                "2,4,8,goodput>=0.9,goodput,0.915,0.01,0.908,0.922,0,met,true\n"
                "3,2,8,goodput>=0.9,goodput,0.86,0.01,0.853,0.867,0,failed,false\n"
                "4,3,16,goodput>=0.9,goodput,0.906,0.008,0.902,0.910,0,met,true\n")


def make_all(binary, root):
    """Writes the scenario and one directory per kind under `root`; returns {kind: dir}."""
    os.makedirs(root, exist_ok=True)
    scenario = os.path.join(root, "s.json")
    with open(scenario, "w", encoding="utf-8") as f:
        json.dump(SCENARIO, f)
    dirs = {kind: os.path.join(root, kind) for kind in KINDS}
    goodsim(binary, "run", scenario, "-q", "--out", dirs["run"])
    goodsim(binary, "run", scenario, "-q", "--seeds", "3", "-j", "2", "--out", dirs["runs"])
    goodsim(binary, "sweep", scenario, "-q", "--vary", "policies.0.restart_time=5m,20m",
            "--vary", "failures.0.mtbf=10d,40d", "--seeds", "2", "-j", "2", "--out", dirs["sweep"])
    target = os.path.join(root, "target.csv")
    with open(target, "w", encoding="utf-8") as f:
        f.write("set,policy,metric,value,uncertainty\n,dp,goodput,0.7,0.02\n")
    goodsim(binary, "calibrate", scenario, "-q", "--fit", "policies.0.restart_time=1m..1h",
            "--target", target, "--seeds", "2", "--restarts", "0", "-j", "2",
            "--out", dirs["calibrate"])
    after = os.path.join(root, "runs-after")
    goodsim(binary, "run", scenario, "-q", "--seeds", "3", "-j", "2", "--out", after,
            "--set", "policies.0.restart_time=30m")
    goodsim(binary, "diff", dirs["runs"], after, "--out", dirs["diff"], "--format", "json")
    write_solve(dirs["solve"])
    return dirs
