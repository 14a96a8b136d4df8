#!/usr/bin/python3
"""Plots of one goodsim run: python3 analysis/plot_run.py OUTDIR [--out PLOTDIR]

Reads OUTDIR/summary.json and OUTDIR/timeseries.csv and writes, into PLOTDIR
(default OUTDIR/plots):
  goodput.png   goodput over time per policy (cumulative and per interval), and
                healthy chips (the same for every policy: one failure history; the axis
                starts at 0 unless the chips never fell below half, and then says where it
                starts); chaos actions as vertical lines when OUTDIR/events.jsonl has them
  badput.png    the chip-time breakdown as a stacked bar per policy (categories that are
                zero for every policy are left out of the legend)
  badput_time.png  per policy, chip-time over time as stacked areas: productive, down
                (failed chips) and the rest of the badput (healthy chips not computing
                kept steps), per sample interval
  loss.png      loss against simulated time on a log axis (only when a loss model ran)
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


def plot_goodput(series, path, title, chips, actions=()):
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
    shown = healthy_axis(bottom, first["healthy_chips"], chips)
    bottom.set_xlabel("simulated time (h)")
    bottom.legend(loc="lower left", fontsize="small")
    bottom.grid(alpha=0.3)
    mark_chaos([top, bottom], actions)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return shown


def healthy_axis(ax, healthy, chips):
    """The healthy-chips axis: from 0 when the chips fell below half of the cluster (a real
    collapse shows as one), otherwise zoomed on the dips with the axis saying plainly where it
    starts, so 16,380 of 16,384 does not look like a collapse. Returns {"ylim", "from_zero",
    "label"}."""
    low, high = float(healthy.min()), float(max(healthy.max(), chips))
    ax.ticklabel_format(axis="y", useOffset=False, style="plain")
    ax.yaxis.get_major_locator().set_params(integer=True)
    if low < 0.5 * high or low == high:
        ylim, label = (0, high * 1.02), "healthy chips"
    else:
        pad = max(1.0, 0.1 * (high - low))
        ylim = (max(0.0, low - pad), high + pad)
        label = f"healthy chips (axis from {ylim[0]:,.0f}, not 0)"
        ax.text(0.99, 0.04, f"zoomed: lowest {low:,.0f} of {high:,.0f} chips "
                f"({100 * low / high:.3f}% healthy); the axis does not start at 0",
                transform=ax.transAxes, ha="right", va="bottom", fontsize="small",
                bbox={"facecolor": "#fff3cd", "edgecolor": "#c9a227", "boxstyle": "round"})
    ax.set_ylim(*ylim)
    ax.set_ylabel(label)
    return {"ylim": ylim, "from_zero": ylim[0] == 0, "label": label}


def plot_badput(summary, path, shares=None):
    """The chip-time breakdown (`shares`: per policy, default the summary's) as stacked bars.
    Returns the categories drawn."""
    shares = badput_fractions(summary) if shares is None else shares
    shares = shares.loc[:, (shares != 0).any(axis=0)]  # no legend entry for an empty category
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
    return list(shares.columns)


def plot_badput_over_time(series, chips, path, title):
    """Per policy (panels sharing both axes), stacked areas of the chip-time of each sample
    interval: productive (from the cumulative goodput), down (failed chips at the sample) and
    the rest. Returns the drawn layer names (all-zero layers are left out)."""
    policies = list(dict.fromkeys(series["policy"]))
    fig, axes = plt.subplots(len(policies), 1, figsize=(9, 2.4 * len(policies) + 1),
                             sharex=True, sharey=True, squeeze=False)
    names = []
    for ax, policy in zip(axes[:, 0], policies):
        rows = series[series["policy"] == policy]
        rows = rows[rows["time_s"] > 0]
        productive = interval_goodput(rows).fillna(rows["goodput"]).clip(0, 1)
        down = ((chips - rows["healthy_chips"]) / chips).clip(0, 1)
        rest = (1 - productive - down).clip(lower=0)
        layers = [("productive", productive, CATEGORY_COLORS["productive"]),
                  ("down (failed chips)", down, CATEGORY_COLORS["down"]),
                  ("other badput (idle, restarts, checkpoints, lost work, waits)", rest,
                   "#ffb74d")]
        layers = [layer for layer in layers if (layer[1] > 0).any()]
        names = names or [name for name, _, _ in layers]
        ax.stackplot(rows["time_s"] / 3600, *[v for _, v, _ in layers],
                     labels=[n for n, _, _ in layers], colors=[c for _, _, c in layers],
                     step="pre")
        ax.set_ylim(0, 1)
        ax.set_ylabel(f"{policy}\nshare of chips")
        ax.grid(alpha=0.3)
    axes[0, 0].set_title(title)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize="small")
    axes[-1, 0].set_xlabel("simulated time (h)")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return names


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
    ax.set_yscale("log")
    ax.set_xlabel("simulated time (h)")
    ax.set_ylabel("loss (log scale)")
    ax.set_title(f"loss over time: {summary.get('scenario', '?')}")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return ax.get_yscale()


def make_plots(run_dir, plot_dir, drawn=None):
    """Writes the plots; `drawn`, when a dict, receives what they show (for tests)."""
    summary = load_summary(run_dir)
    series = load_timeseries(run_dir)
    actions = load_chaos_actions(run_dir)
    os.makedirs(plot_dir, exist_ok=True)
    written = [os.path.join(plot_dir, "goodput.png"), os.path.join(plot_dir, "badput.png"),
               os.path.join(plot_dir, "badput_time.png")]
    title = f"goodput over time: {summary.get('scenario', '?')} (seed {summary.get('seed', '?')})"
    chips = float(summary["chips"])
    healthy = plot_goodput(series, written[0], title, chips, actions)
    categories = plot_badput(summary, written[1])
    layers = plot_badput_over_time(series, chips, written[2],
                                   f"chip-time per sample interval: {summary.get('scenario', '?')}")
    if drawn is not None:
        drawn["goodput.png"] = {"title": title, "chaos": actions, "healthy": healthy}
        drawn["badput.png"] = {"categories": categories}
        drawn["badput_time.png"] = {"layers": layers}
    loss_path = os.path.join(plot_dir, "loss.png")
    loss_scale = plot_loss(series, summary, loss_path)
    if loss_scale:
        written.append(loss_path)
        if drawn is not None:
            drawn["loss.png"] = {"yscale": loss_scale}
    return written


def main(argv):
    return plot_script_main(argv, "plot_run", __doc__.splitlines()[0], "run", make_plots)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
