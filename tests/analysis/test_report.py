#!/usr/bin/python3
"""goodsim report on every kind of output directory, and the plots it draws (what they
show, not pixels): axes that do not mislead, shared scales, labelled heatmaps.

Usage: test_report.py GOODSIM_BINARY   (run by ctest)
"""
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ANALYSIS = os.path.join(ROOT, "analysis")
sys.path.insert(0, ANALYSIS)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_fixtures  # noqa: E402

GOODSIM = None


def run(args, env=None):
    return report_fixtures.run(args, env=env)


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dirs = report_fixtures.make_all(GOODSIM, cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_kind_through_goodsim_report(self):
        env = {k: v for k, v in os.environ.items() if k != "GOODSIM_ANALYSIS_DIR"}
        for kind, directory in self.dirs.items():
            out = os.path.join(self.tmp.name, f"{kind}.html")
            result = run([GOODSIM, "report", directory, "--out", out], env)
            self.assertEqual(result.returncode, 0, (kind, result.stderr))
            with open(out, encoding="utf-8") as f:
                page = f.read()
            self.assertIn("data:image/png;base64,", page, kind)
            self.assertIn("<table>", page, kind)
            self.assertIn(f"<dt>kind</dt><dd>{kind}</dd>", page)
            self.assertIn("<dt>command</dt><dd>goodsim ", page, kind)
            self.assertIn("<dt>report command</dt><dd>goodsim report ", page, kind)
            if kind not in ("diff", "solve"):  # these name their inputs' files instead
                self.assertIn("report-test", page, kind)
            self.assertLess(page.index("<h2>Plots</h2>"), page.index("<table>"), kind)

    def test_default_output_is_in_the_directory(self):
        result = run([GOODSIM, "report", self.dirs["solve"]])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.dirs["solve"], "report.html")))

    def test_run_plots_do_not_mislead(self):
        import plot_run
        drawn = {}
        plot_run.make_plots(self.dirs["run"], os.path.join(self.tmp.name, "p-run"), drawn)
        healthy = drawn["goodput.png"]["healthy"]
        if healthy["from_zero"]:
            self.assertEqual(healthy["ylim"][0], 0)
        else:  # zoomed: the label says so
            self.assertIn("not 0", healthy["label"])
        self.assertEqual(drawn["loss.png"]["yscale"], "log")
        categories = drawn["badput.png"]["categories"]
        self.assertIn("productive", categories)
        # neither policy of the test scenario waits at a barrier: no legend entry for it
        self.assertNotIn("sync_wait", categories)
        self.assertEqual(drawn["badput_time.png"]["layers"][0], "productive")

    def test_healthy_axis_from_zero_on_a_collapse_and_zoomed_otherwise(self):
        import matplotlib.pyplot as plt
        import pandas as pd
        import plot_run
        fig, ax = plt.subplots()
        collapse = plot_run.healthy_axis(ax, pd.Series([16384, 4000, 16384]), 16384)
        self.assertEqual(collapse["ylim"][0], 0)
        self.assertEqual(collapse["label"], "healthy chips")
        dip = plot_run.healthy_axis(ax, pd.Series([16384, 16380, 16384]), 16384)
        self.assertGreater(dip["ylim"][0], 16000)
        self.assertIn("axis from 16,379, not 0", dip["label"])
        plt.close(fig)

    def test_sweep_panels_share_scales_and_the_heatmap_shows_numbers(self):
        import plot_sweep
        drawn = {}
        plot_sweep.make_plots(self.dirs["sweep"], os.path.join(self.tmp.name, "p-sweep"), drawn)
        ylims = drawn["goodput.png"]["ylims"]
        self.assertEqual(len(ylims), 2)
        self.assertEqual(ylims[0], ylims[1])
        heatmap = drawn["heatmap.png"]
        self.assertEqual(heatmap["cells"], 2 * 2 * 2)  # 2 x 2 grid, 2 policies
        from goodsim_io import load_sweep_summary
        frame, _ = load_sweep_summary(self.dirs["sweep"])
        means = frame[frame["metric"] == "goodput"]["mean"]
        # one colour scale for every panel, fitted to the data (not 0..1)
        self.assertEqual(heatmap["clims"], [(means.min(), means.max())] * 2)

    def test_errors_exit_2(self):
        result = run([GOODSIM, "report", os.path.join(self.tmp.name, "nowhere")])
        self.assertEqual(result.returncode, 2)
        self.assertIn("no such directory", result.stderr)
        empty = os.path.join(self.tmp.name, "empty")
        os.makedirs(empty, exist_ok=True)
        result = run([GOODSIM, "report", empty])
        self.assertEqual(result.returncode, 2)
        self.assertIn("neither a run", result.stderr)
        for marker, text, message in (("diff.json", "{}", "missing keys a, b, rows"),
                                      ("solve.json", "[1", "not valid JSON"),
                                      ("replications.csv", "policy\n", "seed-*/summary.json")):
            bad = os.path.join(self.tmp.name, "bad-" + marker)
            os.makedirs(bad, exist_ok=True)
            with open(os.path.join(bad, marker), "w", encoding="utf-8") as f:
                f.write(text)
            result = run([GOODSIM, "report", bad])
            self.assertEqual(result.returncode, 2, marker)
            self.assertIn(message, result.stderr, marker)
            self.assertFalse(os.path.exists(os.path.join(bad, "report.html")), marker)
        env = dict(os.environ, GOODSIM_ANALYSIS_DIR=os.path.join(self.tmp.name, "nowhere"))
        result = run([GOODSIM, "report", self.dirs["run"]], env)
        self.assertEqual(result.returncode, 2)
        self.assertIn("GOODSIM_ANALYSIS_DIR: ", result.stderr)
        self.assertIn("no report.py there", result.stderr)
        # without site-packages (python3 -S) matplotlib cannot be imported: a clear message
        result = run(["/usr/bin/python3", "-S", os.path.join(ANALYSIS, "report.py"),
                      self.dirs["run"]])
        self.assertEqual(result.returncode, 2)
        self.assertIn("python3-matplotlib", result.stderr)


if __name__ == "__main__":
    GOODSIM = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
