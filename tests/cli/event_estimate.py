#!/usr/bin/python3
"""`goodsim validate`'s event estimate against the events each shipped scenario really
executes: for every scenarios/*.json, the estimate it prints ("about N events") must be
within a factor RATIO of the sum of the policies' events that `goodsim run -v` reports.

The estimate counts the events up to the horizon. A scenario with a target (job.target_loss
or job.target_tokens) ends each run when its target is reached, so for it the estimate must
be an upper bound of the run (not below executed / RATIO), and the factor is checked on the
same scenario with an unreachable target, which runs to the horizon.

    event_estimate.py GOODSIM SOURCE_DIR WORKDIR

Prints one line per scenario and exits 1 when any is outside the factor.
"""
import json
import pathlib
import re
import subprocess
import sys

RATIO = 1.5


# Far below any loss a model reaches, and a token count no horizon gets to.
UNREACHABLE = {"target_loss": "job.target_loss=1e-6", "target_tokens": "job.target_tokens=1e30"}


def estimate(goodsim, scenario, sets):
    out = subprocess.run([goodsim, "validate", str(scenario)] + sets, capture_output=True,
                         text=True, check=True).stdout
    return float(re.search(r"about ([0-9.e+]+) events", out).group(1))


def actual(goodsim, scenario, workdir, sets):
    out = subprocess.run([goodsim, "run", str(scenario), "-q", "-v", "--out",
                          str(workdir / scenario.stem)] + sets, capture_output=True, text=True,
                         check=True).stdout
    rows = [line.split() for line in out.splitlines()[1:] if line.strip()]
    return sum(int(row[1]) for row in rows)


def check(goodsim, scenario, workdir, sets, upper_bound_only):
    want, got = estimate(goodsim, scenario, sets), actual(goodsim, scenario, workdir, sets)
    ratio = want / got
    ok = 1 / RATIO <= ratio and (upper_bound_only or ratio <= RATIO)
    label = " ".join([scenario.name] + sets[1::2]) + (" (to its target)" if upper_bound_only
                                                       else "")
    print(f"{'ok  ' if ok else 'FAIL'} {label}: estimate {want:.3g}, executed {got}, "
          f"ratio {ratio:.2f}")
    return ok


def main():
    goodsim, source, workdir = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    failed = 0
    for scenario in sorted((source / "scenarios").glob("*.json")):
        job = json.loads(scenario.read_text()).get("job", {})
        sets = [arg for key in UNREACHABLE if key in job for arg in ("--set", UNREACHABLE[key])]
        if sets:
            failed += not check(goodsim, scenario, workdir, [], upper_bound_only=True)
        failed += not check(goodsim, scenario, workdir, sets, upper_bound_only=False)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
