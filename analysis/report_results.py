"""The sections of goodsim report for calibrate, diff and solve directories.

Same shape as report_sections.py: {"title", "provenance", "plots", "tables", "notes"}.
"""
import json
import os
import shlex

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from goodsim_io import InputError, read_csv, require_file  # noqa: E402

VERDICT_COLORS = {"better": "#2e7d32", "worse": "#c62828", "changed": "#6a1b9a"}


def load_json(path):
    require_file(path)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not valid JSON: {e}") from e
    if not isinstance(doc, dict):
        raise InputError(f"{path}: expected a JSON object")
    return doc


def need(doc, path, *keys):
    missing = [k for k in keys if k not in doc]
    if missing:
        raise InputError(f"{path}: missing keys {', '.join(missing)}")


# ---- calibrate ----

def plot_knobs(knobs, path):
    """Each fitted knob with its 95% interval, one panel per knob (units differ)."""
    fig, axes = plt.subplots(len(knobs), 1, figsize=(8, 1.3 * len(knobs) + 1), squeeze=False)
    for ax, k in zip(axes[:, 0], knobs):
        color = "C0" if k.get("identified", True) else "#9e9e9e"
        ax.errorbar([k["value"]], [0], xerr=[[k["value"] - k["lo95"]], [k["hi95"] - k["value"]]],
                    fmt="o", color=color, capsize=5)
        if k.get("log_scale") and k["lo95"] > 0 and k["hi95"] > 10 * k["lo95"]:
            ax.set_xscale("log")  # only when the interval spans a decade: readable ticks
        ax.set_yticks([])
        note = "" if k.get("identified", True) else " (not identified: whole range)"
        ax.set_title(f"{k['path']} = {k['value']:.4g}, 95% [{k['lo95']:.4g}, {k['hi95']:.4g}]"
                     f"{note}", fontsize="small")
        ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_residuals(observations, path):
    """Weighted residual (simulated - observed) / sigma of each observation."""
    labels = [f"{os.path.basename(o.get('where') or 'base')} {o['policy']} {o['metric']}"
              for o in observations]
    residuals = [o["residual"] for o in observations]
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(labels) + 1.5))
    ax.barh(range(len(labels)), residuals,
            color=["#c62828" if abs(r) > 2 else "C0" for r in residuals])
    ax.axvline(0, color="black", linewidth=0.8)
    for x in (-2, 2):
        ax.axvline(x, color="#9e9e9e", linestyle="--", linewidth=0.8)
    ax.set_yticks(range(len(labels)), labels, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("(simulated - observed) / sigma  (dashed: +-2)")
    ax.set_title("residuals at the fitted knobs")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def calibrate_sections(directory, plot_dir):
    path = os.path.join(directory, "calibration.json")
    doc = load_json(path)
    need(doc, path, "knobs", "observations")
    plots = []
    if doc["knobs"]:
        plots.append(os.path.join(plot_dir, "knobs.png"))
        plot_knobs(doc["knobs"], plots[-1])
    if doc["observations"]:
        plots.append(os.path.join(plot_dir, "residuals.png"))
        plot_residuals(doc["observations"], plots[-1])
    calibrated = os.path.join(directory, "calibrated.json")
    name = load_json(calibrated).get("name", "?") if os.path.isfile(calibrated) else "?"
    fits = " ".join(f"--fit {k['path']}=..." for k in doc["knobs"])
    tables = [("Knobs", doc["knobs"]),
              ("Observations", [{k: (", ".join(v) if isinstance(v, list) else v)
                                 for k, v in o.items()} for o in doc["observations"]])]
    for s in doc.get("structures", {}).get("ranking", []) if isinstance(
            doc.get("structures"), dict) else []:
        tables.append(("Structure " + str(s.get("name", "")),
                       [{k: v for k, v in s.items() if not isinstance(v, (list, dict))}]))
    return {"title": f"calibration of {name}: chi2 {doc.get('chi2', float('nan')):.4g}, "
                     f"{doc.get('simulations', '?')} simulations",
            "provenance": [("scenario", name), ("goodsim version", doc.get("version", "not recorded in calibration.json")),
                           ("command", f"goodsim calibrate <{name} scenario> {fits} --target ... "
                                       f"--seeds {doc.get('seeds', '?')}")],
            "plots": plots, "tables": tables}


# ---- diff ----

def plot_diff(rows, path):
    """Forest plot: per metric (panel) the change B - A of every group and policy with its
    95% CI; panels share the rows (y) so a policy reads across; colour = verdict."""
    metrics = [m for m in dict.fromkeys(r["metric"] for r in rows)
               if any(r["change"] is not None for r in rows if r["metric"] == m)]
    shown = [m for m in metrics if m in ("goodput", "uptime") or
             any(r["significant"] for r in rows if r["metric"] == m)][:6]
    keys = list(dict.fromkeys(f"{r['group']} / {r['policy']}" for r in rows))
    ncols = min(3, len(shown))
    nrows = (len(shown) + ncols - 1) // ncols
    size = (4.2 * ncols + 2, (0.4 * len(keys) + 1.6) * nrows)
    fig, axes = plt.subplots(nrows, ncols, figsize=size, sharey=True, squeeze=False)
    for ax in axes.flat[len(shown):]:
        ax.set_visible(False)
    for ax, metric in zip(axes.flat, shown):
        for r in (r for r in rows if r["metric"] == metric and r["change"] is not None):
            y = keys.index(f"{r['group']} / {r['policy']}")
            color = VERDICT_COLORS.get(r["verdict"], "#616161")
            err = None
            if r["ci95_lo"] is not None:
                err = [[r["change"] - r["ci95_lo"]], [r["ci95_hi"] - r["change"]]]
            ax.errorbar([r["change"]], [y], xerr=err, fmt="o", color=color, capsize=4)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_title(f"{metric}: B - A", fontsize="small")
        ax.grid(alpha=0.3, axis="x")
    axes[0, 0].set_yticks(range(len(keys)), keys, fontsize="small")
    axes[0, 0].invert_yaxis()
    for ax in axes.flat:
        ax.tick_params(axis="x", labelsize="small")
    fig.suptitle("change with 95% CI (green better, red worse, grey not significant)",
                 fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return shown


def diff_sections(directory, plot_dir):
    path = os.path.join(directory, "diff.json")
    doc = load_json(path)
    need(doc, path, "a", "b", "rows")
    rows = doc["rows"]
    plots = []
    if rows:
        plots.append(os.path.join(plot_dir, "diff.png"))
        plot_diff(rows, plots[-1])
    table = []
    for r in rows:
        ci = "" if r["ci95_lo"] is None else f"[{r['ci95_lo']:+.4g}, {r['ci95_hi']:+.4g}]"
        table.append({"scenario/point": r["group"], "policy": r["policy"],
                      "metric": r["metric"], "A": r["a_mean"], "B": r["b_mean"],
                      "change": r["change"], "95% CI": ci, "n": r["n"],
                      "paired": "yes" if r["paired"] else "no",
                      "verdict": r["verdict"] + (" *" if r["significant"] else ""),
                      "rules broken": ", ".join(r["fired"]),
                      "_class": "fired" if r["fired"] else
                      ("significant" if r["significant"] else "")})
    status = ("no --fail-on rules" if not doc.get("rules") else
              "passed" if doc.get("passed") else f"FAILED ({doc.get('fired')} rows broke a rule)")
    return {"title": f"diff: A = {doc['a']['path']} ({doc['a']['kind']}), B = {doc['b']['path']} "
                     f"({doc['b']['kind']}): {status}",
            "provenance": [("goodsim version", doc.get("version", "?")),
                           ("A", f"{doc['a']['path']} ({doc['a']['kind']}, goodsim "
                                 f"{doc['a'].get('version') or '?'})"),
                           ("B", f"{doc['b']['path']} ({doc['b']['kind']}, goodsim "
                                 f"{doc['b'].get('version') or '?'})"),
                           ("command", doc.get("command", "?"))],
            "notes": [f"Warning: {w}" for w in doc.get("warnings", [])] +
                     ["* significant: beyond max(3 SE, 0.1% of |A|); highlighted rows."],
            "plots": plots, "tables": [("Every metric, A and B", table)]}


# ---- solve ----

def solve_command(doc):
    knob = doc.get("knob") or {}
    parts = ["goodsim solve", shlex.quote(str(doc.get("scenario_file", "?")))]
    if doc.get("policy"):
        parts.append(f"--policy {shlex.quote(str(doc['policy']))}")
    if knob:
        find = f"{knob.get('path')}={knob.get('lo')}..{knob.get('hi')}"
        parts.append(f"--find {shlex.quote(find)}")
    parts += [f"--require {shlex.quote(str(r.get('text')))}" for r in doc.get("requirements", [])]
    if doc.get("objective"):
        parts.append(f"--{doc['objective']}")
    if doc.get("confidence") is not None:
        parts.append(f"--confidence {doc['confidence']}")
    parts += [f"--set {shlex.quote(str(x))}" for x in doc.get("sets", [])]
    return " ".join(parts)


def fallback_solve_plot(definition, frame, path):
    """Per requirement, the metric's mean at each value tried with its bounds and the
    threshold (the same picture as analysis/plot_solve.py, for a tree without it)."""
    requirements = definition.get("requirements") or [
        {"text": t, "threshold": None} for t in dict.fromkeys(frame["requirement"])]
    fig, axes = plt.subplots(1, len(requirements), figsize=(6.5 * len(requirements), 4.5),
                             squeeze=False)
    for ax, req in zip(axes[0], requirements):
        rows = frame[frame["requirement"] == req["text"]].sort_values("value")
        for verdict, color in (("met", "C2"), ("failed", "C3"), ("undecided", "C1")):
            mine = rows[rows["verdict"] == verdict]
            if not mine.empty:
                ax.errorbar(mine["value"], mine["mean"], fmt="o", color=color, capsize=3,
                            yerr=[(mine["mean"] - mine["lower"]).fillna(0),
                                  (mine["upper"] - mine["mean"]).fillna(0)], label=verdict)
        if req.get("threshold") is not None:
            ax.axhline(req["threshold"], color="k", linestyle="--", label="requirement")
        ax.set_xlabel(str((definition.get("knob") or {}).get("path", "value")))
        ax.set_title(req["text"])
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def solve_sections(directory, plot_dir):
    """A solve directory (docs/solve.md): solve.json and evaluations.csv, plotted with
    analysis/plot_solve.py where it exists."""
    path = os.path.join(directory, "solve.json")
    doc = load_json(path)
    csv = os.path.join(directory, "evaluations.csv")
    frame = read_csv(csv)
    missing = [c for c in ("value", "requirement", "mean", "lower", "upper", "verdict")
               if c not in frame.columns]
    if missing:
        raise InputError(f"{csv}: missing columns {', '.join(missing)}")
    plots = [os.path.join(plot_dir, "solve.png")]
    try:
        import plot_solve
        plot_solve.make_solve_plot(doc, frame, plots[0])
    except ImportError:
        fallback_solve_plot(doc, frame, plots[0])
    summary = [{"key": k, "value": json.dumps(v) if isinstance(v, (list, dict)) else v}
               for k, v in doc.items()]
    return {"title": f"solve: {doc.get('verdict', '')}",
            "provenance": [("scenario", doc.get("scenario_file", "?")),
                           ("goodsim version", doc.get("goodsim_version", doc.get(
                               "version", "not recorded in solve.json"))),
                           ("command", solve_command(doc))],
            "plots": plots,
            "tables": [("Evaluations (evaluations.csv)", frame.to_dict("records")),
                       ("solve.json", summary)]}
