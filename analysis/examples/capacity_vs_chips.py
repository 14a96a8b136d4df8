#!/usr/bin/python3
"""A capacity question, end to end: how much goodput is left as the cluster grows, for
synchronous data-parallel training, elastic data-parallel and Decoupled DiLoCo?

Every chip fails about once a year, so a bigger fleet fails more often: a synchronous
job that stops for every failure loses more and more of its time, while elastic and
asynchronous policies keep training on what is healthy. The script sweeps the cluster
size, runs every policy on the same failure histories (several seeds per size), and
reports mean goodput with its 95% confidence interval, the paired difference to
data-parallel, and the largest size at which each policy still keeps a goodput target.

Notebook style: each "# %%" cell can be pasted into a notebook. From the repository root,
after a build (make build):

    PYTHONPATH=build/release/python /usr/bin/python3 analysis/examples/capacity_vs_chips.py

Options: --chips 16384,65536,262144 --seeds 10 --horizon 14d --target 0.9 --jobs 2
--out DIR (default out/capacity). Writes DIR/goodput_vs_chips.png and prints the tables.
"""
# %% Setup
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import goodsim  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chips", default="16384,65536,262144",
                        help="cluster sizes, comma-separated (multiples of 64)")
    parser.add_argument("--seeds", type=int, default=10, help="seeds per cluster size")
    parser.add_argument("--horizon", default="14d", help="simulated time per run")
    parser.add_argument("--target", type=float, default=0.9, help="goodput to keep")
    parser.add_argument("--jobs", type=int, default=None, help="worker threads")
    parser.add_argument("--out", default="out/capacity", help="where the plot goes")
    return parser.parse_args(argv)


# %% The scenario: a document built here (a scenario file would do as well)
def scenario(horizon):
    """64-chip slices with 4 spares; every chip fails about once a year and is back 30
    minutes later (the failure rate and repair time of scenarios/paper-1.2m.json);
    the three policies on the same cluster and the same failures: data-parallel
    restarts in 10 minutes (swapping in a spare in 2, as in scenarios/demo.json),
    elastic pauses 30 s to shrink or grow, Decoupled DiLoCo runs 8 learners."""
    return {
        "name": "capacity",
        "horizon": horizon,
        "cluster": {"chips": 16384, "chips_per_host": 4, "hosts_per_slice": 16,
                    "spare_slices": 4},
        "job": {"params": 7e10, "tokens_per_step": 1.6e7, "step_time": "2s"},
        "failures": [{"type": "exponential_failures", "mtbf": "1y", "repair_time": "30m"}],
        "policies": [
            {"name": "data-parallel", "type": "data_parallel", "restart_time": "10m",
             "swap_time": "2m", "checkpoint": {"interval": "daly", "write_time": "30s"}},
            {"name": "elastic", "type": "elastic_data_parallel",
             "downscale_time": "30s", "upscale_time": "30s"},
            {"name": "decoupled-diloco", "type": "decoupled_diloco", "learners": 8,
             "inner_steps": 24, "fragments": 24, "overlap_steps": 2, "quorum": 1},
        ],
        "outputs": {"sample_interval": "1d"},
    }


# %% Sweep the cluster size: every policy, several seeds per size
def run_sweep(args):
    chips = [int(c) for c in args.chips.split(",")]
    base = goodsim.load(scenario(args.horizon))
    return goodsim.sweep(base, vary={"cluster.chips": chips}, seeds=args.seeds, jobs=args.jobs)


# %% Tables: goodput with its CI, and each policy against data-parallel, seed by seed
def report(result, target):
    goodput = result.summary.query("metric == 'goodput'")
    shown = goodput.assign(goodput=goodput["mean"].map("{:.4f}".format) + " ± " +
                           goodput["ci95"].map("{:.4f}".format))
    print("mean goodput ± 95% CI\n")
    print(shown.pivot(index="cluster.chips", columns="policy", values="goodput")
          [list(dict.fromkeys(goodput["policy"]))].to_string(), "\n")
    paired = result.paired.query("metric == 'goodput'")
    print("goodput difference to data-parallel (same failures), 95% CI\n")
    print(paired[["cluster.chips", "policy", "mean_diff", "ci95_lo", "ci95_hi"]]
          .to_string(index=False), "\n")
    for policy, rows in goodput.groupby("policy", sort=False):
        # A size counts when even the low end of its CI keeps the target.
        lows = rows["ci95_lo"].fillna(rows["mean"])
        kept = rows.loc[lows >= target, "cluster.chips"]
        answer = f"up to {kept.max()} chips" if len(kept) else "at none of these sizes"
        print(f"{policy}: goodput >= {target} {answer}")
    return goodput


# %% Plot: goodput against cluster size, with the confidence band
def plot(goodput, target, path):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for index, (policy, rows) in enumerate(goodput.groupby("policy", sort=False)):
        rows = rows.sort_values("cluster.chips")
        ax.plot(rows["cluster.chips"], rows["mean"], marker="o", color=f"C{index}",
                label=policy)
        ax.fill_between(rows["cluster.chips"], rows["ci95_lo"], rows["ci95_hi"],
                        color=f"C{index}", alpha=0.2)
    ax.axhline(target, color="grey", linestyle="--", linewidth=1, label=f"target {target}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("chips")
    ax.set_ylabel("goodput (mean, 95% CI)")
    ax.set_title("Goodput as the cluster grows (chip MTBF 1 year)")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv):
    args = parse_args(argv)
    try:
        result = run_sweep(args)
    except goodsim.ScenarioError as e:
        print(f"capacity_vs_chips: error: {e}", file=sys.stderr)
        return 2
    goodput = report(result, args.target)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "goodput_vs_chips.png")
    plot(goodput, args.target, path)
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
