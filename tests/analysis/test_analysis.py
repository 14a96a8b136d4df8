#!/usr/bin/python3
"""Tests of the analysis scripts on outputs a small scenario produces here.

Usage: test_analysis.py GOODSIM_BINARY   (run by ctest)
"""
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ANALYSIS = os.path.join(ROOT, "analysis")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_fixtures  # noqa: E402

GOODSIM = None

SCENARIO = report_fixtures.small_scenario(
    "analysis-test", [{"name": "dp", "type": "data_parallel"},
                      {"name": "elastic", "type": "elastic_data_parallel"}])


run = report_fixtures.run


class AnalysisTest(unittest.TestCase):
    """One small run and one small sweep, made once for every test."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        scenario = report_fixtures.write_json(os.path.join(cls.tmp.name, "s.json"), SCENARIO)
        cls.out = os.path.join(cls.tmp.name, "out")
        result = run([GOODSIM, "run", scenario, "--out", cls.out, "--quiet"])
        assert result.returncode == 0, result.stderr
        cls.sweep_dir = os.path.join(cls.tmp.name, "sweep")
        result = run([GOODSIM, "sweep", scenario, "--vary", "policies.0.restart_time=2m,20m",
                      "--vary", "failures.0.mtbf=10d,40d", "--seeds", "3", "--jobs", "1",
                      "--out", cls.sweep_dir])
        assert result.returncode == 0, result.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def script(self, name, *args):
        return run(["/usr/bin/python3", os.path.join(ANALYSIS, name), *args])

    def test_plots_are_written(self):
        plots = os.path.join(self.tmp.name, "plots")
        result = self.script("plot_run.py", self.out, "--out", plots)
        self.assertEqual(result.returncode, 0, result.stderr)
        for name in ("goodput.png", "badput.png"):
            path = os.path.join(plots, name)
            self.assertTrue(os.path.isfile(path), path)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertGreater(os.path.getsize(path), 5000)

    def test_missing_directory_fails_clearly(self):
        result = self.script("plot_run.py", os.path.join(self.tmp.name, "nowhere"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("summary.json: no such file", result.stderr)

    def test_malformed_summary_fails_clearly(self):
        bad = os.path.join(self.tmp.name, "bad")
        os.makedirs(bad, exist_ok=True)
        with open(os.path.join(bad, "summary.json"), "w", encoding="utf-8") as f:
            f.write("{ not json")
        result = self.script("plot_run.py", bad)
        self.assertEqual(result.returncode, 2)
        self.assertIn("not valid JSON", result.stderr)

    def test_malformed_timeseries_fails_clearly(self):
        bad = os.path.join(self.tmp.name, "bad-csv")
        os.makedirs(bad, exist_ok=True)
        with open(os.path.join(self.out, "summary.json"), encoding="utf-8") as src:
            summary = src.read()
        with open(os.path.join(bad, "summary.json"), "w", encoding="utf-8") as f:
            f.write(summary)
        with open(os.path.join(bad, "timeseries.csv"), "w", encoding="utf-8") as f:
            f.write("policy,time_s\ndp,0\n")
        result = self.script("plot_run.py", bad)
        self.assertEqual(result.returncode, 2)
        self.assertIn("missing columns", result.stderr)


    def test_sweep_plots_are_written(self):
        plots = os.path.join(self.tmp.name, "sweep-plots")
        result = self.script("plot_sweep.py", self.sweep_dir, "--out", plots)
        self.assertEqual(result.returncode, 0, result.stderr)
        for name in ("goodput.png", "heatmap.png"):
            path = os.path.join(plots, name)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_reports_embed_plots_and_tables(self):
        for directory in (self.out, self.sweep_dir):
            out = os.path.join(self.tmp.name, os.path.basename(directory) + ".html")
            result = self.script("report.py", directory, "--out", out)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(out, encoding="utf-8") as f:
                page = f.read()
            self.assertIn("data:image/png;base64,", page)
            self.assertIn("<table>", page)
            self.assertIn("dp", page)

    def write_ttt(self, run_dir, times):
        """A summary.json in run_dir with one policy per (name, time_to_target_s)."""
        os.makedirs(run_dir)
        policies = [{"name": name, "type": "x", "goodput": 1, "uptime": 1, "downtime_s": 0,
                     "badput": {}, "time_to_target_s": t} for name, t in times]
        with open(os.path.join(run_dir, "summary.json"), "w", encoding="utf-8") as f:
            json.dump({"policies": policies}, f)

    def test_time_to_target_relative_to_base(self):
        run_dir = os.path.join(self.tmp.name, "ttt")
        self.write_ttt(run_dir, [("dp-base", 7200), ("dp-plus50", 9000),
                                 ("decoupled-base", 7200), ("decoupled-plus100", 3600),
                                 ("decoupled-plus25", None)])
        result = self.script("time_to_target.py", run_dir)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()[2:7]}
        self.assertEqual(lines["dp-base"], ["2.00", "1.000", "0"])
        self.assertEqual(lines["dp-plus50"], ["2.50", "1.250", "0"])
        self.assertEqual(lines["decoupled-plus100"], ["1.00", "0.500", "0"])
        self.assertEqual(lines["decoupled-plus25"], ["-", "-", "1"])
        self.assertIn("+50%", result.stdout)
        result = self.script("time_to_target.py", self.tmp.name)
        self.assertEqual(result.returncode, 2)
        self.assertIn("summary.json: no such file", result.stderr)

    def test_time_to_target_over_seeds(self):
        """Ratios are paired seed by seed: dp-plus25/dp-base is 0.5, 0.75 and 1.0 in the three
        seeds, mean 0.75, sd 0.25, half-width t(0.975, 2) x 0.25 / sqrt(3) = 0.621 (the
        ratio of the mean times, 7 / 9 = 0.778, is not what is averaged); dp-plus300: 1, 1,
        0.5, mean 0.833 +- 0.717. decoupled-plus25 missed the target in seed 8."""
        top = os.path.join(self.tmp.name, "seeds")
        base = [2 * 3600, 4 * 3600, 3 * 3600]
        plus25 = [1 * 3600, 3 * 3600, 3 * 3600]
        plus300 = [2 * 3600, 4 * 3600, 1.5 * 3600]
        for i, seed in enumerate((7, 8, 9)):
            self.write_ttt(os.path.join(top, f"seed-{seed}"),
                           [("dp-base", base[i]), ("dp-plus25", plus25[i]),
                            ("dp-plus300", plus300[i]), ("decoupled-base", 3600),
                            ("decoupled-plus25", None if seed == 8 else 1800)])
        result = self.script("time_to_target.py", top)
        self.assertEqual(result.returncode, 0, result.stderr)
        out = result.stdout
        self.assertIn("over 3 seeds", out)
        rows = {line.split()[0]: line for line in out.splitlines() if line.strip()}
        self.assertIn("0.750 +- 0.621", rows["dp-plus25"])
        self.assertIn("0.833 +- 0.717", rows["dp-plus300"])
        self.assertIn("missed 1/3", rows["+25%"])
        self.assertIn("0.750 +- 0.621", rows["+25%"])
        self.assertIn("0.833 +- 0.717", rows["+300%"])

    def test_not_a_sweep_fails_clearly(self):
        result = self.script("plot_sweep.py", self.out)
        self.assertEqual(result.returncode, 2)
        self.assertIn("summary.csv: no such file", result.stderr)
        result = self.script("report.py", self.tmp.name)
        self.assertEqual(result.returncode, 2)
        self.assertIn("neither a run", result.stderr)


class UnitsAndOrderTest(unittest.TestCase):
    """The data behind the plots (not pixels): the sweep's units, numeric order, log axes,
    one-point sweeps, chaos marks, the paired table; and check's JUnit output."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, ANALYSIS)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.scenario = report_fixtures.write_json(os.path.join(cls.tmp.name, "s.json"), SCENARIO)
        cls.log_sweep = os.path.join(cls.tmp.name, "log-sweep")
        result = run([GOODSIM, "sweep", cls.scenario, "--vary", "failures.0.mtbf=log:1y..8y:4",
                      "--vary", "policies.0.restart_time=20m,5m,10m", "--seeds", "2",
                      "--jobs", "1", "--out", cls.log_sweep, "--quiet"])
        assert result.returncode == 0, result.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_durations_in_the_sweeps_unit_on_a_log_axis_in_numeric_order(self):
        import plot_sweep
        drawn = {}
        plot_sweep.make_plots(self.log_sweep, os.path.join(self.tmp.name, "p1"), drawn)
        goodput = drawn["goodput.png"]
        self.assertEqual(goodput["x_label"], "failures.0.mtbf (y)")
        self.assertEqual(goodput["x_scale"], "log")
        for xs in goodput["x"].values():
            self.assertEqual(len(xs), 4)
            self.assertAlmostEqual(xs[0], 1.0, places=4)
            self.assertAlmostEqual(xs[-1], 8.0, places=4)
            self.assertEqual(xs, sorted(xs))
        self.assertEqual(goodput["panels"], ["5m", "10m", "20m"])
        self.assertIn("goodput by failures.0.mtbf", goodput["title"])
        heatmap = drawn["heatmap.png"]
        self.assertEqual(heatmap["rows"], ["5m", "10m", "20m"])

    def test_axis_of_a_linear_grid_and_of_names(self):
        from goodsim_io import sweep_axis
        linear = sweep_axis("cluster.chips", ["1024", "2048", "3072"])
        self.assertEqual(linear["scale"], "linear")
        self.assertEqual(linear["label"], "cluster.chips")
        mixed = sweep_axis("horizon", ["90m", "1h", "2h"])
        self.assertEqual(mixed["label"], "horizon (h)")
        self.assertEqual(mixed["order"], ["1h", "90m", "2h"])
        names = sweep_axis("policies.0.type", ["diloco", "data_parallel"])
        self.assertEqual(names["order"], ["data_parallel", "diloco"])

    def test_one_point_sweep_plots_and_reports(self):
        sweep = os.path.join(self.tmp.name, "one-point")
        result = run([GOODSIM, "sweep", self.scenario, "--seeds", "2", "--jobs", "1",
                      "--out", sweep, "--quiet"])
        self.assertEqual(result.returncode, 0, result.stderr)
        import plot_sweep
        drawn = {}
        plot_sweep.make_plots(sweep, os.path.join(self.tmp.name, "p2"), drawn)
        self.assertEqual(drawn["goodput.png"]["policies"], ["dp", "elastic"])
        out = os.path.join(self.tmp.name, "one.html")
        result = run(["/usr/bin/python3", os.path.join(ANALYSIS, "report.py"), sweep,
                      "--out", out])
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_report_has_the_paired_table_in_numeric_order(self):
        out = os.path.join(self.tmp.name, "log.html")
        result = run(["/usr/bin/python3", os.path.join(ANALYSIS, "report.py"), self.log_sweep,
                      "--out", out])
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as f:
            page = f.read()
        self.assertIn("Paired goodput differences (policy - baseline, same seeds)", page)
        self.assertIn("<th>mean_diff</th>", page)
        paired = page[page.index("Paired goodput"):]
        self.assertLess(paired.index("<td>5m</td>"), paired.index("<td>10m</td>"))

    def test_chaos_actions_are_marked_on_run_plots(self):
        scenario = dict(SCENARIO, name="chaos-test",
                        chaos=[{"at": "1d", "action": "fail", "target": {"slice": 1},
                                "duration": "2h"}])
        path = os.path.join(self.tmp.name, "chaos.json")
        report_fixtures.write_json(path, scenario)
        out = os.path.join(self.tmp.name, "chaos-out")
        result = run([GOODSIM, "run", path, "--out", out, "--quiet", "--events"])
        self.assertEqual(result.returncode, 0, result.stderr)
        import plot_run
        drawn = {}
        plot_run.make_plots(out, os.path.join(self.tmp.name, "p3"), drawn)
        self.assertEqual(drawn["goodput.png"]["chaos"],
                         [(86400.0, "fail", "begin"), (93600.0, "fail", "end")])
        self.assertIn("chaos-test", drawn["goodput.png"]["title"])

    def test_check_junit_output_parses_as_xml(self):
        import xml.etree.ElementTree as ET
        baseline = os.path.join(self.tmp.name, "baseline.json")
        base = [GOODSIM, "check", self.scenario, "--baseline", baseline, "--seeds", "2", "-j", "1"]
        result = run([*base, "--update"])
        self.assertEqual(result.returncode, 0, result.stderr)
        result = run([*base, "--format", "junit"])
        self.assertEqual(result.returncode, 0, result.stderr)
        root = ET.fromstring(result.stdout)
        self.assertEqual(root.tag, "testsuites")
        cases = root.findall("./testsuite/testcase")
        self.assertEqual(len(cases), 4)  # 2 policies x (goodput, uptime)
        self.assertEqual(root.findall(".//failure"), [])


if __name__ == "__main__":
    GOODSIM = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
