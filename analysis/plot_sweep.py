#!/usr/bin/python3
"""Plots of a goodsim sweep: python3 analysis/plot_sweep.py SWEEPDIR [--out PLOTDIR]

Reads SWEEPDIR/summary.csv and writes, into PLOTDIR (default SWEEPDIR/plots):
  goodput.png          mean goodput with its 95% confidence band against the first
                       swept parameter, one line per policy (and per value of a second
                       parameter, as separate panels); a sweep without --vary: a bar
                       per policy with its 95% CI
  time_to_target.png   the same for time_to_target_s (in hours), when any run reached
                       its target
  heatmap.png          mean goodput over the first two swept parameters, per policy, with
                       the value written in each cell and one colour scale for every
                       panel, fitted to the data (not 0..1)
Panels of one figure share their y axis (or colour scale), so they compare at a glance.
Swept values are shown in the sweep's own units (durations as given: "1y".."8y" on an
axis in years), in numeric order, on a log axis when the grid is log-spaced.
Exit status 2 on a missing or malformed input.
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from goodsim_io import load_sweep_summary, plot_script_main, sweep_axis  # noqa: E402

METRIC_LABELS = {"goodput": "goodput (mean, 95% CI)",
                 "time_to_target_s": "time to target (h, mean, 95% CI)"}
# Values are plotted in these units (time to target: hours).
METRIC_SCALE = {"goodput": 1.0, "time_to_target_s": 1 / 3600}


def plot_metric(frame, varied, metric, path):
    """The metric against the first swept parameter, one panel per value of the second.

    Returns what was drawn (for tests): {"x_label", "x_scale", "panels" (the second
    parameter's values, in numeric order), "x": {policy: [x values]}, "title"}, or None when
    no run has a value of the metric.
    """
    rows = frame[frame["metric"] == metric].dropna(subset=["mean"])
    if rows.empty:
        return None
    x_name = varied[0]
    x_axis = sweep_axis(x_name, frame[x_name])
    panel_axis = sweep_axis(varied[1], frame[varied[1]]) if len(varied) > 1 else None
    panels = panel_axis["order"] if panel_axis else [None]
    scale = METRIC_SCALE[metric]
    title = f"{METRIC_LABELS[metric].split(' (')[0]} by {x_name}"
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.5), squeeze=False,
                             sharey=True)
    drawn = {"x_label": x_axis["label"], "x_scale": x_axis["scale"], "title": title,
             "panels": [str(p) for p in panels if p is not None], "x": {}}
    for ax, panel in zip(axes[0], panels):
        subset = rows if panel is None else rows[rows[varied[1]].astype(str) == panel]
        for index, (policy, group) in enumerate(subset.groupby("policy", sort=False)):
            group = group.assign(_x=[x_axis["position"][str(v)] for v in group[x_name]])
            group = group.sort_values("_x")
            xs = list(group["_x"])
            drawn["x"].setdefault(policy, xs)
            ax.plot(xs, group["mean"] * scale, marker="o", color=f"C{index}", label=policy)
            lo, hi = group["ci95_lo"], group["ci95_hi"]
            if lo.notna().all() and hi.notna().all():
                ax.fill_between(xs, lo * scale, hi * scale, color=f"C{index}", alpha=0.2)
        if x_axis["categorical"]:
            ax.set_xticks(range(len(x_axis["order"])), x_axis["order"])
        ax.set_xscale(x_axis["scale"])
        if x_axis["scale"] == "log":  # the swept values themselves, not 6x10^0
            ax.set_xticks([x_axis["position"][v] for v in x_axis["order"]], x_axis["order"])
            ax.minorticks_off()
        ax.set_xlabel(x_axis["label"])
        ax.set_ylabel(METRIC_LABELS[metric])
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        ax.set_title(title if panel is None else f"{title}, {varied[1]} = {panel}")
    drawn["ylims"] = [ax.get_ylim() for ax in axes[0]]
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return drawn


def cell_text_colour(image, value):
    """Black on light cells, white on dark ones."""
    r, g, b, _ = image.cmap(image.norm(value))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def plot_heatmap(frame, varied, path):
    """Mean goodput over the first two swept parameters, rows and columns in numeric order,
    each cell labelled with its value; one colour scale for all panels, from the lowest to
    the highest mean. Returns {"columns", "rows", "clims" (each panel's colour limits),
    "cells" (values written)} or None."""
    if len(varied) < 2:
        return None
    rows = frame[frame["metric"] == "goodput"]
    policies = list(dict.fromkeys(rows["policy"]))
    x_axis, y_axis = sweep_axis(varied[0], frame[varied[0]]), sweep_axis(varied[1], frame[varied[1]])
    vmin, vmax = float(rows["mean"].min()), float(rows["mean"].max())
    if vmin == vmax:
        vmin, vmax = vmin - 0.005, vmax + 0.005
    fig, axes = plt.subplots(1, len(policies), figsize=(5.5 * len(policies), 4.5), squeeze=False)
    cells, clims = 0, []
    for ax, policy in zip(axes[0], policies):
        mine = rows[rows["policy"] == policy].astype({varied[0]: str, varied[1]: str})
        table = mine.pivot_table(index=varied[1], columns=varied[0], values="mean",
                                 aggfunc="first").reindex(index=y_axis["order"],
                                                          columns=x_axis["order"])
        image = ax.imshow(table.values, origin="lower", aspect="auto", cmap="viridis",
                          vmin=vmin, vmax=vmax)
        clims.append(image.get_clim())
        for (i, j), value in np.ndenumerate(table.values):
            if value == value:
                ax.text(j, i, f"{value:.3f}", ha="center", va="center", fontsize="small",
                        color=cell_text_colour(image, value))
                cells += 1
        ax.set_xticks(range(len(table.columns)), list(table.columns), rotation=45)
        ax.set_yticks(range(len(table.index)), list(table.index))
        ax.set_xlabel(x_axis["label"])
        ax.set_ylabel(y_axis["label"])
        ax.set_title(f"mean goodput: {policy}")
        fig.colorbar(image, ax=ax, label="goodput")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return {"columns": x_axis["order"], "rows": y_axis["order"], "clims": clims, "cells": cells}


def plot_one_point(frame, path):
    """A sweep without --vary: mean goodput per policy with its 95% CI as error bars.
    Returns {"policies": [...], "mean": [...]}."""
    rows = frame[frame["metric"] == "goodput"]
    policies, means = list(rows["policy"]), list(rows["mean"])
    low = [m - lo if lo == lo else 0 for m, lo in zip(means, rows["ci95_lo"])]
    high = [hi - m if hi == hi else 0 for m, hi in zip(means, rows["ci95_hi"])]
    fig, ax = plt.subplots(figsize=(max(5, 1.3 * len(policies) + 2), 4.5))
    ax.bar(policies, means, yerr=[low, high], capsize=4, color=[f"C{i}" for i in range(len(policies))])
    ax.set_ylim(0, 1)
    ax.set_xlabel("policy")
    ax.set_ylabel("goodput (mean, 95% CI)")
    n = int(rows["n"].max()) if len(rows) else 0
    ax.set_title(f"mean goodput per policy ({n} seeds, no swept parameter)")
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return {"policies": policies, "mean": means}


def make_plots(sweep_dir, plot_dir, drawn=None):
    """Writes the plots; `drawn`, when a dict, receives what each plot shows (by file name)."""
    frame, varied = load_sweep_summary(sweep_dir)
    os.makedirs(plot_dir, exist_ok=True)
    drawn = {} if drawn is None else drawn
    if not varied:
        path = os.path.join(plot_dir, "goodput.png")
        drawn["goodput.png"] = plot_one_point(frame, path)
        return [path]
    written = []
    for metric, name in (("goodput", "goodput.png"), ("time_to_target_s", "time_to_target.png")):
        path = os.path.join(plot_dir, name)
        result = plot_metric(frame, varied, metric, path)
        if result is not None:
            drawn[name] = result
            written.append(path)
    heatmap = os.path.join(plot_dir, "heatmap.png")
    result = plot_heatmap(frame, varied, heatmap)
    if result is not None:
        drawn["heatmap.png"] = result
        written.append(heatmap)
    return written


def main(argv):
    return plot_script_main(argv, "plot_sweep", __doc__.splitlines()[0], "sweep", make_plots)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
