"""The sections of goodsim report for runs, `run --seeds` directories and sweeps.

Each builder returns {"title", "provenance": [(key, value)], "plots": [png paths],
"tables": [(name, rows)], "notes": [text]}; report.py lays them out. Builders for
calibrate, diff and solve directories are in report_results.py.
"""
import glob
import json
import os
import shlex

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import plot_run  # noqa: E402
import plot_sweep  # noqa: E402
from goodsim_io import (InputError, badput_fractions, load_summary,  # noqa: E402
                        load_sweep_paired, load_sweep_summary, read_csv, sweep_axis)


def run_command(summary, extra=""):
    """What produced a run, as far as its summary says (the scenario file is not recorded;
    resolved_scenario in summary.json reproduces the run exactly)."""
    sets = "".join(f" --set {shlex.quote(s)}" for s in summary.get("sets", []))
    return (f"goodsim run <{summary.get('scenario', '?')} scenario> --seed "
            f"{summary.get('seed', '?')}{extra}{sets}")


def run_provenance(summary, command):
    return [("scenario", summary.get("scenario", "?")),
            ("goodsim version", summary.get("goodsim_version", summary.get("version", "?"))),
            ("command", command),
            ("cluster", f"{summary.get('chips', '?')} chips, horizon "
                        f"{summary.get('horizon_s', 0) / 86400:.3g} days")]


def policy_table(summary):
    return [{"policy": p["name"], "type": p["type"], "goodput": f"{p['goodput']:.4f}",
             "uptime": f"{p['uptime']:.4f}", "downtime (h)": f"{p['downtime_s'] / 3600:.2f}",
             "outages": p.get("outages", ""), "failures": p.get("failures", ""),
             "tokens": f"{p.get('tokens', 0):.4g}",
             "final loss": "" if p.get("final_loss") is None else f"{p['final_loss']:.4f}",
             "time to target (h)": "" if p.get("time_to_target_s") is None
             else f"{p['time_to_target_s'] / 3600:.2f}"} for p in summary["policies"]]


def shares_table(shares):
    return shares.round(4).reset_index().rename(columns={"index": "policy"}).to_dict("records")


def run_sections(run_dir, plot_dir):
    summary = load_summary(run_dir)
    title = (f"run: {summary.get('scenario', '?')} (seed {summary.get('seed', '?')}, "
             f"{summary.get('chips', '?')} chips, {summary.get('horizon_s', 0) / 86400:.3g} days)")
    return {"title": title, "provenance": run_provenance(summary, run_command(summary)),
            "plots": plot_run.make_plots(run_dir, plot_dir),
            "tables": [("Policies", policy_table(summary)),
                       ("Chip-time shares", shares_table(badput_fractions(summary)))]}


def load_seed_summaries(runs_dir):
    paths = sorted(glob.glob(os.path.join(runs_dir, "seed-*", "summary.json")),
                   key=lambda p: int(p.split("seed-")[-1].split(os.sep)[0]))
    if not paths:
        raise InputError(f"{runs_dir}: no seed-*/summary.json (is this a run --seeds directory?)")
    return [load_summary(os.path.dirname(p)) for p in paths]


def plot_seed_goodput(summaries, replications, path):
    """Each seed's goodput per policy (dots) with the mean and its Student-t 95% CI from
    replications.csv (the diamond and bar)."""
    frame = pd.DataFrame([{"policy": p["name"], "seed": s["seed"], "goodput": p["goodput"]}
                          for s in summaries for p in s["policies"]])
    policies = list(dict.fromkeys(frame["policy"]))
    fig, ax = plt.subplots(figsize=(max(6, 1.5 * len(policies) + 3), 4.5))
    for i, policy in enumerate(policies):
        values = frame[frame["policy"] == policy]["goodput"]
        ax.scatter([i] * len(values), values, color=f"C{i}", alpha=0.6, s=18)
        row = replications[(replications["policy"] == policy) &
                           (replications["metric"] == "goodput")]
        if not row.empty:
            half = row["ci95"].iloc[0]
            ax.errorbar([i + 0.15], [row["mean"].iloc[0]], fmt="D", color="black", capsize=4,
                        yerr=None if half != half else [half])
    ax.set_xticks(range(len(policies)), policies)
    ax.set_ylabel("goodput (dots: seeds; diamond: mean, 95% CI)")
    ax.set_title(f"goodput of each seed: {summaries[0].get('scenario', '?')} "
                 f"({len(summaries)} seeds)")
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return frame


