#!/usr/bin/python3
"""Plot of a goodsim solve: python3 analysis/plot_solve.py SOLVEDIR [--out PLOTDIR]

Reads SOLVEDIR/solve.json and SOLVEDIR/evaluations.csv and writes, into PLOTDIR
(default SOLVEDIR/plots), solve.png: for each requirement a panel of the metric's mean
at every knob value evaluated, with its one-sided confidence bounds as error bars, the
requirement's threshold as a horizontal line, the answer as a vertical line, and each
value marked by its verdict (met, failed, undecided). make_solve_plot() is the entry
point other scripts (the HTML report) reuse. Exit status 2 on a missing or malformed input.
"""
import os
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from goodsim_io import InputError, load_json, plot_script_main, read_csv  # noqa: E402

EVALUATION_COLUMNS = ("value", "seeds", "requirement", "metric", "mean", "lower", "upper",
                      "verdict")
VERDICT_STYLE = {"met": ("C2", "o"), "failed": ("C3", "x"), "undecided": ("C1", "s")}


def load_solve(solve_dir):
    """(definition dict, evaluations frame), with InputError on a bad input."""
    path = os.path.join(solve_dir, "solve.json")
    definition = load_json(path)
    for key in ("knob", "requirements", "answer"):
        if not isinstance(definition, dict) or key not in definition:
            raise InputError(f"{path}: missing key {key}")
    csv = os.path.join(solve_dir, "evaluations.csv")
    frame = read_csv(csv)
    missing = [c for c in EVALUATION_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{csv}: missing columns {', '.join(missing)}")
    return definition, frame


def make_solve_plot(definition, frame, path):
    """Draws solve.png at `path`. Returns what was drawn (for tests):
    {"panels": [requirement texts], "x": {requirement: [values]}, "answer": value or None}."""
    requirements = definition["requirements"]
    knob = definition["knob"]
    answer = definition["answer"]["value"] if definition["answer"] else None
    fig, axes = plt.subplots(1, len(requirements), figsize=(6.5 * len(requirements), 4.5),
                             squeeze=False)
    drawn = {"panels": [], "x": {}, "answer": answer}
    for ax, req in zip(axes[0], requirements):
        rows = frame[frame["requirement"] == req["text"]].sort_values("value")
        ax.plot(rows["value"], rows["mean"], color="C0", alpha=0.5)
        for verdict, (color, marker) in VERDICT_STYLE.items():
            mine = rows[rows["verdict"] == verdict]
            if mine.empty:
                continue
            low = (mine["mean"] - mine["lower"]).fillna(0)
            high = (mine["upper"] - mine["mean"]).fillna(0)
            ax.errorbar(mine["value"], mine["mean"], yerr=[low, high], fmt=marker, color=color,
                        capsize=3, label=verdict)
        ax.axhline(req["threshold"], color="k", linestyle="--", label=f"requirement {req['op']} "
                   f"{req['threshold']:g}")
        if answer is not None:
            ax.axvline(answer, color="C2", linestyle=":", label=f"answer {answer:g}")
        unit = f" ({knob['unit']})" if knob.get("unit") else ""
        ax.set_xlabel(f"{knob['path']}{unit}")
        ax.set_ylabel(f"{req['metric']} (mean, {definition.get('confidence', 0.95):g} bounds)")
        ax.set_title(req["text"])
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        drawn["panels"].append(req["text"])
        drawn["x"][req["text"]] = list(rows["value"])
    fig.suptitle(textwrap.fill(definition.get("verdict", ""), 60 * len(requirements) + 30),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return drawn


def make_plots(solve_dir, plot_dir):
    definition, frame = load_solve(solve_dir)
    os.makedirs(plot_dir, exist_ok=True)
    path = os.path.join(plot_dir, "solve.png")
    make_solve_plot(definition, frame, path)
    return [path]


def main(argv):
    return plot_script_main(argv, "plot_solve.py", "Plot a goodsim solve", "solve", make_plots)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
