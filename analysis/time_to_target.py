#!/usr/bin/python3
"""Time to target of each policy relative to its base: python3 analysis/time_to_target.py DIR

DIR is a goodsim run directory (summary.json). Policies are grouped by name: the base of a
policy named "FAMILY-SUFFIX" is the policy named "FAMILY-base" (scenarios/paper-scavenging.json:
"dp-plus50" is compared with "dp-base"). For every policy the table gives its time to target in
hours and, when it and its base reached the target, the ratio to the base's time (below 1:
faster) and the speed-up (base time / time). A policy or base that never reached the target
shows "-". Exit status 2 on a missing or malformed input.
"""
import argparse
import sys

from goodsim_io import InputError, load_summary


def family(name):
    """The part of a policy name before its last '-' (the name itself without one)."""
    return name.rsplit("-", 1)[0]


def relative_times(summary):
    """Rows (name, hours, ratio, speedup) in summary order; None where undefined."""
    times = {p["name"]: p.get("time_to_target_s") for p in summary["policies"]}
    rows = []
    for p in summary["policies"]:
        name = p["name"]
        t = times[name]
        base = times.get(family(name) + "-base")
        ratio = t / base if t is not None and base else None
        rows.append((name, None if t is None else t / 3600.0, ratio,
                     None if ratio is None or ratio == 0 else 1.0 / ratio))
    return rows


def fmt(value, digits):
    return "-" if value is None else f"{value:.{digits}f}"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="goodsim run directory (summary.json)")
    args = parser.parse_args(argv)
    try:
        rows = relative_times(load_summary(args.dir))
    except InputError as e:
        print(f"time_to_target.py: {e}", file=sys.stderr)
        return 2
    print(f"{'policy':<20} {'time to target (h)':>18} {'vs base':>8} {'speed-up':>9}")
    for name, hours, ratio, speedup in rows:
        print(f"{name:<20} {fmt(hours, 2):>18} {fmt(ratio, 3):>8} {fmt(speedup, 3):>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
