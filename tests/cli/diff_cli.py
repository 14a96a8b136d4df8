#!/usr/bin/python3
"""goodsim diff end to end: a planted one-point goodput drop is found and a reseeded
identical run is not; every --format; --fail-on; the inputs it reads (run, run --seeds,
sweep, baseline); and bad input (exit 2).

Usage: diff_cli.py GOODSIM_BINARY   (run by ctest)
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

GOODSIM = None


def run(*args):
    return subprocess.run([GOODSIM, *args], capture_output=True, text=True, check=False)


def rows_of(result):
    doc = json.loads(result.stdout)
    return {(r["policy"], r["metric"]): r for r in doc["rows"]}, doc


class DiffTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.a, cls.b, cls.c = (os.path.join(cls.tmp.name, n) for n in ("a", "b", "c"))
        seeds = ["--seeds", "4", "--jobs", "2", "-q"]
        for out, extra in ((cls.a, []), (cls.c, ["--seed", "11"]),
                           # the planted change: dp-30m restarts take 12m instead of 10m, which
                           # costs it about one point of goodput (and nothing to the others)
                           (cls.b, ["--set", "policies.0.restart_time=12m"])):
            result = run("run", *seeds, "--out", out, *extra)
            assert result.returncode == 0, result.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_planted_drop_is_found_paired(self):
        result = run("diff", self.a, self.b, "--format", "json")
        self.assertEqual(result.returncode, 0, result.stderr)  # no rules: exit 0
        rows, doc = rows_of(result)
        goodput = rows[("dp-30m", "goodput")]
        self.assertTrue(goodput["paired"])
        self.assertEqual(goodput["verdict"], "worse")
        self.assertLess(goodput["change"], -0.005)
        self.assertGreater(goodput["change"], -0.02)
        self.assertLess(goodput["ci95_hi"], 0)
        # the failure history is the same (common random numbers) and the other policies
        # did not change at all
        self.assertEqual(rows[("dp-30m", "failures")]["change"], 0)
        for policy in ("dp-daly", "elastic"):
            self.assertEqual(rows[(policy, "goodput")]["change"], 0)
            self.assertEqual(rows[(policy, "goodput")]["verdict"], "same")
        self.assertEqual(doc["warnings"], [])

    def test_reseeded_identical_run_is_not_flagged(self):
        result = run("diff", self.a, self.c, "--format", "json", "--fail-on", "goodput<-0.005",
                     "--fail-on", "uptime<-0.005")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        rows, doc = rows_of(result)
        self.assertEqual([r for r in rows.values() if r["significant"]], [])
        self.assertFalse(rows[("dp-30m", "goodput")]["paired"])
        self.assertIsNotNone(rows[("dp-30m", "goodput")]["ci95_lo"])  # Welch interval
        self.assertEqual(len(doc["warnings"]), 1)
        self.assertIn("not the same seeds", doc["warnings"][0])
        self.assertIn("not the same seeds", result.stderr)

    def test_fail_on_exits_1_only_when_broken(self):
        broken = run("diff", self.a, self.b, "--fail-on", "goodput < -0.005")
        self.assertEqual(broken.returncode, 1, broken.stdout)
        self.assertIn("diff FAILED: 1 row(s) broke a rule", broken.stdout)
        self.assertIn("dp-30m: goodput change", broken.stdout)
        kept = run("diff", self.a, self.b, "--fail-on", "goodput<-0.05", "--fail-on",
                   "failures>0")
        self.assertEqual(kept.returncode, 0, kept.stdout)
        self.assertIn("diff passed", kept.stdout)
        # the reverse direction: B -> A is an improvement, so a "must not improve" rule fires
        self.assertEqual(run("diff", self.b, self.a, "--fail-on", "goodput>=0.005").returncode, 1)

    def test_formats(self):
        junit = run("diff", self.a, self.b, "--format", "junit", "--fail-on", "goodput<-0.005")
        self.assertEqual(junit.returncode, 1)
        root = ET.fromstring(junit.stdout)
        self.assertEqual(root.get("failures"), "1")
        failed = root.findall(".//failure/..")
        self.assertEqual([(c.get("classname"), c.get("name")) for c in failed],
                         [("demo.dp-30m", "goodput")])
        markdown = run("diff", self.a, self.b, "--format", "markdown").stdout
        self.assertIn("| scenario/point | policy | metric |", markdown)
        self.assertIn("| demo | dp-30m | goodput |", markdown)
        self.assertIn("**worse \\***", markdown)
        text = run("diff", self.a, self.b).stdout
        self.assertRegex(text, r"dp-30m +goodput .* worse \*")

    def test_out_dir_and_single_runs(self):
        out = os.path.join(self.tmp.name, "d")
        result = run("diff", os.path.join(self.a, "seed-1"), os.path.join(self.b, "seed-1"),
                     "--out", out, "--format", "json")
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(out, "diff.json"), encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(doc["format"], "goodsim-diff/1")
        self.assertIn("goodsim diff", doc["command"])
        goodput = {(r["policy"], r["metric"]): r for r in doc["rows"]}[("dp-30m", "goodput")]
        self.assertEqual((goodput["n"], goodput["verdict"], goodput["ci95_lo"]), (1, "n/a", None))
        self.assertTrue(os.path.isfile(os.path.join(out, "diff.md")))

    def test_baseline_and_sweeps(self):
        baseline = os.path.join(self.tmp.name, "base.json")
        scenario = os.path.join(self.tmp.name, "demo.json")
        with open(os.path.join(self.a, "seed-1", "summary.json"), encoding="utf-8") as f:
            resolved = json.load(f)["resolved_scenario"]
        with open(scenario, "w", encoding="utf-8") as f:
            json.dump(resolved, f)
        result = run("check", scenario, "--baseline", baseline, "--update", "--seeds", "4",
                     "-j", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        rows, _ = rows_of(run("diff", baseline, self.b, "--format", "json"))
        self.assertEqual(set(m for _, m in rows), {"goodput", "uptime"})  # what it records
        self.assertTrue(rows[("dp-30m", "goodput")]["paired"])
        self.assertEqual(rows[("dp-30m", "goodput")]["verdict"], "worse")
        sweeps = []
        for name, extra in (("s1", []), ("s2", ["--set", "policies.0.restart_time=12m"])):
            sweeps.append(os.path.join(self.tmp.name, name))
            result = run("sweep", scenario, "--vary", "horizon=3d,7d", "--seeds", "3", "-j", "2",
                         "-q", "--out", sweeps[-1], *extra)
            self.assertEqual(result.returncode, 0, result.stderr)
        result = run("diff", *sweeps, "--format", "json")
        doc = json.loads(result.stdout)
        groups = sorted({r["group"] for r in doc["rows"]})
        self.assertEqual(groups, ["horizon=3d", "horizon=7d"])
        self.assertTrue(all(r["paired"] for r in doc["rows"] if r["change"] is not None))

    def test_bad_input_exits_2(self):
        cases = [
            ((self.a, os.path.join(self.tmp.name, "nowhere")), "nowhere: no such file"),
            ((self.a, self.tmp.name), "not a run directory"),
            ((self.a, self.b, "--fail-on", "goodput"), "expected METRIC<X"),
            ((self.a, self.b, "--fail-on", "goodput<abc"), "expected a number"),
            ((self.a, self.b, "--fail-on", "godput<0"), 'unknown metric "godput"'),
            ((self.a, self.b, "--format", "html"), "expected text, markdown, json or junit"),
        ]
        for args, message in cases:
            result = run("diff", *args)
            self.assertEqual(result.returncode, 2, (args, result.stdout))
            self.assertIn(message, result.stderr, args)
        bad = os.path.join(self.tmp.name, "bad")
        os.makedirs(bad, exist_ok=True)
        with open(os.path.join(bad, "summary.json"), "w", encoding="utf-8") as f:
            f.write("{\"policies\": []}")
        result = run("diff", self.a, bad)
        self.assertEqual(result.returncode, 2)
        self.assertIn("summary.json: scenario: missing", result.stderr)


if __name__ == "__main__":
    GOODSIM = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
