#!/usr/bin/python3
"""One self-contained HTML report: python3 analysis/report.py DIR [--out FILE]

DIR is any goodsim output directory: a run (summary.json, timeseries.csv), a
`run --seeds` directory (replications.csv, seed-*/), a sweep (summary.csv), a
calibration (calibration.json), a diff (`goodsim diff --out`: diff.json) or a solve
(solve.json, evaluations.csv). The page shows what produced it (scenario, goodsim
version, command), then the plots (inline PNG), then the tables, so the single file can
be shared. `goodsim report DIR` runs this script. Default FILE: DIR/report.html.
Exit status 2 on a missing or malformed input, or when matplotlib or pandas is missing.
"""
import argparse
import base64
import html
import os
import shlex
import sys
import tempfile

try:
    import pandas as pd  # noqa: F401  (the sections need it; fail here, clearly)
    import matplotlib  # noqa: F401
except ImportError as missing:
    print(f"report: error: {missing}: the report needs Debian's python3-matplotlib and "
          "python3-pandas (apt-get install python3-matplotlib python3-pandas, or "
          "scripts/install-deps.sh)", file=sys.stderr)
    sys.exit(2)

import report_results  # noqa: E402
import report_sections  # noqa: E402
from goodsim_io import InputError, exit_status  # noqa: E402

STYLE = ("body{font-family:sans-serif;margin:2em;max-width:1200px}"
         "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
         "padding:4px 8px;text-align:right;white-space:nowrap}th{background:#f0f0f0}img{max-width:100%}"
         "dl.prov{display:grid;grid-template-columns:max-content auto;gap:2px 1em}"
         "dl.prov dt{font-weight:bold}dl.prov dd{margin:0;font-family:monospace}"
         "tr.significant td{background:#fff3cd}tr.fired td{background:#f8d7da}"
         ".warning{color:#8a4b00}")

# (kind, the file whose presence says so, section builder), first match wins.
KINDS = [
    ("solve", "solve.json", report_results.solve_sections),
    ("diff", "diff.json", report_results.diff_sections),
    ("calibrate", "calibration.json", report_results.calibrate_sections),
    ("sweep", "summary.csv", report_sections.sweep_sections),
    ("run", "summary.json", report_sections.run_sections),
    ("runs", "replications.csv", report_sections.runs_sections),
]


def detect(directory):
    for kind, marker, builder in KINDS:
        if os.path.isfile(os.path.join(directory, marker)):
            return kind, builder
    raise InputError(f"{directory}: neither a run (summary.json), run --seeds "
                     "(replications.csv), sweep (summary.csv), calibrate (calibration.json), "
                     "diff (diff.json) nor solve (solve.json) directory")


def image_tag(path):
    with open(path, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    name = html.escape(os.path.basename(path))
    return (f'<figure><img alt="{name}" src="data:image/png;base64,{data}">'
            f"<figcaption>{name}</figcaption></figure>")


def cell(value):
    if isinstance(value, float):
        return "" if value != value else f"{value:.6g}"
    return "" if value is None else str(value)


def html_table(rows):
    """rows: a list of dicts (one per row); a row may carry "_class" for its <tr>."""
    if not rows:
        return "<p>(no rows)</p>"
    keys = [k for k in rows[0] if not k.startswith("_")]
    head = "".join(f"<th>{html.escape(str(k))}</th>" for k in keys)
    body = "".join(
        f"<tr class='{html.escape(r.get('_class', ''))}'>"
        + "".join(f"<td>{html.escape(cell(r.get(k)))}</td>" for k in keys) + "</tr>"
        for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def provenance_list(items):
    return "<dl class='prov'>" + "".join(
        f"<dt>{html.escape(k)}</dt><dd>{html.escape(str(v))}</dd>" for k, v in items) + "</dl>"


def build_report(directory, report_command):
    kind, builder = detect(directory)
    with tempfile.TemporaryDirectory() as plot_dir:
        section = builder(directory, plot_dir)
        figures = "".join(image_tag(p) for p in section["plots"])
    provenance = [("kind", kind), ("directory", os.path.abspath(directory)),
                  *section["provenance"], ("report command", report_command),
                  ("drawn by", os.path.abspath(__file__))]
    notes = "".join(f"<p class='warning'>{html.escape(n)}</p>" for n in section.get("notes", []))
    tables = "".join(f"<h2>{html.escape(name)}</h2>{html_table(rows)}"
                     for name, rows in section["tables"])
    title = html.escape(section["title"])
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>goodsim report: {title}"
            f"</title><style>{STYLE}</style></head><body><h1>goodsim report</h1>"
            f"<p>{title}</p>{provenance_list(provenance)}{notes}<h2>Plots</h2>{figures}"
            f"{tables}</body></html>\n")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="a goodsim output directory")
    parser.add_argument("--out", help="the HTML file to write (default DIR/report.html)")
    args = parser.parse_args(argv)
    out = args.out or os.path.join(args.dir, "report.html")
    command = "goodsim report " + " ".join(shlex.quote(a) for a in argv)
    return exit_status("report: error: ", lambda: write_report(args.dir, out, command))


def write_report(directory, out, command):
    """Builds the report of `directory` and writes it to `out`: the exit status."""
    page = build_report(directory, command)
    tmp = out + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(page)
        os.replace(tmp, out)
    except OSError as e:
        print(f"report: error: {out}: cannot write: {e.strerror}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
