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


def read_csv(path, **kwargs):
    """pandas.read_csv of an existing file, with InputError on a missing or malformed one."""
    require_file(path)
    try:
        return pd.read_csv(path, **kwargs)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not a readable CSV file: {e}") from e


def load_json(path):
    """The JSON document of an existing file, with InputError on a missing or malformed one."""
    require_file(path)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not valid JSON: {e}") from e


def load_summary(run_dir):
    path = os.path.join(run_dir, "summary.json")
    summary = load_json(path)
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


def load_sweep_paired(sweep_dir):
    """paired.csv of a sweep (differences to the first policy), or None when absent (a
    sweep of one policy writes no pairs)."""
    path = os.path.join(sweep_dir, "paired.csv")
    if not os.path.isfile(path):
        return None
    try:
        frame = pd.read_csv(path, dtype={"policy": str, "baseline": str, "metric": str})
    except pd.errors.EmptyDataError:
        return None
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not a readable CSV file: {e}") from e
    missing = [c for c in ("policy", "baseline", "metric", "mean_diff", "ci95_lo", "ci95_hi")
               if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: missing columns {', '.join(missing)}")
    return frame


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


def _value_and_unit(text):
    """A swept value as (number, unit): ("2.5y") -> (2.5, "y"), ("64") -> (64.0, "")."""
    text = str(text).strip()
    try:
        return float(text), ""
    except ValueError:
        pass
    for unit in sorted(_DURATION_UNITS, key=len, reverse=True):
        if text.endswith(unit):
            try:
                return float(text[: -len(unit)]), unit
            except ValueError:
                return None
    return None


def is_log_spaced(numbers):
    """Three or more positive values with a constant ratio (a log: grid)."""
    xs = sorted(set(numbers))
    if len(xs) < 3 or xs[0] <= 0:
        return False
    ratios = [b / a for a, b in zip(xs, xs[1:])]
    return ratios[0] > 1.01 and max(ratios) / min(ratios) < 1.01


def sweep_axis(name, values):
    """How to show the swept values `values` of parameter `name` on an axis.

    Durations are kept in the unit the sweep gave them ("1y".."8y" plots as 1..8 with the
    label "name (y)"; mixed units are converted to the most common one); numbers as they
    are; anything else as categories. Returns a dict: "label", "scale" ("log" for a
    log-spaced grid, else "linear"), "order" (the distinct values, in numeric order) and
    "position" (value text -> x).
    """
    distinct = list(dict.fromkeys(str(v) for v in values))
    parsed = [_value_and_unit(v) for v in distinct]
    if any(p is None for p in parsed):
        order = sorted(distinct)
        return {"label": name, "scale": "linear", "order": order,
                "position": {v: i for i, v in enumerate(order)}, "categorical": True}
    units = [u for _, u in parsed]
    unit = max(set(units), key=units.count)
    if unit and all(u for u in units):
        numbers = [n * _DURATION_UNITS[u] / _DURATION_UNITS[unit] for n, u in parsed]
        label = f"{name} ({unit})"
    else:
        numbers = [numeric_value(v) for v in distinct]
        label = name
    position = dict(zip(distinct, numbers))
    order = sorted(distinct, key=position.get)
    scale = "log" if is_log_spaced(numbers) else "linear"
    return {"label": label, "scale": scale, "order": order, "position": position,
            "categorical": False}


def load_chaos_actions(run_dir):
    """(time_s, action, "begin"|"end") of the chaos timeline, from events.jsonl when the run
    logged events (--events); [] otherwise. Every policy faces the same timeline: the first
    policy's lines are used."""
    path = os.path.join(run_dir, "events.jsonl")
    if not os.path.isfile(path):
        return []
    actions, first_policy = [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            try:
                event = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{path}: line {number}: not valid JSON: {e}") from e
            if event.get("event") not in ("chaos_begin", "chaos_end"):
                continue
            first_policy = first_policy or event.get("policy")
            if event.get("policy") == first_policy:
                actions.append((float(event["t"]), str(event.get("action", "?")),
                                "begin" if event["event"] == "chaos_begin" else "end"))
    return actions


def exit_status(prefix, body):
    """Runs body(), a script's work, and returns its exit status: body's result, or 2
    after printing an InputError on stderr as prefix + message."""
    try:
        return body()
    except InputError as e:
        print(f"{prefix}{e}", file=sys.stderr)
        return 2


def plot_script_main(argv, name, description, what, make_plots):
    """The command line shared by the plot scripts: DIR [--out PLOTDIR]."""
    parser = argparse.ArgumentParser(prog=name, description=description)
    parser.add_argument("dir", help=f"a goodsim {what} output directory")
    parser.add_argument("--out", help="where to write the plots (default DIR/plots)")
    args = parser.parse_args(argv)

    def plot():
        written = make_plots(args.dir, args.out or os.path.join(args.dir, "plots"))
        for path in written:
            print(path)
        return 0
    return exit_status(f"{name}: error: ", plot)
