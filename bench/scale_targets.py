#!/usr/bin/env python3
"""Full-scale cost of goodsim runs, through the command line (`goodsim run -v`).

Runs the scale targets of the performance work, each a few times, and prints
wall-clock and CPU seconds (min and median over the repetitions), events and
events/s per policy, and peak memory:

  big      10M chips, 30 days: data_parallel, elastic_data_parallel and
           decoupled_diloco M = 8 (scenarios/paper-1.2m.json resized)
  scaling  scenarios/paper-1.2m.json, 7 days, at 150k .. 9.6M chips, each policy
           in its own process: fitted exponents of its CPU time against chips
  table1   the Table 1 grid: `goodsim sweep scenarios/paper-1.2m.json --vary
           cluster.chips=1.5e5,3e5,6e5,1.2e6,2.4e6 --seeds 10 --jobs 2`
  airesim  an AIReSim-like job: one-chip slices (4,096 and 16,384 servers), a
           256-day horizon, about 11k failures at 4,096, one data_parallel job
  solve    `goodsim solve` for the fewest spare slices of scenarios/paper-1.2m.json's
           data_parallel job (7 days) with ETTR >= 0.9, --jobs 2: wall time and the
           number of simulations it ran (SOLVE_ARGS below: faster recovery, rarer failures)

usage: scale_targets.py GOODSIM [big|scaling|table1|airesim|solve]... [--reps N]
"""
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAPER = os.path.join(ROOT, "scenarios", "paper-1.2m.json")


