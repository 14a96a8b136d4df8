#!/usr/bin/python3
"""Time to target of each policy relative to its base: python3 analysis/time_to_target.py DIR

DIR is a goodsim run directory: either one run (DIR/summary.json) or the replications of
`goodsim run --seeds N` (DIR/seed-<seed>/summary.json; the top-level replications.csv does
not carry time_to_target_s, so each seed's summary is read). Policies are grouped by name:
the base of a policy named "FAMILY-SUFFIX" is the policy named "FAMILY-base"
(scenarios/paper-scavenging.json: "dp-plus50" is compared with "dp-base").

The ratio time / base time (below 1: faster) is taken seed by seed - both policies of a seed
faced the same failure history - and averaged over the seeds, with the 95% confidence
interval mean +- t(0.975, n - 1) sd / sqrt(n) (none with one seed). A seed where the policy
or its base never reached the target has no ratio: the row then gives the count of such
seeds ("missed") and no mean, since leaving them out would bias the mean downwards.

Prints the per-policy table, then, for suffixes "plusNN" (NN% extra compute), the relative
wall-clock table: one row per level, one column per family. Exit status 2 on a missing or
malformed input.
"""
import argparse
import glob
import math
import os
import re
import statistics
import sys

from goodsim_io import InputError, exit_status, load_summary

# t(0.975, df) for df = 1..30; beyond, a Cornish-Fisher expansion around the normal quantile.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df):
    """The 0.975 quantile of Student's t with df degrees of freedom (df >= 1)."""
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2))


def family(name):
    """The part of a policy name before its last '-' (the name itself without one)."""
    return name.rsplit("-", 1)[0]


def load_runs(run_dir):
    """The summaries of DIR: its seed-*/summary.json in seed order, else DIR/summary.json."""
    seeds = glob.glob(os.path.join(run_dir, "seed-*", "summary.json"))
    if not seeds:
        return [load_summary(run_dir)]

    def seed_of(path):
        match = re.fullmatch(r"seed-(\d+)", os.path.basename(os.path.dirname(path)))
        return int(match.group(1)) if match else -1
    return [load_summary(os.path.dirname(p)) for p in sorted(seeds, key=seed_of)]


def policy_names(runs):
    """Policy names in the first run's order; every run must have the same ones."""
    names = [p["name"] for p in runs[0]["policies"]]
    for run in runs[1:]:
        if [p["name"] for p in run["policies"]] != names:
            raise InputError(f"seed {run.get('seed')}: its policies differ from the first seed's")
    return names


def mean_ci(values):
    """(mean, half-width of the 95% CI or None with fewer than two values)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None
    return mean, t975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))


def relative_times(runs):
    """Per policy in summary order: {name, n, missed, hours, hours_ci, ratio, ratio_ci}."""
    names = policy_names(runs)
    times = [{p["name"]: p.get("time_to_target_s") for p in run["policies"]} for run in runs]
    rows = []
    for name in names:
        base = family(name) + "-base"
        own = [t[name] for t in times]
        ratios = [t[name] / t[base] if t[name] is not None and t.get(base) else None
                  for t in times]
        row = {"name": name, "n": len(runs), "missed": sum(r is None for r in ratios),
               "hours": None, "hours_ci": None, "ratio": None, "ratio_ci": None}
        if all(v is not None for v in own):
            row["hours"], row["hours_ci"] = mean_ci([v / 3600.0 for v in own])
        if row["missed"] == 0 and base in times[0]:
            row["ratio"], row["ratio_ci"] = mean_ci(ratios)
        rows.append(row)
    return rows


def fmt(value, digits, ci=None):
    if value is None:
        return "-"
    text = f"{value:.{digits}f}"
    return text if ci is None else f"{text} +- {ci:.{digits}f}"


def level_table(rows):
    """{percent: {family: row}} for the policies named FAMILY-plusNN, and the families."""
    levels, families = {}, []
    for row in rows:
        match = re.fullmatch(r"(.+)-plus(\d+)", row["name"])
        if not match:
            continue
        fam, percent = match.group(1), int(match.group(2))
        if fam not in families:
            families.append(fam)
        levels.setdefault(percent, {})[fam] = row
    return levels, families


def print_tables(rows):
    n = rows[0]["n"]
    print(f"time to target over {n} seed{'s' if n != 1 else ''} (mean +- 95% CI half-width)")
    print(f"{'policy':<20} {'hours':>16} {'vs base':>16} {'missed':>7}")
    for r in rows:
        print(f"{r['name']:<20} {fmt(r['hours'], 2, r['hours_ci']):>16} "
              f"{fmt(r['ratio'], 3, r['ratio_ci']):>16} {r['missed']:>7}")
    levels, families = level_table(rows)
    if not levels:
        return
    print()
    print("relative wall-clock to the target (time / base time; below 1: faster)")
    print(f"{'extra compute':<14}" + "".join(f" {f:>18}" for f in families))
    for percent in sorted(levels):
        cells = []
        for f in families:
            r = levels[percent].get(f)
            cells.append("-" if r is None else
                         fmt(r["ratio"], 3, r["ratio_ci"]) if r["ratio"] is not None else
                         f"missed {r['missed']}/{r['n']}")
        print(f"{'+' + str(percent) + '%':<14}" + "".join(f" {c:>18}" for c in cells))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="goodsim run directory (summary.json or seed-*/summary.json)")
    args = parser.parse_args(argv)

    def report():
        print_tables(relative_times(load_runs(args.dir)))
        return 0
    return exit_status("time_to_target.py: ", report)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
