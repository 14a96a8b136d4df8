#!/usr/bin/python3
"""Plots of one goodsim run: python3 analysis/plot_run.py OUTDIR [--out PLOTDIR]

Reads OUTDIR/summary.json and OUTDIR/timeseries.csv and writes, into PLOTDIR
(default OUTDIR/plots):
  goodput.png   goodput over time per policy (cumulative and per interval), and
                healthy chips (the same for every policy: one failure history); chaos
                actions as vertical lines when OUTDIR/events.jsonl has them (--events)
  badput.png    the chip-time breakdown as a stacked bar per policy
  loss.png      loss against wall-clock time (only when a loss model ran)
Exit status 2 on a missing or malformed input.
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from goodsim_io import (badput_fractions, load_chaos_actions, load_summary,  # noqa: E402
                        load_timeseries, plot_script_main)

CATEGORY_COLORS = {
    "productive": "#2e7d32", "down": "#c62828", "idle": "#9e9e9e", "reconfigure": "#ef6c00",
    "checkpoint": "#6a1b9a", "lost_work": "#ad1457", "straggler_wait": "#f9a825",
    "sync_wait": "#1565c0",
}


def interval_goodput(rows):
    """Goodput within each sample interval, from the cumulative column."""
    work = rows["goodput"] * rows["time_s"]
    return work.diff() / rows["time_s"].diff()


def mark_chaos(axes, actions):
    """A vertical line at each chaos action (solid: begins, dotted: ends), labelled once."""
    for ax in axes:
        for t, action, edge in actions:
            ax.axvline(t / 3600, color="#6a1b9a", linewidth=0.9,
                       linestyle="-" if edge == "begin" else ":", alpha=0.8)
    for t, action, edge in actions:
        if edge == "begin":
            axes[0].annotate(f"chaos {action}", (t / 3600, 1.0), xycoords=("data", "axes fraction"),
                             rotation=90, va="top", ha="right", fontsize="x-small",
                             color="#6a1b9a")


def plot_goodput(series, path, title, actions=()):
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
    top.set_title(title)
    for index, (name, rows) in enumerate(series.groupby("policy", sort=False)):
        rows = rows[rows["time_s"] > 0]
        hours = rows["time_s"] / 3600
        color = f"C{index}"
        top.plot(hours, rows["goodput"], color=color, linewidth=2, label=f"{name} (cumulative)")
        top.plot(hours, interval_goodput(rows), color=color, linewidth=0.8, alpha=0.45)
    first = series[series["policy"] == series["policy"].iloc[0]]
    bottom.step(first["time_s"] / 3600, first["healthy_chips"], where="post", color="#444444",
                label="every policy (same failure history)")
    top.set_ylabel("goodput (thin: per interval)")
    top.set_ylim(0, 1.02)
    top.legend(loc="lower left", fontsize="small")
    top.grid(alpha=0.3)
    bottom.set_ylabel("healthy chips")
    bottom.ticklabel_format(axis="y", useOffset=False, style="plain")
    bottom.yaxis.get_major_locator().set_params(integer=True)
    bottom.set_xlabel("simulated time (h)")
    bottom.legend(loc="lower left", fontsize="small")
    bottom.grid(alpha=0.3)
    mark_chaos([top, bottom], actions)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_badput(summary, path):
    shares = badput_fractions(summary)
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(shares) + 3), 5))
    bottom = [0.0] * len(shares)
    for category in shares.columns:
        values = list(shares[category])
        ax.bar(shares.index, values, bottom=bottom, label=category,
               color=CATEGORY_COLORS.get(category))
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xlabel("policy")
    ax.set_ylabel("share of chips x run time")
    ax.set_ylim(0, 1.0)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax.set_title(f"chip-time breakdown: {summary['scenario']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_loss(series, summary, path):
    rows = series.dropna(subset=["loss"])
    if rows.empty:
        return False
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for name, group in rows.groupby("policy", sort=False):
        ax.plot(group["time_s"] / 3600, group["loss"], label=name)
    target = summary.get("target_loss")
    if target is not None:
        ax.axhline(target, color="black", linestyle="--", label="target")
    ax.set_xlabel("simulated time (h)")
    ax.set_ylabel("loss")
    ax.set_title(f"loss over time: {summary.get('scenario', '?')}")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def make_plots(run_dir, plot_dir, drawn=None):
    """Writes the plots; `drawn`, when a dict, receives what they show (for tests)."""
    summary = load_summary(run_dir)
    series = load_timeseries(run_dir)
    actions = load_chaos_actions(run_dir)
    os.makedirs(plot_dir, exist_ok=True)
    written = [os.path.join(plot_dir, "goodput.png"), os.path.join(plot_dir, "badput.png")]
    title = f"goodput over time: {summary.get('scenario', '?')} (seed {summary.get('seed', '?')})"
    plot_goodput(series, written[0], title, actions)
    if drawn is not None:
        drawn["goodput.png"] = {"title": title, "chaos": actions}
    plot_badput(summary, written[1])
    loss_path = os.path.join(plot_dir, "loss.png")
    if plot_loss(series, summary, loss_path):
        written.append(loss_path)
    return written


def main(argv):
    return plot_script_main(argv, "plot_run", __doc__.splitlines()[0], "run", make_plots)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
