#!/usr/bin/python3
"""Tests of analysis/plot_solve.py on a solve run here.

Usage: test_plot_solve.py GOODSIM_BINARY   (run by ctest)
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

SCENARIO = report_fixtures.small_scenario("solve-plot-test",
                                          [{"name": "dp", "type": "data_parallel"}])


run = report_fixtures.run


class PlotSolveTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        scenario = report_fixtures.write_json(os.path.join(cls.tmp.name, "s.json"), SCENARIO)
        cls.out = os.path.join(cls.tmp.name, "solve")
        result = run([GOODSIM, "solve", scenario, "--find", "policies.0.restart_time=1m..4h",
                      "--require", "uptime>=0.9", "--maximize", "--seeds", "4", "-q",
                      "--out", cls.out])
        assert result.returncode in (0, 3), result.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_plot_draws_every_value_and_the_answer(self):
        import plot_solve
        definition, frame = plot_solve.load_solve(self.out)
        drawn = plot_solve.make_solve_plot(definition, frame, os.path.join(self.tmp.name, "s.png"))
        self.assertEqual(drawn["panels"], ["uptime>=0.9"])
        self.assertEqual(sorted(drawn["x"]["uptime>=0.9"]), sorted(frame["value"].unique()))
        answer = definition["answer"]["value"] if definition["answer"] else None
        self.assertEqual(drawn["answer"], answer)
        result = run(["/usr/bin/python3", os.path.join(ANALYSIS, "plot_solve.py"), self.out])
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(self.out, "plots", "solve.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_missing_directory_fails_clearly(self):
        result = run(["/usr/bin/python3", os.path.join(ANALYSIS, "plot_solve.py"),
                      os.path.join(self.tmp.name, "nowhere")])
        self.assertEqual(result.returncode, 2)
        self.assertIn("solve.json: no such file", result.stderr)


if __name__ == "__main__":
    GOODSIM = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