def runs_sections(runs_dir, plot_dir):
    summaries = load_seed_summaries(runs_dir)
    first = summaries[0]
    replications = read_csv(os.path.join(runs_dir, "replications.csv"),
                            dtype={"policy": str, "metric": str})
    goodput = os.path.join(plot_dir, "seed_goodput.png")
    frame = plot_seed_goodput(summaries, replications, goodput)
    mean_shares = sum(badput_fractions(s) for s in summaries) / len(summaries)
    breakdown = os.path.join(plot_dir, "mean_badput.png")
    plot_run.plot_badput({"scenario": f"{first.get('scenario', '?')}, mean of "
                          f"{len(summaries)} seeds", "policies": []}, breakdown,
                         shares=mean_shares)
    first_dir = os.path.join(runs_dir, f"seed-{first['seed']}")
    first_plots = plot_run.make_plots(first_dir, os.path.join(plot_dir, "first"))
    per_seed = frame.pivot(index="seed", columns="policy", values="goodput").reset_index()
    command = run_command(first, f" --seeds {len(summaries)}")
    return {"title": f"run --seeds: {first.get('scenario', '?')}, {len(summaries)} seeds "
                     f"from {first['seed']}",
            "provenance": run_provenance(first, command),
            "plots": [goodput, breakdown, *first_plots],
            "notes": [f"The time series plots are those of the first seed ({first['seed']})."],
            "tables": [("Mean and 95% CI over the seeds (replications.csv)",
                        replications.round(6).fillna("").to_dict("records")),
                       ("Goodput per seed", per_seed.round(5).to_dict("records")),
                       ("Mean chip-time shares", shares_table(mean_shares))]}


def in_numeric_order(frame, varied):
    """Rows sorted by the swept values as numbers (10m after 5m), then as they were."""
    keys = []
    for name in varied:
        position = sweep_axis(name, frame[name])["position"]
        keys.append(frame[name].astype(str).map(position))
    if not keys:
        return frame
    order = pd.DataFrame({f"_k{i}": k for i, k in enumerate(keys)}, index=frame.index)
    order["_row"] = range(len(frame))
    return frame.loc[order.sort_values([*order.columns]).index]


def sweep_command(sweep_dir):
    path = os.path.join(sweep_dir, "sweep.json")
    if not os.path.isfile(path):
        return [("command", "goodsim sweep (no sweep.json: not recorded)")]
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON: {e}") from e
    parts = ["goodsim sweep", shlex.quote(str(d.get("scenario_file", "?")))]
    parts += [f"--vary {shlex.quote(v['path'] + '=' + str(v['spec']))}" for v in d.get("vary", [])]
    parts += [f"--set {shlex.quote(s)}" for s in d.get("sets", [])]
    parts.append(f"--seeds {d.get('seeds', '?')}")
    if d.get("ci_target") is not None:
        parts.append(f"--ci-target {d['ci_target']}")
    scenario = d.get("scenario", {})
    return [("scenario", scenario.get("name", "?") if isinstance(scenario, dict) else "?"),
            ("goodsim version", d.get("goodsim_version", d.get("version", "?"))),
            ("command", " ".join(parts))]


def sweep_sections(sweep_dir, plot_dir):
    frame, varied = load_sweep_summary(sweep_dir)
    goodput = in_numeric_order(frame[frame["metric"] == "goodput"], varied)
    keep = ["point", *varied, "policy", "n", "mean", "ci95_lo", "ci95_hi"]
    tables = [("Goodput per grid point", goodput[keep].round(5).fillna("").to_dict("records"))]
    paired = load_sweep_paired(sweep_dir)
    if paired is not None:
        rows = in_numeric_order(paired[paired["metric"] == "goodput"], varied)
        keep = ["point", *varied, "policy", "baseline", "n", "mean_diff", "ci95_lo", "ci95_hi"]
        tables.append(("Paired goodput differences (policy - baseline, same seeds)",
                       rows[keep].round(5).fillna("").to_dict("records")))
    title = f"sweep over {', '.join(varied) or '(nothing: one grid point)'}"
    return {"title": title, "provenance": sweep_command(sweep_dir),
            "plots": plot_sweep.make_plots(sweep_dir, plot_dir), "tables": tables}
