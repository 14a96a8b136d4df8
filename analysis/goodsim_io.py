"""Loading goodsim outputs for the analysis scripts, with clear errors.

Every loader raises InputError with a message naming the file and what was
wrong; the scripts print it and exit with status 2.
"""
import argparse
import json
import os
import sys

import pandas as pd

SUMMARY_POLICY_KEYS = ("name", "type", "goodput", "uptime", "downtime_s", "badput")
TIMESERIES_COLUMNS = ("policy", "time_s", "healthy_chips", "active_chips", "training", "steps",
                      "tokens", "goodput", "downtime_s", "loss")


class InputError(Exception):
    """A missing or malformed goodsim output."""


def require_file(path):
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file (is this a goodsim output directory?)")
    return path


def load_summary(run_dir):
    path = require_file(os.path.join(run_dir, "summary.json"))
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON: {e}") from e
    policies = summary.get("policies") if isinstance(summary, dict) else None
    if not isinstance(policies, list) or not policies:
        raise InputError(f"{path}: expected an object with a non-empty \"policies\" list")
    for i, p in enumerate(policies):
        missing = [k for k in SUMMARY_POLICY_KEYS if k not in p]
        if missing:
            raise InputError(f"{path}: policies.{i}: missing keys {', '.join(missing)}")
    return summary


def load_timeseries(run_dir):
    path = require_file(os.path.join(run_dir, "timeseries.csv"))
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not a readable CSV file: {e}") from e
    missing = [c for c in TIMESERIES_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: missing columns {', '.join(missing)}")
    if frame.empty:
        raise InputError(f"{path}: no rows")
    for column in ("time_s", "goodput", "healthy_chips"):
        if not pd.api.types.is_numeric_dtype(frame[column]):
            raise InputError(f"{path}: column {column} is not numeric")
    return frame


def badput_fractions(summary):
    """Per policy, the share of chips x run time in each category (productive first)."""
    rows = {}
    for p in summary["policies"]:
        total = p["goodput"] + sum(p["badput"].values()) / (summary["chips"] * summary["horizon_s"])
        shares = {"productive": p["goodput"]}
        for category, chip_seconds in p["badput"].items():
            shares[category] = chip_seconds / (summary["chips"] * summary["horizon_s"])
        # A run that ended at its target covers less than the horizon: rescale.
        rows[p["name"]] = {k: v / total for k, v in shares.items()} if total > 0 else shares
    return pd.DataFrame(rows).T


SWEEP_SUMMARY_COLUMNS = ("point", "policy", "type", "metric", "n", "mean", "sd", "ci95",
                         "ci95_lo", "ci95_hi")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "m": 60.0,
                   "h": 3600.0, "d": 86400.0, "w": 604800.0, "y": 31536000.0}


def load_sweep_summary(sweep_dir):
    """summary.csv of a sweep, and the names of its varied columns."""
    path = require_file(os.path.join(sweep_dir, "summary.csv"))
    try:
        frame = pd.read_csv(path, dtype={"policy": str, "metric": str})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not a readable CSV file: {e}") from e
    missing = [c for c in SWEEP_SUMMARY_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: missing columns {', '.join(missing)} "
                         "(is this a goodsim sweep directory?)")
    columns = list(frame.columns)
    varied = columns[columns.index("point") + 1:columns.index("policy")]
    return frame, varied


def numeric_value(text):
    """A swept value as a number (durations in seconds), or None if it is not one."""
    text = str(text).strip()
    try:
        return float(text)
    except ValueError:
        pass
    for unit in sorted(_DURATION_UNITS, key=len, reverse=True):
        if text.endswith(unit):
            try:
                return float(text[: -len(unit)]) * _DURATION_UNITS[unit]
            except ValueError:
                return None
    return None


def plot_script_main(argv, name, description, what, make_plots):
    """The command line shared by the plot scripts: DIR [--out PLOTDIR]."""
    parser = argparse.ArgumentParser(prog=name, description=description)
    parser.add_argument("dir", help=f"a goodsim {what} output directory")
    parser.add_argument("--out", help="where to write the plots (default DIR/plots)")
    args = parser.parse_args(argv)
    try:
        written = make_plots(args.dir, args.out or os.path.join(args.dir, "plots"))
    except InputError as e:
        print(f"{name}: error: {e}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0
