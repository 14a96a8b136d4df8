"""Output directories of every kind goodsim report reads, made with a goodsim binary (small
runs: a few seconds in all). Shared by test_report.py and the browser test."""
import json
import os
import subprocess

SCENARIO = {
    "name": "report-test",
    "horizon": "3d",
    "cluster": {"chips": 64, "chips_per_host": 4, "hosts_per_slice": 4, "spare_slices": 1},
    "job": {"params": 1e9, "tokens_per_step": 1e6, "step_time": "1s"},
    "failures": [{"type": "exponential_failures", "mtbf": "20d", "repair_time": "1h"}],
    "policies": [{"name": "dp", "type": "data_parallel", "restart_time": "10m"},
                 {"name": "elastic", "type": "elastic_data_parallel"}],
    "loss": {"type": "scaling_law"},
}
KINDS = ("run", "runs", "sweep", "calibrate", "diff", "solve")


def goodsim(binary, *args):
    result = subprocess.run([binary, *args], capture_output=True, text=True, check=False)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"goodsim {' '.join(args)}: exit {result.returncode}: {result.stderr}")
    return result


def write_solve(directory):
    """A solve directory as `goodsim solve` writes it (solve.json, evaluations.csv); the
    report reads both generically (analysis/report_results.py)."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "solve.json"), "w", encoding="utf-8") as f:
        json.dump({"scenario": "report-test", "version": "0.1.0", "policy": "dp",
                   "command": "goodsim solve s.json --policy dp --find "
                              "cluster.spare_slices=0..8 --require 'goodput>=0.9'",
                   "find": "cluster.spare_slices", "answer": 3, "feasible": True}, f)
    with open(os.path.join(directory, "evaluations.csv"), "w", encoding="utf-8") as f:
        f.write("cluster.spare_slices,n,goodput,goodput_lo,goodput_hi,feasible\n"
                "0,8,0.71,0.69,0.73,false\n2,8,0.86,0.85,0.87,false\n"
                "3,8,0.91,0.905,0.915,true\n8,8,0.93,0.925,0.935,true\n")


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