def timed(cmd):
    """Runs cmd; returns (stdout, wall_s, cpu_s, peak RSS MiB of any child so far)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = os.times().elapsed
    res = subprocess.run(cmd, capture_output=True, text=True)
    wall = os.times().elapsed - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        sys.exit(f"failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return res.stdout, wall, cpu, after.ru_maxrss / 1024.0


def cost_rows(stdout):
    """The per-policy rows of `goodsim run -v`: name -> (events, wall_s)."""
    lines = stdout.splitlines()
    start = max(i for i, l in enumerate(lines) if l.split()[:2] == ["policy", "events"])
    rows = {}
    for line in lines[start + 1:]:
        f = line.split()
        if len(f) != 4:
            break
        rows[f[0]] = (int(f[1]), float(f[2].rstrip("s")))
    return rows


def scenario_file(doc, tmp, name):
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def stats(values):
    return f"min {min(values):8.2f}  median {statistics.median(values):8.2f}"


def run_scenario(goodsim, path, tmp, reps):
    """Runs one scenario `reps` times; returns per-run (rows, wall, cpu, rss)."""
    out_dir = os.path.join(tmp, "out")
    return [timed([goodsim, "run", path, "-q", "-v", "--out", out_dir]) for _ in range(reps)]


def report_runs(label, runs):
    walls = [r[1] for r in runs]
    cpus = [r[2] for r in runs]
    print(f"{label}: wall {stats(walls)} s; CPU {stats(cpus)} s; peak RSS {max(r[3] for r in runs):.0f} MiB")
    per_policy = {}
    for r in runs:
        for name, (events, wall) in cost_rows(r[0]).items():
            per_policy.setdefault(name, []).append((events, wall))
    for name, vals in per_policy.items():
        w = [v[1] for v in vals]
        ev = vals[0][0]
        print(f"  {name:<16} {ev:>10} events  wall {stats(w)} s  {ev / statistics.median(w):>12.0f} events/s")
    return per_policy


def paper_doc():
    with open(PAPER) as f:
        return json.load(f)


def big(goodsim, tmp, reps):
    doc = paper_doc()
    doc["cluster"]["chips"] = 41667 * 240  # 10M chips in whole 240-chip slices
    doc["horizon"] = "30d"
    doc["policies"] = [p for p in doc["policies"] if p["name"] in ("dp", "elastic-dp", "decoupled-m8")]
    report_runs("big (10M chips, 30 days, dp + elastic-dp + decoupled-m8; target < 30 s, < 2 GB)",
                run_scenario(goodsim, scenario_file(doc, tmp, "big"), tmp, reps))


def fit_exponent(xs, ys):
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = statistics.mean(lx), statistics.mean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def scaling(goodsim, tmp, reps):
    """Each policy in its own process, so its CPU time is its own."""
    chips = [1.5e5, 1.2e6, 2.4e6, 4.8e6, 9.6e6]
    points = {}  # policy -> list of (chips, events, median CPU s)
    for c in chips:
        for policy in paper_doc()["policies"]:
            doc = paper_doc()
            doc["cluster"]["chips"] = c
            doc["policies"] = [policy]
            runs = run_scenario(goodsim, scenario_file(doc, tmp, "scaling"), tmp, reps)
            events = cost_rows(runs[0][0])[policy["name"]][0]
            cpus = [r[2] for r in runs]
            print(f"scaling {c:>9.3g} chips {policy['name']:<16} {events:>9} events  "
                  f"CPU {stats(cpus)} s  wall {stats([r[1] for r in runs])} s")
            points.setdefault(policy["name"], []).append((c, events, statistics.median(cpus)))
    print("fitted exponents of CPU time, 150k .. 9.6M chips (target <= 1.1):")
    for name, pts in points.items():
        xs = [p[0] for p in pts]
        per_event = fit_exponent(xs, [p[2] / p[1] for p in pts])
        vs_events = fit_exponent([p[1] for p in pts], [p[2] for p in pts])
        print(f"  {name:<16} CPU ~ chips^{fit_exponent(xs, [p[2] for p in pts]):.2f}   "
              f"CPU per event ~ chips^{per_event:.2f}   CPU ~ events^{vs_events:.2f}")


def table1(goodsim, tmp, reps):
    runs = []
    for _ in range(reps):
        out_dir = os.path.join(tmp, "sweep")
        subprocess.run(["rm", "-rf", out_dir], check=True)
        runs.append(timed([goodsim, "sweep", PAPER, "--vary", "cluster.chips=1.5e5,3e5,6e5,1.2e6,2.4e6",
                           "--seeds", "10", "--jobs", "2", "--out", out_dir, "-q"]))
    print(f"table1 (5 x 6 policies x 10 seeds, --jobs 2; target < 60 s wall): "
          f"wall {stats([r[1] for r in runs])} s; CPU {stats([r[2] for r in runs])} s")


def airesim(goodsim, tmp, reps):
    for servers in (4096, 16384):
        doc = {
            "name": f"airesim-like-{servers}",
            "seed": 1,
            "horizon": "256d",
            "cluster": {"chips": servers, "chips_per_host": 1, "hosts_per_slice": 1,
                        "sites": [{"name": "dc"}]},
            "job": {"params": 7e10, "tokens_per_step": 1.6e7, "step_time": "6s"},
            # About 11k failures over 4,096 servers in 256 days.
            "failures": [{"type": "exponential_failures", "mtbf": "95d", "repair_time": "2h"}],
            "policies": [{"name": "dp", "type": "data_parallel", "restart_time": "10m"}],
            "outputs": {"sample_interval": "1d"},
        }
        target = "0.1" if servers == 4096 else "2"
        report_runs(f"airesim-like {servers} servers (target < {target} s)",
                    run_scenario(goodsim, scenario_file(doc, tmp, "airesim"), tmp, reps))


# The spare-slice question at 1.2M chips. With the paper's rates (a failure every 26 s,
# 10-minute restarts, 2-minute swaps) no spare count gives the job an ETTR of 0.9: solve
# says so (exit 3) after 24 simulations. The timed question is asked of a job whose chips
# fail every 10 years (a failure every 263 s) and that swaps and restarts in 10 s each.
SOLVE_ARGS = ["--policy", "dp", "--set", "policies.0.restart_time=10s",
              "--set", "policies.0.swap_time=10s", "--set", "failures.0.mtbf=10y",
              "--find", "cluster.spare_slices=0..200", "--require", "ettr>=0.9",
              "--jobs", "2", "-q"]


def solve(goodsim, tmp, reps):
    for _ in range(reps):
        out_dir = os.path.join(tmp, "solve")
        subprocess.run(["rm", "-rf", out_dir], check=True)
        stdout, wall, cpu, _ = timed([goodsim, "solve", PAPER, *SOLVE_ARGS, "--out", out_dir])
        with open(os.path.join(out_dir, "solve.json")) as f:
            result = json.load(f)
        answer = result["answer"]["text"] if result["answer"] else "none"
        print(f"solve (fewest spares, ettr >= 0.9, 1.2M chips, 7 days, --jobs 2): wall {wall:.1f} s, "
              f"CPU {cpu:.1f} s, {result['simulations']} simulations, answer {answer}")


def main(argv):
    reps = 3
    if "--reps" in argv:
        i = argv.index("--reps")
        reps = int(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) < 2:
        sys.exit(__doc__)
    goodsim, wanted = argv[1], argv[2:] or ["big", "scaling", "table1", "airesim"]
    targets = {"big": big, "scaling": scaling, "table1": table1, "airesim": airesim,
               "solve": solve}
    with tempfile.TemporaryDirectory() as tmp:
        for name in wanted:
            if name not in targets:
                sys.exit(f"unknown target {name}\n{__doc__}")
            targets[name](goodsim, tmp, reps)


if __name__ == "__main__":
    main(sys.argv)
