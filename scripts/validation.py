#!/usr/bin/env python3
"""goodsim's validation suite: every published result goodsim is checked against.

Each scenarios/validation/NAME.expected.json lists checks of NAME.json (or another
scenario of the folder): what to run, the published value, the tolerance and, for a
known disagreement, its reason. This script runs them through the goodsim binary
(sweep, calibrate), prints the table - case, published, goodsim, 95% CI, tolerance,
verdict - and, unless --short, writes docs/validation.md from it.

  validation.py GOODSIM [--short] [--jobs J] [--only SUBSTRING] [--doc PATH] [--work DIR]

--short (CI): each check's `short` seeds instead of `seeds` (checks with "short": false
are left out, e.g. those about policies whose semantics are still moving), tolerances
widened by sqrt(seeds / short seeds). Exit 1 when a check falls outside its tolerance
(known disagreements never fail), 2 on bad input or a failed goodsim run.
"""
import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SUITE = os.path.join(ROOT, "scenarios", "validation")
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}


def t975(df):
    """Student t 0.975 quantile (table, the next smaller df listed: conservative)."""
    if df < 1:
        return math.nan
    return T975[max(k for k in T975 if k <= df)] if df < 30 else 1.96 + 2.4 / df


class Runner:
    def __init__(self, goodsim, jobs, work, short):
        self.goodsim, self.jobs, self.work, self.short = goodsim, jobs, work, short
        self.calibrated = {}  # expectation stem -> calibrated scenario path
        self.sweeps = {}      # arguments -> rows (sweep) or output dir (calibrate)
        self.count = 0

    def call(self, args):
        self.count += 1
        r = subprocess.run([self.goodsim] + args, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            raise SystemExit(f"validation: goodsim {' '.join(args[:2])} failed ({r.returncode})")
        return r.stdout

    def out_dir(self):
        d = os.path.join(self.work, f"run{self.count}")
        shutil.rmtree(d, ignore_errors=True)
        return d

    def sweep(self, scenario, sets, seeds, vary=None):
        args = ["sweep", scenario, "--seeds", str(seeds), "--jobs", str(self.jobs), "-q"]
        for s in sets:
            args += ["--set", s]
        if vary:
            args += ["--vary", vary]
        key = tuple(args)
        if key not in self.sweeps:
            out = self.out_dir()
            self.call(args + ["--out", out])
            with open(os.path.join(out, "results.csv"), newline="") as f:
                self.sweeps[key] = list(csv.DictReader(f))
        return self.sweeps[key]


def mean_ci(values):
    n = len(values)
    m = sum(values) / n
    if n < 2:
        return m, math.nan
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    return m, t975(n - 1) * sd / math.sqrt(n)


def transformed(check, rows, horizon_s):
    """The per-seed values of the check's metric (optionally transformed)."""
    values = [float(r[check["metric"]]) for r in rows if r["policy"] == check["policy"]]
    how = check.get("transform")
    if how == "hours_between":  # horizon / count: mean time between events, hours
        return [horizon_s / 3600 / v for v in values]
    if how is not None:
        raise SystemExit(f"validation: unknown transform {how!r}")
    return values


def horizon_seconds(scenario, sets):
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "y": 365 * 86400}
    doc = json.load(open(scenario))
    text = next((s.split("=", 1)[1] for s in sets if s.startswith("horizon=")), doc["horizon"])
    text = text.strip('"')
    return float(text[:-1]) * units[text[-1]]


def peak(xs, ys):
    """Argmax of a parabola in log x through the best grid point and its neighbours."""
    i = max(range(len(ys)), key=lambda k: ys[k])
    i = min(max(i, 1), len(ys) - 2)
    (a, b, c), (fa, fb, fc) = [math.log(x) for x in xs[i - 1:i + 2]], ys[i - 1:i + 2]
    den = (b - a) * (fb - fc) - (b - c) * (fb - fa)
    if den == 0:
        return xs[i]
    u = b - 0.5 * ((b - a) ** 2 * (fb - fc) - (b - c) ** 2 * (fb - fa)) / den
    return math.exp(min(max(u, a), c))


def run_argmax(runner, check, scenario, sets, seeds):
    """Interval maximising the mean metric over a grid; CI by leaving one seed out."""
    path, values = check["vary"]["path"], check["vary"]["values"]
    rows = runner.sweep(scenario, sets, seeds, f"{path}=" + ",".join(f"{v}s" for v in values))
    rows = [r for r in rows if r["policy"] == check["policy"]]
    by_seed = {}
    for r in rows:
        by_seed.setdefault(r["seed"], {})[int(r["point"])] = float(r[check["metric"]])
    seeds_seen = sorted(by_seed)

    def argmax(keep):
        curve = [sum(by_seed[s][p] for s in keep) / len(keep) for p in range(len(values))]
        return peak(values, curve)

    best = argmax(seeds_seen)
    n = len(seeds_seen)
    jack = [argmax([s for s in seeds_seen if s != out]) for out in seeds_seen]
    jm = sum(jack) / n
    se = math.sqrt((n - 1) / n * sum((j - jm) ** 2 for j in jack)) if n > 1 else math.nan
    return best / check.get("scale", 1), 1.96 * se / check.get("scale", 1)


