#!/usr/bin/python3
"""One self-contained HTML report: python3 analysis/report.py DIR [--out FILE]

DIR is a goodsim run directory (summary.json, timeseries.csv) or a sweep directory
(summary.csv); the report embeds the plots (as inline PNG) and the tables (for a sweep
also the paired differences of paired.csv, swept values in numeric order), so the single
file can be shared. Default FILE: DIR/report.html. Exit status 2 on a missing or
malformed input.
"""
import argparse
import base64
import html
import os
import sys
import tempfile

import plot_run
import plot_sweep
import pandas as pd

from goodsim_io import (InputError, badput_fractions, load_summary, load_sweep_paired,
                        load_sweep_summary, sweep_axis)

STYLE = ("body{font-family:sans-serif;margin:2em;max-width:1200px}"
         "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
         "padding:4px 8px;text-align:right}th{background:#f0f0f0}img{max-width:100%}")


def image_tag(path):
    with open(path, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    name = html.escape(os.path.basename(path))
    return f'<figure><img alt="{name}" src="data:image/png;base64,{data}"></figure>'


def run_sections(run_dir, plot_dir):
    summary = load_summary(run_dir)
    table = [{"policy": p["name"], "type": p["type"], "goodput": f"{p['goodput']:.4f}",
              "uptime": f"{p['uptime']:.4f}", "downtime (h)": f"{p['downtime_s'] / 3600:.2f}",
              "outages": p.get("outages", ""), "failures": p.get("failures", ""),
              "tokens": f"{p.get('tokens', 0):.4g}",
              "final loss": "" if p.get("final_loss") is None else f"{p['final_loss']:.4f}",
              "time to target (h)": "" if p.get("time_to_target_s") is None
              else f"{p['time_to_target_s'] / 3600:.2f}"} for p in summary["policies"]]
    shares = badput_fractions(summary).round(4).reset_index().rename(columns={"index": "policy"})
    title = (f"run: {summary.get('scenario', '?')} (seed {summary.get('seed', '?')}, "
             f"{summary.get('chips', '?')} chips, {summary.get('horizon_s', 0) / 86400:.3g} days)")
    return title, [("Policies", table), ("Chip-time shares", shares.to_dict("records"))], \
        plot_run.make_plots(run_dir, plot_dir)


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
    return title, tables, plot_sweep.make_plots(sweep_dir, plot_dir)


def html_table(rows):
    if not rows:
        return "<p>(no rows)</p>"
    head = "".join(f"<th>{html.escape(str(k))}</th>" for k in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in r.values())
                   + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def build_report(directory):
    with tempfile.TemporaryDirectory() as plot_dir:
        if os.path.isfile(os.path.join(directory, "summary.json")):
            title, tables, plots = run_sections(directory, plot_dir)
        elif os.path.isfile(os.path.join(directory, "summary.csv")):
            title, tables, plots = sweep_sections(directory, plot_dir)
        else:
            raise InputError(f"{directory}: neither a run (summary.json) nor a sweep "
                             "(summary.csv) directory")
        figures = "".join(image_tag(p) for p in plots)
    sections = "".join(f"<h2>{html.escape(name)}</h2>{html_table(rows)}" for name, rows in tables)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>goodsim report</title>"
            f"<style>{STYLE}</style></head><body><h1>goodsim report</h1>"
            f"<p>{html.escape(title)}</p>{sections}<h2>Plots</h2>{figures}</body></html>\n")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="a goodsim run or sweep output directory")
    parser.add_argument("--out", help="the HTML file to write (default DIR/report.html)")
    args = parser.parse_args(argv)
    out = args.out or os.path.join(args.dir, "report.html")
    try:
        page = build_report(args.dir)
    except InputError as e:
        print(f"report: error: {e}", file=sys.stderr)
        return 2
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, out)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
