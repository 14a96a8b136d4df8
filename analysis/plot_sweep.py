#!/usr/bin/python3
"""Plots of a goodsim sweep: python3 analysis/plot_sweep.py SWEEPDIR [--out PLOTDIR]

Reads SWEEPDIR/summary.csv and writes, into PLOTDIR (default SWEEPDIR/plots):
  goodput.png          mean goodput with its 95% confidence band against the first
                       swept parameter, one line per policy (and per value of a second
                       parameter, as separate panels)
  time_to_target.png   the same for time_to_target_s, when any run reached its target
  heatmap.png          mean goodput over the first two swept parameters, per policy
Exit status 2 on a missing or malformed input.
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from goodsim_io import InputError, plot_script_main, load_sweep_summary, numeric_value  # noqa: E402


def x_positions(values):
    """Numeric x values when every value parses, else evenly spaced categories."""
    numbers = [numeric_value(v) for v in values]
    if all(n is not None for n in numbers):
        return numbers, None
    return list(range(len(values))), [str(v) for v in values]


def plot_metric(frame, varied, metric, ylabel, path):
    rows = frame[frame["metric"] == metric].dropna(subset=["mean"])
    if rows.empty:
        return False
    x_name = varied[0]
    panels = sorted(rows[varied[1]].unique(), key=str) if len(varied) > 1 else [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.5), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        subset = rows if panel is None else rows[rows[varied[1]] == panel]
        for index, (policy, group) in enumerate(subset.groupby("policy", sort=False)):
            values = list(group[x_name])
            xs, labels = x_positions(values)
            order = sorted(range(len(xs)), key=lambda i: xs[i])
            xs = [xs[i] for i in order]
            group = group.iloc[order]
            ax.plot(xs, group["mean"], marker="o", color=f"C{index}", label=policy)
            lo, hi = group["ci95_lo"], group["ci95_hi"]
            if lo.notna().all() and hi.notna().all():
                ax.fill_between(xs, lo, hi, color=f"C{index}", alpha=0.2)
            if labels is not None:
                ax.set_xticks(xs, [labels[i] for i in order])
        if len(set(numeric_value(v) for v in rows[x_name])) > 2 and all(
                numeric_value(v) and numeric_value(v) > 0 for v in rows[x_name]):
            values = sorted(numeric_value(v) for v in rows[x_name])
            if values[-1] / values[0] >= 50:
                ax.set_xscale("log")
        ax.set_xlabel(x_name)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        if panel is not None:
            ax.set_title(f"{varied[1]} = {panel}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_heatmap(frame, varied, path):
    if len(varied) < 2:
        return False
    rows = frame[frame["metric"] == "goodput"]
    policies = list(dict.fromkeys(rows["policy"]))
    fig, axes = plt.subplots(1, len(policies), figsize=(5.5 * len(policies), 4.5), squeeze=False)
    for ax, policy in zip(axes[0], policies):
        table = rows[rows["policy"] == policy].pivot_table(
            index=varied[1], columns=varied[0], values="mean", aggfunc="first")
        image = ax.imshow(table.values, origin="lower", aspect="auto", cmap="viridis")
        ax.set_xticks(range(len(table.columns)), [str(c) for c in table.columns], rotation=45)
        ax.set_yticks(range(len(table.index)), [str(i) for i in table.index])
        ax.set_xlabel(varied[0])
        ax.set_ylabel(varied[1])
        ax.set_title(f"goodput: {policy}")
        fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def make_plots(sweep_dir, plot_dir):
    frame, varied = load_sweep_summary(sweep_dir)
    if not varied:
        raise InputError(f"{sweep_dir}/summary.csv: no swept parameter columns")
    os.makedirs(plot_dir, exist_ok=True)
    written = []
    jobs = [("goodput", "goodput (mean, 95% CI)", "goodput.png"),
            ("time_to_target_s", "time to target (s)", "time_to_target.png")]
    for metric, label, name in jobs:
        path = os.path.join(plot_dir, name)
        if plot_metric(frame, varied, metric, label, path):
            written.append(path)
    heatmap = os.path.join(plot_dir, "heatmap.png")
    if plot_heatmap(frame, varied, heatmap):
        written.append(heatmap)
    return written


def main(argv):
    return plot_script_main(argv, "plot_sweep", __doc__.splitlines()[0], "sweep", make_plots)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