def run_mean(runner, check, scenario, sets, seeds):
    rows = runner.sweep(scenario, sets, seeds)
    values = transformed(check, rows, horizon_seconds(scenario, sets))
    m, ci = mean_ci(values)
    scale = check.get("scale", 1)
    return m / scale, ci / scale


def run_calibrate(runner, check, scenario, sets, seeds, stem):
    """One observation of a `goodsim calibrate` run (checks of one run share it)."""
    args = ["calibrate", scenario, "--target", os.path.join(SUITE, check["target"]), "--seeds",
            str(seeds), "--jobs", str(runner.jobs), "-q"]
    for f in check["fit"]:
        args += ["--fit", f]
    for s in sets:
        args += ["--set", s]
    key = tuple(args)
    if key not in runner.sweeps:
        out = runner.out_dir()
        runner.call(args + ["--out", out])
        runner.sweeps[key] = out
    out = runner.sweeps[key]
    runner.calibrated[stem] = os.path.join(out, "calibrated.json")
    report = json.load(open(os.path.join(out, "calibration.json")))
    o = report["observations"][check["observation"]]
    knobs = ", ".join(f"{k['path']} = {k['value']:.4g} [{k['lo95']:.4g}, {k['hi95']:.4g}]"
                      for k in report["knobs"])
    note = f"calibrated ({report['simulations']} simulations): {knobs}"
    if note not in check.setdefault("notes", []):
        check["notes"].append(note)
    return o["simulated"], 1.96 * o["simulated_se"]


def evaluate(runner, check, stem):
    short = check.get("short", {"seeds": check.get("seeds", 1)})
    seeds = short["seeds"] if runner.short else check.get("seeds", 1)
    scenario = check.get("scenario", stem + ".json")
    scenario = runner.calibrated[stem] if scenario == "@calibrated" else os.path.join(SUITE,
                                                                                     scenario)
    sets = check.get("set", [])
    kind = check["kind"]
    if kind == "mean":
        got, ci = run_mean(runner, check, scenario, sets, seeds)
    elif kind == "argmax":
        got, ci = run_argmax(runner, check, scenario, sets, seeds)
    elif kind == "calibrate":
        got, ci = run_calibrate(runner, check, scenario, sets, seeds, stem)
    else:
        raise SystemExit(f"validation: {stem}: unknown kind {kind!r}")
    widen = math.sqrt(check.get("seeds", 1) / seeds)
    tol = tolerance(check) * widen
    ok = abs(got - check["published"]) <= tol
    if "disagreement" in check:
        verdict = "known disagreement" if not ok else "agrees (listed as a disagreement)"
    else:
        verdict = "pass" if ok else "FAIL"
    return {"case": check["case"], "published": check["published"], "goodsim": got, "ci": ci,
            "tol": tol, "relative": "relative" in check["tolerance"], "verdict": verdict,
            "failed": verdict == "FAIL", "unit": check.get("unit", ""), "check": check}


def tolerance(check):
    t = check["tolerance"]
    if "relative" in t:
        return t["relative"] * abs(check["published"])
    return t["absolute"]


def fmt(v, unit=""):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.4g}{(' ' + unit) if unit else ''}"


def table(results):
    head = ["case", "published", "goodsim", "95% CI", "tolerance", "verdict"]
    rows = [[r["case"], fmt(r["published"], r["unit"]), fmt(r["goodsim"], r["unit"]),
             "± " + fmt(r["ci"]), "± " + fmt(r["tol"]), r["verdict"]] for r in results]
    return head, rows


def print_table(results):
    head, rows = table(results)
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    for line in [head] + rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(line, widths))))


def write_doc(results, suites, path, runner):
    head, rows = table(results)
    lines = [open(os.path.join(SUITE, "README.md")).read().rstrip(), "",
             "## Results", "",
             f"Written by `make validation` ({runner.count} goodsim commands; seeds per check as "
             "listed in each expectation file).", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", "## Cases", ""]
    for stem, exp in suites:
        lines += [f"### `{stem}`", "", f"Source: {exp['source']}", "", exp["procedure"], ""]
        for c in exp["checks"]:
            for note in [c.get("disagreement")] + c.get("notes", []):
                if note:
                    lines.append(f"- {c['case']}: {note}")
        lines.append("")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("goodsim")
    ap.add_argument("--short", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", default="")
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "validation.md"))
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="goodsim-validation-")
    runner = Runner(os.path.abspath(a.goodsim), a.jobs, work, a.short)
    suites, results = [], []
    for name in sorted(os.listdir(SUITE)):
        if not name.endswith(".expected.json") or a.only not in name:
            continue
        stem = name[: -len(".expected.json")]
        exp = json.load(open(os.path.join(SUITE, name)))
        suites.append((stem, exp))
        for check in exp["checks"]:
            if a.short and check.get("short") is False:
                continue
            results.append(evaluate(runner, check, stem))
            r = results[-1]
            print(f"validation: {r['case']}: {r['verdict']}", file=sys.stderr, flush=True)
    print_table(results)
    if not a.short and not a.only:
        write_doc(results, suites, a.doc, runner)
        print(f"wrote {a.doc}")
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if any(r["failed"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
