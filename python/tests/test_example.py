"""analysis/examples/capacity_vs_chips.py runs end to end (on a tiny sweep)."""
import os
import subprocess
import sys

from conftest import SOURCE_DIR

SCRIPT = os.path.join(SOURCE_DIR, "analysis", "examples", "capacity_vs_chips.py")


def test_example_script_answers_and_plots(tmp_path):
    result = subprocess.run(
        [sys.executable, SCRIPT, "--chips", "1024,2048", "--seeds", "2", "--horizon", "1d",
         "--jobs", "2", "--out", str(tmp_path)],
        capture_output=True, text=True, check=False, env=os.environ.copy())
    assert result.returncode == 0, result.stderr
    assert "mean goodput ± 95% CI" in result.stdout
    for policy in ("data-parallel", "elastic", "decoupled-diloco"):
        assert f"{policy}: goodput >= 0.9" in result.stdout
    plot = tmp_path / "goodput_vs_chips.png"
    assert plot.stat().st_size > 10000

